import { refuseLedger } from './refusals.js';

/** Where a ledger lives: a PostgreSQL server, or PGlite embedded in a contract project. */
export type LedgerLocation =
  | {
      readonly kind: 'postgres';
      readonly url: string;
      /** Where the URL came from: the flag or the environment variable that named it. */
      readonly from: '--ledger' | (typeof LEDGER_URL_VARIABLES)[number];
    }
  | { readonly kind: 'embedded'; readonly projectDir: string };

/** The embedded ledger's folder inside a contract project (dot-named: project loading skips it). */
export const EMBEDDED_LEDGER_DIR = ['.sealkit', 'ledger'] as const;

/** Environment variables naming a ledger server, in the order they are consulted after `--ledger`. */
export const LEDGER_URL_VARIABLES = ['SEALKIT_LEDGER_URL', 'DATABASE_URL'] as const;

/** What to do about a ledger location that is not a postgres:// URL, by where it came from. */
const NOT_A_URL: Readonly<Record<'--ledger' | (typeof LEDGER_URL_VARIABLES)[number], string>> = {
  '--ledger':
    '--ledger takes a postgres:// or postgresql:// URL; leave it out for the embedded ledger (with SEALKIT_LEDGER_URL and DATABASE_URL unset)',
  SEALKIT_LEDGER_URL:
    'the variable SEALKIT_LEDGER_URL holds no postgres:// or postgresql:// URL: set it to one, name the ledger with --ledger URL, or unset it (and DATABASE_URL) for the embedded ledger',
  DATABASE_URL:
    'the variable DATABASE_URL holds no postgres:// or postgresql:// URL: set it to one, name the ledger with --ledger URL, or unset it for the embedded ledger',
};

/**
 * The ledger a command uses: `--ledger URL`, else `SEALKIT_LEDGER_URL`, else
 * `DATABASE_URL` (each a postgres:// or postgresql:// URL), else the embedded
 * ledger of `projectDir`. What a URL leaves out — host, port, user,
 * database, password — comes from libpq's `PG*` variables and the password
 * file (`~/.pgpass` or `PGPASSFILE`) when the connection is opened, so a
 * password never has to be on the command line. The URL may still hold one:
 * it is never printed, and a malformed URL is refused without quoting it.
 */
export function ledgerLocation(
  url: string | undefined,
  projectDir: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): LedgerLocation {
  const variable = LEDGER_URL_VARIABLES.find((name) => env[name] !== undefined && env[name] !== '');
  const from = url !== undefined ? '--ledger' : variable;
  const chosen = url ?? (variable === undefined ? undefined : env[variable]);
  if (chosen === undefined || from === undefined) return { kind: 'embedded', projectDir };
  // Only the scheme is checked here; the rest is read as libpq reads it when
  // the connection is opened. An empty host (postgres:///contracts, or
  // postgres://user@/contracts?host=/run/postgresql) is libpq's "the default
  // host": `host=`, else PGHOST, else localhost. (A WHATWG URL parser refuses
  // the second form.)
  if (!/^postgres(ql)?:\/\//i.test(chosen)) {
    // The value may hold a password: the hint names where it came from, never what it is.
    throw refuseLedger('contract_ledger_location_invalid', { role: 'ledger', hint: NOT_A_URL[from] });
  }
  return { kind: 'postgres', url: chosen, from };
}
