import type { Sha256Prefixed } from '../../core/digest/index.js';
import { editDistance } from '../../core/refusal/index.js';
import { type AppliedPublication, insertPlannedEntries, plannedEntries } from './apply.js';
import { APPROVAL_PART_FORMS, splitApprovalTarget, type WideningApproval } from './approval.js';
import type { LedgerConnection } from './connection.js';
import type { LedgerEntry } from './entry.js';
import { guardLedger } from './guard.js';
import type { LedgerLocation } from './location.js';
import { openLedger } from './open.js';
import { type EmbeddedLedgerStart, holdEmbeddedLedger } from './open-embedded.js';
import { type PublicationPlan, planPublication } from './plan.js';
import { refuseLedger } from './refusals.js';
import { ensureLedgerSchema } from './schema.js';
import {
  absentResources,
  emptyLedgerState,
  type LedgerState,
  latestBaseline,
  readInspectedLedgerState,
  readLedgerState,
} from './state.js';

/** A candidate whose resource id the caller already knows (e.g. from a projected contract project). */
export interface IdentifiedCandidate {
  readonly id: string;
  readonly bytes: Uint8Array;
  readonly digest: Sha256Prefixed;
}

/** One approval, several (one per resource), or none. */
export type WideningApprovals = WideningApproval | readonly WideningApproval[] | null;

function approvalList(approvals: WideningApprovals): readonly WideningApproval[] {
  if (approvals === null) return [];
  return Array.isArray(approvals) ? approvals : [approvals as WideningApproval];
}

/**
 * Plans publishing each candidate on top of its resource's latest publication
 * (or as its genesis). Each approval goes to the candidate it names (at most
 * one per resource: a second one is `contract_ledger_approval_invalid`); an
 * approval naming none of them is refused.
 */
export function planLatestPublication(
  state: LedgerState,
  candidates: readonly IdentifiedCandidate[],
  approvals: WideningApprovals,
): PublicationPlan {
  const byId = new Map<string, WideningApproval>();
  for (const approval of approvalList(approvals)) {
    const target = splitApprovalTarget(approval.approves);
    if (target === undefined) {
      throw refuseLedger('contract_ledger_approval_invalid', {
        role: 'approval',
        field: 'approval.approves',
        hint: APPROVAL_PART_FORMS['approval.approves'],
      });
    }
    if (!candidates.some((candidate) => candidate.id === target.id)) {
      // The CLI refuses this before the ledger, at the resource's file with
      // the reason that applies (`approvalOutsideRun`); a library caller
      // without a project gets the candidates' view.
      // Only a near typo is suggested: ids of one project share long prefixes.
      const near = candidates
        .map((candidate) => ({ id: candidate.id, distance: editDistance(target.id, candidate.id) }))
        .filter((one) => one.distance <= 2)
        .sort((a, b) => a.distance - b.distance)
        .map((one) => `did you mean '${one.id}'?`)[0];
      throw refuseLedger('contract_ledger_approval_target_unknown', {
        role: 'publication',
        field: 'approval.approves',
        hint: `'${target.id}' is none of the resources this publication publishes${near === undefined ? '' : `: ${near}`}`,
      });
    }
    if (byId.has(target.id)) {
      throw refuseLedger('contract_ledger_approval_invalid', {
        role: 'approval',
        field: 'approval.approves',
        hint: 'one approval per resource: this resource is approved twice',
      });
    }
    byId.set(target.id, approval);
  }
  return planPublication(
    state,
    candidates.map((candidate) => ({
      candidate: { bytes: candidate.bytes, digest: candidate.digest },
      baseline: latestBaseline(state, candidate.id),
      approval: byId.get(candidate.id) ?? null,
    })),
  );
}

export interface PublicationRun {
  readonly plan: PublicationPlan;
  /** Null for a dry run, or when the plan refused an item (then nothing was written). */
  readonly applied: AppliedPublication | null;
  /**
   * With `absent: true`: the latest entries of the resources the ledger
   * holds that this run does not publish, sorted by id (empty otherwise).
   * They stay published as they are; nothing is written for them.
   */
  readonly absent: readonly LedgerEntry[];
}

/** How a publication runs: its approvals, whether it only plans, and what else it reports. */
export interface PublicationRunOptions {
  readonly approval: WideningApprovals;
  readonly dryRun: boolean;
  /**
   * Also read which resources the ledger holds besides the candidates
   * (`PublicationRun.absent`): for a run that publishes a whole project,
   * they are the resources the project no longer publishes.
   */
  readonly absent?: boolean;
}

const ROLLBACK = Symbol('rollback');

/**
 * Caller-side convenience (what `sealkit contract publish` runs): one
 * transaction that creates the ledger if needed, reads the latest
 * publications under the ledger lock, plans, and applies — committed only when
 * every item is appended or unchanged. A dry run, or a plan with a refused
 * item, rolls back: nothing is written, not even the ledger schema. With no
 * connection (a dry run against an embedded ledger that does not exist yet)
 * the plan is made against an empty ledger.
 */
export async function runContractPublication(
  connection: LedgerConnection | null,
  candidates: readonly IdentifiedCandidate[],
  options: PublicationRunOptions,
): Promise<PublicationRun> {
  const ids = candidates.map((candidate) => candidate.id);
  if (connection === null) {
    if (!options.dryRun) throw refuseLedger('contract_ledger_missing', { role: 'ledger' });
    return {
      plan: planLatestPublication(emptyLedgerState(ids), candidates, options.approval),
      applied: null,
      absent: [],
    };
  }
  const read = { allBuckets: options.absent === true };
  let run: PublicationRun | undefined;
  await guardLedger(async () => {
    try {
      await connection.transaction(async (session) => {
        let state: LedgerState;
        if (options.dryRun) {
          state = await readLedgerState(session, ids, read);
        } else {
          await ensureLedgerSchema(session);
          state = await readInspectedLedgerState(session, ids, read);
        }
        const plan = planLatestPublication(state, candidates, options.approval);
        const absent = read.allBuckets ? await absentResources(session, state, ids) : [];
        if (options.dryRun || plan.refused > 0) {
          run = { plan, applied: null, absent };
          throw ROLLBACK;
        }
        // Planned in this transaction under the ledger lock: nothing moved since the read.
        const appends = plannedEntries(plan);
        run = {
          plan,
          applied:
            appends.length === 0
              ? { appended: [], head: plan.head }
              : await insertPlannedEntries(session, appends),
          absent,
        };
      });
    } catch (error: unknown) {
      if (error !== ROLLBACK) throw error;
    }
  });
  return run as PublicationRun;
}

export interface LedgerPublicationOptions extends PublicationRunOptions {
  /** How a new embedded ledger's data directory is made (default: the shipped template). */
  readonly start?: EmbeddedLedgerStart;
  /** Called just before a new embedded ledger is created, e.g. to say that its first start takes a while. */
  readonly creating?: () => void;
}

/**
 * Opens the ledger at `location`, runs the publication in it
 * (`runContractPublication`) and closes it: what `sealkit contract publish`
 * does. A dry run only reads. An embedded ledger that does not exist yet is
 * created only for a plan that appends: the plan is made against the empty
 * ledger first, and a plan with a refused item leaves the project folder as
 * it was (no `.sealkit/`, no lock file, no database). When the new ledger's
 * transaction does not commit after all (a database failure), the ledger
 * folder this run created is removed again; `.sealkit/` and its lock file
 * stay, since a lock file is never deleted.
 */
export async function publishToLedger(
  location: LedgerLocation,
  candidates: readonly IdentifiedCandidate[],
  options: LedgerPublicationOptions,
): Promise<PublicationRun> {
  const run: PublicationRunOptions = {
    approval: options.approval,
    dryRun: options.dryRun,
    absent: options.absent === true,
  };
  if (location.kind === 'postgres') {
    const connection = await openLedger(location, { create: !options.dryRun });
    try {
      return await runContractPublication(connection, candidates, run);
    } finally {
      await connection.close();
    }
  }
  const existing = await openExisting(location, options.dryRun);
  if (existing !== null) {
    try {
      return await runContractPublication(existing, candidates, run);
    } finally {
      await existing.close();
    }
  }
  // No ledger yet: its state is empty, so the plan needs no database.
  const planned = await runContractPublication(null, candidates, { ...run, dryRun: true });
  if (options.dryRun || planned.plan.refused > 0) return planned;
  if (planned.plan.appends === 0)
    return { plan: planned.plan, applied: { appended: [], head: null }, absent: [] };
  options.creating?.();
  const held = await holdEmbeddedLedger(location.projectDir, {
    create: true,
    ...(options.start === undefined ? {} : { start: options.start }),
  });
  let committed = false;
  try {
    const published = await runContractPublication(held.connection, candidates, run);
    committed = published.applied !== null;
    return published;
  } finally {
    if (committed || !held.created) await held.connection.close();
    else await held.discard();
  }
}

/** The embedded ledger when it exists (read-only for a dry run), else null; nothing is created. */
async function openExisting(
  location: Extract<LedgerLocation, { kind: 'embedded' }>,
  dryRun: boolean,
): Promise<LedgerConnection | null> {
  try {
    return await openLedger(location, { create: false, readOnly: dryRun });
  } catch (error: unknown) {
    if (refuseLedger.is(error, 'contract_ledger_missing')) return null;
    throw error;
  }
}
