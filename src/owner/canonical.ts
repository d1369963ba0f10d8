import { isSha256Hex, type Sha256Hex, sha256Hex } from '../core/digest/index.js';
import { parseStrict, pyDumps } from '../core/json/index.js';
import { guardRefusals } from '../core/refusal/index.js';
import { MAX_DEPTH, MAX_INTEGER_DIGITS } from './limits.js';
import { fail, type Site } from './read.js';
import { isScopedExecutionRefusal, refuseScopedExecution } from './refusals.js';

/** How one canonical document kind is decoded: its byte bound and its strict validator. */
export interface CanonicalCodec<T> {
  /** Refuses byte-level failures: size, JSON syntax, non-canonical bytes. */
  readonly site: Site;
  readonly maxBytes: number;
  /**
   * Readies freshly parsed data (owned by the decoder alone) for checking:
   * epochs become bigints. It never runs on data a caller supplied.
   */
  prepare?(parsed: unknown): void;
  /** Checks plain JSON data where it is and returns it typed, or refuses. */
  validate(value: unknown): T;
}

/**
 * The codec's library boundary: only scoped-execution refusals leave `work`,
 * and only redacted. Core `guardRefusals` turns a TypeError from a forged
 * instance or any other exception into the site's fixed reason (its text may
 * quote input); a refusal of another table, such as a core JSON refusal with
 * its line, column and hint, becomes that reason too. The owner document's
 * payload is never described, not even by position (docs/owner.md#reasons).
 */
export function guardScoped<T>(site: Site, work: () => T): T {
  return guardRefusals(work, {
    fallback: () => refuseScopedExecution(site.reason, { role: site.role }),
    accept: isScopedExecutionRefusal,
    redact: true,
  });
}

/** The independently expected digest, which must be 64 lowercase hex digits. */
export function readExpectedSha256(expected: unknown, role: string): Sha256Hex {
  if (typeof expected !== 'string' || !isSha256Hex(expected)) {
    throw refuseScopedExecution('scoped_execution_subject', { role, field: 'expected_sha256' });
  }
  return expected;
}

/** The canonical form: Python's json.dumps(sort_keys=True, ensure_ascii=False, separators=(",", ":")), UTF-8. */
export function canonicalBytes(value: unknown): Buffer {
  return Buffer.from(pyDumps(value), 'utf8');
}

/**
 * Decodes `raw` only when it is, byte for byte, the canonical form of a valid
 * value: bound first (before any decoding), then the expected digest when one
 * is given, then strict JSON, the validator, and the exact canonical bytes.
 */
export function decodeCanonical<T>(
  raw: Uint8Array,
  codec: CanonicalCodec<T>,
  expectedSha256: Sha256Hex | undefined,
): T {
  if (!(raw instanceof Uint8Array) || raw.length > codec.maxBytes) fail(codec.site);
  if (expectedSha256 !== undefined && sha256Hex(raw) !== expectedSha256) {
    throw refuseScopedExecution('scoped_execution_subject', { role: codec.site.role });
  }
  const parsed = guardScoped(codec.site, () =>
    parseStrict(raw, { maxBytes: codec.maxBytes, maxDepth: MAX_DEPTH, maxIntegerDigits: MAX_INTEGER_DIGITS }),
  );
  const value = guardScoped(codec.site, () => {
    codec.prepare?.(parsed);
    return codec.validate(parsed);
  });
  const canonical = guardScoped(codec.site, () => canonicalBytes(value));
  // Valid, but not the canonical bytes (indented, keys reordered): named, so it is not read as a value's fault.
  if (Buffer.compare(canonical, raw) !== 0) fail(codec.site, 'canonical_form');
  // The parsed tree is reachable from nowhere else: freezing it makes the value immutable.
  return deepFreeze(value);
}

/** Freezes plain data (objects and arrays) all the way down. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    if (Array.isArray(value)) {
      for (const item of value) deepFreeze(item);
    } else {
      for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
    }
    Object.freeze(value);
  }
  return value;
}

/**
 * Turns a JavaScript value into the canonical bytes that `decodeCanonical`
 * accepts, reading every property exactly once (getters cannot show the
 * validator something else later). Unsupported values (undefined, floats,
 * NaN, class instances, symbols, cycles) refuse with the site's reason.
 */
export function valueToCanonical(value: unknown, site: Site): Buffer {
  return guardScoped(site, () => canonicalBytes(value));
}

/** A mutable deep copy of validated data (plain objects and arrays; bigints kept). */
export function cloneData(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(cloneData);
  if (typeof value === 'object' && value !== null) {
    // Defined, never assigned: an own `__proto__` key stays a key.
    return Object.fromEntries(
      Object.keys(value).map((key) => [key, cloneData((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}
