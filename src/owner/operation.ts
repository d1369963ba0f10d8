import type { Sha256Hex } from '../core/digest/index.js';
import { type GuardEpoch, readGuardEpochs } from './guard-epochs.js';
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
 * it (sealkit's minimal schema of the seed's thirteen fields). A source-seal
 * association embeds the unchanged `source_seal` operation.
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

export function validateOperation(value: unknown, site: Site, at: string): QualificationOperationValue {
  const f = readRecord(value, FIELDS, site, at);
  if (f.schema !== OPERATION_SCHEMA) fail(site, `${at}.schema`);
  const runId = readMatching(f.qualification_run_id, UUID, site, `${at}.qualification_run_id`);
  const ownerKey = readMatching(f.owner_key, QUALIFICATION_OWNER_KEY, site, `${at}.owner_key`);
  // The operation's owner is the qualification run it belongs to.
  if (ownerKey !== qualificationOwnerKey(runId)) fail(site, `${at}.owner_key`);
  return Object.freeze({
    schema: OPERATION_SCHEMA,
    owner_key: ownerKey,
    owner_subject_sha256: readSha256(f.owner_subject_sha256, site, `${at}.owner_subject_sha256`),
    qualification_run_id: runId,
    grant_sha256: readSha256(f.grant_sha256, site, `${at}.grant_sha256`),
    fixture_plan_sha256: readSha256(f.fixture_plan_sha256, site, `${at}.fixture_plan_sha256`),
    qualification_plan_sha256: readSha256(
      f.qualification_plan_sha256,
      site,
      `${at}.qualification_plan_sha256`,
    ),
    work_item_id: readMatching(f.work_item_id, ID, site, `${at}.work_item_id`),
    work_item_sha256: readSha256(f.work_item_sha256, site, `${at}.work_item_sha256`),
    action: readOneOf(f.action, OPERATION_ACTIONS, site, `${at}.action`),
    runner_invocation_id: readMatching(f.runner_invocation_id, ID, site, `${at}.runner_invocation_id`),
    try_number: readSmallInteger(f.try_number, 1, MAX_TRY_NUMBER, site, `${at}.try_number`),
    guard_epochs: readGuardEpochs(
      f.guard_epochs,
      MIN_QUALIFICATION_EPOCH,
      MAX_QUALIFICATION_EPOCH,
      site,
      `${at}.guard_epochs`,
    ),
  });
}
