import { isSha256Hex, type Sha256Hex } from '../core/digest/index.js';
import type { JsonObject, JsonValue } from '../core/json/index.js';
import type { EvidenceField } from './fields.js';
import { TYPE_PROFILE_ALGORITHM } from './fingerprints.js';
import {
  codePointLength,
  DESTINATIONS,
  type Destination,
  type FoldedIdentifier,
  fold,
  hasControlOrNewline,
  isOneOf,
  isSafeIdentifier,
  isSourceBindingId,
  type SafeIdentifier,
  type SourceBindingId,
} from './identifiers.js';
import { type FieldReader, own } from './shape.js';

/**
 * Field-table checks shared by the dry run and the run manifest, which carry
 * the same snapshot, fingerprint, destination and alias fields.
 */

declare const targetBrand: unique symbol;
/** The warehouse location (project, account/database or DuckDB path) with the namespace as final segment. Never emitted. */
export type TargetIdentity = string & { readonly [targetBrand]: true };

export interface TypeProfile {
  readonly destination: Destination;
  readonly name: string;
  readonly algorithm: typeof TYPE_PROFILE_ALGORITHM;
}

const PROFILE_KEYS = new Set(['destination', 'name', 'algorithm']);
const PROFILE_NAME = /^[a-z0-9][a-z0-9_.-]{0,63}$/;
const MAX_TARGET_IDENTITY_LENGTH = 1024;

/** A 64-lowercase-hex SHA-256 field. */
export function readHex(
  reader: FieldReader,
  record: JsonObject,
  key: string,
  field: EvidenceField,
): Sha256Hex {
  const value = reader.string(reader.required(record, key, field), field);
  if (!isSha256Hex(value)) reader.malformed(field);
  return value;
}

/** A label that must be exactly `expected`; anything else is an unsupported version. */
export function readLabel<const T extends string>(
  reader: FieldReader,
  record: JsonObject,
  key: string,
  field: EvidenceField,
  expected: T,
): T {
  const value = reader.required(record, key, field);
  if (value !== expected) reader.fail('scaffold_input_unsupported_version', field);
  return expected;
}

export function readSafe(reader: FieldReader, value: JsonValue, field: EvidenceField): SafeIdentifier {
  const text = reader.string(value, field);
  if (!isSafeIdentifier(text)) reader.malformed(field);
  return text;
}

export function readDestination(reader: FieldReader, value: JsonValue, field: EvidenceField): Destination {
  if (!isOneOf(DESTINATIONS, value)) reader.malformed(field);
  return value;
}

/** Optional alias: absent is allowed here (binding step 5 refuses it); present, it must match the pattern. */
export function readSourceBindingId(reader: FieldReader, record: JsonObject): SourceBindingId | undefined {
  const value = own(record, 'source_binding_id');
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !isSourceBindingId(value)) reader.malformed('source_binding_id');
  return value;
}

/** Safe identifiers, unique ignoring case, in recorded order. */
export function readSafeList(
  reader: FieldReader,
  value: JsonValue,
  field: EvidenceField,
): readonly SafeIdentifier[] {
  const seen = new Set<FoldedIdentifier>();
  return reader.array(value, field).map((item) => {
    const name = readSafe(reader, item, field);
    if (seen.has(fold(name))) reader.malformed(field);
    seen.add(fold(name));
    return name;
  });
}

/** dlt-normalized Bronze table names: safe identifiers already case-folded, index-paired with `pairedWith`. */
export function readBronzeTables(
  reader: FieldReader,
  value: JsonValue,
  pairedWith: readonly SafeIdentifier[],
): readonly SafeIdentifier[] {
  const tables = readSafeList(reader, value, 'destination_tables');
  if (tables.length !== pairedWith.length) reader.malformed('destination_tables');
  for (const table of tables) {
    if ((table as string) !== fold(table)) reader.malformed('destination_tables');
  }
  return tables;
}

/**
 * `_safe_target_identity` shape: 1–1,024 code points without control
 * characters, `/`-separated, with a non-empty final segment (the namespace).
 */
export function readTargetIdentity(reader: FieldReader, value: JsonValue): TargetIdentity {
  const text = reader.string(value, 'target_identity');
  const length = codePointLength(text);
  if (length === 0 || length > MAX_TARGET_IDENTITY_LENGTH || hasControlOrNewline(text)) {
    reader.malformed('target_identity');
  }
  const slash = text.lastIndexOf('/');
  if (slash === -1 || slash === text.length - 1) reader.malformed('target_identity');
  return text as TargetIdentity;
}

/** The final path segment of a target identity: the namespace it names. */
export function targetNamespaceSegment(identity: TargetIdentity): string {
  return identity.slice(identity.lastIndexOf('/') + 1);
}

export function readTypeProfile(reader: FieldReader, record: JsonObject): TypeProfile {
  const profile = reader.object(
    reader.required(record, 'destination_type_profile', 'destination_type_profile'),
    'destination_type_profile',
  );
  const destination = readDestination(
    reader,
    reader.required(profile, 'destination', 'destination_type_profile.destination'),
    'destination_type_profile.destination',
  );
  const name = reader.string(
    reader.required(profile, 'name', 'destination_type_profile.name'),
    'destination_type_profile.name',
  );
  if (!PROFILE_NAME.test(name)) reader.malformed('destination_type_profile.name');
  const algorithm = readLabel(
    reader,
    profile,
    'algorithm',
    'destination_type_profile.algorithm',
    TYPE_PROFILE_ALGORITHM,
  );
  reader.onlyKeys(profile, PROFILE_KEYS, 'destination_type_profile');
  return { destination, name, algorithm };
}
