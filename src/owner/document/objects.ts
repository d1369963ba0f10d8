import { fail, readArray, readOneOf, readRecord, readSha256 } from '../read.js';
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

function checkObject(value: unknown): OwnerObject {
  const f = readRecord(value, FIELDS, OBJECT, 'objects[]');
  const connector = readOneOf(f.connector, CONNECTORS, OBJECT, 'objects[].connector');
  const kind = readOneOf(f.object_kind, OBJECT_KINDS, OBJECT, 'objects[].object_kind');
  const rule = CONNECTOR_RULES[connector];
  if (!rule.kinds.includes(kind)) fail(OBJECT, 'objects[].object_kind');
  const id = f.object_id;
  if (typeof id !== 'string' || !ID.test(id)) fail(OBJECT, 'objects[].object_id');
  const service = f.service_id;
  if (typeof service !== 'string' || !ID.test(service)) fail(OBJECT, 'objects[].service_id');
  readSha256(f.physical_subject_sha256, OBJECT, 'objects[].physical_subject_sha256');
  readSha256(f.subject_sha256, OBJECT, 'objects[].subject_sha256');
  const parts = readArray(f.qualified_name, rule.parts, rule.parts, OBJECT, 'objects[].qualified_name');
  for (const part of parts) {
    if (typeof part !== 'string' || part.length > rule.maxPart || !NAME_PART.test(part)) {
      fail(OBJECT, 'objects[].qualified_name[]');
    }
  }
  return value as OwnerObject;
}

/**
 * Objects ascending by object ID. Declared identity is
 * connector/service/physical domain/subject: two object IDs may neither split
 * one identity nor name the same qualified coordinate (compared exactly, case
 * retained; lexically different names are different coordinates).
 */
export function readObjects(value: unknown): ObjectIndex {
  const list = readArray(value, 1, Number.MAX_SAFE_INTEGER, OBJECT, 'objects') as readonly OwnerObject[];
  const byId = new Map<ObjectId, OwnerObject>();
  const guardOf = new Map<ObjectId, GuardId>();
  const byDomain = new Map<GuardId, OwnerObject[]>();
  // Per domain: its subjects; per connector/service: its qualified names.
  const subjects = new Map<GuardId, Set<string>>();
  const coordinates = new Map<string, Set<string>>();
  let previous = '';
  for (const entry of list) {
    const object = checkObject(entry);
    if (!(previous < object.object_id)) fail(OBJECT, 'objects');
    previous = object.object_id;
    const guard = guardIdOf(object);
    const domainSubjects = subjects.get(guard);
    if (domainSubjects === undefined) subjects.set(guard, new Set([object.subject_sha256]));
    else if (domainSubjects.has(object.subject_sha256)) fail(OBJECT, 'objects');
    else domainSubjects.add(object.subject_sha256);
    const service = `${object.connector}:${object.service_id}`;
    // Parts never contain '.', so the joined name keeps coordinates distinct.
    const name = object.qualified_name.join('.');
    const names = coordinates.get(service);
    if (names === undefined) coordinates.set(service, new Set([name]));
    else if (names.has(name)) fail(OBJECT, 'objects');
    else names.add(name);
    byId.set(object.object_id, object);
    guardOf.set(object.object_id, guard);
    const domain = byDomain.get(guard);
    if (domain === undefined) byDomain.set(guard, [object]);
    else domain.push(object);
  }
  return { objects: list, byId, guardOf, byDomain };
}
