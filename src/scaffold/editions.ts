import {
  STARTER_EDITION_FACTS,
  STARTER_EDITION_ORDER,
  type StarterEditionFacts,
  type StarterEditionId,
} from '../core/editions/index.js';
import { EDITIONS, type EditionPath } from '../migration/index.js';

/**
 * The two editions a scaffold targets. Everything edition-specific the
 * generator uses is here: where the dbt project sits in a workspace, the
 * project name that identifies it (docs/scaffold.md#usage), and the edition
 * path the evidence selects (docs/evidence.md), all derived from the one
 * catalogue of docs/editions.md#the-editions. The generated SQL calls the edition's own
 * `starter_cast` / key-policy macros, so no warehouse SQL is templated here.
 */
export type ScaffoldEdition = StarterEditionId;

export interface EditionProfile {
  readonly id: ScaffoldEdition;
  /** The dbt project inside the workspace, as results name it: '.' (the root) or 'kit'. */
  readonly projectDir: '.' | 'kit';
  readonly projectName: StarterEditionFacts['projectName'];
  /** What `bindEvidence` reports as the edition the evidence selects. */
  readonly evidenceEdition: EditionPath;
}

function profileOf(id: ScaffoldEdition): EditionProfile {
  const facts = STARTER_EDITION_FACTS[id];
  return {
    id,
    // A result names the workspace root '.', never the empty path.
    projectDir: facts.projectDir === '' ? '.' : facts.projectDir,
    projectName: facts.projectName,
    evidenceEdition: EDITIONS[id],
  };
}

export const EDITION_PROFILES: { readonly [K in ScaffoldEdition]: EditionProfile } = {
  bigquery: profileOf('bigquery'),
  snowflake: profileOf('snowflake'),
};

export const SCAFFOLD_EDITIONS: readonly ScaffoldEdition[] = STARTER_EDITION_ORDER;

export function isScaffoldEdition(value: unknown): value is ScaffoldEdition {
  return typeof value === 'string' && (SCAFFOLD_EDITIONS as readonly string[]).includes(value);
}
