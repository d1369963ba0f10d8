import type { z } from 'zod';
import { describeKind, type PathSegment, pointerOf, type YamlNode } from '../../core/input/index.js';
import { didYouMean, guardRefusals, type Refusal, refuseAll } from '../../core/refusal/index.js';
import { fieldPathOf } from './field-path.js';
import { IDENTIFIER_PATTERNS } from './identifiers.js';
import { allowedKeysAt, keyPositionAt, nodeAt } from './locate.js';
import { PHYSICAL_TYPE_PATTERN } from './physical-type.js';
import { type ContractRefusalCode, refuseContract } from './refusals.js';
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
import { readResourceYaml, type YamlValue } from './yaml.js';

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

/** The same, with the YAML node tree that says where each part of the resource is written. */
export function readLocatedResource(bytes: Uint8Array): {
  readonly resource: ValidatedResource;
  readonly node: YamlNode;
} {
  const document = readResourceYaml(bytes);
  return { resource: validateLocated(document.value, document.node), node: document.node };
}

/** Validates a decoded document against the resource schemas. */
export function validateResource(value: YamlValue | unknown): ValidatedResource {
  return validateLocated(value, null);
}

/** Validates a decoded document, reporting each issue where `node` says it is written. */
export function validateLocated(value: unknown, node: YamlNode | null): ValidatedResource {
  return guardRefusals(() => {
    const result = ResourceSchema.safeParse(value, { reportInput: true });
    if (!result.success) throw refuseAll(refusalsOf(result.error.issues, value, node));
    const resource = deepFreeze(result.data) as AuthoredResource as ValidatedResource;
    VALIDATED.add(resource);
    return resource;
  });
}

/**
 * One refusal per schema issue, each at the key or value it concerns (when
 * the node tree is known), in the order they are written in the file. An
 * unknown key names the nearest key its mapping allows.
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
  const atValue = (path: readonly PathSegment[]) => (node === null ? undefined : nodeAt(node, path).node.at);
  if (kind === undefined) {
    const given =
      typeof value === 'object' && value !== null ? (value as { kind?: unknown }).kind : undefined;
    const hint =
      typeof given === 'string'
        ? (didYouMean(given, RESOURCE_KINDS) ?? `expected one of ${RESOURCE_KINDS.join(', ')}`)
        : `add 'kind:' with one of ${RESOURCE_KINDS.join(', ')}`;
    const at = given === undefined ? atValue([]) : atValue(['kind']);
    return [located('contract_kind_unknown', ['kind'], at, hint)];
  }
  const out: { refusal: Refusal; line: number; column: number }[] = [];
  const push = (refusal: Refusal) =>
    out.push({ refusal, line: refusal.location?.line ?? 0, column: refusal.location?.column ?? 0 });
  for (const issue of issues) {
    const path = issue.path.filter(
      (segment): segment is PathSegment => typeof segment === 'string' || typeof segment === 'number',
    );
    if (issue.code === 'unrecognized_keys') {
      const allowed = allowedKeysAt(ResourceSchema, value, path) ?? [];
      const present = new Set(issue.keys);
      for (const key of issue.keys) {
        const at = node === null ? undefined : keyPositionAt(node, path, key);
        const hint = didYouMean(
          key,
          allowed.filter((candidate) => !present.has(candidate) && !hasKey(value, path, candidate)),
        );
        // `field` stays the schema path of the mapping (an authored key is not a schema path).
        push(located('contract_field_unknown', [...path, key], at, hint, path));
      }
      continue;
    }
    const code = codeOf(issue);
    if (code === 'contract_field_missing') {
      // A missing key is reported where its mapping starts.
      push(located(code, path, atValue(path.slice(0, -1))));
      continue;
    }
    push(located(code, path, atValue(path), hintOf(issue, node === null ? undefined : nodeAt(node, path))));
  }
  out.sort((a, b) => a.line - b.line || a.column - b.column);
  return out.length === 0 ? [refuseContract('contract_field_invalid', { role })] : out.map((o) => o.refusal);
}

function hasKey(value: unknown, path: readonly PathSegment[], key: string): boolean {
  let here: unknown = value;
  for (const segment of path) {
    if (typeof here !== 'object' || here === null) return false;
    here = (here as Record<PropertyKey, unknown>)[segment];
  }
  return typeof here === 'object' && here !== null && Object.hasOwn(here, key);
}

/** One line of advice for a value that has the wrong shape: sealkit's own vocabulary only. */
function hintOf(
  issue: z.core.$ZodIssue,
  found: { readonly node: YamlNode; readonly depth: number } | undefined,
): string | undefined {
  if (issue.code === 'invalid_value') {
    const allowed = issue.values.filter((candidate): candidate is string => typeof candidate === 'string');
    if (allowed.length === 0) return undefined;
    const given = found?.node.kind === 'string' ? found.node.value : undefined;
    const near = given === undefined ? undefined : didYouMean(given, allowed);
    return near ?? `expected one of ${allowed.join(', ')}`;
  }
  if (issue.code === 'invalid_type' && found !== undefined) {
    const expected = EXPECTED[issue.expected];
    return expected === undefined ? undefined : `expected ${expected}, found ${describeKind(found.node)}`;
  }
  if (issue.code === 'too_big' || issue.code === 'too_small') {
    const bound = Number(issue.code === 'too_big' ? issue.maximum : issue.minimum);
    const what = issue.origin === 'array' ? 'items' : issue.origin === 'string' ? 'characters' : undefined;
    if (what === undefined || !Number.isSafeInteger(bound)) return undefined;
    return `${issue.code === 'too_big' ? 'at most' : 'at least'} ${bound} ${what}`;
  }
  return undefined;
}

const EXPECTED: { readonly [type: string]: string } = {
  string: 'a string',
  number: 'a number',
  boolean: 'true or false',
  array: 'a list',
  object: 'a mapping',
};

function codeOf(issue: z.core.$ZodIssue): ContractRefusalCode {
  switch (issue.code) {
    case 'unrecognized_keys':
      return 'contract_field_unknown';
    case 'invalid_type':
      return issue.input === undefined ? 'contract_field_missing' : 'contract_field_invalid';
    case 'invalid_union':
      // A discriminated union reports a missing discriminator as a union issue on it.
      return issue.input === undefined ? 'contract_field_missing' : 'contract_field_invalid';
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
