import { readFileSync } from 'node:fs';
import { nearest } from '../../core/refusal/index.js';
import { connectionOver, type LedgerConnection } from './connection.js';
import { pgLedgerSession } from './pg-session.js';
import { refuseLedger } from './refusals.js';

const BROKEN_ESCAPE = /%(?![0-9a-f]{2})/i;
/** libpq's modes; node-postgres also knows `no-verify`, which `require` means to libpq. */
const SSL_MODES: readonly string[] = [
  'disable',
  'allow',
  'prefer',
  'require',
  'verify-ca',
  'verify-full',
  'no-verify',
];

/** The URL parameters that name a file node-postgres reads when it parses the URL. */
const TLS_FILES = ['sslcert', 'sslkey', 'sslrootcert'] as const;
type TlsFile = (typeof TLS_FILES)[number];

/** What is wrong with a ledger URL itself, said without quoting any part of it. */
export class LocationProblem extends Error {
  readonly part: 'percent-encoding' | 'sslmode' | TlsFile;
  /** A sslmode the URL's is a near misspelling of (sealkit's own word, never the URL's). */
  readonly suggestion: string | undefined;
  /** Why a TLS file cannot be read: the errno's plain words. */
  readonly reason: string | undefined;
  constructor(
    part: 'percent-encoding' | 'sslmode' | TlsFile,
    extra: { readonly suggestion?: string; readonly cause?: string } = {},
  ) {
    super(`ledger URL: ${part}`);
    this.name = 'LocationProblem';
    this.part = part;
    this.suggestion = extra.suggestion;
    this.reason = extra.cause;
  }
}

const LOCATION_HINTS: Readonly<Record<'percent-encoding' | 'sslmode' | 'other', string>> = {
  'percent-encoding':
    "a '%' in the URL must start an escape of two hex digits (write '%25' for a '%' in a password or name)",
  sslmode:
    'sslmode (in the URL or PGSSLMODE) takes disable, allow, prefer, require, verify-ca or verify-full',
  other:
    'check its port (a number), its percent-encoding, and the files its sslcert, sslkey and sslrootcert name',
};

/** The hint of a URL refused before any connection, never quoting the URL. */
function locationHint(error: unknown): string {
  if (!(error instanceof LocationProblem)) return LOCATION_HINTS.other;
  switch (error.part) {
    case 'percent-encoding':
      return LOCATION_HINTS['percent-encoding'];
    case 'sslmode':
      return `${LOCATION_HINTS.sslmode}${error.suggestion === undefined ? '' : `: did you mean '${error.suggestion}'?`}`;
    default:
      return `the file its ${error.part} names cannot be read (${error.reason ?? 'unreadable'}): check the path in ${error.part}, and that this account may read the file`;
  }
}

/** The plain words of a file error's code, for a TLS file the URL names. */
function fileCause(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return 'a folder, not a file';
  return typeof code === 'string' ? code : 'unreadable';
}

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
  // pg-connection-string leaves a malformed escape as it is: decoded here, it would be a wrong name.
  if (BROKEN_ESCAPE.test(url)) throw new LocationProblem('percent-encoding');
  const query = url.indexOf('?');
  const params = new URLSearchParams(query < 0 ? '' : url.slice(query + 1));
  const mode = params.get('sslmode') ?? (env.PGSSLMODE === '' ? undefined : env.PGSSLMODE);
  if (mode !== undefined && !SSL_MODES.includes(mode)) {
    const suggestion = nearest(mode, SSL_MODES.slice(0, 6));
    throw new LocationProblem('sslmode', suggestion === undefined ? {} : { suggestion });
  }
  // node-postgres reads these files while it parses the URL; one it cannot read is named here.
  for (const part of TLS_FILES) {
    const file = params.get(part);
    if (file === null || file === '') continue;
    try {
      readFileSync(file);
    } catch (error: unknown) {
      throw new LocationProblem(part, { cause: fileCause(error) });
    }
  }
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

/**
 * The server a ledger URL names, as it may be printed: `user@host:port/database`
 * (for a Unix socket `user@/database?host=/socket/folder&port=5432`)
 * as the connection resolves them (the URL, else the PG* variables, else
 * node-postgres's defaults) — never the password nor the URL's parameters.
 * A URL that cannot be read gives `undefined`.
 */
export async function ledgerServerShown(
  url: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<string | undefined> {
  let config: Record<string, unknown>;
  try {
    config = (await postgresConfig(url, env)).first;
  } catch {
    return undefined;
  }
  const { default: pg } = await import('pg');
  const defaults = pg.defaults as Record<string, unknown>;
  const part = (key: string, variable: string) => String(config[key] ?? env[variable] ?? defaults[key] ?? '');
  const user = part('user', 'PGUSER');
  const database = config.database ?? env.PGDATABASE ?? user;
  const host = part('host', 'PGHOST');
  const port = part('port', 'PGPORT');
  // A Unix socket folder is no host of a URL: written as libpq writes it
  // (docs/contracts.md#a-postgresql-server-as-its-users-run-it), so the
  // line reads as the URL that reaches that server.
  if (host.startsWith('/')) return `${user}@/${String(database)}?host=${host}&port=${port}`;
  return `${user}@${host}:${port}/${String(database)}`;
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
  } catch (error: unknown) {
    // Never quoted: the URL may hold a password.
    throw refuseLedger('contract_ledger_location_invalid', {
      role: 'ledger',
      hint: locationHint(error),
    });
  }
  let attempt = await connected(pg, config.first);
  if (!('client' in attempt) && config.fallback !== undefined) attempt = await connected(pg, config.fallback);
  if (!('client' in attempt)) {
    throw refuseLedger('contract_ledger_unavailable', {
      role: 'ledger',
      hint: unavailableHint(attempt.error),
    });
  }
  const client = attempt.client;
  return connectionOver('postgres', pgLedgerSession(client), async () => {
    await client.end().catch(() => undefined);
  });
}

type Attempt =
  | { readonly client: InstanceType<typeof import('pg').default.Client> }
  | { readonly error: unknown };

/** A client connected with `config`, or why the server could not be reached that way. */
async function connected(pg: typeof import('pg').default, config: Record<string, unknown>): Promise<Attempt> {
  let client: InstanceType<typeof pg.Client>;
  try {
    client = new pg.Client({ ...config, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  } catch (error: unknown) {
    return { error };
  }
  // A dropped connection is reported by the next statement; the event alone must not crash the process.
  client.on('error', () => undefined);
  try {
    await client.connect();
    return { client };
  } catch (error: unknown) {
    await client.end().catch(() => undefined);
    return { error };
  }
}

const CONNECT_TIMEOUT_MS = 15_000;

/**
 * Which of the usual causes kept the connection from opening, from the
 * error's code alone (SQLSTATE or the system's errno): the driver's text may
 * quote the user, the database or the host, and is never printed.
 */
export function unavailableHint(error: unknown): string {
  const code =
    (typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined) ?? '';
  const message = error instanceof Error ? error.message : '';
  switch (code) {
    case '28P01':
      return 'the server refused the password for this user (SQLSTATE 28P01): check the password in the URL, PGPASSWORD or the password file';
    case '28000':
      return "the server does not let this user in from here (SQLSTATE 28000): check the user, and the server's pg_hba.conf";
    case '3D000':
      return 'the database does not exist on that server (SQLSTATE 3D000): check the database name in the URL or PGDATABASE';
    case '53300':
      return 'the server has no free connection (SQLSTATE 53300): try again later';
    case '57P03':
      return 'the server is starting up or shutting down (SQLSTATE 57P03): try again later';
    case 'ECONNREFUSED':
      return 'nothing listens at that host and port (connection refused): check the host and port, and that the server runs';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'the host name does not resolve: check the host in the URL or PGHOST';
    case 'ENOENT':
      return 'no server socket in that folder: check the host (socket folder) and port, and that the server runs';
    case 'EACCES':
      return 'the server socket cannot be opened by this account: check the socket folder permissions';
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'the host did not answer: check the host and port, and the network between';
    default:
      if (/timeout/i.test(message)) {
        return `the server did not answer within ${CONNECT_TIMEOUT_MS / 1000} s: check the host and port, and the network between`;
      }
      if (/ssl|tls|certificate/i.test(message)) {
        return 'the TLS connection that sslmode asks for could not be made: check sslmode and the certificate files';
      }
      return 'check the host, port, user, password and database, and that the server runs';
  }
}
