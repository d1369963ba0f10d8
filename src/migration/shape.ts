import { isJsonObject, type JsonArray, type JsonObject, type JsonValue } from '../core/json/index.js';
import type { EvidenceField, EvidenceRole } from './fields.js';
import { type EvidenceRefusalCode, refuseEvidence } from './refusals.js';

/**
 * Field-table primitives shared by the three artifact parsers. Each takes the
 * role and the allowlisted field path it reports, so one failure gives exactly
 * one code at one place: absent (or null where not nullable) is
 * `scaffold_field_missing`, a wrong type is `fallback` (`scaffold_field_malformed`
 * unless the artifact's parser decides otherwise, as the mapping parser does).
 */
export class FieldReader {
  readonly role: EvidenceRole;
  readonly malformedCode: EvidenceRefusalCode;

  constructor(role: EvidenceRole, malformedCode: EvidenceRefusalCode = 'scaffold_field_malformed') {
    this.role = role;
    this.malformedCode = malformedCode;
  }

  fail(code: EvidenceRefusalCode, field?: EvidenceField): never {
    throw refuseEvidence(code, field === undefined ? { role: this.role } : { role: this.role, field });
  }

  malformed(field?: EvidenceField): never {
    return this.fail(this.malformedCode, field);
  }

  /** A required, non-null field. */
  required(object: JsonObject, key: string, field: EvidenceField): JsonValue {
    const value = own(object, key);
    if (value === undefined || value === null) this.fail('scaffold_field_missing', field);
    return value;
  }

  /** A required field that may be null. */
  nullable(object: JsonObject, key: string, field: EvidenceField): JsonValue {
    const value = own(object, key);
    if (value === undefined) this.fail('scaffold_field_missing', field);
    return value;
  }

  string(value: JsonValue, field: EvidenceField): string {
    if (typeof value !== 'string') this.malformed(field);
    return value;
  }

  boolean(value: JsonValue, field: EvidenceField): boolean {
    if (typeof value !== 'boolean') this.malformed(field);
    return value;
  }

  array(value: JsonValue, field: EvidenceField): JsonArray {
    if (!Array.isArray(value)) this.malformed(field);
    return value as JsonArray;
  }

  object(value: JsonValue, field: EvidenceField): JsonObject {
    if (!isJsonObject(value)) this.malformed(field);
    return value;
  }

  /** A non-negative integer written without a fraction or exponent (`1.0` is refused, as Python's `int` check would). */
  count(value: JsonValue, field: EvidenceField): bigint {
    if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
    if (typeof value === 'bigint' && value >= 0n) return value;
    return this.malformed(field);
  }

  /** Refuses any key outside `allowed`; the offending key is never reported, only the object's path. */
  onlyKeys(object: JsonObject, allowed: ReadonlySet<string>, field?: EvidenceField): void {
    for (const key of Object.keys(object)) {
      if (!allowed.has(key)) this.malformed(field);
    }
  }
}

/** An own property, or undefined; objects from parseStrict have a null prototype, others may not. */
export function own(object: JsonObject, key: string): JsonValue | undefined {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}
