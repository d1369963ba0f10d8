import { STARTER_EDITION_FACTS, starterProjectPath } from '../core/editions/index.js';
import type { Destination } from './identifiers.js';

/** The starter edition each warehouse destination selects (binding step 8): its dbt project's path. */
export const EDITIONS = {
  bigquery: starterProjectPath(STARTER_EDITION_FACTS.bigquery),
  snowflake: starterProjectPath(STARTER_EDITION_FACTS.snowflake),
} as const;

export type EditionDestination = keyof typeof EDITIONS;
export type EditionPath = (typeof EDITIONS)[EditionDestination];

/**
 * The edition a destination selects, or undefined: DuckDB is a local
 * rehearsal and selects none (gap 10, docs/evidence.md#evidence-gaps), so
 * binding refuses it with `scaffold_destination_edition_unbound`.
 */
export function editionFor(destination: Destination): EditionPath | undefined {
  return destination === 'duckdb' ? undefined : EDITIONS[destination];
}
