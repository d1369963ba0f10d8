import {
  fail,
  readArray,
  readMatching,
  readOneOf,
  readRecord,
  readSha256,
  requireAscending,
} from '../read.js';
import {
  CONNECTOR_RULES,
  CONNECTORS,
  type GuardId,
  guardIdOf,
  ID,
  NAME_PART,
  OBJECT_KINDS,
  type ObjectId,
} from '../vocabulary.js';
import type { OwnerObject } from './model.js';
import { OBJECT } from './sites.js';

const FIELDS = [
  'connector',
  'object_id',
  'object_kind',
  'physical_subject_sha256',
  'qualified_name',
  'service_id',
  'subject_sha256',
] as const;

export interface ObjectIndex {
  readonly objects: readonly OwnerObject[];
  readonly byId: ReadonlyMap<ObjectId, OwnerObject>;
  readonly guardOf: ReadonlyMap<ObjectId, GuardId>;
  /** Objects of each physical domain, ascending by object ID. */
  readonly byDomain: ReadonlyMap<GuardId, readonly OwnerObject[]>;
}

function readQualifiedName(
  value: unknown,
  connector: (typeof CONNECTORS)[number],
  field: string,
): readonly string[] {
  const rule = CONNECTOR_RULES[connector];
  const parts = readArray(value, rule.parts, rule.parts, OBJECT, field);
  const out: string[] = [];
  for (const part of parts) {
    const text = readMatching(part, NAME_PART, OBJECT, `${field}[]`);
    if (text.length > rule.maxPart) fail(OBJECT, `${field}[]`);
    out.push(text);
  }
  return Object.freeze(out);
}

function readObject(value: unknown): OwnerObject {
  const field = 'objects[]';
  const f = readRecord(value, FIELDS, OBJECT, field);
  const connector = readOneOf(f.connector, CONNECTORS, OBJECT, `${field}.connector`);
  const kind = readOneOf(f.object_kind, OBJECT_KINDS, OBJECT, `${field}.object_kind`);
  if (!CONNECTOR_RULES[connector].kinds.includes(kind)) fail(OBJECT, `${field}.object_kind`);
  return Object.freeze({
    object_id: readMatching(f.object_id, ID, OBJECT, `${field}.object_id`) as ObjectId,
    connector,
    service_id: readMatching(f.service_id, ID, OBJECT, `${field}.service_id`),
    physical_subject_sha256: readSha256(
      f.physical_subject_sha256,
      OBJECT,
      `${field}.physical_subject_sha256`,
    ),
    subject_sha256: readSha256(f.subject_sha256, OBJECT, `${field}.subject_sha256`),
    object_kind: kind,
    qualified_name: readQualifiedName(f.qualified_name, connector, `${field}.qualified_name`),
  });
}

/**
 * Objects ascending by object ID. Declared identity is
 * connector/service/physical domain/subject: two object IDs may neither split
 * one identity nor name the same qualified coordinate (compared exactly, case
 * retained; lexically different names are different coordinates).
 */
export function readObjects(value: unknown): ObjectIndex {
  const list = readArray(value, 1, Number.MAX_SAFE_INTEGER, OBJECT, 'objects');
  const objects: OwnerObject[] = [];
  const byId = new Map<ObjectId, OwnerObject>();
  const guardOf = new Map<ObjectId, GuardId>();
  const byDomain = new Map<GuardId, OwnerObject[]>();
  const identities = new Set<string>();
  const coordinates = new Set<string>();
  for (const entry of list) {
    const object = readObject(entry);
    const guard = guardIdOf(object);
    const identity = `${guard}:${object.subject_sha256}`;
    if (identities.has(identity)) fail(OBJECT, 'objects');
    identities.add(identity);
    // Parts never contain '.', so joining them keeps coordinates distinct.
    const coordinate = `${object.connector}:${object.service_id}:${object.qualified_name.join('.')}`;
    if (coordinates.has(coordinate)) fail(OBJECT, 'objects');
    coordinates.add(coordinate);
    objects.push(object);
    byId.set(object.object_id, object);
    guardOf.set(object.object_id, guard);
    const domain = byDomain.get(guard);
    if (domain === undefined) byDomain.set(guard, [object]);
    else domain.push(object);
  }
  requireAscending(
    objects.map((object) => object.object_id),
    OBJECT,
    'objects',
  );
  return { objects: Object.freeze(objects), byId, guardOf, byDomain };
}
