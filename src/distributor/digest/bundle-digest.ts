import { type Sha256Prefixed, sha256Prefixed } from '../../core/digest/index.js';
import { canonicalize } from '../../core/json/index.js';

export interface DigestRecord {
  readonly path: string;
  readonly sha256: string;
  readonly size: number;
}

/**
 * The canonical bundle digest payload
 * (docs/distributor.md#bundle-digest-byte-for-byte): a JSON array of
 * `{"path","sha256","size"}` objects in manifest order, fields in exactly
 * that order, no whitespace, no trailing newline. RFC 8785 (core/json,
 * the canonical JSON the distributor uses throughout) produces exactly these
 * bytes: that field order is also the sorted order, sizes are integers, and
 * its string escaping is JSON.stringify's. A test cross-checks the bytes
 * with Python's `json.dumps(records, ensure_ascii=False, separators=(",", ":"))`.
 */
export function bundleDigestPayload(files: readonly DigestRecord[]): string {
  return canonicalize(files.map((file) => ({ path: file.path, sha256: file.sha256, size: file.size })));
}

export function bundleDigest(files: readonly DigestRecord[]): Sha256Prefixed {
  return sha256Prefixed(bundleDigestPayload(files));
}
