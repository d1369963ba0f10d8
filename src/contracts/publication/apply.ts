import { canonicalize } from '../../core/json/index.js';
import type { PublicationRequest } from './decide.js';
import { entryHashDocument, entryParams, INSERT_ENTRY, type LedgerEntry } from './entry.js';
import { guardLedger } from './guard.js';
import { type PlanItem, type PublicationPlan, planPublication } from './plan.js';
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
 * stale. Then it re-decides every item against the state it read and
 * accepts only the very plan `planPublication` makes for it — item by item,
 * entry by entry, bytes included — so a plan whose bytes, verdict, checks or
 * hashes were changed after planning is refused (`contract_ledger_plan_forged`)
 * and nothing is inserted. The unique constraints back the re-read up for
 * callers outside a lock (e.g. under REPEATABLE READ): a competing successor
 * of the same baseline is a stale baseline too. A plan with a refused item
 * is never applied.
 */
export async function applyPublicationPlan(
  session: LedgerSession,
  plan: PublicationPlan,
): Promise<AppliedPublication> {
  const refused = plan.items.find((item) => item.status === 'refused' || item.refusal !== null);
  if (refused !== undefined) {
    throw refused.refusal ?? refuseLedger('contract_ledger_plan_forged', { role: 'publication' });
  }
  const appends = plannedEntries(plan);
  if (appends.length === 0) return { appended: [], head: plan.head };
  return guardLedger(async () => {
    await ensureLedgerSchema(session);
    const ids = [
      ...new Set(plan.items.flatMap((item) => [item.resource?.id, item.entry?.resource.id]).filter(isText)),
    ];
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
    const replanned = planPublication(current, plan.items.map(requestOf));
    if (!samePlan(plan, replanned))
      throw refuseLedger('contract_ledger_plan_forged', { role: 'publication' });
    return insertPlannedEntries(session, plannedEntries(replanned));
  });
}

const isText = (value: string | undefined): value is string => value !== undefined;

/** The request an item answers: its candidate bytes (from its entry), its baseline and approval. */
function requestOf(item: PlanItem): PublicationRequest {
  const bytes = item.entry?.projection ?? new Uint8Array();
  return {
    candidate: { bytes, digest: item.digest },
    baseline: item.baseline,
    approval: item.status === 'append' ? (item.entry?.approval ?? null) : null,
  };
}

/** Everything an item states, in one canonical text (an entry with its hash and its bytes). */
function itemText(item: PlanItem): string {
  const entry = item.entry;
  return canonicalize({
    status: item.status,
    resource: item.resource === null ? null : { id: item.resource.id, kind: item.resource.kind },
    version: item.version,
    digest: item.digest,
    baseline: item.baseline,
    classification: item.classification,
    entry:
      entry === null
        ? null
        : {
            document: entryHashDocument(entry),
            entryHash: entry.entryHash,
            bucketDigest: entry.bucketDigest,
            projection: Buffer.from(entry.projection).toString('base64'),
          },
  });
}

function samePlan(given: PublicationPlan, made: PublicationPlan): boolean {
  try {
    return sameItems(given, made);
  } catch {
    // A plan object that cannot even be written down canonically is not one the planner made.
    return false;
  }
}

function sameItems(given: PublicationPlan, made: PublicationPlan): boolean {
  if (given.format !== made.format || given.items.length !== made.items.length) return false;
  if (given.appends !== made.appends || given.refused !== made.refused) return false;
  return given.items.every((item, index) => {
    const other = made.items[index];
    return other !== undefined && itemText(item) === itemText(other);
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
