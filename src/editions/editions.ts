/**
 * The two starter editions sealkit ships under `editions/`. A workspace made
 * from an edition keeps the edition's layout, so the dbt project sits at
 * `projectDir` inside the workspace (the workspace root for BigQuery,
 * `kit/` for Snowflake).
 */
export type EditionId = 'bigquery' | 'snowflake';

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
  bigquery: { id: 'bigquery', folder: 'Bigquery', projectDir: '', projectName: 'retail_analytics' },
  snowflake: { id: 'snowflake', folder: 'Snowflake', projectDir: 'kit', projectName: 'reliable_pipeline' },
};

export const STARTER_EDITION_IDS: readonly EditionId[] = ['bigquery', 'snowflake'];

export function isEditionId(value: string): value is EditionId {
  return (STARTER_EDITION_IDS as readonly string[]).includes(value);
}
