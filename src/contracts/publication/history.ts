import type { LedgerEntry } from './entry.js';
import { guardLedger } from './guard.js';
import { checkLedgerSchema, LEDGER_TABLE } from './schema.js';
import type { LedgerSession } from './session.js';
import { readInspectedLedgerState } from './state.js';

/**
 * The publications of one resource in position order, each verified as read
 * (hash, digest, baseline links; the latest decodes), and its latest entry
 * checked against the resource index at the head, so that an entry removed
 * anywhere after its genesis — or a whole resource removed — is found. A
 * tampered entry fails with its position. `replayLedger` also re-runs the rules.
 */
export async function readPublicationHistory(
  session: LedgerSession,
  id: string,
): Promise<readonly LedgerEntry[]> {
  return guardLedger(async () => {
    await checkLedgerSchema(session);
    return (await readInspectedLedgerState(session, [id])).resources.get(id) ?? [];
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
