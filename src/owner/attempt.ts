import type { Sha256Hex } from '../core/digest/index.js';
import { epochsToBigInt, type GuardEpoch, readGuardEpochs } from './guard-epochs.js';
import { MAX_EXECUTION_EPOCH, ORIGINAL_LIMITS } from './limits.js';
import { fail, readIdList, readMatching, readRecord, readSha256, type Site } from './read.js';
import { ID, UUID, type WorkloadId } from './vocabulary.js';

export const ATTEMPT_SCHEMA = 'dpone.nonproduction-activation-attempt.v1';

/**
 * One attempt A to run a request workload (sealkit's minimal schema). Its
 * activation-request field names R; its write epochs are the legacy write
 * projection: the execution epoch of every guard the workload's request
 * writes go to.
 */
export interface ActivationAttemptValue {
  readonly schema: typeof ATTEMPT_SCHEMA;
  readonly activation_request_sha256: Sha256Hex;
  readonly attempt_id: string;
  readonly workload_id: WorkloadId;
  readonly constituents: readonly string[];
  readonly pack_sha256: Sha256Hex;
  readonly write_epochs: readonly GuardEpoch[];
}

const FIELDS = [
  'activation_request_sha256',
  'attempt_id',
  'constituents',
  'pack_sha256',
  'schema',
  'workload_id',
  'write_epochs',
] as const;

export function validateAttempt(value: unknown, site: Site, at: string): ActivationAttemptValue {
  const f = readRecord(value, FIELDS, site, at);
  if (f.schema !== ATTEMPT_SCHEMA) fail(site, at, '.schema');
  readSha256(f.activation_request_sha256, site, at, '.activation_request_sha256');
  readMatching(f.attempt_id, UUID, site, at, '.attempt_id');
  readMatching(f.workload_id, ID, site, at, '.workload_id');
  readIdList(f.constituents, 1, ORIGINAL_LIMITS.constituents.max, ID, site, at, '.constituents');
  readSha256(f.pack_sha256, site, at, '.pack_sha256');
  readGuardEpochs(f.write_epochs, 2n, MAX_EXECUTION_EPOCH, site, at, '.write_epochs');
  return value as ActivationAttemptValue;
}

/** Epochs as bigints before checking (decoder-owned data only). */
export function prepareAttempt(value: unknown): void {
  if (typeof value === 'object' && value !== null) {
    epochsToBigInt((value as Record<string, unknown>).write_epochs, 'epoch');
  }
}
