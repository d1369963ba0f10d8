import type { Sha256Hex } from '../core/digest/index.js';
import { OWNER_LIMITS } from './limits.js';
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
const PHYSICAL_FIELDS = [...DIRECTIONAL_FIELDS, 'observation_sha256'].sort();

export interface ReadClaims<C extends DirectionalClaim> {
  readonly claims: readonly C[];
  readonly guards: readonly GuardId[];
}

function readOneClaim(value: unknown, withObservation: boolean, site: Site, field: string): PhysicalClaim {
  const f = readRecord(value, withObservation ? PHYSICAL_FIELDS : DIRECTIONAL_FIELDS, site, field);
  const claim = {
    connector: readOneOf(f.connector, CONNECTORS, site, `${field}.connector`),
    service_id: readMatching(f.service_id, ID, site, `${field}.service_id`),
    physical_subject_sha256: readSha256(f.physical_subject_sha256, site, `${field}.physical_subject_sha256`),
    role: readOneOf(f.role, CLAIM_ROLES, site, `${field}.role`),
    read_subjects: readSha256List(
      f.read_subjects,
      0,
      OWNER_LIMITS.subjects.max,
      site,
      `${field}.read_subjects`,
    ),
    write_subjects: readSha256List(
      f.write_subjects,
      0,
      OWNER_LIMITS.subjects.max,
      site,
      `${field}.write_subjects`,
    ),
  } as { -readonly [K in keyof PhysicalClaim]: PhysicalClaim[K] };
  if (withObservation) {
    claim.observation_sha256 = readSha256(f.observation_sha256, site, `${field}.observation_sha256`);
  }
  // A claim that names no subject covers nothing.
  if (claim.read_subjects.length + claim.write_subjects.length === 0) fail(site, field);
  return Object.freeze(claim);
}

/**
 * Claims strictly ascending by guard. The subject count is the sum of
 * read-subject and write-subject counts: a subject in both directions counts
 * twice.
 */
export function readClaims<C extends DirectionalClaim>(
  value: unknown,
  withObservation: boolean,
  limits: { readonly claims: { readonly min: number; readonly max: number }; readonly subjects: number },
  site: Site,
  field: string,
): ReadClaims<C> {
  const list = readArray(value, limits.claims.min, limits.claims.max, site, field);
  const claims: PhysicalClaim[] = [];
  const guards: GuardId[] = [];
  let subjects = 0;
  for (const entry of list) {
    const claim = readOneClaim(entry, withObservation, site, `${field}[]`);
    subjects += claim.read_subjects.length + claim.write_subjects.length;
    if (subjects > limits.subjects) fail(site, field);
    claims.push(claim);
    guards.push(guardIdOf(claim));
  }
  requireAscending(guards, site, field);
  return { claims: Object.freeze(claims) as unknown as readonly C[], guards: Object.freeze(guards) };
}
