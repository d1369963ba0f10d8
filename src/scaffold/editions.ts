import { EDITIONS, type EditionPath } from '../migration/index.js';

/**
 * The two editions a scaffold targets. Everything edition-specific the
 * generator uses is here: where the dbt project sits in a workspace, the
 * project name that identifies it (docs/scaffold.md#usage), and the edition
 * path the evidence selects (docs/evidence.md). The generated SQL calls the edition's own
 * `starter_cast` / key-policy macros, so no warehouse SQL is templated here.
 */
export type ScaffoldEdition = 'bigquery' | 'snowflake';

export interface EditionProfile {
  readonly id: ScaffoldEdition;
  /** The dbt project inside the workspace: '.' (the root) or 'kit'. */
  readonly projectDir: '.' | 'kit';
  readonly projectName: 'retail_analytics' | 'reliable_pipeline';
  /** What `bindEvidence` reports as the edition the evidence selects. */
  readonly evidenceEdition: EditionPath;
}

export const EDITION_PROFILES: { readonly [K in ScaffoldEdition]: EditionProfile } = {
  bigquery: {
    id: 'bigquery',
    projectDir: '.',
    projectName: 'retail_analytics',
    evidenceEdition: EDITIONS.bigquery,
  },
  snowflake: {
    id: 'snowflake',
    projectDir: 'kit',
    projectName: 'reliable_pipeline',
    evidenceEdition: EDITIONS.snowflake,
  },
};

export const SCAFFOLD_EDITIONS: readonly ScaffoldEdition[] = ['bigquery', 'snowflake'];

export function isScaffoldEdition(value: unknown): value is ScaffoldEdition {
  return typeof value === 'string' && (SCAFFOLD_EDITIONS as readonly string[]).includes(value);
}
