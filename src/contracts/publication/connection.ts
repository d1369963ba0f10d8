import type { LedgerSession } from './session.js';

/**
 * An open ledger database and the caller-side transaction boundary. The
 * publication API takes `session` (or the one `transaction` hands over) and
 * never ends a transaction; this is where a caller does.
 */
export interface LedgerConnection {
  readonly backend: 'postgres' | 'pglite';
  readonly session: LedgerSession;
  /** BEGIN, `work`, then COMMIT — or ROLLBACK when `work` throws (and rethrow). */
  transaction<T>(work: (session: LedgerSession) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export function connectionOver(
  backend: LedgerConnection['backend'],
  session: LedgerSession,
  close: () => Promise<void>,
): LedgerConnection {
  return {
    backend,
    session,
    async transaction<T>(work: (session: LedgerSession) => Promise<T>): Promise<T> {
      await session.query('BEGIN');
      let result: T;
      try {
        result = await work(session);
      } catch (error: unknown) {
        await session.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
      await session.query('COMMIT');
      return result;
    },
    close,
  };
}
