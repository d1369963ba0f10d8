import { isSha256Hex, type Sha256Hex } from '../core/digest/index.js';
import { refuseScopedExecution, type ScopedExecutionReason } from './refusals.js';

/**
 * Where a strict read happens: the reason it refuses with, the artifact role
 * and an allowlisted field path written here (never taken from the input).
 * A path without `[]` at its end names a collection as a whole (count,
 * order, duplicates, coverage); `name[]…` names one entry.
 */
export interface Site {
  readonly reason: ScopedExecutionReason;
  readonly role: string;
}

export function fail(site: Site, field?: string): never {
  throw refuseScopedExecution(
    site.reason,
    field === undefined ? { role: site.role } : { role: site.role, field },
  );
}

export type Fields = Readonly<Record<string, unknown>>;

/**
 * A plain object with exactly `keys` (no unknown, missing or symbol keys).
 * Values are read by the caller once each, into a detached copy.
 */
export function readRecord(value: unknown, keys: readonly string[], site: Site, field?: string): Fields {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(site, field);
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) fail(site, field);
  if (Object.getOwnPropertySymbols(value).length !== 0) fail(site, field);
  if (Object.keys(value).length !== keys.length) fail(site, field);
  for (const key of keys) {
    if (!Object.hasOwn(value, key)) fail(site, field);
  }
  return value as Fields;
}

/** A plain array of `min`…`max` entries. */
export function readArray(
  value: unknown,
  min: number,
  max: number,
  site: Site,
  field: string,
): readonly unknown[] {
  if (!Array.isArray(value) || Object.getPrototypeOf(value) !== Array.prototype) fail(site, field);
  const array = value as readonly unknown[];
  if (array.length < min || array.length > max) fail(site, field);
  return array;
}

/** The length of `value` when it is a plain array, else 0 (the entry reader refuses it later). */
export function lengthOf(value: unknown): number {
  return Array.isArray(value) ? value.length : 0;
}

export function readString(value: unknown, site: Site, field: string): string {
  if (typeof value !== 'string') fail(site, field);
  return value;
}

export function readMatching(value: unknown, pattern: RegExp, site: Site, field: string): string {
  if (typeof value !== 'string' || !pattern.test(value)) fail(site, field);
  return value;
}

export function readOneOf<T extends string>(
  value: unknown,
  allowed: readonly T[],
  site: Site,
  field: string,
): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) fail(site, field);
  return value as T;
}

export function readSha256(value: unknown, site: Site, field: string): Sha256Hex {
  if (typeof value !== 'string' || !isSha256Hex(value)) fail(site, field);
  return value;
}

/**
 * An exact integer in [min, max] as a bigint. JSON integers beyond 2^53 arrive
 * as bigint, smaller ones as number; floats (JsonFloat), booleans, strings and
 * unsafe doubles are refused, so no epoch is ever rounded.
 */
export function readBigInteger(value: unknown, min: bigint, max: bigint, site: Site, field: string): bigint {
  let integer: bigint;
  if (typeof value === 'bigint') integer = value;
  else if (typeof value === 'number' && Number.isSafeInteger(value)) integer = BigInt(value);
  else fail(site, field);
  if (integer < min || integer > max) fail(site, field);
  return integer;
}

/** An exact integer in [min, max] where max is a safe integer, as a number. */
export function readSmallInteger(
  value: unknown,
  min: number,
  max: number,
  site: Site,
  field: string,
): number {
  let integer: number;
  if (typeof value === 'number' && Number.isSafeInteger(value)) integer = value;
  else if (typeof value === 'bigint' && value >= BigInt(min) && value <= BigInt(max)) integer = Number(value);
  else fail(site, field);
  if (integer < min || integer > max) fail(site, field);
  return integer;
}

/** Strictly ascending keys: sorted and without duplicates (ASCII keys, so code units order as code points). */
export function requireAscending(keys: readonly string[], site: Site, field: string): void {
  for (let i = 1; i < keys.length; i++) {
    if (!((keys[i - 1] as string) < (keys[i] as string))) fail(site, field);
  }
}

/** Two sorted, duplicate-free lists hold the same entries. */
export function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Reads a list of IDs of one grammar, strictly ascending. */
export function readIdList(
  value: unknown,
  min: number,
  max: number,
  pattern: RegExp,
  site: Site,
  field: string,
): readonly string[] {
  const array = readArray(value, min, max, site, field);
  const out: string[] = new Array(array.length);
  for (let i = 0; i < array.length; i++) out[i] = readMatching(array[i], pattern, site, `${field}[]`);
  requireAscending(out, site, field);
  return Object.freeze(out);
}

export function readSha256List(
  value: unknown,
  min: number,
  max: number,
  site: Site,
  field: string,
): readonly Sha256Hex[] {
  const array = readArray(value, min, max, site, field);
  const out: Sha256Hex[] = new Array(array.length);
  for (let i = 0; i < array.length; i++) out[i] = readSha256(array[i], site, `${field}[]`);
  requireAscending(out, site, field);
  return Object.freeze(out);
}
