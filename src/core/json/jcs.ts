import { guardRefusals } from '../refusal/index.js';
import { refuseJson } from './refusals.js';
import { type CanonicalDialect, writeCanonical } from './serial.js';

const encoder = new TextEncoder();

// RFC 8785 numbers are IEEE doubles: a bigint is written only when the double
// of the same value is exact, i.e. within ±2^53.
const MAX_EXACT_BIGINT = 2n ** 53n;

/**
 * RFC 8785 (JCS) canonical JSON. Accepts parser output (JsonFloat as its
 * double, bigint within ±2^53) and plain JavaScript values; refuses NaN,
 * ±Infinity, lone surrogates, undefined, functions, symbols, non-plain
 * objects and nesting beyond MAX_SERIAL_DEPTH, each with a `canonical_*` code.
 */
export function canonicalize(value: unknown): string {
  // A throwing getter or proxy trap is a property of the value, not a bug here.
  return guardRefusals(
    () => writeCanonical(value, JCS),
    () => refuseJson('canonical_unsupported_value'),
  );
}

/** The UTF-8 bytes of `canonicalize(value)`: what RFC 8785 digests are taken over. */
export function canonicalizeToBytes(value: unknown): Uint8Array {
  return encoder.encode(canonicalize(value));
}

const JCS: CanonicalDialect = {
  number: numberText,
  bigint: (value) => {
    if (value > MAX_EXACT_BIGINT || value < -MAX_EXACT_BIGINT) throw refuseJson('canonical_unsafe_integer');
    return value.toString();
  },
  float: (value) => numberText(value.value),
  // The default sort compares UTF-16 code units, which is RFC 8785's key order.
  sortKeys: (keys) => keys.sort(),
};

/** ES2015 Number-to-String is RFC 8785's number form; `String(-0)` is already "0". */
function numberText(value: number): string {
  if (!Number.isFinite(value)) throw refuseJson('canonical_non_finite');
  return String(value);
}
