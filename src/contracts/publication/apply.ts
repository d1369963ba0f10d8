import { entryParams, INSERT_ENTRY, type LedgerEntry } from './entry.js';
import { guardLedger } from './guard.js';
import type { PublicationPlan } from './plan.js';
import { refuseLedger } from './refusals.js';
import { ensureLedgerSchema } from './schema.js';
import { type LedgerSession, LedgerSqlError } from './session.js';
import { type LedgerHead, readInspectedLedgerState } from './state.js';

export interface AppliedPublication {
  readonly appended: readonly LedgerEntry[];
  /** The chain head after the appends (unchanged when nothing was appended). */
  readonly head: LedgerHead | null;
}

/** Unique constraints that only a competing publication of the same resource can trip. */
const SAME_RESOURCE_CONSTRAINTS = new Set(['publications_one_successor', 'publications_version_once']);

/**
 * Executes a plan in the caller's transaction; it never begins, commits or
 * rolls back. Under the ledger lock it re-reads what the plan was computed
 * from: a resource whose latest publication is no longer the planned baseline
 * is a stale baseline; any other movement of the chain head makes the plan
 * stale. The unique constraints back this up for callers outside a lock
 * (e.g. under REPEATABLE READ): a competing successor of the same baseline is
 * a stale baseline too. A plan with a refused item is never applied.
 */
export async function applyPublicationPlan(
  session: LedgerSession,
  plan: PublicationPlan,
): Promise<AppliedPublication> {
  const refused = plan.items.find((item) => item.refusal !== null);
  if (refused?.refusal) throw refused.refusal;
  const appends = plannedEntries(plan);
  if (appends.length === 0) return { appended: [], head: plan.head };
  return guardLedger(async () => {
    await ensureLedgerSchema(session);
    const ids = appends.map((entry) => entry.resource.id);
    const current = await readInspectedLedgerState(session, ids);
    for (const entry of appends) {
      const entries = current.resources.get(entry.resource.id) ?? [];
      const latest = entries[entries.length - 1]?.digest ?? 'genesis';
      if (latest !== entry.baseline) {
        throw refuseLedger('contract_ledger_baseline_stale', { role: 'publication', field: 'baseline' });
      }
    }
    if (current.head?.position !== plan.head?.position || current.head?.entryHash !== plan.head?.entryHash) {
      throw refuseLedger('contract_ledger_plan_stale', { role: 'publication' });
    }
    return insertPlannedEntries(session, appends);
  });
}

/**
 * @internal Inserts a plan's entries, for a caller that planned in this same
 * transaction under the ledger lock (nothing can have moved in between). The
 * unique constraints still refuse a competing successor.
 */
export async function insertPlannedEntries(
  session: LedgerSession,
  appends: readonly LedgerEntry[],
): Promise<AppliedPublication> {
  const last = appends[appends.length - 1];
  if (last === undefined) throw refuseLedger('contract_ledger_plan_stale', { role: 'publication' });
  for (const entry of appends) {
    try {
      await session.query(INSERT_ENTRY, entryParams(entry));
    } catch (error: unknown) {
      if (error instanceof LedgerSqlError && error.sqlstate === '23505') {
        const sameResource =
          error.constraint !== undefined && SAME_RESOURCE_CONSTRAINTS.has(error.constraint);
        throw sameResource
          ? refuseLedger('contract_ledger_baseline_stale', { role: 'publication', field: 'baseline' })
          : refuseLedger('contract_ledger_plan_stale', { role: 'publication' });
      }
      throw error;
    }
  }
  return { appended: appends, head: { position: last.position, entryHash: last.entryHash } };
}

/** The entries a plan appends, in position order. */
export function plannedEntries(plan: PublicationPlan): LedgerEntry[] {
  return plan.items.flatMap((item) => (item.status === 'append' && item.entry !== null ? [item.entry] : []));
}
