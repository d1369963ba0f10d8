import type { Sha256Hex } from '../core/digest/index.js';
import {
  fail,
  readArray,
  readMatching,
  readOneOf,
  readRecord,
  readSha256,
  readSha256List,
  requireAscending,
  type Site,
} from './read.js';
import {
  CLAIM_ROLES,
  type ClaimRole,
  CONNECTORS,
  type Connector,
  type GuardId,
  guardIdOf,
  ID,
} from './vocabulary.js';

/**
 * A physical domain claimed with a role and its full qualified directional
 * scope: every subject read and every subject written, by qualification or
 * execution. Grants carry the same claim without an observation digest.
 */
export interface DirectionalClaim {
  readonly connector: Connector;
  readonly service_id: string;
  readonly physical_subject_sha256: Sha256Hex;
  readonly role: ClaimRole;
  readonly read_subjects: readonly Sha256Hex[];
  readonly write_subjects: readonly Sha256Hex[];
}

/** The owner's claim: a directional claim plus the digest of its execution observation. */
export interface PhysicalClaim extends DirectionalClaim {
  readonly observation_sha256: Sha256Hex;
}

const DIRECTIONAL_FIELDS = [
  'connector',
  'physical_subject_sha256',
  'read_subjects',
  'role',
  'service_id',
  'write_subjects',
] as const;
const PHYSICAL_FIELDS = [...DIRECTIONAL_FIELDS, 'observation_sha256'];

export interface ReadClaims<C extends DirectionalClaim> {
  readonly claims: readonly C[];
  readonly guards: readonly GuardId[];
}

/**
 * Claims strictly ascending by guard, at `field` (`claims`). The subject
 * count is the sum of read-subject and write-subject counts: a subject in
 * both directions counts twice.
 */
export function readClaims<C extends DirectionalClaim>(
  value: unknown,
  withObservation: boolean,
  limits: { readonly claims: { readonly min: number; readonly max: number }; readonly subjects: number },
  site: Site,
  field: string,
): ReadClaims<C> {
  const list = readArray(value, limits.claims.min, limits.claims.max, site, field);
  const guards: GuardId[] = [];
  let subjects = 0;
  for (const entry of list) {
    const f = readRecord(entry, withObservation ? PHYSICAL_FIELDS : DIRECTIONAL_FIELDS, site, field, '[]');
    readOneOf(f.connector, CONNECTORS, site, field, '[].connector');
    readMatching(f.service_id, ID, site, field, '[].service_id');
    readSha256(f.physical_subject_sha256, site, field, '[].physical_subject_sha256');
    readOneOf(f.role, CLAIM_ROLES, site, field, '[].role');
    const reads = readSha256List(f.read_subjects, 0, limits.subjects, site, field, '[].read_subjects');
    const writes = readSha256List(f.write_subjects, 0, limits.subjects, site, field, '[].write_subjects');
    if (withObservation) readSha256(f.observation_sha256, site, field, '[].observation_sha256');
    // A claim that names no subject covers nothing.
    if (reads.length + writes.length === 0) fail(site, field, '[]');
    subjects += reads.length + writes.length;
    if (subjects > limits.subjects) fail(site, field);
    guards.push(guardIdOf(entry as DirectionalClaim));
  }
  requireAscending(guards, site, field);
  return { claims: list as readonly C[], guards };
}
