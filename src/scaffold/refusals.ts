import { defineRefusals, type WithDetails } from '../core/refusal/index.js';
import type { CanonicalTableName } from './canonical.js';

/**
 * The scaffolder's own fixed reason codes
 * (docs/scaffold.md#reason-codes-and-their-fixes). Input-binding failures keep the evidence
 * contract's `scaffold_*` codes (src/migration/refusals.ts). Messages are
 * fixed text: never a path, a name, a fingerprint, an errno or a value.
 */
export type ScaffoldRefusalCode =
  | 'option_invalid'
  | 'source_id_invalid'
  | 'atomic_publish_unavailable'
  | 'workspace_inside_starter_repo'
  | 'workspace_invalid'
  | 'workspace_is_starter_checkout'
  | 'workspace_is_project_folder'
  | 'edition_project_mismatch'
  | 'edition_option_mismatch'
  | 'workspace_missing_migration_models'
  | 'workspace_unreadable'
  | 'staging_inside_dbt_paths'
  | 'symlink_refused'
  | 'not_regular_file'
  | 'output_exists'
  | 'output_parent_invalid'
  | 'staging_root_invalid'
  | 'staging_in_use'
  | 'staging_exists'
  | 'staging_cross_filesystem'
  | 'non_canonical_table'
  | 'non_canonical_target'
  | 'missing_primary_key'
  | 'missing_contract_column'
  | 'inventory_identifier_missing'
  | 'inventory_identifier_unsafe'
  | 'staging_write_failed'
  | 'staging_modified'
  | 'workspace_changed'
  | 'publish_permission_denied'
  | 'publish_failed'
  | 'interrupted';

/** The collisions preflight's path survey reports, most decisive first (docs/scaffold.md). */
export type CollisionCode =
  | 'symlink_refused'
  | 'not_regular_file'
  | 'output_exists'
  | 'output_parent_invalid'
  | 'staging_root_invalid'
  | 'staging_in_use'
  | 'staging_exists';

/**
 * A collision preflight found: which path the result points the operator at,
 * and whether the existing output is sealed (the result then gives a repair
 * command). Present only on preflight's refusal; the same codes raised later
 * (a race at publish) carry none.
 */
export interface PathCollision {
  readonly concerns: 'output' | 'staging' | undefined;
  readonly outputSealed: boolean;
  /** Every collision found, in precedence order (the first is the refusal's own code), with its path. */
  readonly conditions: readonly CollisionCondition[];
}

/** One collision on the output or staging path. */
export interface CollisionCondition {
  readonly code: CollisionCode;
  readonly concerns: 'output' | 'staging';
}

/** The canonical table an input-rule refusal concerns: the only name a scaffold result may carry. */
export interface ConcernedTable {
  readonly table: CanonicalTableName;
}

/**
 * The scaffolder's details (docs/refusals.md#details). Never printed: the
 * result object takes from them only what it has always shown.
 */
export type ScaffoldRefusalDetails = WithDetails<
  ScaffoldRefusalCode,
  { readonly [K in CollisionCode]: PathCollision | undefined } & {
    readonly non_canonical_target: ConcernedTable;
    readonly missing_primary_key: ConcernedTable;
    readonly missing_contract_column: ConcernedTable;
    readonly inventory_identifier_missing: ConcernedTable;
    readonly inventory_identifier_unsafe: ConcernedTable;
  }
>;

export const refuseScaffold = defineRefusals<ScaffoldRefusalCode, ScaffoldRefusalDetails>({
  option_invalid: {
    category: 'malformed',
    message: 'a scaffold option is missing or outside its allowed values',
  },
  source_id_invalid: {
    category: 'malformed',
    message: 'the source id must be a generic alias matching ^[a-z][a-z0-9_]{0,39}$',
  },
  atomic_publish_unavailable: {
    category: 'unavailable',
    message: 'this platform or filesystem offers no atomic no-replace directory rename; nothing is published',
  },
  workspace_inside_starter_repo: {
    category: 'malformed',
    message: 'the workspace, its output or its staging path lies inside the sealkit installation or checkout',
  },
  workspace_invalid: {
    category: 'malformed',
    message:
      'the workspace or its dbt project directory does not exist, is not a directory, or is a symbolic link',
  },
  workspace_is_starter_checkout: {
    category: 'malformed',
    message: 'the workspace has the starter repository layout (editions/Bigquery or editions/Snowflake)',
  },
  workspace_is_project_folder: {
    category: 'malformed',
    message:
      'the folder given is the dbt project kit/ of a snowflake workspace; pass the workspace root, the folder that holds kit/',
  },
  edition_project_mismatch: {
    category: 'mismatched',
    message:
      "the dbt project has no readable dbt_project.yml or its name does not match the edition: --edition names the workspace's edition (bigquery: the project at the workspace root; snowflake: the project in kit/)",
  },
  edition_option_mismatch: {
    category: 'mismatched',
    message:
      'the evidence agrees on its destination, but --edition names the other edition; pass the edition the destination selects',
  },
  workspace_missing_migration_models: {
    category: 'missing',
    message: 'the dbt project has no models/migration/ directory; it is not an edition workspace',
  },
  workspace_unreadable: {
    category: 'unavailable',
    message: 'a workspace directory could not be read',
  },
  staging_inside_dbt_paths: {
    category: 'malformed',
    message: 'the staging directory would lie inside a dbt path configured in dbt_project.yml',
  },
  symlink_refused: {
    category: 'malformed',
    message: 'a symbolic link sits on the output or staging path; it is left unchanged',
  },
  not_regular_file: {
    category: 'malformed',
    message: 'a special file (not a regular file or directory) sits on the output or staging path',
  },
  output_exists: {
    category: 'conflict',
    message: 'the output directory already exists; the scaffolder only ever creates it new',
  },
  output_parent_invalid: {
    category: 'malformed',
    message:
      'models/migration/generated/ is not a directory owned by the current user without group or other write permission',
  },
  staging_root_invalid: {
    category: 'malformed',
    message:
      'the staging root or its lock file is not owner-only, not owned by the current user, or not as expected',
  },
  staging_in_use: {
    category: 'conflict',
    message:
      'another scaffold run for this source id holds the staging lock; do not remove its staging directory',
  },
  staging_exists: {
    category: 'conflict',
    message: 'a staging directory of an abandoned run exists; inspect it, then remove it by hand',
  },
  staging_cross_filesystem: {
    category: 'unavailable',
    message:
      'the staging root and the output directory are not on the same mount; no atomic rename is possible',
  },
  non_canonical_table: {
    category: 'malformed',
    message: 'the mapping names a table outside the canonical retail tables',
  },
  non_canonical_target: {
    category: 'malformed',
    message: 'a mapping rule targets a column outside the canonical columns of its table',
  },
  missing_primary_key: {
    category: 'missing',
    message: 'the canonical primary key of a table resolves to no mapping rule or Bronze column',
  },
  missing_contract_column: {
    category: 'missing',
    message: 'a canonical column of a table resolves to no mapping rule or Bronze column',
  },
  inventory_identifier_missing: {
    category: 'missing',
    message: 'the dry run records no normalized Bronze column for a mapping rule source',
  },
  inventory_identifier_unsafe: {
    category: 'malformed',
    message: 'a Bronze table or column name from the dry run is not a safe SQL identifier',
  },
  staging_write_failed: {
    category: 'unavailable',
    message: 'the staging directory could not be written or sealed; nothing was published',
  },
  staging_modified: {
    category: 'conflict',
    message: 'the staging directory changed during the run; nothing was published',
  },
  workspace_changed: {
    category: 'conflict',
    message: 'a workspace directory on the output path was replaced during the run; nothing was published',
  },
  publish_permission_denied: {
    category: 'unavailable',
    message:
      'the filesystem denied creating models/migration/generated/ or the publishing rename into it; nothing was published',
  },
  publish_failed: {
    category: 'unavailable',
    message: 'the publishing rename failed; nothing was published',
  },
  interrupted: {
    category: 'unavailable',
    message: 'the run was interrupted before publication; nothing was published',
  },
});

/** Conditions of a run that did publish (docs/scaffold.md#the-result-object-and-exit-codes); they are reported, not thrown. */
export type PublicationConditionCode =
  | 'published_durability_unknown'
  | 'published_permissions_not_normalized'
  | 'publish_identity_mismatch';

export const PUBLICATION_CONDITION_MESSAGES: { readonly [K in PublicationConditionCode]: string } = {
  published_durability_unknown:
    'the output is complete and visible, but a directory fsync failed: it may not survive a crash',
  published_permissions_not_normalized:
    'the output is complete, but some modes are still read-only; run the repair command before editing',
  publish_identity_mismatch:
    'the directory now at the output path is not the one this run verified; inspect it before use',
};
