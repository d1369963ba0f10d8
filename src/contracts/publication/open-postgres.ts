import { connectionOver, type LedgerConnection } from './connection.js';
import { pgLedgerSession } from './pg-session.js';
import { refuseLedger } from './refusals.js';

/**
 * The node-postgres configuration of a ledger URL. `pg` fills what the URL
 * leaves out from libpq's `PG*` variables (PGHOST, PGPORT, PGUSER,
 * PGDATABASE, PGPASSWORD, PGSSLMODE …); without a password in the URL or
 * PGPASSWORD, the password is looked up in the password file (`~/.pgpass`, or
 * `PGPASSFILE`) with the `pgpass` package, as libpq does.
 */
export async function postgresConfig(url: string): Promise<Record<string, unknown>> {
  const { parse } = await import('pg-connection-string');
  const config: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(parse(url))) {
    // Empty parts are what the URL leaves out: pg then takes the PG* variable or its default.
    if (value !== '' && value !== null && value !== undefined) config[key] = value;
  }
  if (config.password === undefined && (process.env.PGPASSWORD ?? '') === '') {
    config.password = () => passwordFileEntry(config);
  }
  return config;
}

/** The password file's entry for the connection pg resolves (host, port, database, user), or none. */
async function passwordFileEntry(config: Record<string, unknown>): Promise<string> {
  const { default: pgpass } = await import('pgpass');
  const { default: pg } = await import('pg');
  const defaults = pg.defaults as Record<string, unknown>;
  const env = process.env;
  const user = config.user ?? env.PGUSER ?? defaults.user;
  const connection = {
    host: config.host ?? env.PGHOST ?? defaults.host,
    port: config.port ?? env.PGPORT ?? defaults.port,
    user,
    database: config.database ?? env.PGDATABASE ?? user,
  };
  return new Promise((resolve) => {
    pgpass(connection, (password: string | undefined) => resolve(password ?? ''));
  });
}

/** Connects to a PostgreSQL server through node-postgres (loaded only here). */
export async function openPostgresLedger(url: string): Promise<LedgerConnection> {
  const { default: pg } = await import('pg');
  let client: InstanceType<typeof pg.Client>;
  try {
    client = new pg.Client({ ...(await postgresConfig(url)), connectionTimeoutMillis: 15_000 });
  } catch {
    throw refuseLedger('contract_ledger_location_invalid', { role: 'ledger' });
  }
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
