import { connectionOver, type LedgerConnection } from './connection.js';
import { pgLedgerSession } from './pg-session.js';
import { refuseLedger } from './refusals.js';

/**
 * The node-postgres configuration of a ledger URL. `pg` fills what the URL
 * leaves out from libpq's `PG*` variables (PGHOST, PGPORT, PGUSER,
 * PGDATABASE, PGPASSWORD …); without a password in the URL or PGPASSWORD,
 * the password is looked up in the password file (`~/.pgpass`, or
 * `PGPASSFILE`) with the `pgpass` package, as libpq does.
 *
 * `sslmode` (in the URL, else PGSSLMODE) means what it means to libpq
 * (docs/contracts.md, "The ledger's location"): `require` encrypts without
 * checking the certificate, `verify-ca` and `verify-full` check it,
 * `disable` never encrypts; `prefer` tries TLS first and `allow` tries it
 * second, the other way being `fallback`. node-postgres alone would take
 * `prefer` and `require` for `verify-full` and print a warning.
 */
export async function postgresConfig(
  url: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<PostgresConfig> {
  const { parse } = await import('pg-connection-string');
  const query = url.indexOf('?');
  const params = new URLSearchParams(query < 0 ? '' : url.slice(query + 1));
  const mode = params.get('sslmode') ?? (env.PGSSLMODE === '' ? undefined : env.PGSSLMODE);
  // The URL's own choice of node-postgres semantics (`uselibpqcompat=false`) is left to it.
  const libpq = !params.has('uselibpqcompat');
  let withMode = url;
  if (mode !== undefined && !params.has('sslmode')) {
    withMode = `${url}${query < 0 ? '?' : '&'}sslmode=${encodeURIComponent(mode)}`;
  }
  const parsed =
    mode === 'prefer' || mode === 'allow'
      ? parse(withMode.replace(/([?&])sslmode=(prefer|allow)/, '$1sslmode=require'), {
          useLibpqCompat: libpq,
        })
      : parse(withMode, libpq ? { useLibpqCompat: true } : {});
  const config: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(parsed)) {
    // Empty parts are what the URL leaves out: pg then takes the PG* variable or its default.
    if (value !== '' && value !== null && value !== undefined) config[key] = value;
  }
  // pg would read PGSSLMODE again on its own; the mode above is the one that counts.
  if (config.ssl === undefined) config.ssl = false;
  if (config.password === undefined && (env.PGPASSWORD ?? '') === '') {
    config.password = () => passwordFileEntry(config);
  }
  if (mode === 'prefer') return { first: config, fallback: { ...config, ssl: false } };
  if (mode === 'allow') return { first: { ...config, ssl: false }, fallback: config };
  return { first: config, fallback: undefined };
}

/** What to connect with, and, for `sslmode=prefer` or `allow`, what to try when that fails. */
export interface PostgresConfig {
  readonly first: Record<string, unknown>;
  readonly fallback: Record<string, unknown> | undefined;
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
  let config: PostgresConfig;
  try {
    config = await postgresConfig(url);
  } catch {
    // Never quoted: the URL may hold a password.
    throw refuseLedger('contract_ledger_location_invalid', {
      role: 'ledger',
      hint: 'check its port (a number), its percent-encoding, and the files its sslcert, sslkey and sslrootcert name',
    });
  }
  const client =
    (await connected(pg, config.first)) ??
    (config.fallback === undefined ? undefined : await connected(pg, config.fallback));
  if (client === undefined) throw refuseLedger('contract_ledger_unavailable', { role: 'ledger' });
  return connectionOver('postgres', pgLedgerSession(client), async () => {
    await client.end().catch(() => undefined);
  });
}

/** A client connected with `config`, or undefined when the server cannot be reached that way. */
async function connected(
  pg: typeof import('pg').default,
  config: Record<string, unknown>,
): Promise<InstanceType<typeof pg.Client> | undefined> {
  let client: InstanceType<typeof pg.Client>;
  try {
    client = new pg.Client({ ...config, connectionTimeoutMillis: 15_000 });
  } catch {
    return undefined;
  }
  // A dropped connection is reported by the next statement; the event alone must not crash the process.
  client.on('error', () => undefined);
  try {
    await client.connect();
    return client;
  } catch {
    await client.end().catch(() => undefined);
    return undefined;
  }
}
