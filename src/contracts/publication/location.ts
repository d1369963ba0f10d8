import { refuseLedger } from './refusals.js';

/** Where a ledger lives: a PostgreSQL server, or PGlite embedded in a contract project. */
export type LedgerLocation =
  | { readonly kind: 'postgres'; readonly url: string }
  | { readonly kind: 'embedded'; readonly projectDir: string };

/** The embedded ledger's folder inside a contract project (dot-named: project loading skips it). */
export const EMBEDDED_LEDGER_DIR = ['.sealkit', 'ledger'] as const;

/**
 * `--ledger URL` (postgres:// or postgresql://) or, without one, the
 * embedded ledger of `projectDir`. The URL may hold a password: it is never
 * printed, and a malformed one is refused without quoting it.
 */
export function ledgerLocation(url: string | undefined, projectDir: string): LedgerLocation {
  if (url === undefined) return { kind: 'embedded', projectDir };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw refuseLedger('contract_ledger_location_invalid', { role: 'ledger' });
  }
  if ((parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') || parsed.hostname === '') {
    throw refuseLedger('contract_ledger_location_invalid', { role: 'ledger' });
  }
  return { kind: 'postgres', url };
}
