import type { z } from 'zod';
import {
  MEMBER_TARGET_PATTERN,
  NAME_PATTERN,
  REFERENCE_PATTERN,
  RESOURCE_ID_PATTERN,
  VERSION_PATTERN,
} from './identifiers.js';
import { defOf, unwrap, type ZodCheckDefLike, type ZodDefLike } from './locate.js';
import { MAX_DECIMAL_PRECISION, PHYSICAL_TYPE_PATTERN } from './physical-type.js';
import { FIELD_NAME_PATTERN, ISO_DATE_PATTERN } from './schemas/common.js';

/**
 * What a field of a resource accepts, in words, for the help line of a
 * refusal about it (docs/contracts.md#reading-an-error): `true or false`,
 * `one of backward, forward, full, none`, `a list of field names`. Read from
 * the same zod schemas that validate, so the words cannot drift from the
 * rules; sealkit's own vocabulary only, never an authored value.
 */
export function acceptsOf(schema: z.ZodType): string | undefined {
  const def = defOf(unwrap(schema));
  switch (def.type) {
    case 'boolean':
      return 'true or false';
    case 'number':
      return numberWords(def.checks ?? []);
    case 'string':
      return stringWords(def.checks ?? []);
    case 'enum':
      return `one of ${Object.values(def.entries ?? {}).join(', ')}`;
    case 'literal':
      return (def.values ?? []).map((value) => `'${String(value)}'`).join(' or ');
    case 'array': {
      if (def.element === undefined) return 'a list';
      const element = listMemberWords(def.element);
      return element === undefined ? 'a list' : `a list of ${element}`;
    }
    case 'object':
      return 'a mapping';
    case 'union':
      return unionWords(def);
    default:
      return undefined;
  }
}

/** Words for the members of a list: `field names`, `names`, `mappings`, `strings`. */
function listMemberWords(element: z.ZodType): string | undefined {
  const def = defOf(unwrap(element));
  if (def.type === 'object' || (def.type === 'union' && def.discriminator !== undefined)) return 'mappings';
  if (def.type === 'union') return 'literals (strings, numbers or true/false)';
  if (def.type !== 'string') return undefined;
  const pattern = patternOf(def.checks ?? []);
  const named = pattern === undefined ? undefined : PATTERN_PLURALS.find(([known]) => same(known, pattern));
  return named?.[1] ?? 'strings';
}

/**
 * What the discriminator `key` of the union `schema` takes, over every
 * option (`one of unique, not_null, accepted_values`); undefined when
 * `schema` is not a union discriminated by `key`.
 */
export function discriminatorWords(schema: z.ZodType | undefined, key: string): string | undefined {
  if (schema === undefined) return undefined;
  const def = defOf(unwrap(schema));
  if (def.type !== 'union' || def.discriminator !== key) return undefined;
  const values = discriminatorValues(def, key);
  return values.length === 0 ? undefined : `one of ${values.join(', ')}`;
}

/** The values the discriminator takes in each option of a discriminated union, in order. */
function discriminatorValues(def: ZodDefLike, key: string): string[] {
  return (def.options ?? []).flatMap((option) => {
    const discriminator = defOf(unwrap(option)).shape?.[key];
    if (discriminator === undefined) return [];
    const found = defOf(unwrap(discriminator));
    return found.type === 'enum'
      ? Object.values(found.entries ?? {}).map(String)
      : (found.values ?? []).map(String);
  });
}

function unionWords(def: ZodDefLike): string | undefined {
  if (def.discriminator !== undefined) {
    const values = discriminatorValues(def, def.discriminator);
    return `a mapping whose '${def.discriminator}' is one of ${values.join(', ')}`;
  }
  const words = (def.options ?? []).map((option) => plainKind(option));
  if (words.some((word) => word === undefined)) return undefined;
  return words.length <= 1
    ? words[0]
    : `${words.slice(0, -1).join(', ')} or ${words[words.length - 1] ?? ''}`;
}

/** A union member as a kind of value: `a string`, `a number`, `true or false`. */
function plainKind(schema: z.ZodType): string | undefined {
  const type = defOf(unwrap(schema)).type;
  if (type === 'string') return 'a string';
  if (type === 'number') return 'a number';
  if (type === 'boolean') return 'true or false';
  return undefined;
}

function numberWords(checks: readonly { readonly _zod: { readonly def: ZodCheckDefLike } }[]): string {
  const defs = checks.map((check) => check._zod.def);
  const whole = defs.some((check) => check.check === 'number_format' && check.format === 'safeint');
  const least = defs.find((check) => check.check === 'greater_than' && check.inclusive === true)?.value;
  const kind = whole ? 'a whole number' : 'a number';
  return least === undefined ? kind : `${kind} of ${String(least)} or more`;
}

function stringWords(checks: readonly { readonly _zod: { readonly def: ZodCheckDefLike } }[]): string {
  const pattern = patternOf(checks);
  if (pattern !== undefined) {
    const known = PATTERN_WORDS.find(([candidate]) => same(candidate, pattern));
    if (known !== undefined) return known[1];
  }
  const defs = checks.map((check) => check._zod.def);
  const max = defs.find((check) => check.check === 'max_length')?.maximum;
  return max === undefined ? 'text' : `text of at most ${String(max)} characters`;
}

function patternOf(
  checks: readonly { readonly _zod: { readonly def: ZodCheckDefLike } }[],
): RegExp | undefined {
  return checks.map((check) => check._zod.def).find((check) => check.format === 'regex')?.pattern;
}

function same(a: RegExp, b: RegExp): boolean {
  return String(a) === String(b);
}

// The docs' short list (docs/contracts.md#source); the integer widths run int8 to int64.
const TYPES = `string, boolean, int8 … int64, float32, float64, decimal(P,S) (1 ≤ P ≤ ${MAX_DECIMAL_PRECISION}, S ≤ P), date, time, timestamp, timestamp_tz, binary or json`;

/** The patterns of the schemas, in words. */
const PATTERN_WORDS: readonly (readonly [RegExp, string])[] = [
  [RESOURCE_ID_PATTERN, 'an id such as retail.source.orders (lowercase segments separated by dots)'],
  [NAME_PATTERN, 'a name such as order_facts (lowercase letters, digits and _)'],
  [REFERENCE_PATTERN, 'a resource id or name, such as retail.model.order_facts or order_facts'],
  [
    MEMBER_TARGET_PATTERN,
    'a semantic model (id or name) and one of its entities, such as customers_sm.customer',
  ],
  [VERSION_PATTERN, 'a version such as 1.3.0 (MAJOR.MINOR.PATCH)'],
  [PHYSICAL_TYPE_PATTERN, `a physical type: ${TYPES}`],
  [ISO_DATE_PATTERN, 'a calendar date such as 2027-06-30 (YYYY-MM-DD)'],
  [FIELD_NAME_PATTERN, 'a field name: 1 to 128 characters, no leading or trailing space'],
];

const PATTERN_PLURALS: readonly (readonly [RegExp, string])[] = [
  [NAME_PATTERN, 'names'],
  [FIELD_NAME_PATTERN, 'field names'],
  [MEMBER_TARGET_PATTERN, 'targets (semantic model.entity)'],
];
