import type { Sha256Hex } from '../core/digest/index.js';
import { MAX_DESCRIPTOR_PATH, MAX_DESCRIPTOR_SIZE } from './limits.js';
import { fail, readRecord, readSha256, readSmallInteger, type Site } from './read.js';

/**
 * Where an original's evidence was recorded: a relative path, its digest and
 * size. A descriptor is an association, not evidence: sealkit never reads
 * the file it names.
 */
export interface OriginalDescriptor {
  readonly path: string;
  readonly sha256: Sha256Hex;
  readonly size_bytes: number;
}

const FIELDS = ['path', 'sha256', 'size_bytes'] as const;

/** Relative, `/`-separated segments of [A-Za-z0-9._-] that never start with a dot: no `.`, `..` or absolute paths. */
const RELATIVE_PATH = /^[A-Za-z0-9_][A-Za-z0-9._-]*(?:\/[A-Za-z0-9_][A-Za-z0-9._-]*)*$/;

/** Checks the descriptor at `field` + `suffix`. */
export function readDescriptor(
  value: unknown,
  site: Site,
  field: string,
  suffix: string,
): OriginalDescriptor {
  const f = readRecord(value, FIELDS, site, field, suffix);
  const path = f.path;
  if (typeof path !== 'string' || path.length > MAX_DESCRIPTOR_PATH || !RELATIVE_PATH.test(path)) {
    fail(site, field, `${suffix}.path`);
  }
  readSha256(f.sha256, site, field, `${suffix}.sha256`);
  readSmallInteger(f.size_bytes, 1, MAX_DESCRIPTOR_SIZE, site, field, `${suffix}.size_bytes`);
  return value as OriginalDescriptor;
}
