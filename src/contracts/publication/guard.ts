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
      ? refuseLedger('contract_ledger_failed', { role: 'ledger' })
      : refuseInternal('internal_error'),
  );
}
