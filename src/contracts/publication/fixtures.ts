import { baseProject, type Doc, filesOf, source } from '../fixtures/resources.js';
import { ContractProject } from '../project/contract-project.js';
import type { SqlParser } from '../sql/parser.js';
import type { WideningApproval } from './approval.js';
import type { PublicationCandidate } from './decide.js';

/**
 * Test and benchmark fixtures: canonical candidates made by the real
 * projection pipeline from the base project of `../fixtures/resources.ts`
 * with changes, keyed by resource id.
 */
export async function candidatesOf(
  changes: Readonly<Record<string, Doc | null>>,
  parser: SqlParser,
): Promise<ReadonlyMap<string, PublicationCandidate>> {
  const project = await ContractProject.fromFiles(filesOf(baseProject(changes)), parser);
  if (!project.valid) throw new Error('fixture project is not valid');
  const out = new Map<string, PublicationCandidate>();
  for (const outcome of project.outcomes) {
    if (outcome.kind === 'Dashboard' || outcome.id === null) continue;
    const { bytes, digest } = project.project(outcome.id);
    out.set(outcome.id, { bytes, digest });
  }
  return out;
}

/** The base source at `version`, with field changes by name. */
export function sourceAt(version: string, fieldChanges: Readonly<Record<string, Doc>> = {}): Doc {
  return source({
    contract: { version, compatibility: 'backward' },
    fields: (source().fields as Doc[]).map((field) => ({
      ...field,
      ...(fieldChanges[field.name as string] ?? {}),
    })),
  });
}

export function approvalOf(approves: string, overrides: Partial<WideningApproval> = {}): WideningApproval {
  return {
    approves,
    approver: 'Ada Data-Steward',
    approvedAt: '2026-03-01T09:30:00Z',
    reason: 'Amounts above 10^10 arrive from the new wholesale channel.',
    ...overrides,
  };
}
