import type { Sha256Hex } from '../../core/digest/index.js';
import { pyDumps } from '../../core/json/index.js';
import type { ActivationAttemptValue } from '../attempt.js';
import type { DirectionalClaim, PhysicalClaim } from '../claim.js';
import type { CompositionGrantValue } from '../grant.js';
import type { QualificationOwnerValue } from '../qualification-owner.js';
import { fail, type Site, sameList } from '../read.js';
import { executionOwnerKey, type GuardId, qualificationOwnerKey } from '../vocabulary.js';
import type { ValidatedOwner } from './validate.js';

const ORIGINALS: Site = { reason: 'scoped_execution_originals', role: 'originals' };
const ATTEMPT: Site = { reason: 'scoped_execution_attempt', role: 'attempt' };

/** The supplied originals, each already revalidated, with the digests of their canonical bytes. */
export interface SuppliedOriginals {
  readonly qualificationOwner: QualificationOwnerValue;
  readonly qualificationOwnerSha256: Sha256Hex;
  readonly qualificationGrant: CompositionGrantValue;
  readonly qualificationGrantSha256: Sha256Hex;
  readonly executionGrant: CompositionGrantValue;
}

function directional(claims: readonly DirectionalClaim[]): string {
  return pyDumps(
    claims.map((claim) => ({
      connector: claim.connector,
      service_id: claim.service_id,
      physical_subject_sha256: claim.physical_subject_sha256,
      role: claim.role,
      read_subjects: claim.read_subjects,
      write_subjects: claim.write_subjects,
    })),
  );
}

/**
 * Exact original comparison: both grants sign the owner's full scope and
 * grant exactly its directional claim sets and roles (observation digests
 * are the execution side's own: qualification observations may differ);
 * the qualification owner is the one the handoff names, holds the
 * qualification grant, and owns every source-seal operation.
 */
export function compareOriginals(owner: ValidatedOwner, supplied: SuppliedOriginals): void {
  const { value } = owner;
  const { qualificationOwner, qualificationGrant, executionGrant } = supplied;
  if (qualificationGrant.grant_kind !== 'qualification') fail(ORIGINALS, 'qualification_grant.grant_kind');
  if (executionGrant.grant_kind !== 'execution') fail(ORIGINALS, 'execution_grant.grant_kind');
  for (const [grant, field] of [
    [qualificationGrant, 'qualification_grant'],
    [executionGrant, 'execution_grant'],
  ] as const) {
    if (grant.scope_sha256 !== value.scope_sha256) fail(ORIGINALS, `${field}.scope_sha256`);
  }
  if (qualificationOwner.scope_sha256 !== value.scope_sha256)
    fail(ORIGINALS, 'qualification_owner.scope_sha256');
  const claims = directional(value.claims as readonly PhysicalClaim[]);
  if (directional(qualificationGrant.claims) !== claims) fail(ORIGINALS, 'qualification_grant.claims');
  if (directional(executionGrant.claims) !== claims) fail(ORIGINALS, 'execution_grant.claims');
  if (executionGrant.owner_key !== executionOwnerKey(value.request.activation_id)) {
    fail(ORIGINALS, 'execution_grant.owner_key');
  }
  const handoff = value.handoff;
  const key = qualificationOwnerKey(qualificationOwner.qualification_run_id);
  if (key !== handoff.qualification_owner_key) fail(ORIGINALS, 'qualification_owner.qualification_run_id');
  if (supplied.qualificationOwnerSha256 !== handoff.qualification_owner_subject_sha256) {
    fail(ORIGINALS, 'qualification_owner');
  }
  if (qualificationGrant.owner_key !== key) fail(ORIGINALS, 'qualification_grant.owner_key');
  if (qualificationOwner.grant_sha256 !== supplied.qualificationGrantSha256) {
    fail(ORIGINALS, 'qualification_owner.grant_sha256');
  }
  for (const seal of handoff.source_seals) {
    if (seal.operation.grant_sha256 !== supplied.qualificationGrantSha256) {
      fail(ORIGINALS, 'handoff.source_seals[].operation.grant_sha256');
    }
    if (seal.operation.qualification_run_id !== qualificationOwner.qualification_run_id) {
      fail(ORIGINALS, 'handoff.source_seals[].operation.qualification_run_id');
    }
  }
}

/** One guard and its execution epoch. */
export interface SelectedEpoch {
  readonly guardId: GuardId;
  readonly epoch: bigint;
}

/**
 * Validates the unchanged attempt A against R (request digest, workload,
 * constituents, pack) and the exact legacy write epochs (the execution epoch
 * of every guard the workload's request writes go to, and no other), then
 * returns the epochs selected by all declared effects of that workload.
 */
export function compareAttempt(
  owner: ValidatedOwner,
  attempt: ActivationAttemptValue,
): readonly SelectedEpoch[] {
  const { value, scope, executionEpochs } = owner;
  if (attempt.activation_request_sha256 !== owner.requestSha256)
    fail(ATTEMPT, 'attempt.activation_request_sha256');
  if (attempt.pack_sha256 !== value.request.pack_sha256) fail(ATTEMPT, 'attempt.pack_sha256');
  const requested = value.request.workloads.find((workload) => workload.workload_id === attempt.workload_id);
  if (requested === undefined) fail(ATTEMPT, 'attempt.workload_id');
  if (!sameList(attempt.constituents, requested.constituents)) fail(ATTEMPT, 'attempt.constituents');
  const writeGuards = requested.writes.map((group) => group.guard_id);
  if (attempt.write_epochs.length !== writeGuards.length) fail(ATTEMPT, 'attempt.write_epochs');
  for (const [i, guard] of writeGuards.entries()) {
    const held = attempt.write_epochs[i];
    if (held === undefined || held.guard_id !== guard || held.epoch !== executionEpochs.get(guard)) {
      fail(ATTEMPT, 'attempt.write_epochs');
    }
  }
  const workload = value.workloads.find((entry) => entry.workload_id === attempt.workload_id);
  const selected = new Set<GuardId>();
  for (const effect of workload?.effects ?? []) selected.add(scope.guardOf.get(effect.object_id) as GuardId);
  return Object.freeze(
    [...selected]
      .sort()
      .map((guardId) => Object.freeze({ guardId, epoch: executionEpochs.get(guardId) as bigint })),
  );
}
