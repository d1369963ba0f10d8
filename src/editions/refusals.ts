import { defineRefusals } from '../core/refusal/index.js';

/**
 * Why `edition new` or `edition check` refused to run. Messages are fixed
 * text: never a path, a model name, a variable value or exception text.
 * Problems found *by* a check are findings (check/findings.ts), not refusals.
 */
export type EditionRefusalCode =
  | 'edition_unknown'
  | 'edition_source_missing'
  | 'edition_source_invalid'
  | 'destination_invalid'
  | 'destination_inside_installation'
  | 'workspace_destination_symlink'
  | 'destination_exists'
  | 'destination_parent_missing'
  | 'destination_parent_invalid'
  | 'workspace_write_failed'
  | 'workspace_verify_failed'
  | 'workspace_rename_unavailable'
  | 'workspace_interrupted'
  | 'project_missing'
  | 'project_invalid'
  | 'project_file_missing'
  | 'project_file_invalid'
  | 'project_file_yaml'
  | 'project_file_schema'
  | 'project_path_invalid'
  | 'project_entry_invalid'
  | 'project_too_large'
  | 'vars_invalid'
  | 'fixtures_missing'
  | 'fixtures_invalid'
  | 'fixtures_too_large'
  | 'fixture_unknown_table'
  | 'check_schemas_unavailable'
  | 'check_engine_unavailable';

export const refuseEdition = defineRefusals<EditionRefusalCode>({
  edition_unknown: { category: 'unsupported', message: 'the edition is not one of: bigquery, snowflake' },
  edition_source_missing: {
    category: 'unavailable',
    message: 'the edition is missing from this sealkit installation',
  },
  edition_source_invalid: {
    category: 'malformed',
    message:
      'the edition in this sealkit installation holds a symbolic link, a special file or too much data',
  },
  destination_invalid: {
    category: 'malformed',
    message: 'the destination path is empty, ends in . or .., is not valid text, or is too long',
  },
  destination_inside_installation: {
    category: 'conflict',
    message: 'the destination lies inside the sealkit installation or checkout; choose a folder outside it',
  },
  workspace_destination_symlink: {
    category: 'malformed',
    message: 'the destination, or a folder on the way to it, is a symbolic link',
  },
  destination_exists: {
    category: 'conflict',
    message: 'the destination already exists; a workspace is only ever created new',
  },
  destination_parent_missing: {
    category: 'missing',
    message: 'the folder that would hold the destination does not exist',
  },
  destination_parent_invalid: {
    category: 'malformed',
    message: 'the folder that would hold the destination is not a directory or cannot be opened',
  },
  workspace_write_failed: {
    category: 'unavailable',
    message: 'the workspace could not be written; nothing was published at the destination',
  },
  workspace_verify_failed: {
    category: 'conflict',
    message: 'the staged workspace did not match the edition; nothing was published at the destination',
  },
  workspace_rename_unavailable: {
    category: 'unavailable',
    message: 'atomic no-replace publication is not available on this platform or filesystem',
  },
  workspace_interrupted: {
    category: 'unavailable',
    message:
      'the workspace was interrupted by a signal before it was published; what this run staged was removed and nothing exists at the destination',
  },
  project_missing: { category: 'missing', message: 'the project directory does not exist' },
  project_invalid: {
    category: 'malformed',
    message: 'the project directory is not a directory, passes through a symbolic link or cannot be read',
  },
  project_file_missing: { category: 'missing', message: 'the project directory holds no dbt_project.yml' },
  project_file_invalid: {
    category: 'malformed',
    message: 'dbt_project.yml is not a single YAML mapping with a project name',
  },
  project_file_yaml: {
    category: 'malformed',
    message: 'dbt_project.yml is not a single well-formed YAML document (or repeats a key)',
  },
  project_file_schema: {
    category: 'malformed',
    message: "dbt_project.yml does not validate against dbt's JSON schema",
  },
  project_path_invalid: {
    category: 'malformed',
    message:
      'a model, macro, test, seed or snapshot path in dbt_project.yml is absolute or leaves the project',
  },
  project_entry_invalid: {
    category: 'malformed',
    message: 'a model or macro folder holds a symbolic link, a special file or a name that is not UTF-8',
  },
  project_too_large: {
    category: 'oversized',
    message: 'the project exceeds the offline check limits on files, bytes or folder depth',
  },
  vars_invalid: {
    category: 'malformed',
    message: 'the --vars value is not a YAML mapping of variable names to values',
  },
  fixtures_missing: { category: 'missing', message: 'the fixtures directory does not exist' },
  fixtures_invalid: {
    category: 'malformed',
    message:
      'the fixtures directory is not laid out as <source>/<table>.csv with well-formed CSV (header row of identifiers, equal field counts)',
  },
  fixtures_too_large: {
    category: 'oversized',
    message: 'the fixtures exceed the offline check limits on files or bytes',
  },
  fixture_unknown_table: {
    category: 'mismatched',
    message: 'a fixture file names a source table the project does not define',
  },
  check_schemas_unavailable: {
    category: 'unavailable',
    message: "dbt's JSON schemas are missing from this sealkit installation",
  },
  check_engine_unavailable: {
    category: 'unavailable',
    message: 'the embedded DuckDB engine could not be loaded',
  },
});
