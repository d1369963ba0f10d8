import type { Sha256Hex } from '../core/digest/index.js';
import { fail, readMatching, readRecord, readSha256, type Site } from './read.js';
import { UUID } from './vocabulary.js';

export const QUALIFICATION_OWNER_SCHEMA = 'dpone.composition-qualification-owner.v1';

/**
 * The qualification owner (sealkit's minimal schema): the qualification run,
 * the grant it holds and the scope that grant signs. Its owner key is
 * `qualification:<run id>`; its subject is the SHA-256 of its canonical bytes.
 */
export interface QualificationOwnerValue {
  readonly schema: typeof QUALIFICATION_OWNER_SCHEMA;
  readonly qualification_run_id: string;
  readonly grant_sha256: Sha256Hex;
  readonly scope_sha256: Sha256Hex;
}

const FIELDS = ['grant_sha256', 'qualification_run_id', 'schema', 'scope_sha256'] as const;

export function validateQualificationOwner(value: unknown, site: Site, at: string): QualificationOwnerValue {
  const f = readRecord(value, FIELDS, site, at);
  if (f.schema !== QUALIFICATION_OWNER_SCHEMA) fail(site, at, '.schema');
  readMatching(f.qualification_run_id, UUID, site, at, '.qualification_run_id');
  readSha256(f.grant_sha256, site, at, '.grant_sha256');
  readSha256(f.scope_sha256, site, at, '.scope_sha256');
  return value as QualificationOwnerValue;
}
