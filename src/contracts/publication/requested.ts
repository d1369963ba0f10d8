import { nearest, type Refusal } from '../../core/refusal/index.js';
import type { ContractProject, PublishedResource } from '../project/contract-project.js';
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
  return project.resourceNotFound(id, (await publishedInLedger([id], location)).get(id));
}

/**
 * The latest publication of each of `ids` that the ledger at `location`
 * holds, read only (never created). A ledger that does not exist or cannot
 * be read now holds none: the refusals then keep the project's own hint,
 * which is just as true.
 */
async function publishedInLedger(
  ids: readonly string[],
  location: LedgerLocation,
): Promise<ReadonlyMap<string, PublishedResource>> {
  const held = new Map<string, PublishedResource>();
  if (ids.length === 0) return held;
  try {
    const connection = await openLedger(location, { create: false, readOnly: true });
    try {
      for (const id of ids) {
        const latest = (await readPublicationHistory(connection.session, id)).at(-1);
        if (latest !== undefined) {
          held.set(id, { kind: latest.resource.kind, version: latest.version, position: latest.position });
        }
      }
    } finally {
      await connection.close();
    }
  } catch {
    return new Map();
  }
  return held;
}

/**
 * `approvalOutsideRun`, told against the ledger at `location` as well: an
 * approval for an id no file declares but the ledger holds (its file
 * deleted, or its id renamed) says so, with the latest entry, as
 * `publish --resource` of that id does, rather than only that no file has
 * it. The ledger is read only when such an approval is there.
 */
export async function approvalOutsideRunInLedger(
  project: ContractProject,
  approvals: readonly WideningApproval[],
  published: readonly string[],
  requested: readonly string[] | undefined,
  location: LedgerLocation,
): Promise<Refusal | undefined> {
  const undeclared = approvals.flatMap((approval) => {
    const target = splitApprovalTarget(approval.approves);
    return target === undefined ||
      published.includes(target.id) ||
      project.outcomes.some((outcome) => outcome.id === target.id)
      ? []
      : [target.id];
  });
  const held = await publishedInLedger([...new Set(undeclared)], location);
  return approvalOutsideRun(project, approvals, published, requested, held);
}

/**
 * Refuses an approval naming a resource the run does not publish
 * (`published`: the ids of its candidates; `requested`: the `--resource`
 * ids, undefined for the whole project) with `contract_ledger_approval_target_unknown`,
 * placed where the resource is and saying the one reason that applies: the
 * resource's file (at its `id`) when `--resource` left it out, when it is a
 * dashboard or declares no contract version; the project folder, with the
 * nearest id, when no file declares it, or saying that the ledger holds
 * it when `held` has its latest publication (see `approvalOutsideRunInLedger`).
 * Returns undefined when every approval names a published resource.
 */
export function approvalOutsideRun(
  project: ContractProject,
  approvals: readonly WideningApproval[],
  published: readonly string[],
  requested: readonly string[] | undefined,
  held: ReadonlyMap<string, PublishedResource> = new Map(),
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
    const inLedger = outcome === undefined ? held.get(target.id) : undefined;
    if (inLedger !== undefined) {
      return unknown(
        `the ledger holds ${target.id} (${inLedger.kind} ${inLedger.version}, published at position ${inLedger.position}), but no file of the project has this id (deleted or renamed), so this run publishes none: restore its file with a version above ${inLedger.version} to publish it with an approval, or ${drop}`,
        project.root === undefined ? undefined : { path: project.root },
      );
    }
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
