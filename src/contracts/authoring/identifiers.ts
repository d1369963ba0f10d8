/**
 * The ASCII character rules of contract identifiers. They are regular
 * expressions so the generated JSON Schemas carry them as `pattern` and an
 * editor flags a bad identifier while it is typed.
 */

/** A stable authored resource id: dot-separated lowercase segments, e.g. `retail.source.orders`. */
export const RESOURCE_ID_PATTERN = /^[a-z][a-z0-9_-]*(?:\.[a-z][a-z0-9_-]*){0,7}$/;
export const RESOURCE_ID_MAX = 128;

/**
 * A project-local resource name and every semantic member name (entity,
 * dimension, measure, relationship, filter): what SQL and references spell.
 */
export const NAME_PATTERN = /^[a-z_][a-z0-9_]{0,62}$/;

/** Semantic version MAJOR.MINOR.PATCH without leading zeros, each part below 2^31. */
export const VERSION_PATTERN = /^(?:0|[1-9][0-9]{0,9})\.(?:0|[1-9][0-9]{0,9})\.(?:0|[1-9][0-9]{0,9})$/;

/**
 * A relationship target: a resource reference (an id or a name) followed by
 * `.member`. Members never contain a dot, so the last dot splits it.
 */
export const MEMBER_TARGET_PATTERN =
  /^(?:[a-z][a-z0-9_-]*(?:\.[a-z][a-z0-9_-]*){0,7}|[a-z_][a-z0-9_]{0,62})\.[a-z_][a-z0-9_]{0,62}$/;

/** A reference to a resource: its stable id (explicit) or its project-local name (fallback). */
export const REFERENCE_PATTERN = /^(?:[a-z][a-z0-9_-]*(?:\.[a-z][a-z0-9_-]*){0,7}|[a-z_][a-z0-9_]{0,62})$/;

/** Every identifier pattern, so schema issues on them map to `contract_identifier_invalid`. */
export const IDENTIFIER_PATTERNS: readonly RegExp[] = [
  RESOURCE_ID_PATTERN,
  NAME_PATTERN,
  VERSION_PATTERN,
  MEMBER_TARGET_PATTERN,
  REFERENCE_PATTERN,
];

export function isResourceId(text: string): boolean {
  return text.length <= RESOURCE_ID_MAX && RESOURCE_ID_PATTERN.test(text);
}

export function isName(text: string): boolean {
  return NAME_PATTERN.test(text);
}

/** ASCII-only lowercase; SQL relation names resolve case-insensitively, like DuckDB does. */
export function asciiLower(text: string): string {
  return text.replace(/[A-Z]+/g, (run) => run.toLowerCase());
}

/** Splits `resource.member` at the last dot. */
export function splitMemberTarget(target: string): { readonly resource: string; readonly member: string } {
  const dot = target.lastIndexOf('.');
  return { resource: target.slice(0, dot), member: target.slice(dot + 1) };
}
