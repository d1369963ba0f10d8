import type { PGliteInterface, Transaction } from '@electric-sql/pglite';
import { type LedgerParam, type LedgerRow, type LedgerSession, ledgerSqlError } from './session.js';

/**
 * A ledger session over a caller-owned PGlite database (embedded PostgreSQL)
 * or one of its transactions. PGlite returns bytea as Uint8Array, like the
 * statements here expect; numbers are selected as text on both backends.
 */
export function pgliteLedgerSession(db: PGliteInterface | Transaction): LedgerSession {
  return {
    async query(text: string, params: readonly LedgerParam[] = []): Promise<readonly LedgerRow[]> {
      try {
        const result = await db.query<LedgerRow>(text, [...params]);
        return result.rows;
      } catch (error: unknown) {
        throw ledgerSqlError(error);
      }
    },
  };
}
