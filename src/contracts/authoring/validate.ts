import type { z } from 'zod';
import { guardRefusals } from '../../core/refusal/index.js';
import { fieldPathOf } from './field-path.js';
import { IDENTIFIER_PATTERNS } from './identifiers.js';
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
import { parseStrictYaml, type YamlValue } from './yaml.js';

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
  return validateResource(parseStrictYaml(bytes));
}

/** Validates a decoded document against the resource schemas. */
export function validateResource(value: YamlValue | unknown): ValidatedResource {
  return guardRefusals(() => {
    const result = ResourceSchema.safeParse(value, { reportInput: true });
    if (!result.success) throw refusalOf(result.error.issues, value);
    const resource = deepFreeze(result.data) as AuthoredResource as ValidatedResource;
    VALIDATED.add(resource);
    return resource;
  });
}

function refusalOf(issues: readonly z.core.$ZodIssue[], value: unknown) {
  const kind = kindOf(value);
  const role = kind === undefined ? 'resource' : ROLE_OF_KIND[kind];
  const issue = issues[0];
  if (issue === undefined) return refuseContract('contract_field_invalid', { role });
  const context = (path: readonly PropertyKey[]) => {
    const field = fieldPathOf(path);
    return field === undefined ? { role } : { role, field };
  };
  if (kind === undefined) return refuseContract('contract_kind_unknown', context(['kind']));
  return refuseContract(codeOf(issue), context(issue.path));
}

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
