import { verifyChainToHead } from './chain.js';
import { BY_POSITION, type LedgerEntry, SELECT_ENTRY } from './entry.js';
import { guardLedger } from './guard.js';
import { checkLedgerSchema, LEDGER_TABLE } from './schema.js';
import type { LedgerSession } from './session.js';
import { verifyResourceEntries } from './state.js';

/**
 * The publications of one resource in position order, each verified as read
 * (hash, digest, baseline links; the latest decodes), and the hash chain from
 * its first entry to the head walked in the database, so that an entry removed
 * anywhere after its genesis — or a whole resource removed — is found. A
 * tampered entry fails with its position. `replayLedger` also re-runs the rules.
 */
export async function readPublicationHistory(
  session: LedgerSession,
  id: string,
): Promise<readonly LedgerEntry[]> {
  return guardLedger(async () => {
    await checkLedgerSchema(session);
    const rows = await session.query(`${SELECT_ENTRY} WHERE resource_id = $1 ORDER BY ${BY_POSITION}`, [id]);
    const entries = verifyResourceEntries(rows);
    // From the resource's genesis (position 1 when it has none) to the head: nothing of it was removed.
    await verifyChainToHead(session, entries[0] ?? null);
    return entries;
  });
}

/**
 * Every resource id the ledger holds publications of, sorted: what a history
 * of an id with no publications names as the nearest (a mistyped id).
 */
export async function readPublishedResourceIds(session: LedgerSession): Promise<readonly string[]> {
  return guardLedger(async () => {
    await checkLedgerSchema(session);
    const rows = await session.query(`SELECT DISTINCT resource_id FROM ${LEDGER_TABLE}`, []);
    // Sorted here, not by the database's collation: the same order on either backend.
    return rows
      .map((row) => row.resource_id)
      .filter((id): id is string => typeof id === 'string')
      .sort();
  });
}
