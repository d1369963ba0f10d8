import { guardRefusals } from '../refusal/index.js';
import { refuseJson } from './refusals.js';
import { type CanonicalDialect, writeCanonical } from './serial.js';

/**
 * Python 3 refuses to convert an int of more than 4300 decimal digits to text
 * (`sys.int_info.default_max_str_digits`), so json.dumps raises there; an
 * integer longer than that has no Python-compatible form.
 */
const PYTHON_MAX_INT_DIGITS = 4300;

/**
 * The text of Python's
 * `json.dumps(v, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False)`
 * over exact integers, the form Python-side fingerprints are computed on.
 * Integers: safe `number` integers and bigints of any size (up to Python's
 * digit limit). Every non-integer number, JsonFloat included, is refused:
 * Python's float repr is not reproduced here. Keys sort by Unicode code point
 * as Python sorts `str`, not by UTF-16 code unit as RFC 8785 does.
 */
export function pyDumps(value: unknown): string {
  return guardRefusals(
    () => writeCanonical(value, PYTHON),
    () => refuseJson('canonical_unsupported_value'),
  );
}

const PYTHON: CanonicalDialect = {
  number: integerText,
  bigint: bigintText,
  float: () => {
    throw refuseJson('canonical_float_refused');
  },
  sortKeys: sortByCodePoint,
};

function integerText(value: number): string {
  if (!Number.isFinite(value)) throw refuseJson('canonical_non_finite');
  if (!Number.isInteger(value)) throw refuseJson('canonical_float_refused');
  // Beyond 2^53 a number no longer names one integer; Python would print the
  // exact value of whatever the producer meant, which is unknown here.
  if (!Number.isSafeInteger(value)) throw refuseJson('canonical_unsafe_integer');
  return String(value);
}

function bigintText(value: bigint): string {
  const text = value.toString();
  const digits = value < 0n ? text.length - 1 : text.length;
  if (digits > PYTHON_MAX_INT_DIGITS) throw refuseJson('canonical_unsafe_integer');
  return text;
}

// UTF-16 order differs from code point order only where a surrogate (an
// astral character) meets a unit in U+E000..U+FFFF, so keys without any unit
// at or above U+D800 keep the fast native sort.
const HIGH_UNIT = /[\uD800-\uFFFF]/;

function sortByCodePoint(keys: string[]): string[] {
  keys.sort();
  for (const key of keys) {
    if (HIGH_UNIT.test(key)) return keys.sort(compareCodePoints);
  }
  return keys;
}

function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

/** Moves surrogates above U+E000..U+FFFF, so code units compare as the code points they start. */
function codePointRank(unit: number): number {
  if (unit >= 0xe000) return unit - 0x800;
  if (unit >= 0xd800) return unit + 0x2000;
  return unit;
}
