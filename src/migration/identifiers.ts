/**
 * The value vocabulary of migration evidence (DESIGN.md "Migration evidence").
 * Brands keep values that must never be mixed apart: a safe identifier is not
 * a raw source column name, and a source binding alias is neither.
 */

declare const safeBrand: unique symbol;
declare const aliasBrand: unique symbol;
declare const foldedBrand: unique symbol;

/** `^[A-Za-z_][A-Za-z0-9_]{0,62}$`: table, target, entity, namespace and Bronze names. */
export type SafeIdentifier = string & { readonly [safeBrand]: true };
/** A safe identifier case-folded; the only form case-insensitive comparisons use. */
export type FoldedIdentifier = string & { readonly [foldedBrand]: true };
/** The operator's generic source binding alias, `^[a-z][a-z0-9_]{0,39}$`; never authentication. */
export type SourceBindingId = string & { readonly [aliasBrand]: true };

const SAFE_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
const SOURCE_BINDING_ID = /^[a-z][a-z0-9_]{0,39}$/;
const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
// Python's str.splitlines() breaks on \x1c-\x1e and \x85 too; all of them are Cc
// except the two Unicode separators, listed explicitly.
const CONTROL_OR_NEWLINE = /[\p{Cc}\u2028\u2029]/u;

export function isSafeIdentifier(value: string): value is SafeIdentifier {
  return SAFE_IDENTIFIER.test(value);
}

export function isSourceBindingId(value: string): value is SourceBindingId {
  return SOURCE_BINDING_ID.test(value);
}

/** `str(uuid.UUID(x)) == x`: 8-4-4-4-12 lowercase hexadecimal. */
export function isCanonicalUuid(value: string): boolean {
  return CANONICAL_UUID.test(value);
}

export function hasControlOrNewline(value: string): boolean {
  return CONTROL_OR_NEWLINE.test(value);
}

/**
 * Python's `str.casefold()` restricted to safe identifiers, where it is ASCII
 * lowercase. Only safe identifiers are ever compared ignoring case, so a
 * non-ASCII name can never fold onto an ASCII one (Python folds U+017F to
 * "s"): such a name fails its pattern check instead of matching.
 */
export function fold(value: SafeIdentifier): FoldedIdentifier {
  return value.toLowerCase() as FoldedIdentifier;
}

/** Whether `value` has more than `limit` code points; the UTF-16 length bounds the count from above. */
export function longerThan(value: string, limit: number): boolean {
  return value.length > limit && codePointLength(value) > limit;
}

/** Length in code points, as Python's `len(str)` counts; UTF-16 `length` would count astral characters twice. */
export function codePointLength(value: string): number {
  let count = 0;
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    // A high surrogate followed by a low one is one code point (parseStrict refuses lone ones).
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < value.length) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

export const SOURCE_KINDS = ['csv', 'sql'] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

export const DESTINATIONS = ['bigquery', 'snowflake', 'duckdb'] as const;
export type Destination = (typeof DESTINATIONS)[number];

/** The casts a mapping rule may name (docs/evidence.md#mapping---mapping-file). */
export const CASTS = ['string', 'integer', 'numeric', 'date', 'timestamp', 'boolean'] as const;
export type Cast = (typeof CASTS)[number];

/** The type families a snapshot column may carry (DESIGN.md); raw dialect labels are never used. */
export const TYPE_FAMILIES = [
  'string',
  'integer',
  'numeric',
  'boolean',
  'date',
  'timestamp',
  'time',
  'binary',
  'json',
  'other',
] as const;
export type TypeFamily = (typeof TYPE_FAMILIES)[number];

export function isOneOf<const T extends readonly string[]>(values: T, value: unknown): value is T[number] {
  return typeof value === 'string' && values.includes(value);
}
