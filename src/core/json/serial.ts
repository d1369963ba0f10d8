import { refuseJson } from './refusals.js';
import { JsonFloat } from './value.js';

/**
 * What the two canonical serializers share: the shapes they accept and the
 * string escaping, which RFC 8785 and Python's `json.dumps(ensure_ascii=False)`
 * define identically for well-formed strings.
 */

/**
 * Nesting bound for serialization. A cycle is infinitely deep, so this bound
 * also turns a self-referencing value into a refusal instead of a stack
 * overflow, without tracking visited objects.
 */
export const MAX_SERIAL_DEPTH = 1000;

type WellFormedCheck = (this: string) => boolean;

// Node >= 20 has String.prototype.isWellFormed (ES2024), which the project's
// ES2023 lib does not declare; the regex is the same test for older engines.
const nativeWellFormed = (String.prototype as { isWellFormed?: WellFormedCheck }).isWellFormed;
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

export const isWellFormed: (text: string) => boolean =
  nativeWellFormed === undefined
    ? (text) => !LONE_SURROGATE.test(text)
    : (text) => nativeWellFormed.call(text);

// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are exactly what JSON escapes.
const NEEDS_ESCAPE = /["\\\u0000-\u001f]/;

/**
 * The quoted, escaped form of a string: `"` and `\` escaped, control
 * characters as \b \t \n \f \r or lowercase \u00xx, everything else raw.
 * `JSON.stringify` produces exactly this for a well-formed string; most
 * strings need no escape at all, and quoting those by concatenation avoids
 * copying them.
 */
export function quoteString(text: string): string {
  if (!isWellFormed(text)) throw refuseJson('canonical_lone_surrogate');
  return NEEDS_ESCAPE.test(text) ? JSON.stringify(text) : `"${text}"`;
}

const SETTLE_AT = 256;

/**
 * Returns `text` after asking V8 to flatten it. Concatenation builds ropes;
 * a serialization left as one rope of ~10^5 cells keeps all of them alive
 * until the end, so every young-generation collection copies them and the
 * final encoding walks them. Reading one character flattens a rope in place,
 * so each container's text is settled into one flat string once it is long
 * enough for that to pay off. Only speed depends on this, never the output.
 */
export function settle(text: string): string {
  if (text.length > SETTLE_AT) text.charCodeAt(0);
  return text;
}

/** An array whose prototype is Array.prototype (not a subclass, not a typed array). */
export function isPlainArray(value: object): value is readonly unknown[] {
  return Array.isArray(value) && Object.getPrototypeOf(value) === Array.prototype;
}

/** Plain objects only: literals and `Object.create(null)`, never Date, Map or class instances. */
export function isPlainRecord(value: object): value is Readonly<Record<string, unknown>> {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * The enumerable own string keys of a plain object. Symbol keys would be
 * dropped silently by any JSON form, so they are refused instead.
 */
export function recordKeys(record: Readonly<Record<string, unknown>>): string[] {
  if (Object.getOwnPropertySymbols(record).length !== 0) throw refuseJson('canonical_unsupported_value');
  return Object.keys(record);
}

/**
 * Where the two canonical forms differ: how numbers are written and how keys
 * are ordered. Everything else (shapes accepted, escaping, depth bound,
 * refusals) is one walk, `writeCanonical`.
 */
export interface CanonicalDialect {
  readonly number: (value: number) => string;
  readonly bigint: (value: bigint) => string;
  readonly float: (value: JsonFloat) => string;
  /** Sorts the keys in place and returns them. */
  readonly sortKeys: (keys: string[]) => string[];
}

/** The canonical text of `value` in `dialect`; refuses what neither form can carry. */
export function writeCanonical(value: unknown, dialect: CanonicalDialect): string {
  return writeValue(value, dialect, 0, '');
}

function writeValue(value: unknown, dialect: CanonicalDialect, depth: number, out: string): string {
  switch (typeof value) {
    case 'string':
      return out + quoteString(value);
    case 'number':
      return out + dialect.number(value);
    case 'boolean':
      return out + (value ? 'true' : 'false');
    case 'bigint':
      return out + dialect.bigint(value);
    case 'object':
      if (value === null) return `${out}null`;
      if (value instanceof JsonFloat) return out + dialect.float(value);
      if (depth >= MAX_SERIAL_DEPTH) throw refuseJson('canonical_too_deep');
      if (isPlainArray(value)) return out + settle(writeArray(value, dialect, depth + 1));
      if (isPlainRecord(value)) return out + settle(writeRecord(value, dialect, depth + 1));
      throw refuseJson('canonical_unsupported_value');
    default:
      throw refuseJson('canonical_unsupported_value');
  }
}

function writeArray(array: readonly unknown[], dialect: CanonicalDialect, depth: number): string {
  let text = '[';
  for (let i = 0; i < array.length; i++) {
    if (i !== 0) text += ',';
    text = writeValue(array[i], dialect, depth, text);
  }
  return `${text}]`;
}

function writeRecord(
  record: Readonly<Record<string, unknown>>,
  dialect: CanonicalDialect,
  depth: number,
): string {
  const names = dialect.sortKeys(recordKeys(record));
  let text = '{';
  let separator = '';
  for (const name of names) {
    text += `${separator}${quoteString(name)}:`;
    text = writeValue(record[name], dialect, depth, text);
    separator = ',';
  }
  return `${text}}`;
}
