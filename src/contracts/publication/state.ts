import type { Sha256Prefixed } from '../../core/digest/index.js';
import { Refusal } from '../../core/refusal/index.js';
import { decodeProjection } from '../canonical/decode.js';
import { chainStart, verifyChainToHead } from './chain.js';
import { BY_POSITION, type LedgerEntry, SELECT_ENTRY, verifiedEntryOfRow } from './entry.js';
import { tampered } from './refusals.js';
import { inspectLedger, LEDGER_TABLE, requireUsableLedger } from './schema.js';
import type { LedgerRow, LedgerSession } from './session.js';

export interface LedgerHead {
  readonly position: number;
  readonly entryHash: Sha256Prefixed;
}

/** What a publication plan is computed against: the chain head and the entries of the resources concerned. */
export interface LedgerState {
  readonly head: LedgerHead | null;
  /** Every resource id read → its verified entries in position order (empty: never published). */
  readonly resources: ReadonlyMap<string, readonly LedgerEntry[]>;
}

/** The state of a ledger that does not exist yet, for `ids` (a dry run that must create nothing). */
export function emptyLedgerState(ids: readonly string[]): LedgerState {
  return Object.freeze({ head: null, resources: new Map(ids.map((id) => [id, []])) });
}

const positionOf = (row: LedgerRow): number => {
  const text = row.position;
  return typeof text === 'string' && /^[1-9][0-9]{0,14}$/.test(text) ? Number(text) : 0;
};

/**
 * Verifies the entries of one resource as read: each entry's hash and digest,
 * the baselines linking them (genesis first, then each previous digest), and
 * that the latest one decodes (it is the baseline of the next publication).
 */
export function verifyResourceEntries(rows: readonly LedgerRow[]): LedgerEntry[] {
  const entries: LedgerEntry[] = [];
  for (const row of rows) {
    const entry = verifiedEntryOfRow(row, positionOf(row));
    const previous = entries[entries.length - 1];
    if (entry.baseline !== (previous === undefined ? 'genesis' : previous.digest)) {
      throw tampered(entry.position, 'baseline');
    }
    entries.push(entry);
  }
  const latest = entries[entries.length - 1];
  if (latest !== undefined) {
    try {
      decodeProjection(latest.projection, latest.digest);
    } catch (error: unknown) {
      if (error instanceof Refusal) throw tampered(latest.position, 'projection');
      throw error;
    }
  }
  return entries;
}

/**
 * Reads (and verifies) what a publication of `ids` depends on. A ledger that
 * does not exist yet reads as empty; a table that is not this ledger, or an
 * unprotected one, is refused. Run it in the same transaction as the append,
 * after `lockLedger`, so that nothing changes in between.
 */
export async function readLedgerState(session: LedgerSession, ids: readonly string[]): Promise<LedgerState> {
  const inspection = await inspectLedger(session);
  if (!inspection.present) return emptyLedgerState(ids);
  requireUsableLedger(inspection);
  return readInspectedLedgerState(session, ids);
}

/**
 * @internal The read of `readLedgerState` for a caller that has just
 * inspected the ledger in the same transaction: one statement for the
 * resources' entries and the chain head (the row with the highest position),
 * one that walks the hash chain in the database from the oldest of the
 * resources' latest entries (position 1 when one has none) to the head.
 */
export async function readInspectedLedgerState(
  session: LedgerSession,
  ids: readonly string[],
): Promise<LedgerState> {
  const wanted = [...new Set(ids)];
  const rows = await session.query(
    `${SELECT_ENTRY}
      WHERE resource_id IN (SELECT jsonb_array_elements_text($1::jsonb))
         OR ${BY_POSITION} = (SELECT max(position) FROM ${LEDGER_TABLE})
      ORDER BY ${BY_POSITION}`,
    [JSON.stringify(wanted)],
  );
  const requested = new Set(wanted);
  const byId = new Map<string, LedgerRow[]>(wanted.map((id) => [id, []]));
  for (const row of rows) {
    const id = String(row.resource_id);
    if (requested.has(id)) byId.get(id)?.push(row);
  }
  const resources = new Map<string, readonly LedgerEntry[]>();
  for (const [id, list] of byId) resources.set(id, verifyResourceEntries(list));
  const headRow = rows[rows.length - 1];
  const head = headRow === undefined ? null : verifiedEntryOfRow(headRow, positionOf(headRow));
  // Each resource's own entries prove themselves complete from its genesis (baseline links); the
  // chain from the oldest latest entry to the head proves that none was removed after it.
  if (head !== null) {
    await verifyChainToHead(
      session,
      chainStart([...resources.values()].map((list) => list[list.length - 1])),
    );
  }
  return Object.freeze({
    head: head === null ? null : { position: head.position, entryHash: head.entryHash },
    resources,
  });
}

/** The baseline a new publication of `id` must name: the latest digest, or genesis. */
export function latestBaseline(state: LedgerState, id: string): Sha256Prefixed | 'genesis' {
  const entries = state.resources.get(id);
  return entries?.[entries.length - 1]?.digest ?? 'genesis';
}
