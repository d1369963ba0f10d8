import {
  STARTER_EDITION_FACTS,
  STARTER_EDITION_ORDER,
  type StarterEditionId,
} from '../core/editions/index.js';

/**
 * The two starter editions sealkit ships under `editions/`. A workspace made
 * from an edition keeps the edition's layout, so the dbt project sits at
 * `projectDir` inside the workspace (the workspace root for BigQuery,
 * `kit/` for Snowflake).
 */
export type EditionId = StarterEditionId;

export interface EditionSpec {
  readonly id: EditionId;
  /** The folder under `editions/`. */
  readonly folder: string;
  /** The dbt project inside a workspace, relative to its root ('' is the root itself). */
  readonly projectDir: string;
  /** `name:` in the edition's dbt_project.yml. */
  readonly projectName: string;
}

export const STARTER_EDITIONS: { readonly [K in EditionId]: EditionSpec } = {
  bigquery: { id: 'bigquery', ...STARTER_EDITION_FACTS.bigquery },
  snowflake: { id: 'snowflake', ...STARTER_EDITION_FACTS.snowflake },
};

export const STARTER_EDITION_IDS: readonly EditionId[] = STARTER_EDITION_ORDER;

export function isEditionId(value: string): value is EditionId {
  return (STARTER_EDITION_IDS as readonly string[]).includes(value);
}
