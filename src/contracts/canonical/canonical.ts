import { type Sha256Prefixed, sha256Prefixed } from '../../core/digest/index.js';
import { canonicalizeToBytes } from '../../core/json/index.js';
import { refuseContract } from '../authoring/refusals.js';
import { SealedProjection } from '../projection/sealed.js';

/** Canonical bytes of one sealed projection and the SHA-256 that identifies them. */
export interface CanonicalProjection {
  readonly kind: 'Source' | 'Model' | 'SemanticModel';
  readonly id: string;
  readonly version: string;
  readonly compatibility: 'backward' | 'forward' | 'full' | 'none';
  /** RFC 8785 UTF-8 bytes, no trailing newline. */
  readonly bytes: Uint8Array;
  readonly digest: Sha256Prefixed;
}

/**
 * The only way to canonical contract bytes: RFC 8785 (core `canonicalize`)
 * over a sealed projection, identified by SHA-256 (core digest). Anything
 * else — a decoded view, a copy, a proxy, an object made from the prototype —
 * is refused at run time, and does not type-check in the first place.
 */
export function canonicalizeProjection(sealed: SealedProjection): CanonicalProjection {
  const payload = SealedProjection.payloadOf(sealed);
  if (payload === undefined) throw refuseContract('contract_not_sealed', { role: 'projection' });
  const bytes = canonicalizeToBytes(payload);
  return Object.freeze({
    kind: payload.resource.kind,
    id: payload.resource.id,
    version: payload.contract.version,
    compatibility: payload.contract.compatibility,
    bytes,
    digest: sha256Prefixed(bytes),
  });
}
