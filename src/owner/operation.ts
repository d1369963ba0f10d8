import type { Sha256Hex } from '../core/digest/index.js';
import { epochsToBigInt, type GuardEpoch, readGuardEpochs } from './guard-epochs.js';
import { MAX_QUALIFICATION_EPOCH, MAX_TRY_NUMBER, MIN_QUALIFICATION_EPOCH } from './limits.js';
import {
  fail,
  readMatching,
  readOneOf,
  readRecord,
  readSha256,
  readSmallInteger,
  type Site,
} from './read.js';
import { ID, QUALIFICATION_OWNER_KEY, qualificationOwnerKey, UUID } from './vocabulary.js';

export const OPERATION_SCHEMA = 'dpone.composition-qualification-operation.v1';

export const OPERATION_ACTIONS = ['fixture_load', 'qualification_check', 'source_seal'] as const;
export type OperationAction = (typeof OPERATION_ACTIONS)[number];

/**
 * One qualification operation exactly as the qualification owner recorded
 * it (sealkit's minimal schema of thirteen fields,
 * docs/owner.md#the-qualification-operation). A source-seal association
 * embeds the unchanged `source_seal` operation.
 */
export interface QualificationOperationValue {
  readonly schema: typeof OPERATION_SCHEMA;
  readonly owner_key: string;
  readonly owner_subject_sha256: Sha256Hex;
  readonly qualification_run_id: string;
  readonly grant_sha256: Sha256Hex;
  readonly fixture_plan_sha256: Sha256Hex;
  readonly qualification_plan_sha256: Sha256Hex;
  readonly work_item_id: string;
  readonly work_item_sha256: Sha256Hex;
  readonly action: OperationAction;
  readonly runner_invocation_id: string;
  readonly try_number: number;
  /** The qualification (old) epoch of every guard the operation selects. */
  readonly guard_epochs: readonly GuardEpoch[];
}

const FIELDS = [
  'action',
  'fixture_plan_sha256',
  'grant_sha256',
  'guard_epochs',
  'owner_key',
  'owner_subject_sha256',
  'qualification_plan_sha256',
  'qualification_run_id',
  'runner_invocation_id',
  'schema',
  'try_number',
  'work_item_id',
  'work_item_sha256',
] as const;

/** Checks an operation at `field` + `suffix`. */
export function validateOperation(
  value: unknown,
  site: Site,
  field: string,
  suffix = '',
): QualificationOperationValue {
  const f = readRecord(value, FIELDS, site, field, suffix);
  if (f.schema !== OPERATION_SCHEMA) fail(site, field, `${suffix}.schema`);
  const runId = readMatching(f.qualification_run_id, UUID, site, field, `${suffix}.qualification_run_id`);
  const ownerKey = readMatching(f.owner_key, QUALIFICATION_OWNER_KEY, site, field, `${suffix}.owner_key`);
  // The operation's owner is the qualification run it belongs to.
  if (ownerKey !== qualificationOwnerKey(runId)) fail(site, field, `${suffix}.owner_key`);
  readSha256(f.owner_subject_sha256, site, field, `${suffix}.owner_subject_sha256`);
  readSha256(f.grant_sha256, site, field, `${suffix}.grant_sha256`);
  readSha256(f.fixture_plan_sha256, site, field, `${suffix}.fixture_plan_sha256`);
  readSha256(f.qualification_plan_sha256, site, field, `${suffix}.qualification_plan_sha256`);
  readMatching(f.work_item_id, ID, site, field, `${suffix}.work_item_id`);
  readSha256(f.work_item_sha256, site, field, `${suffix}.work_item_sha256`);
  readOneOf(f.action, OPERATION_ACTIONS, site, field, `${suffix}.action`);
  readMatching(f.runner_invocation_id, ID, site, field, `${suffix}.runner_invocation_id`);
  readSmallInteger(f.try_number, 1, MAX_TRY_NUMBER, site, field, `${suffix}.try_number`);
  readGuardEpochs(
    f.guard_epochs,
    MIN_QUALIFICATION_EPOCH,
    MAX_QUALIFICATION_EPOCH,
    site,
    field,
    `${suffix}.guard_epochs`,
  );
  return value as QualificationOperationValue;
}

/** Epochs as bigints before checking (decoder-owned data only). */
export function prepareOperation(value: unknown): void {
  if (typeof value === 'object' && value !== null) {
    epochsToBigInt((value as Record<string, unknown>).guard_epochs, 'epoch');
  }
}
