import { defineRefusals, type Refusal, type RefusalOf, type WithDetails } from '../../core/refusal/index.js';
import { type ContractRefusalCode, refuseContract } from '../authoring/refusals.js';
import { type ContractVersionRefusalCode, refuseContractVersion } from '../version/refusals.js';

/**
 * Why a publication, a ledger read or a replay was refused. Messages are
 * fixed: they never quote a resource id, a version, a digest, an approver, a
 * connection string or database error text.
 */
export type ContractLedgerRefusalCode =
  // publication rules
  | 'contract_ledger_version_reused'
  | 'contract_ledger_version_not_increasing'
  | 'contract_ledger_baseline_stale'
  | 'contract_ledger_baseline_mismatch'
  | 'contract_ledger_major_bump_required'
  | 'contract_ledger_approval_required'
  | 'contract_ledger_approval_mismatch'
  | 'contract_ledger_approval_unexpected'
  | 'contract_ledger_approval_target_unknown'
  | 'contract_ledger_approval_invalid'
  | 'contract_ledger_request_duplicate'
  | 'contract_ledger_plan_stale'
  | 'contract_ledger_plan_forged'
  | 'contract_ledger_state_incomplete'
  // evidence integrity
  | 'contract_ledger_tampered'
  | 'contract_ledger_unprotected'
  | 'contract_ledger_schema_mismatch'
  // the database
  | 'contract_ledger_transaction_required'
  | 'contract_ledger_location_invalid'
  | 'contract_ledger_missing'
  | 'contract_ledger_busy'
  | 'contract_ledger_unavailable'
  | 'contract_ledger_failed';

/**
 * A replay or read that found tampered evidence carries `position`: the first
 * ledger position that does not re-validate (its `field` is the column or
 * check that failed). Positions are assigned by the ledger, never taken from
 * input, so the position is printed with `--json` (docs/contracts.md#replay-and-tamper-evidence).
 */
export interface LedgerTamper {
  readonly position: number;
}

export type ContractLedgerRefusalDetails = WithDetails<
  ContractLedgerRefusalCode,
  { contract_ledger_tampered: LedgerTamper }
>;

export const refuseLedger = defineRefusals<ContractLedgerRefusalCode, ContractLedgerRefusalDetails>({
  contract_ledger_version_reused: {
    category: 'conflict',
    message: 'this version of the resource is already published with different canonical bytes',
  },
  contract_ledger_version_not_increasing: {
    category: 'conflict',
    message: 'the candidate version is not higher than the version of its baseline',
  },
  contract_ledger_baseline_stale: {
    category: 'stale',
    message: 'the baseline is not the latest publication of the resource; another publication came first',
  },
  contract_ledger_baseline_mismatch: {
    category: 'mismatched',
    message: 'the baseline is not a publication of this resource',
  },
  contract_ledger_major_bump_required: {
    category: 'conflict',
    message: 'the change is breaking for readers and needs a higher major version',
  },
  contract_ledger_approval_required: {
    category: 'missing',
    message: 'the change widens what readers may receive or who may see it and needs an explicit approval',
  },
  contract_ledger_approval_mismatch: {
    category: 'mismatched',
    message: 'the widening approval names another version of the resource',
  },
  contract_ledger_approval_unexpected: {
    category: 'conflict',
    message: 'a widening approval was given for a publication that does not widen anything',
  },
  contract_ledger_approval_target_unknown: {
    category: 'conflict',
    message: 'a widening approval names a resource this publication does not include',
  },
  contract_ledger_approval_invalid: {
    category: 'malformed',
    message:
      'the widening approval is incomplete or malformed (ID@VERSION, approver, RFC 3339 UTC time, reason)',
  },
  contract_ledger_request_duplicate: {
    category: 'conflict',
    message: 'one publication plan names the same resource twice',
  },
  contract_ledger_plan_stale: {
    category: 'stale',
    message: 'the ledger changed since the publication plan was made; plan again',
  },
  contract_ledger_plan_forged: {
    category: 'mismatched',
    message:
      'the publication plan is not the plan the rules make for this ledger state (changed after planning); nothing was written',
  },
  contract_ledger_state_incomplete: {
    category: 'unsupported',
    message: 'the ledger state given to the plan was not read for every resource being published',
  },
  contract_ledger_tampered: {
    category: 'mismatched',
    message: 'the publication ledger does not re-validate: stored evidence was changed, removed or inserted',
    printDetails: true,
  },
  contract_ledger_unprotected: {
    category: 'unsupported',
    message:
      'the ledger table is not protected: an append-only trigger or a unique constraint is missing or disabled, or this session bypasses the triggers',
  },
  contract_ledger_schema_mismatch: {
    category: 'mismatched',
    message: 'the ledger schema exists but is not the sealkit contract ledger this version writes',
  },
  contract_ledger_transaction_required: {
    category: 'unsupported',
    message: 'publication must run inside a transaction that the caller owns',
  },
  contract_ledger_location_invalid: {
    category: 'malformed',
    message: 'the ledger location is not a postgres:// or postgresql:// URL that can be read',
  },
  contract_ledger_missing: {
    category: 'missing',
    message: 'the ledger does not exist yet: nothing was ever published there',
  },
  contract_ledger_busy: {
    category: 'conflict',
    message: 'another sealkit process has the embedded ledger open',
  },
  contract_ledger_unavailable: {
    category: 'unavailable',
    message: 'the ledger database cannot be opened or reached',
  },
  contract_ledger_failed: {
    category: 'unavailable',
    message: 'the ledger database refused or failed a statement; the transaction was not committed',
  },
});

export type LedgerTamperRefusal = RefusalOf<
  ContractLedgerRefusalDetails,
  ContractLedgerRefusalCode,
  'contract_ledger_tampered'
>;

/** The tamper refusal at ledger `position`, `field` naming the column or check that failed. */
export function tampered(position: number, field: string): LedgerTamperRefusal {
  return refuseLedger('contract_ledger_tampered', { role: 'ledger', field, details: { position } });
}

/**
 * What a refused item of a publication plan may carry: the decoder's and the
 * classifier's codes (the candidate bytes) or a publication rule's.
 */
export type PublicationRefusalCode =
  | ContractRefusalCode
  | ContractVersionRefusalCode
  | ContractLedgerRefusalCode;

export type PublicationRefusal = Refusal<PublicationRefusalCode>;

/** True for a refusal made from one of the tables a plan item may refuse with. */
export function isPublicationRefusal(value: unknown): value is PublicationRefusal {
  return refuseContract.is(value) || refuseContractVersion.is(value) || refuseLedger.is(value);
}
