/**
 * What the offline check can find wrong with a project, one stable code per
 * kind of problem, each with fixed text. The message never carries a name
 * or a value; where the problem is (file, line, column, key path), the name
 * it is about, DuckDB's one-line message and failing rows are the finding's
 * `location`, `hint`, `detail` and `failing_rows` (docs/editions.md#reading-an-error).
 */
export type FindingCode =
  | 'file_not_utf8'
  | 'yaml_syntax'
  | 'yaml_schema'
  | 'tests_and_data_tests'
  | 'invalid_resource_name'
  | 'duplicate_model'
  | 'duplicate_test'
  | 'duplicate_macro'
  | 'duplicate_source'
  | 'properties_without_model'
  | 'duplicate_properties'
  | 'version_file_missing'
  | 'duplicate_version'
  | 'latest_version_unknown'
  | 'version_file_properties'
  | 'version_columns_invalid'
  | 'jinja_syntax'
  | 'undefined_ref'
  | 'undefined_source'
  | 'undefined_macro'
  | 'undefined_doc'
  | 'undefined_variable'
  | 'undefined_filter'
  | 'undefined_var'
  | 'undefined_env_var'
  | 'compiler_error'
  | 'render_error'
  | 'config_not_boolean'
  | 'config_path_unused'
  | 'config_key_unknown'
  | 'ref_to_disabled_model'
  | 'source_disabled'
  | 'dependency_cycle'
  | 'sql_parse_error'
  | 'sql_not_single_select'
  | 'fixture_missing'
  | 'fixture_column_missing'
  | 'build_failed'
  | 'dependency_failed'
  | 'snapshot_not_built'
  | 'unsupported_test'
  | 'test_target_invalid'
  | 'test_failed'
  | 'test_error';

export const FINDING_MESSAGES: { readonly [K in FindingCode]: string } = {
  file_not_utf8: 'the file is not UTF-8 text without a byte order mark',
  yaml_syntax: 'the file is not a single well-formed YAML document (or repeats a key)',
  yaml_schema: "the file does not validate against dbt's JSON schema",
  tests_and_data_tests: 'an entry lists tests under both data_tests: and tests:, which dbt refuses',
  invalid_resource_name: 'a model, source, table or column name is not a plain identifier',
  duplicate_model: 'two model files have the same name',
  duplicate_test: 'two tests have the same name',
  duplicate_macro: 'two macros have the same name',
  duplicate_source: 'a source table is defined twice',
  properties_without_model: 'a properties file describes a model that has no SQL file',
  duplicate_properties: 'a model is described by more than one properties entry',
  version_file_missing: 'a version of a model has no SQL file',
  duplicate_version: 'a model lists the same version more than once',
  latest_version_unknown: 'latest_version names no version of the model',
  version_file_properties: "a version's SQL file is also described as a model of its own",
  version_columns_invalid: "a version's include/exclude of the model's columns is not one dbt reads",
  jinja_syntax: 'the Jinja template does not compile',
  undefined_ref: 'ref() names a model the project does not have',
  undefined_source: 'source() names a source table the project does not define',
  undefined_macro: 'the template calls a macro or function that is not defined',
  undefined_doc: 'a description calls doc() for a docs block the project does not have',
  undefined_variable: 'the template prints a variable that is not defined',
  undefined_filter: 'the template uses a filter that is not defined',
  undefined_var: 'var() names a variable that has no value and no default',
  undefined_env_var: 'env_var() names an environment variable that is unset and has no default',
  compiler_error: 'a macro raised a compiler error',
  render_error: 'the template failed to render',
  config_not_boolean: 'an enabled config does not render to true or false',
  config_path_unused:
    'a models:, sources:, seeds: or snapshots: path in dbt_project.yml applies to no resource',
  config_key_unknown: 'a config key is not one dbt knows, so it sets nothing',
  ref_to_disabled_model: 'an enabled model refers to a disabled model',
  source_disabled: 'an enabled model reads a disabled source',
  dependency_cycle: 'the model is part of a ref() cycle',
  sql_parse_error: 'the rendered SQL does not parse',
  sql_not_single_select: 'the rendered SQL is not exactly one SELECT statement',
  fixture_missing: 'no fixture CSV was given for a source table the model reads',
  fixture_column_missing: 'the fixture CSV has no column for a column its source table declares',
  build_failed: 'the model failed to build on the fixtures',
  dependency_failed: 'a model this one depends on did not build',
  snapshot_not_built: 'the model reads a snapshot, which the offline check does not build',
  unsupported_test:
    'the offline check cannot run this test: it runs not_null, unique, relationships, accepted_values and singular tests, without configs',
  test_target_invalid: 'the test names a column or relationship target the check cannot resolve',
  test_failed: 'the test found failing rows',
  test_error: 'the test query failed to run',
};
