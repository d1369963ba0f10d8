import { BY_POSITION, type LedgerEntry, SELECT_ENTRY } from './entry.js';
import { guardLedger } from './guard.js';
import { checkLedgerSchema } from './schema.js';
import type { LedgerSession } from './session.js';
import { verifyResourceEntries } from './state.js';

/**
 * The publications of one resource in position order, each verified as read
 * (hash, digest, baseline links; the latest decodes). A tampered entry fails
 * with its position. `replayLedger` validates the whole chain.
 */
export async function readPublicationHistory(
  session: LedgerSession,
  id: string,
): Promise<readonly LedgerEntry[]> {
  return guardLedger(async () => {
    await checkLedgerSchema(session);
    const rows = await session.query(`${SELECT_ENTRY} WHERE resource_id = $1 ORDER BY ${BY_POSITION}`, [id]);
    return verifyResourceEntries(rows);
  });
}
