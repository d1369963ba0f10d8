import { refuseLedger } from './refusals.js';

/** Where a ledger lives: a PostgreSQL server, or PGlite embedded in a contract project. */
export type LedgerLocation =
  | { readonly kind: 'postgres'; readonly url: string }
  | { readonly kind: 'embedded'; readonly projectDir: string };

/** The embedded ledger's folder inside a contract project (dot-named: project loading skips it). */
export const EMBEDDED_LEDGER_DIR = ['.sealkit', 'ledger'] as const;

/** Environment variables naming a ledger server, in the order they are consulted after `--ledger`. */
export const LEDGER_URL_VARIABLES = ['SEALKIT_LEDGER_URL', 'DATABASE_URL'] as const;

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
  const chosen =
    url ?? LEDGER_URL_VARIABLES.map((name) => env[name]).find((value) => value !== undefined && value !== '');
  if (chosen === undefined) return { kind: 'embedded', projectDir };
  let parsed: URL;
  try {
    parsed = new URL(chosen);
  } catch {
    throw refuseLedger('contract_ledger_location_invalid', { role: 'ledger' });
  }
  // An empty host (postgres:///contracts) is libpq's "the default host": PGHOST, else localhost.
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw refuseLedger('contract_ledger_location_invalid', { role: 'ledger' });
  }
  return { kind: 'postgres', url: chosen };
}
