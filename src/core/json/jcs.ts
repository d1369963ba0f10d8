import { guardRefusals } from '../refusal/index.js';
import { refuseJson } from './refusals.js';
import { isPlainArray, isPlainRecord, MAX_SERIAL_DEPTH, quoteString, recordKeys, settle } from './serial.js';
import { JsonFloat } from './value.js';

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
    () => writeValue(value, 0, ''),
    () => refuseJson('canonical_unsupported_value'),
  );
}

/** The UTF-8 bytes of `canonicalize(value)`: what RFC 8785 digests are taken over. */
export function canonicalizeToBytes(value: unknown): Uint8Array {
  return encoder.encode(canonicalize(value));
}

function writeValue(value: unknown, depth: number, out: string): string {
  switch (typeof value) {
    case 'string':
      return out + quoteString(value);
    case 'number':
      return out + numberText(value);
    case 'boolean':
      return out + (value ? 'true' : 'false');
    case 'bigint':
      if (value > MAX_EXACT_BIGINT || value < -MAX_EXACT_BIGINT) throw refuseJson('canonical_unsafe_integer');
      return out + value.toString();
    case 'object':
      if (value === null) return `${out}null`;
      if (value instanceof JsonFloat) return out + numberText(value.value);
      if (depth >= MAX_SERIAL_DEPTH) throw refuseJson('canonical_too_deep');
      if (isPlainArray(value)) return out + settle(writeArray(value, depth + 1));
      if (isPlainRecord(value)) return out + settle(writeRecord(value, depth + 1));
      throw refuseJson('canonical_unsupported_value');
    default:
      throw refuseJson('canonical_unsupported_value');
  }
}

function writeArray(array: readonly unknown[], depth: number): string {
  let text = '[';
  for (let i = 0; i < array.length; i++) {
    if (i !== 0) text += ',';
    text = writeValue(array[i], depth, text);
  }
  return `${text}]`;
}

function writeRecord(record: Readonly<Record<string, unknown>>, depth: number): string {
  // The default sort compares UTF-16 code units, which is RFC 8785's key order.
  const names = recordKeys(record).sort();
  let text = '{';
  let separator = '';
  for (const name of names) {
    text += `${separator}${quoteString(name)}:`;
    text = writeValue(record[name], depth, text);
    separator = ',';
  }
  return `${text}}`;
}

/** ES2015 Number-to-String is RFC 8785's number form; `String(-0)` is already "0". */
function numberText(value: number): string {
  if (!Number.isFinite(value)) throw refuseJson('canonical_non_finite');
  return String(value);
}
