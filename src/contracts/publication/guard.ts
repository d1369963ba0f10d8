import { guardRefusalsAsync, refuseInternal } from '../../core/refusal/index.js';
import { refuseLedger } from './refusals.js';
import { LedgerSqlError } from './session.js';

/**
 * Only refusals leave the ledger API: a database error becomes
 * `contract_ledger_failed` (its text, which may quote values, is dropped) and
 * anything else is an internal error (docs/refusals.md#details).
 */
export function guardLedger<T>(work: () => Promise<T>): Promise<T> {
  return guardRefusalsAsync(work, (error) =>
    error instanceof LedgerSqlError
      ? refuseLedger('contract_ledger_failed', { role: 'ledger', ...sqlHint(error) })
      : refuseInternal('internal_error'),
  );
}

/** The SQLSTATE, which quotes nothing, and for a missing privilege what to grant. */
function sqlHint(error: LedgerSqlError): { readonly hint?: string } {
  if (error.sqlstate === undefined) return {};
  if (error.sqlstate === '42501') {
    return {
      hint: 'this role lacks a privilege on the ledger (SQLSTATE 42501): a publisher needs USAGE on schema sealkit_ledger and SELECT, INSERT on sealkit_ledger.publications. Make it a member of sealkit_ledger_publisher; if that role was created after the ledger, also grant them to it as the owner: GRANT USAGE ON SCHEMA sealkit_ledger TO sealkit_ledger_publisher; GRANT SELECT, INSERT ON sealkit_ledger.publications TO sealkit_ledger_publisher; (docs/contracts.md#storage-postgresql-append-only-hash-chained)',
    };
  }
  return { hint: `the database answered SQLSTATE ${error.sqlstate}` };
}
