import type { Sha256Hex } from '../core/digest/index.js';
import { type DirectionalClaim, readClaims } from './claim.js';
import { ORIGINAL_LIMITS } from './limits.js';
import { fail, readMatching, readOneOf, readRecord, readSha256, type Site } from './read.js';
import { EXECUTION_OWNER_KEY, QUALIFICATION_OWNER_KEY } from './vocabulary.js';

export const GRANT_SCHEMA = 'dpone.composition-grant.v1';

export const GRANT_KINDS = ['execution', 'qualification'] as const;
export type GrantKind = (typeof GRANT_KINDS)[number];

/**
 * A qualification or execution grant (sealkit's minimal schema): the owner it
 * was issued to, the digest of the signed scope, and the directional claims
 * it grants. sealkit compares grants; it does not check signatures.
 */
export interface CompositionGrantValue {
  readonly schema: typeof GRANT_SCHEMA;
  readonly grant_kind: GrantKind;
  readonly owner_key: string;
  readonly scope_sha256: Sha256Hex;
  readonly claims: readonly DirectionalClaim[];
}

const FIELDS = ['claims', 'grant_kind', 'owner_key', 'schema', 'scope_sha256'] as const;

export function validateGrant(value: unknown, site: Site, at: string): CompositionGrantValue {
  const f = readRecord(value, FIELDS, site, at);
  if (f.schema !== GRANT_SCHEMA) fail(site, at, '.schema');
  const kind = readOneOf(f.grant_kind, GRANT_KINDS, site, at, '.grant_kind');
  readMatching(
    f.owner_key,
    kind === 'execution' ? EXECUTION_OWNER_KEY : QUALIFICATION_OWNER_KEY,
    site,
    at,
    '.owner_key',
  );
  readSha256(f.scope_sha256, site, at, '.scope_sha256');
  readClaims<DirectionalClaim>(
    f.claims,
    false,
    { claims: ORIGINAL_LIMITS.grantClaims, subjects: ORIGINAL_LIMITS.grantSubjects.max },
    site,
    `${at}.claims`,
  );
  return value as CompositionGrantValue;
}
