import { nearest, type Refusal } from '../../core/refusal/index.js';
import type { ContractProject } from '../project/contract-project.js';
import { splitApprovalTarget, type WideningApproval } from './approval.js';
import { readPublicationHistory } from './history.js';
import type { LedgerLocation } from './location.js';
import { openLedger } from './open.js';
import { refuseLedger } from './refusals.js';

/**
 * What a publication of a contract project is asked for, told against the
 * project's files and the ledger: a `--resource` id that no file declares
 * (but the ledger may still hold), and an approval naming a resource the
 * run does not publish. Both are the operator's own input, so the refusals
 * say where the resource is, or that it is not there, and what to do
 * (docs/contracts.md#commands-classification-ledger-graph).
 */

/**
 * The refusal of a requested id that no file of the project declares. When
 * the ledger at `location` holds publications of it, its file left the
 * project (deleted, or the id renamed): the refusal says so, with the latest
 * entry as the absent listing of a whole run shows it. The ledger is only
 * read (never created); a ledger that cannot be read leaves the plain
 * refusal, which is just as true.
 */
export async function resourceNotFoundInLedger(
  project: ContractProject,
  id: string,
  location: LedgerLocation,
): Promise<Refusal> {
  try {
    const connection = await openLedger(location, { create: false, readOnly: true });
    try {
      const latest = (await readPublicationHistory(connection.session, id)).at(-1);
      if (latest !== undefined) {
        return project.resourceNotFound(id, {
          kind: latest.resource.kind,
          version: latest.version,
          position: latest.position,
        });
      }
    } finally {
      await connection.close();
    }
  } catch {
    // No ledger, or one that cannot be read now: the project's own refusal stands.
  }
  return project.resourceNotFound(id);
}

/**
 * Refuses an approval naming a resource the run does not publish
 * (`published`: the ids of its candidates; `requested`: the `--resource`
 * ids, undefined for the whole project) with `contract_ledger_approval_target_unknown`,
 * placed where the resource is and saying the one reason that applies: the
 * resource's file (at its `id`) when `--resource` left it out, when it is a
 * dashboard or declares no contract version; the project folder, with the
 * nearest id, when no file declares it. Returns undefined when every
 * approval names a published resource.
 */
export function approvalOutsideRun(
  project: ContractProject,
  approvals: readonly WideningApproval[],
  published: readonly string[],
  requested: readonly string[] | undefined,
): Refusal | undefined {
  for (const approval of approvals) {
    const target = splitApprovalTarget(approval.approves);
    if (target === undefined || published.includes(target.id)) continue;
    const drop = `drop --approve-widening ${approval.approves}`;
    const unknown = (hint: string, location?: { readonly path: string }) =>
      refuseLedger('contract_ledger_approval_target_unknown', {
        role: 'publication',
        field: 'approval.approves',
        ...(location === undefined ? {} : { location }),
        hint,
      });
    const outcome = project.outcomes.find((candidate) => candidate.id === target.id);
    if (outcome === undefined) {
      const near = nearest(
        target.id,
        project.outcomes.flatMap((one) =>
          one.kind !== 'Dashboard' && one.version !== null && one.id !== null ? [one.id] : [],
        ),
      );
      const leftOut =
        near !== undefined && requested !== undefined && !requested.includes(near)
          ? ` (add --resource ${near} too: this run publishes only what --resource names)`
          : '';
      return unknown(
        `no resource of the project has the id '${target.id}', so this run publishes none; ${near === undefined ? drop : `did you mean '${near}'?${leftOut}`}`,
        project.root === undefined ? undefined : { path: project.root },
      );
    }
    const hint =
      outcome.kind === 'Dashboard'
        ? `${target.id} is a Dashboard, which is never published and takes no approval: ${drop}`
        : outcome.version === null
          ? `${target.id} declares no contract version, so no run publishes it: add a contract: block with its version to its file, or ${drop}`
          : requested !== undefined
            ? `--resource leaves ${target.id} out of this run, which publishes only ${requested.join(', ')}: add --resource ${target.id} to publish it with this approval, or ${drop}`
            : undefined;
    if (hint !== undefined) return project.placeInFile(target.id, unknown(hint), 'id');
  }
  return undefined;
}
