import { isSha256Prefixed, type Sha256Prefixed } from '../../../core/digest/index.js';
import type { PathSegment } from '../../../core/input/index.js';
import {
  canonicalize,
  isJsonObject,
  type JsonObject,
  type JsonValue,
  parseStrict,
} from '../../../core/json/index.js';
import { at } from '../../../core/list/index.js';
import { Refusal } from '../../../core/refusal/index.js';
import { parseInstant } from '../../model/instant.js';
import { jsonPlaces } from '../../model/json-places.js';
import { describeFault, exactKeys } from '../../model/manifest.js';
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

/**
 * `destination_marker_invalid`, its hint the first fault and where it is
 * (`unknown key 'hello' at line 1, column 2`), never a value: the backend
 * names the object and says what to do.
 */
export const markerInvalid = (fault: string) =>
  refuseDistributor('destination_marker_invalid', { role: 'pending_marker', hint: fault });
const invalid = markerInvalid;

/**
 * Strict: exactly the four fields, sorted unique safe paths, sorted unique
 * digests. Anything else was not written by sealkit (or by a release that
 * writes markers of another form), and is refused with its first fault.
 */
export function parsePending(bytes: Uint8Array): PendingMarker {
  let value: JsonValue;
  try {
    value = parseStrict(bytes, { maxBytes: PENDING_MAX_BYTES, maxDepth: 5 });
  } catch (error: unknown) {
    throw invalid(notJson(error));
  }
  const places = jsonPlaces(bytes);
  const bad = (path: readonly PathSegment[], why: string) =>
    invalid(describeFault({ kind: 'value', path, why }, places));
  const exact = (object: JsonObject, path: readonly PathSegment[], keys: readonly string[]) =>
    exactKeys(object, path, keys, [], (_code, fault) => invalid(describeFault(fault, places)));
  if (!isJsonObject(value)) throw bad([], 'is not a JSON object');
  exact(value, [], ['schema_version', 'run', 'expires', 'claims']);
  const { schema_version, run, expires, claims } = value;
  if (schema_version !== 2) throw bad(['schema_version'], 'is not 2');
  if (typeof run !== 'string' || !RUN_ID.test(run)) throw bad(['run'], 'is not 32 lowercase hex digits');
  const instant = typeof expires === 'string' ? parseInstant(expires) : undefined;
  if (instant === undefined || instant !== expires)
    throw bad(['expires'], 'is not a lease end as sealkit writes it (UTC, RFC 3339)');
  if (!Array.isArray(claims)) throw bad(['claims'], 'is not a list');
  const parsed: PendingClaim[] = [];
  for (const [index, claim] of (claims as readonly JsonValue[]).entries()) {
    const place = ['claims', index] as const;
    if (!isJsonObject(claim)) throw bad(place, 'is not a JSON object');
    exact(claim, place, ['path', 'sha256']);
    const { path, sha256 } = claim;
    if (typeof path !== 'string' || pathProblem(path) !== undefined)
      throw bad([...place, 'path'], 'is not a safe path in a bundle');
    if (!Array.isArray(sha256) || sha256.length === 0 || sha256.length > MAX_DIGESTS_PER_CLAIM)
      throw bad([...place, 'sha256'], `is not a list of 1 to ${MAX_DIGESTS_PER_CLAIM} digests`);
    const digests: Sha256Prefixed[] = [];
    for (const [position, digest] of (sha256 as readonly JsonValue[]).entries()) {
      if (typeof digest !== 'string' || !isSha256Prefixed(digest))
        throw bad([...place, 'sha256', position], 'is not a sha256:<64 hex> digest');
      digests.push(digest);
    }
    if (!isSortedUnique(digests, (a, b) => (a < b ? -1 : a > b ? 1 : 0)))
      throw bad([...place, 'sha256'], 'is not sorted without repeats');
    parsed.push({ path: path as BundlePath, sha256: digests });
  }
  if (!isSortedUnique(parsed, (a, b) => compareUtf8(a.path, b.path)))
    throw bad(['claims'], 'is not sorted by path without repeats');
  return { schema_version: 2, run, expires: instant, claims: parsed };
}

/** What the strict parser found, where: its position and its fixed text, never the marker's bytes. */
function notJson(error: unknown): string {
  if (!(error instanceof Refusal)) return 'not strict JSON';
  if (error.code === 'json_too_large') return 'larger than a marker sealkit writes';
  const { line, column } = error.location ?? {};
  const where = line === undefined || column === undefined ? '' : ` at line ${line}, column ${column}`;
  return `not strict JSON${where} (${error.hint ?? error.message})`;
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
