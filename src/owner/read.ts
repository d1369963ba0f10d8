import { isSha256Hex, type Sha256Hex } from '../core/digest/index.js';
import { refuseScopedExecution, type ScopedExecutionReason } from './refusals.js';

/**
 * Strict checks over plain JSON data. Readers check a value where it is and
 * return it typed; they never copy or change it (the decoder owns the data
 * it checks, so no caller can change it afterwards).
 *
 * A refusal names the reason of its site, the artifact role and an
 * allowlisted field path written here, never taken from the input: the path
 * is `field` + `suffix`, joined only when a check fails. A path without `[]`
 * at its end names a collection as a whole (count, order, duplicates,
 * coverage); `name[]…` names one entry.
 */
export interface Site {
  readonly reason: ScopedExecutionReason;
  readonly role: string;
}

export function fail(site: Site, field?: string, suffix = ''): never {
  throw refuseScopedExecution(
    site.reason,
    field === undefined ? { role: site.role } : { role: site.role, field: field + suffix },
  );
}

export type Fields = Readonly<Record<string, unknown>>;

/** The field of an unknown top-level key (docs/owner.md#reasons). */
export const TOP_LEVEL = 'top_level_keys';

/** A plain object with exactly `keys`: no unknown, missing or symbol keys, no class instances. */
export function readRecord(
  value: unknown,
  keys: readonly string[],
  site: Site,
  field?: string,
  suffix?: string,
): Fields {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(site, field, suffix);
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) fail(site, field, suffix);
  // Counting with for…in allocates nothing (Object.keys would, for every record of a large document);
  // it also counts inherited enumerable keys, which only makes the check stricter. Symbol keys need
  // no check: every value checked here was parsed from bytes (a caller's value is serialized first,
  // and the serializer refuses symbol keys).
  // A missing key is named (`handoff`, `attempt.workload_id`): the name is
  // ours, from `keys`, never the input's. An unknown key is not: only the
  // record that holds it is.
  for (const key of keys) {
    if (!Object.hasOwn(value, key)) fail(site, childPath(field, suffix, key));
  }
  let count = 0;
  for (const _ in value) count++;
  // An unknown key of a document itself is placed at `top_level_keys`: still never its name.
  if (count !== keys.length) fail(site, field ?? TOP_LEVEL, suffix);
  return value as Fields;
}

function childPath(field: string | undefined, suffix: string | undefined, key: string): string {
  return field === undefined ? key : `${field}${suffix ?? ''}.${key}`;
}

/** A plain array of `min`…`max` entries. */
export function readArray(
  value: unknown,
  min: number,
  max: number,
  site: Site,
  field: string,
  suffix?: string,
): readonly unknown[] {
  if (!Array.isArray(value) || Object.getPrototypeOf(value) !== Array.prototype) fail(site, field, suffix);
  const array = value as readonly unknown[];
  if (array.length < min || array.length > max) fail(site, field, suffix);
  return array;
}

/** The length of `value` when it is a plain array, else 0 (the entry reader refuses it later). */
export function lengthOf(value: unknown): number {
  return Array.isArray(value) ? value.length : 0;
}

export function readMatching(
  value: unknown,
  pattern: RegExp,
  site: Site,
  field: string,
  suffix?: string,
): string {
  if (typeof value !== 'string' || !pattern.test(value)) fail(site, field, suffix);
  return value;
}

export function readOneOf<T extends string>(
  value: unknown,
  allowed: readonly T[],
  site: Site,
  field: string,
  suffix?: string,
): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) fail(site, field, suffix);
  return value as T;
}

export function readSha256(value: unknown, site: Site, field: string, suffix?: string): Sha256Hex {
  if (typeof value !== 'string' || !isSha256Hex(value)) fail(site, field, suffix);
  return value;
}

/**
 * An exact integer in [min, max] as a bigint. JSON integers beyond 2^53 arrive
 * as bigint, smaller ones as number; floats (JsonFloat), booleans, strings and
 * unsafe doubles are refused, so no epoch is ever rounded.
 */
export function readBigInteger(
  value: unknown,
  min: bigint,
  max: bigint,
  site: Site,
  field: string,
  suffix?: string,
): bigint {
  let integer: bigint;
  if (typeof value === 'bigint') integer = value;
  else if (typeof value === 'number' && Number.isSafeInteger(value)) integer = BigInt(value);
  else fail(site, field, suffix);
  if (integer < min || integer > max) fail(site, field, suffix);
  return integer;
}

/** An exact integer in [min, max] where max is a safe integer: a number, never a bigint. */
export function readSmallInteger(
  value: unknown,
  min: number,
  max: number,
  site: Site,
  field: string,
  suffix?: string,
): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    fail(site, field, suffix);
  }
  return value;
}

/** Strictly ascending keys: sorted and without duplicates (ASCII keys, so code units order as code points). */
export function requireAscending(keys: readonly string[], site: Site, field: string, suffix?: string): void {
  let previous: string | undefined;
  for (const key of keys) {
    if (previous !== undefined && !(previous < key)) fail(site, field, suffix);
    previous = key;
  }
}

/** Two sorted, duplicate-free lists hold the same entries. */
export function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** A list of IDs of one grammar, strictly ascending. */
export function readIdList(
  value: unknown,
  min: number,
  max: number,
  pattern: RegExp,
  site: Site,
  field: string,
  suffix = '',
): readonly string[] {
  const array = readArray(value, min, max, site, field, suffix);
  const entry = `${suffix}[]`;
  let previous = '';
  for (let i = 0; i < array.length; i++) {
    const id = readMatching(array[i], pattern, site, field, entry);
    if (i > 0 && !(previous < id)) fail(site, field, suffix);
    previous = id;
  }
  return array as readonly string[];
}

export function readSha256List(
  value: unknown,
  min: number,
  max: number,
  site: Site,
  field: string,
  suffix = '',
): readonly Sha256Hex[] {
  const array = readArray(value, min, max, site, field, suffix);
  const entry = `${suffix}[]`;
  let previous = '';
  for (let i = 0; i < array.length; i++) {
    const hex = readSha256(array[i], site, field, entry);
    if (i > 0 && !(previous < hex)) fail(site, field, suffix);
    previous = hex;
  }
  return array as readonly Sha256Hex[];
}
