import type { z } from 'zod';
import {
  describeKind,
  type ExpectedKind,
  locateIssues,
  nodeAt,
  type PathSegment,
  pointerOf,
  type RecordIssue,
  type YamlNode,
} from '../../core/input/index.js';
import { didYouMean, guardRefusals, nearest, type Refusal, refuseAll } from '../../core/refusal/index.js';
import { acceptsOf, discriminatorWords } from './accepts.js';
import { fieldPathOf } from './field-path.js';
import {
  asciiLower,
  IDENTIFIER_PATTERNS,
  MEMBER_TARGET_PATTERN,
  NAME_PATTERN,
  REFERENCE_PATTERN,
  RESOURCE_ID_PATTERN,
  VERSION_PATTERN,
} from './identifiers.js';
import { allowedKeysAt, positionInside, schemaAt, unionKeysAt, withinOf } from './locate.js';
import { MAX_DECIMAL_PRECISION, PHYSICAL_TYPE_PATTERN, SIMPLE_TYPE_NAMES } from './physical-type.js';
import { type ContractRefusalCode, refuseContract } from './refusals.js';
import { schemaCheckOptions } from './schema-compilation.js';
import { controlCharacterAt, REFINEMENTS } from './schemas/common.js';
import {
  type AuthoredResource,
  type DashboardResource,
  type ModelResource,
  RESOURCE_KINDS,
  ResourceSchema,
  ROLE_OF_KIND,
  type SemanticModelResource,
  type SourceResource,
} from './schemas/resource.js';
import { CONDITION_OPERATORS } from './schemas/semantic-model.js';
import { readResourceDocument, type YamlValue } from './yaml.js';

declare const validatedBrand: unique symbol;

/**
 * A resource that passed strict YAML and its kind's schema: deeply frozen,
 * defaults materialized, and registered as validated. Only these can enter a
 * project graph, and only a project graph can seal a projection.
 */
export type Validated<T> = T & { readonly [validatedBrand]: true };
export type ValidatedResource =
  | Validated<SourceResource>
  | Validated<ModelResource>
  | Validated<SemanticModelResource>
  | Validated<DashboardResource>;

const VALIDATED = new WeakSet<object>();

export function isValidatedResource(value: unknown): value is ValidatedResource {
  return typeof value === 'object' && value !== null && VALIDATED.has(value);
}

/** Parses and validates one resource file. */
export function readResource(bytes: Uint8Array): ValidatedResource {
  return readLocatedResource(bytes).resource;
}

/**
 * The same, with the YAML node tree that says where each part of the
 * resource is written. Every value-level YAML fault and every schema error
 * of the file is reported at once.
 */
export function readLocatedResource(bytes: Uint8Array): {
  readonly resource: ValidatedResource;
  readonly node: YamlNode;
} {
  const document = readResourceDocument(bytes);
  return {
    resource: validateLocated(document.value, document.node, document.faults),
    node: document.node,
  };
}

/** Validates a decoded document against the resource schemas. */
export function validateResource(value: YamlValue | unknown): ValidatedResource {
  return validateLocated(value, null);
}

/**
 * Validates a decoded document, reporting each issue where `node` says it is
 * written, together with `faults` the YAML reader found in the same file
 * (a schema issue at or under a faulty value is that fault, not another
 * error). Everything is refused at once, in file order.
 */
export function validateLocated(
  value: unknown,
  node: YamlNode | null,
  faults: readonly Refusal[] = [],
): ValidatedResource {
  return guardRefusals(() => {
    const result = ResourceSchema.safeParse(value, { reportInput: true, ...schemaCheckOptions() });
    const schemaRefusals = result.success ? [] : refusalsOf(result.error.issues, value, node);
    const faulty = faults.flatMap((fault) =>
      fault.location?.pointer === undefined ? [] : [fault.location.pointer],
    );
    const all = [
      ...faults,
      ...schemaRefusals.filter((refusal) => !faulty.some((pointer) => isWithin(refusal, pointer))),
    ];
    if (all.length > 0) throw refuseAll(inFileOrder(all));
    if (!result.success) throw refuseContract('contract_field_invalid', { role: 'resource' });
    const resource = deepFreeze(result.data) as AuthoredResource as ValidatedResource;
    VALIDATED.add(resource);
    return resource;
  });
}

function isWithin(refusal: Refusal, pointer: string): boolean {
  const own = refusal.location?.pointer ?? '';
  return own === pointer || own.startsWith(`${pointer}.`) || own.startsWith(`${pointer}[`);
}

/** Stable: refusals at the same place keep their order. */
function inFileOrder(refusals: readonly Refusal[]): Refusal[] {
  return [...refusals].sort(
    (a, b) =>
      (a.location?.line ?? 0) - (b.location?.line ?? 0) ||
      (a.location?.column ?? 0) - (b.location?.column ?? 0),
  );
}

/** zod's names for the kinds a value may have, in the closed-record kit's words. */
const EXPECTED_KINDS: { readonly [type: string]: ExpectedKind } = {
  string: 'string',
  number: 'number',
  int: 'integer',
  boolean: 'boolean',
  array: 'list',
  object: 'mapping',
  null: 'null',
};

/**
 * One refusal per schema issue, each at the key or value it concerns (when
 * the node tree is known). Unknown, missing and mistyped fields go through
 * the core closed-record kit (`locateIssues`), as the distributor's
 * configuration does: an unknown key names the nearest key its mapping
 * allows (or lists them), a missing one says what to add, a mistyped one
 * what was expected and what was found.
 */
function refusalsOf(
  issues: readonly z.core.$ZodIssue[],
  value: unknown,
  node: YamlNode | null,
): readonly Refusal[] {
  const kind = kindOf(value);
  const role = kind === undefined ? 'resource' : ROLE_OF_KIND[kind];
  const located = (
    code: ContractRefusalCode,
    path: readonly PathSegment[],
    at: { readonly line: number; readonly column: number } | undefined,
    hint?: string,
    fieldPath: readonly PathSegment[] = path,
  ): Refusal => {
    const field = fieldPathOf(fieldPath);
    const pointer = pointerOf(path);
    return refuseContract(code, {
      role,
      ...(field === undefined ? {} : { field }),
      location: { ...at, ...(pointer === '' ? {} : { pointer }) },
      ...(hint === undefined ? {} : { hint }),
    });
  };
  const atValue = (path: readonly PathSegment[]) => nodeAt(node, path)?.at;
  if (kind === undefined) {
    const given =
      typeof value === 'object' && value !== null ? (value as { kind?: unknown }).kind : undefined;
    const hint =
      typeof given === 'string'
        ? (didYouMean(given, RESOURCE_KINDS) ?? `expected one of ${RESOURCE_KINDS.join(', ')}`)
        : `add 'kind:' with one of ${RESOURCE_KINDS.join(', ')}`;
    // `knd: Source`: the kind is there under a misspelt key, which is the fault.
    const misspelt = given === undefined ? misspeltKindKey(value) : undefined;
    if (misspelt !== undefined) {
      const keyAt =
        node?.kind === 'map' ? node.entries.find((entry) => entry.key === misspelt)?.keyAt : undefined;
      return [located('contract_field_unknown', [misspelt], keyAt, "did you mean 'kind'?", [])];
    }
    const at = given === undefined ? atValue([]) : atValue(['kind']);
    return [located('contract_kind_unknown', ['kind'], at, hint)];
  }
  const out: Refusal[] = [];
  const records: RecordIssue[] = [];
  for (const issue of issues) {
    const path = issue.path.filter(
      (segment): segment is PathSegment => typeof segment === 'string' || typeof segment === 'number',
    );
    const record = recordIssueOf(issue, path, value)?.filter(
      (one) => one.kind !== 'unknown_key' || splitDecimal(nodeValue(value, one.path), one.key) === undefined,
    );
    if (record !== undefined) {
      records.push(...record);
      continue;
    }
    const code = codeOf(issue);
    const control = controlCharacterOf(issue, path, value, node);
    if (control !== undefined) {
      out.push(located(code, path, control.at ?? atValue(path), control.hint));
      continue;
    }
    const split =
      path[path.length - 1] === 'type' ? splitDecimal(nodeValue(value, path.slice(0, -1))) : undefined;
    const hint = split ?? hintOf(issue, code, nodeAt(node, path, true)) ?? acceptsHint(value, path);
    out.push(located(code, path, atValue(path), hint));
  }
  for (const problem of locateIssues(node, records)) {
    const at = node === null ? undefined : problem.at;
    const operand = operandHint(value, problem.path);
    const hint = operand ?? problem.hint;
    if (problem.kind === 'unknown_key') {
      // `field` stays the schema path of the mapping (an authored key is not a schema path).
      out.push(located('contract_field_unknown', problem.path, at, hint, problem.path.slice(0, -1)));
    } else if (problem.kind === 'missing_key') {
      out.push(
        located(
          'contract_field_missing',
          problem.path,
          at,
          operand ?? missingHint(value, problem.path) ?? hint,
        ),
      );
    } else {
      const wrongType = versionHint(node, problem.path) ?? wrongTypeHint(value, node, problem.path);
      out.push(located('contract_field_invalid', problem.path, at, wrongType ?? problem.hint));
    }
  }
  return out.length === 0 ? [refuseContract('contract_field_invalid', { role })] : out;
}

/** A key of a document without `kind` that is a typo of it (`knd`, `Kind`), holding a kind. */
function misspeltKindKey(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  return Object.entries(value).find(
    ([key, kind]) =>
      (RESOURCE_KINDS as readonly unknown[]).includes(kind) && nearest(key, ['kind']) === 'kind',
  )?.[0];
}

/** The closed-record issues a zod issue stands for, or undefined for any other rule. */
function recordIssueOf(
  issue: z.core.$ZodIssue,
  path: readonly PathSegment[],
  value: unknown,
): readonly RecordIssue[] | undefined {
  if (issue.code === 'unrecognized_keys') {
    const allowed = allowedKeysAt(ResourceSchema, value, path) ?? [];
    return issue.keys.map((key) => ({ kind: 'unknown_key', path, key, allowed }));
  }
  const last = path[path.length - 1];
  // A missing key; a discriminated union reports a missing discriminator as a union issue on it.
  if ((issue.code === 'invalid_type' || issue.code === 'invalid_union') && issue.input === undefined) {
    return typeof last === 'string'
      ? [{ kind: 'missing_key', path: path.slice(0, -1), key: last }]
      : undefined;
  }
  if (issue.code === 'invalid_union') return discriminatorIssues(path, value) ?? unionTypeIssue(issue, path);
  if (issue.code === 'invalid_type') {
    const expected = EXPECTED_KINDS[issue.expected];
    return expected === undefined ? undefined : [{ kind: 'wrong_type', path, expected: [expected] }];
  }
  return undefined;
}

/**
 * A mapping of a discriminated union (a check's `type`, a condition's `op`)
 * that lacks its discriminator: zod stops at the discriminator and reports
 * the union, as if the value were wrong. It is a missing key, and the keys
 * no option defines are unknown — so a misspelt discriminator (`tpye:
 * unique`) is one error, the unknown key with the key it was meant to be,
 * not a list of the options.
 */
function discriminatorIssues(
  path: readonly PathSegment[],
  value: unknown,
): readonly RecordIssue[] | undefined {
  const key = path[path.length - 1];
  const parent = path.slice(0, -1);
  const mapping = nodeValue(value, parent);
  if (typeof key !== 'string' || typeof mapping !== 'object' || mapping === null || Array.isArray(mapping))
    return undefined;
  if (Object.hasOwn(mapping, key)) return undefined;
  const allowed = unionKeysAt(ResourceSchema, value, parent);
  if (allowed === undefined || !allowed.includes(key)) return undefined;
  const unknown = Object.keys(mapping).filter((candidate) => !allowed.includes(candidate));
  return [
    ...unknown.map(
      (candidate): RecordIssue => ({ kind: 'unknown_key', path: parent, key: candidate, allowed }),
    ),
    { kind: 'missing_key', path: parent, key },
  ];
}

/**
 * A value that is none of the kinds a plain union takes (a literal that is
 * a list or empty): zod reports one failure per option; it is one value of
 * the wrong kind, with every kind the union accepts.
 */
function unionTypeIssue(
  issue: z.core.$ZodIssue,
  path: readonly PathSegment[],
): readonly RecordIssue[] | undefined {
  if (issue.code !== 'invalid_union' || issue.errors.length === 0) return undefined;
  const expected: ExpectedKind[] = [];
  for (const option of issue.errors) {
    const [only] = option;
    if (option.length !== 1 || only?.code !== 'invalid_type' || only.path.length !== 0) return undefined;
    const kind = EXPECTED_KINDS[only.expected];
    if (kind === undefined) return undefined;
    expected.push(kind);
  }
  return [{ kind: 'wrong_type', path, expected }];
}

/**
 * A control character in prose (a description, a label, a title, a tag):
 * where it is — the character itself, when the value is written as it is —
 * which one (its code point; it cannot be seen), and what the field may hold.
 */
function controlCharacterOf(
  issue: z.core.$ZodIssue,
  path: readonly PathSegment[],
  value: unknown,
  node: YamlNode | null,
): { readonly at?: { readonly line: number; readonly column: number }; readonly hint: string } | undefined {
  if (issue.code !== 'custom' || issue.params?.refinement !== REFINEMENTS.control_character) return undefined;
  const text = nodeValue(value, path);
  const allowed = typeof issue.params.allowed === 'string' ? issue.params.allowed : '';
  const index = typeof text === 'string' ? controlCharacterAt(text, allowed) : undefined;
  if (typeof text !== 'string' || index === undefined) return undefined;
  const codePoint = `U+${text.charCodeAt(index).toString(16).toUpperCase().padStart(4, '0')}`;
  const last = path[path.length - 1];
  const what = typeof last === 'number' ? 'tag' : String(last);
  const rule =
    allowed === ''
      ? `a ${what} is one line of text without control characters`
      : `a ${what} may hold tabs and line breaks, no other control character`;
  const found = nodeAt(node, path, true);
  const at = found === undefined ? undefined : positionInside(found, withinOf(text, index));
  // Escaped in quotes, the character is not where the text is written: say which one it is.
  const where =
    at === undefined ? ` (character ${[...text.slice(0, index)].length + 1} of the text)` : ' here';
  return {
    ...(at === undefined ? {} : { at }),
    hint: `control character ${codePoint}${where}: remove it (${rule})`,
  };
}

/** `expected <what the field accepts>`, for a refusal that has no more precise advice. */
function acceptsHint(value: unknown, path: readonly PathSegment[]): string | undefined {
  const schema = schemaAt(ResourceSchema, value, path);
  const accepts = schema === undefined ? undefined : acceptsOf(schema);
  return accepts === undefined ? undefined : `expected ${accepts}`;
}

/** `add 'guidance' to fields[6].deprecation: text of at most 4096 characters` — the key, where, and what it takes. */
function missingHint(value: unknown, path: readonly PathSegment[]): string | undefined {
  const key = path[path.length - 1];
  if (typeof key !== 'string') return undefined;
  const parent = pointerOf(path.slice(0, -1));
  const schema = schemaAt(ResourceSchema, value, path);
  const accepts =
    discriminatorWords(schemaAt(ResourceSchema, value, path.slice(0, -1)), key) ??
    (schema === undefined ? undefined : acceptsOf(schema));
  const where = parent === '' ? 'at the top level' : `to ${parent}`;
  return `add '${key}' ${where}${accepts === undefined ? '' : `: ${accepts}`}`;
}

/** `expected a list of field names, found a string`: what the field accepts, and the kind written. */
function wrongTypeHint(
  value: unknown,
  node: YamlNode | null,
  path: readonly PathSegment[],
): string | undefined {
  const schema = schemaAt(ResourceSchema, value, path);
  const accepts = schema === undefined ? undefined : acceptsOf(schema);
  const found = nodeAt(node, path, true);
  if (accepts === undefined || found === undefined) return undefined;
  return `expected ${accepts}, found ${describeKind(found)}`;
}

/**
 * A filter condition's operand is `value`, `values` or nothing, by its
 * operator: a `value` beside `op: in` is answered with what `in` takes, not
 * with a list of keys (docs/contracts.md#semanticmodel).
 */
function operandHint(value: unknown, path: readonly PathSegment[]): string | undefined {
  const key = path[path.length - 1];
  if ((key !== 'value' && key !== 'values') || path[path.length - 3] !== 'conditions') return undefined;
  const condition = nodeValue(value, path.slice(0, -1));
  const op =
    typeof condition === 'object' && condition !== null ? (condition as { op?: unknown }).op : undefined;
  if (typeof op !== 'string') return undefined;
  if ((CONDITION_OPERATORS.values as readonly string[]).includes(op))
    return `op '${op}' takes 'values' (a list)`;
  if ((CONDITION_OPERATORS.value as readonly string[]).includes(op))
    return `op '${op}' takes 'value' (one literal)`;
  if ((CONDITION_OPERATORS.none as readonly string[]).includes(op)) return `op '${op}' takes no value`;
  return undefined;
}

/**
 * `{ name: amount, type: decimal(12,2) }`: in a flow mapping the comma ends
 * the value, so YAML reads `type: decimal(12` and a key `2)`. Returns the
 * advice to quote the type when the mapping has that shape (and, given
 * `key`, only when `key` is the stray rest); the digits are type text, not a
 * value, so they may be shown.
 */
function splitDecimal(mapping: unknown, key?: string): string | undefined {
  if (typeof mapping !== 'object' || mapping === null || Array.isArray(mapping)) return undefined;
  const record = mapping as Record<string, unknown>;
  const head = typeof record.type === 'string' ? /^decimal\(\s*([0-9]{1,2})\s*$/.exec(record.type) : null;
  if (head === null) return undefined;
  const rest = Object.keys(record)
    .map((candidate) => ({ candidate, match: /^\s*([0-9]{1,2})\s*\)$/.exec(candidate) }))
    .find(({ candidate, match }) => match !== null && (key === undefined || key === candidate));
  const scale = rest?.match?.[1];
  if (scale === undefined) return undefined;
  return `quote the type inside { }, where a comma ends a value: type: "decimal(${head[1]},${scale})"`;
}

function nodeValue(value: unknown, path: readonly PathSegment[]): unknown {
  let here = value;
  for (const segment of path) {
    if (typeof here !== 'object' || here === null) return undefined;
    here = (here as Record<PropertyKey, unknown>)[segment];
  }
  return here;
}

/**
 * Names people write for an operator (`equals`, `>=`), offered when no
 * operator is spelled close.
 */
const OPERATOR_OTHER_NAMES: { readonly [name: string]: string } = {
  '=': 'eq',
  '==': 'eq',
  equals: 'eq',
  equal: 'eq',
  is: 'eq',
  '!=': 'ne',
  '<>': 'ne',
  not_equals: 'ne',
  neq: 'ne',
  '<': 'lt',
  '<=': 'lte',
  le: 'lte',
  '>': 'gt',
  '>=': 'gte',
  ge: 'gte',
  nin: 'not_in',
  null: 'is_null',
  not_null: 'is_not_null',
};

/** One line of advice for a value that breaks a rule: sealkit's own vocabulary only. */
function hintOf(
  issue: z.core.$ZodIssue,
  code: ContractRefusalCode,
  found: YamlNode | undefined,
): string | undefined {
  const given = found?.kind === 'string' ? found.value : undefined;
  // A discriminator outside its values (`op: equals`): the allowed ones, and the nearest.
  if (issue.code === 'invalid_union' && 'options' in issue && Array.isArray(issue.options)) {
    const allowed = issue.options.filter((candidate): candidate is string => typeof candidate === 'string');
    if (allowed.length === 0) return undefined;
    const folded = given?.toLowerCase();
    const other =
      folded !== undefined && Object.hasOwn(OPERATOR_OTHER_NAMES, folded)
        ? OPERATOR_OTHER_NAMES[folded]
        : undefined;
    const near =
      given === undefined
        ? undefined
        : (didYouMean(given, allowed) ??
          (other !== undefined && allowed.includes(other) ? `did you mean '${other}'?` : undefined));
    const list = `expected one of ${allowed.join(', ')}`;
    return near === undefined ? list : `${near} ${list}`;
  }
  if (issue.code === 'invalid_value') {
    const allowed = issue.values.filter((candidate): candidate is string => typeof candidate === 'string');
    if (allowed.length === 0) return undefined;
    const near = given === undefined ? undefined : didYouMean(given, allowed);
    const list = `expected one of ${allowed.join(', ')}`;
    return near === undefined ? list : `${near} ${list}`;
  }
  if (code === 'contract_identifier_invalid' && issue.code === 'invalid_format') {
    return identifierHint('pattern' in issue ? String(issue.pattern) : '', given);
  }
  if (code === 'contract_type_invalid') return typeHint(given);
  if (issue.code === 'custom' && issue.params?.refinement === REFINEMENTS.calendar_date) {
    return 'expected a calendar date that exists, YYYY-MM-DD: a month from 01 to 12 and a day the month has';
  }
  if (issue.code === 'too_big' || issue.code === 'too_small') {
    const bound = Number(issue.code === 'too_big' ? issue.maximum : issue.minimum);
    const what = issue.origin === 'array' ? 'a list' : issue.origin === 'string' ? 'text' : undefined;
    if (what === undefined || !Number.isSafeInteger(bound)) return undefined;
    const unit = issue.origin === 'array' ? 'item' : 'character';
    const count = `${bound.toLocaleString('en-US')} ${unit}${bound === 1 ? '' : 's'}`;
    if (issue.code === 'too_small' && bound === 1)
      return `expected ${what} of at least 1 ${unit}: it is empty`;
    return `expected ${what} of ${issue.code === 'too_big' ? 'at most' : 'at least'} ${count}`;
  }
  return undefined;
}

/**
 * Names people write for a physical type (`integer`, `varchar`,
 * `numeric(12,2)`), offered when no type is spelled close.
 */
const TYPE_OTHER_NAMES: { readonly [name: string]: string } = {
  bigint: 'int64',
  long: 'int64',
  integer: 'int32',
  int: 'int32',
  smallint: 'int16',
  short: 'int16',
  tinyint: 'int8',
  byte: 'int8',
  varchar: 'string',
  text: 'string',
  char: 'string',
  bool: 'boolean',
  double: 'float64',
  float: 'float64',
  real: 'float32',
  datetime: 'timestamp',
  timestamptz: 'timestamp_tz',
  bytes: 'binary',
  blob: 'binary',
  jsonb: 'json',
};

const TYPE_LIST = `${SIMPLE_TYPE_NAMES.join(', ')} or decimal(P,S) with 1 ≤ P ≤ ${MAX_DECIMAL_PRECISION} and S ≤ P`;

/**
 * What is wrong with a physical type as written: a decimal's precision or
 * scale out of bounds (the digits are type text, not a value, so they may
 * be shown), spaces or capitals in it, a near type name, or a familiar other
 * name for one.
 */
function typeHint(given: string | undefined): string {
  if (given === undefined) return `expected ${TYPE_LIST}`;
  const decimal = /^(?:decimal|numeric)\s*\(\s*([0-9]+)\s*(?:,\s*([0-9]+)\s*)?\)$/i.exec(given);
  if (decimal !== null) {
    const precision = Number(decimal[1]);
    const scale = decimal[2] === undefined ? undefined : Number(decimal[2]);
    if (scale === undefined)
      return 'a decimal needs a precision and a scale: decimal(P,S), e.g. decimal(12,2)';
    if (precision < 1 || precision > MAX_DECIMAL_PRECISION) {
      return `a decimal's precision P is 1 to ${MAX_DECIMAL_PRECISION} digits; decimal(${precision},${scale}) has ${precision}`;
    }
    if (scale > precision) {
      return `a decimal's scale S is at most its precision P; decimal(${precision},${scale}) has S > P`;
    }
    return `write it as decimal(${precision},${scale}): lowercase, without spaces`;
  }
  const lower = given.trim().toLowerCase();
  if ((SIMPLE_TYPE_NAMES as readonly string[]).includes(lower))
    return `write it as ${lower}: lowercase, without spaces`;
  const other = Object.hasOwn(TYPE_OTHER_NAMES, lower) ? TYPE_OTHER_NAMES[lower] : undefined;
  // The list is long: a near name is the whole answer.
  return (
    didYouMean(given, [...SIMPLE_TYPE_NAMES, 'decimal(P,S)']) ??
    (other === undefined ? `expected ${TYPE_LIST}` : `did you mean '${other}'?`)
  );
}

/**
 * `version: 1.3` is a YAML number, and quoting it only leads to the version
 * rule: say at once what a version is, with the one meant.
 */
function versionHint(node: YamlNode | null, path: readonly PathSegment[]): string | undefined {
  if (path.at(-1) !== 'version' || node === null) return undefined;
  const found = nodeAt(node, path, true);
  if (found?.kind !== 'number') return undefined;
  const meant = /^[0-9]+\.[0-9]+$/.test(found.source) ? `${found.source}.0` : '1.3.0';
  return `a version is written MAJOR.MINOR.PATCH, e.g. version: ${meant} (a YAML string without quotes)`;
}

/** What an identifier of each kind looks like, with the value the user probably meant when one is close. */
function identifierHint(pattern: string, given: string | undefined): string | undefined {
  const rule = IDENTIFIER_RULES.find(([known]) => String(known) === pattern);
  if (rule === undefined) return undefined;
  const [known, text] = rule;
  const meant =
    given === undefined ? undefined : meantIdentifier(given).find((candidate) => known.test(candidate));
  return meant === undefined || meant === given ? text : `did you mean '${meant}'? ${text}`;
}

/** Spellings people use for an identifier that the rules refuse, tidied: `v1.3.0`, `Orders`, `1.03.0`. */
function meantIdentifier(given: string): readonly string[] {
  const lower = asciiLower(given.trim());
  const unprefixed = lower.replace(/^v(?=[0-9])/, '');
  const unpadded = unprefixed.replace(/(^|\.)0+(?=[0-9])/g, '$1');
  return [lower, unprefixed, unpadded];
}

const IDENTIFIER_RULES: readonly (readonly [RegExp, string])[] = [
  [
    VERSION_PATTERN,
    'a version is MAJOR.MINOR.PATCH: three whole numbers without leading zeros or suffixes, e.g. 1.3.0',
  ],
  [
    RESOURCE_ID_PATTERN,
    'an id is lowercase segments separated by dots, each starting with a letter (letters, digits, _ and -), e.g. retail.source.orders',
  ],
  [
    NAME_PATTERN,
    'a name is lowercase letters, digits and _, starting with a letter or _, at most 63 characters, e.g. order_facts',
  ],
  [
    MEMBER_TARGET_PATTERN,
    'a target is a resource id or name, a dot, and a member name, e.g. customers.customer_id',
  ],
  [REFERENCE_PATTERN, 'a reference is a resource id (retail.source.orders) or a project-local name (orders)'],
];

function codeOf(issue: z.core.$ZodIssue): ContractRefusalCode {
  switch (issue.code) {
    case 'unrecognized_keys':
      return 'contract_field_unknown';
    case 'invalid_type':
      return issue.input === undefined ? 'contract_field_missing' : 'contract_field_invalid';
    case 'invalid_union':
      // A discriminated union reports a missing discriminator as a union issue on it.
      return issue.input === undefined ? 'contract_field_missing' : 'contract_field_invalid';
    case 'custom':
      if (issue.params?.refinement === REFINEMENTS.decimal_scale) return 'contract_type_invalid';
      if (issue.params?.refinement === REFINEMENTS.control_character) return 'contract_text_invalid';
      return 'contract_field_invalid';
    case 'invalid_format': {
      const pattern = 'pattern' in issue ? String(issue.pattern) : '';
      if (pattern === String(PHYSICAL_TYPE_PATTERN)) return 'contract_type_invalid';
      if (IDENTIFIER_PATTERNS.some((known) => String(known) === pattern))
        return 'contract_identifier_invalid';
      return 'contract_field_invalid';
    }
    default:
      return 'contract_field_invalid';
  }
}

function kindOf(value: unknown): AuthoredResource['kind'] | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const kind = (value as { kind?: unknown }).kind;
  return (RESOURCE_KINDS as readonly unknown[]).includes(kind)
    ? (kind as AuthoredResource['kind'])
    : undefined;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
