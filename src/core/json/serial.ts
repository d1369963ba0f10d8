import { refuseJson } from './refusals.js';

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
