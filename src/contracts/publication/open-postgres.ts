import { connectionOver, type LedgerConnection } from './connection.js';
import { pgLedgerSession } from './pg-session.js';
import { refuseLedger } from './refusals.js';

/** Connects to a PostgreSQL server through node-postgres (loaded only here). */
export async function openPostgresLedger(url: string): Promise<LedgerConnection> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 15_000 });
  // A dropped connection is reported by the next statement; the event alone must not crash the process.
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch {
    await client.end().catch(() => undefined);
    throw refuseLedger('contract_ledger_unavailable', { role: 'ledger' });
  }
  return connectionOver('postgres', pgLedgerSession(client), async () => {
    await client.end().catch(() => undefined);
  });
}
