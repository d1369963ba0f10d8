import type { ClientBase } from 'pg';
import { type LedgerParam, type LedgerRow, type LedgerSession, ledgerSqlError } from './session.js';

/**
 * A ledger session over a caller-owned node-postgres client (a `Client` or a
 * pool's client), typically inside the caller's `BEGIN`.
 */
export function pgLedgerSession(client: ClientBase): LedgerSession {
  return {
    async query(text: string, params: readonly LedgerParam[] = []): Promise<readonly LedgerRow[]> {
      const values = params.map((value) =>
        value instanceof Uint8Array && !Buffer.isBuffer(value)
          ? Buffer.from(value.buffer, value.byteOffset, value.byteLength)
          : value,
      );
      try {
        const result = await client.query(text, values);
        return result.rows as readonly LedgerRow[];
      } catch (error: unknown) {
        throw ledgerSqlError(error);
      }
    },
  };
}
