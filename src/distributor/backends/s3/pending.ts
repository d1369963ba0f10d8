import { isSha256Prefixed, type Sha256Prefixed } from '../../../core/digest/index.js';
import { canonicalize, isJsonObject, type JsonValue, parseStrict } from '../../../core/json/index.js';
import { at } from '../../../core/list/index.js';
import { parseInstant } from '../../model/instant.js';
import { requireExactKeys } from '../../model/manifest.js';
import type { BundlePath, Instant } from '../../model/types.js';
import { compareUtf8, pathProblem } from '../../path/bundle-path.js';
import { refuseDistributor } from '../../refusals.js';

/**
 * The pending marker of an S3 bundle prefix (docs/distributor.md, "The
 * pending marker and its lease"). Before its first write a run creates
 * `.distributor.pending.json` claiming every key it may write or delete under
 * the bundle prefix, each with the digests of the bytes sealkit wrote or
 * would write there; the state `.distributor.json` is written after every
 * output; the marker is deleted last. Whatever a crash leaves is therefore
 * named by a marker of ours, and a later run deletes or overwrites a claimed
 * key only when its bytes have one of the claimed digests: an object someone
 * else put at a claimed key is never taken for ours.
 *
 * The marker is also a lease: `run` identifies its holder and `expires` ends
 * the holder's claim. A run takes over another run's marker (a crashed one)
 * only after `expires`; the holder renews the lease while it works, so a live
 * run is never overtaken and two runs never write outputs of one bundle at the
 * same time. All marker writes are conditional (`If-None-Match: *` to create,
 * `If-Match: <ETag>` to renew or take over).
 */
export const PENDING_FILE = '.distributor.pending.json';

/** One marker lists at most one bundle's outputs twice over (old and new); anything larger is not ours. */
export const PENDING_MAX_BYTES = 64 * 1024 * 1024;

/** A key the marker's holder may write or delete, and the digests of the bytes sealkit may have put there. */
export interface PendingClaim {
  readonly path: BundlePath;
  /** Sorted, unique, at least one. */
  readonly sha256: readonly Sha256Prefixed[];
}

export interface PendingMarker {
  readonly schema_version: 2;
  /** 32 lowercase hex characters, random per run. */
  readonly run: string;
  /** End of the holder's lease (UTC). */
  readonly expires: Instant;
  /** Sorted by path (UTF-8 bytes), one claim per path. */
  readonly claims: readonly PendingClaim[];
}

const RUN_ID = /^[0-9a-f]{32}$/;
/** Old digest, new digest, and the same again from a marker taken over: more is not ours. */
const MAX_DIGESTS_PER_CLAIM = 8;
const invalid = () => refuseDistributor('destination_state_invalid', { role: 'pending_marker' });

/** Strict: exactly the four fields, sorted unique safe paths, sorted unique digests. Anything else was not written by sealkit. */
export function parsePending(bytes: Uint8Array): PendingMarker {
  let value: JsonValue;
  try {
    value = parseStrict(bytes, { maxBytes: PENDING_MAX_BYTES, maxDepth: 5 });
  } catch {
    throw invalid();
  }
  if (!isJsonObject(value)) throw invalid();
  requireExactKeys(value, ['schema_version', 'run', 'expires', 'claims'], invalid);
  const { schema_version, run, expires, claims } = value;
  if (schema_version !== 2 || typeof run !== 'string' || !RUN_ID.test(run)) throw invalid();
  const instant = typeof expires === 'string' ? parseInstant(expires) : undefined;
  if (instant === undefined || instant !== expires || !Array.isArray(claims)) throw invalid();
  const parsed: PendingClaim[] = [];
  for (const claim of claims as readonly JsonValue[]) {
    if (!isJsonObject(claim)) throw invalid();
    requireExactKeys(claim, ['path', 'sha256'], invalid);
    const { path, sha256 } = claim;
    if (typeof path !== 'string' || pathProblem(path) !== undefined) throw invalid();
    if (!Array.isArray(sha256) || sha256.length === 0 || sha256.length > MAX_DIGESTS_PER_CLAIM)
      throw invalid();
    const digests: Sha256Prefixed[] = [];
    for (const digest of sha256 as readonly JsonValue[]) {
      if (typeof digest !== 'string' || !isSha256Prefixed(digest)) throw invalid();
      digests.push(digest);
    }
    if (!isSortedUnique(digests, (a, b) => (a < b ? -1 : a > b ? 1 : 0))) throw invalid();
    parsed.push({ path: path as BundlePath, sha256: digests });
  }
  if (!isSortedUnique(parsed, (a, b) => compareUtf8(a.path, b.path))) throw invalid();
  return { schema_version: 2, run, expires: instant, claims: parsed };
}

/** RFC 8785 bytes plus LF: one encoding, so equal markers are equal objects. */
export function serializePending(marker: PendingMarker): Uint8Array {
  const text = canonicalize({
    schema_version: marker.schema_version,
    run: marker.run,
    expires: marker.expires,
    claims: normalizeClaims(marker.claims).map((claim) => ({ path: claim.path, sha256: [...claim.sha256] })),
  });
  return Buffer.from(`${text}\n`, 'utf8');
}

/** Claims merged per path (digests united), sorted by path and digest. */
export function normalizeClaims(claims: Iterable<PendingClaim>): PendingClaim[] {
  const byPath = new Map<BundlePath, Set<Sha256Prefixed>>();
  for (const claim of claims) {
    const digests = byPath.get(claim.path) ?? new Set<Sha256Prefixed>();
    for (const digest of claim.sha256) digests.add(digest);
    byPath.set(claim.path, digests);
  }
  return [...byPath]
    .sort(([a], [b]) => compareUtf8(a, b))
    .map(([path, digests]) => ({ path, sha256: [...digests].sort() }));
}

function isSortedUnique<T>(items: readonly T[], compare: (a: T, b: T) => number): boolean {
  for (let index = 1; index < items.length; index += 1) {
    if (compare(at(items, index - 1), at(items, index)) >= 0) return false;
  }
  return true;
}
