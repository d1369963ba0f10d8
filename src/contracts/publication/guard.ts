import { Refusal, refuseInternal } from '../../core/refusal/index.js';
import { refuseLedger } from './refusals.js';
import { LedgerSqlError } from './session.js';

/**
 * Only refusals leave the ledger API: a database error becomes
 * `contract_ledger_failed` (its text, which may quote values, is dropped) and
 * anything else is an internal error.
 */
export async function guardLedger<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error: unknown) {
    if (error instanceof Refusal) throw error;
    if (error instanceof LedgerSqlError) throw refuseLedger('contract_ledger_failed', { role: 'ledger' });
    throw refuseInternal('internal_error');
  }
}
