import { readDescriptor } from '../descriptor.js';
import {
  fail,
  readArray,
  readIdList,
  readMatching,
  readRecord,
  requireAscending,
  sameList,
} from '../read.js';
import type { ActivationRequestValue } from '../request.js';
import { GUARD_ID, type GuardId, guardIdOf, ID } from '../vocabulary.js';
import type { OwnerObservation } from './model.js';
import type { ScopeIndex } from './scope.js';
import { OBSERVATION } from './sites.js';

const FIELDS = ['guard_id', 'object_ids', 'original'] as const;

export interface ObservationIndex {
  readonly observations: readonly OwnerObservation[];
  /** Descriptor paths and digests, which source seals may not reuse. */
  readonly paths: ReadonlySet<string>;
  readonly digests: ReadonlySet<string>;
}

/**
 * Exactly one observation per claim, ascending by guard. Each names every
 * object ID of its domain and one bounded original whose digest is the
 * claim's observation digest; the request resource of an execution (target)
 * claim names that same digest.
 */
export function readObservations(
  value: unknown,
  scope: ScopeIndex,
  request: ActivationRequestValue,
): ObservationIndex {
  const list = readArray(value, 1, Number.MAX_SAFE_INTEGER, OBSERVATION, 'observations');
  const paths = new Set<string>();
  const digests = new Set<string>();
  const guards: GuardId[] = [];
  for (const entry of list) {
    const f = readRecord(entry, FIELDS, OBSERVATION, 'observations[]');
    const guard = readMatching(f.guard_id, GUARD_ID, OBSERVATION, 'observations[].guard_id') as GuardId;
    const claim = scope.claimOf.get(guard);
    if (claim === undefined) fail(OBSERVATION, 'observations[].guard_id');
    const objectIds = readIdList(
      f.object_ids,
      1,
      Number.MAX_SAFE_INTEGER,
      ID,
      OBSERVATION,
      'observations[].object_ids',
    );
    const domain = scope.byDomain.get(guard) ?? [];
    if (objectIds.length !== domain.length) fail(OBSERVATION, 'observations[].object_ids');
    for (let i = 0; i < domain.length; i++) {
      if (objectIds[i] !== domain[i]?.object_id) fail(OBSERVATION, 'observations[].object_ids');
    }
    const original = readDescriptor(f.original, OBSERVATION, 'observations[]', '.original');
    if (original.sha256 !== claim.observation_sha256) fail(OBSERVATION, 'observations[].original.sha256');
    if (paths.has(original.path) || digests.has(original.sha256)) fail(OBSERVATION, 'observations');
    paths.add(original.path);
    digests.add(original.sha256);
    guards.push(guard);
  }
  requireAscending(guards, OBSERVATION, 'observations');
  if (!sameList(guards, scope.claimGuards)) fail(OBSERVATION, 'observations');
  for (const resource of request.resources) {
    const claim = scope.claimOf.get(guardIdOf(resource));
    if (claim === undefined || claim.observation_sha256 !== resource.observation_sha256) {
      fail(OBSERVATION, 'request.resources[].observation_sha256');
    }
  }
  return { observations: list as readonly OwnerObservation[], paths, digests };
}
