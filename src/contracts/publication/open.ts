import type { LedgerConnection } from './connection.js';
import type { LedgerLocation } from './location.js';
import { type EmbeddedLedgerStart, openEmbeddedLedger } from './open-embedded.js';
import { openPostgresLedger } from './open-postgres.js';

/**
 * Opens the ledger at `location`. `create: false` (reading, dry runs) never
 * creates an embedded ledger; a server's ledger schema is created by the
 * first publication (`ensureLedgerSchema`), inside its transaction. `start`
 * (embedded only) chooses how a new ledger's data directory is made.
 * `readOnly` (embedded only) reads an embedded ledger's files into a private
 * in-memory copy where every transaction is read-only: its folder is never
 * written.
 */
export async function openLedger(
  location: LedgerLocation,
  options: { readonly create: boolean; readonly start?: EmbeddedLedgerStart; readonly readOnly?: boolean },
): Promise<LedgerConnection> {
  return location.kind === 'postgres'
    ? openPostgresLedger(location.url)
    : openEmbeddedLedger(location.projectDir, options);
}
