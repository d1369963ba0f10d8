import { at } from '../../core/list/index.js';
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

/** A physical domain seen among the objects, with the guard computed once for all its objects. */
interface Domain {
  readonly connector: string;
  readonly serviceId: string;
  readonly guard: GuardId;
  readonly subjects: Set<string>;
  /** Qualified names already declared on the domain's connector/service (shared by its domains). */
  readonly names: Map<string, Map<string, Set<string>>>;
}

/** Whether `parts` is already among `names`; records it if not. Nested maps: no joined key strings. */
function seenBefore(names: Map<string, Map<string, Set<string>>>, parts: readonly string[]): boolean {
  const three = parts.length === 3;
  const first = three ? at(parts, 0) : '';
  const second = at(parts, three ? 1 : 0);
  const third = at(parts, three ? 2 : 1);
  let middle = names.get(first);
  if (middle === undefined) {
    middle = new Map();
    names.set(first, middle);
  }
  let last = middle.get(second);
  if (last === undefined) {
    last = new Set();
    middle.set(second, last);
  }
  if (last.has(third)) return true;
  last.add(third);
  return false;
}

/**
 * Objects ascending by object ID. Declared identity is
 * connector/service/physical domain/subject: two object IDs may neither split
 * one identity nor name the same qualified coordinate (connector/service and
 * name, compared exactly with case retained; lexically different names are
 * different coordinates).
 */
export function readObjects(value: unknown): ObjectIndex {
  const list = readArray(value, 1, Number.MAX_SAFE_INTEGER, OBJECT, 'objects') as readonly OwnerObject[];
  const byId = new Map<ObjectId, OwnerObject>();
  const guardOf = new Map<ObjectId, GuardId>();
  const byDomain = new Map<GuardId, OwnerObject[]>();
  // Domains by physical subject (almost always one each), and names by connector/service.
  const domains = new Map<string, Domain[]>();
  const services = new Map<string, Map<string, Map<string, Map<string, Set<string>>>>>();
  let previous = '';
  for (const entry of list) {
    const object = checkObject(entry);
    if (!(previous < object.object_id)) fail(OBJECT, 'objects');
    previous = object.object_id;
    const domain = domainOf(object, domains, services);
    if (domain.subjects.has(object.subject_sha256)) fail(OBJECT, 'objects');
    domain.subjects.add(object.subject_sha256);
    if (seenBefore(domain.names, object.qualified_name)) fail(OBJECT, 'objects');
    byId.set(object.object_id, object);
    guardOf.set(object.object_id, domain.guard);
    const members = byDomain.get(domain.guard);
    if (members === undefined) byDomain.set(domain.guard, [object]);
    else members.push(object);
  }
  return { objects: list, byId, guardOf, byDomain };
}

function domainOf(
  object: OwnerObject,
  domains: Map<string, Domain[]>,
  services: Map<string, Map<string, Map<string, Map<string, Set<string>>>>>,
): Domain {
  let candidates = domains.get(object.physical_subject_sha256);
  if (candidates === undefined) {
    candidates = [];
    domains.set(object.physical_subject_sha256, candidates);
  }
  for (const domain of candidates) {
    if (domain.connector === object.connector && domain.serviceId === object.service_id) return domain;
  }
  let byService = services.get(object.connector);
  if (byService === undefined) {
    byService = new Map();
    services.set(object.connector, byService);
  }
  let names = byService.get(object.service_id);
  if (names === undefined) {
    names = new Map();
    byService.set(object.service_id, names);
  }
  const domain: Domain = {
    connector: object.connector,
    serviceId: object.service_id,
    guard: guardIdOf(object),
    subjects: new Set(),
    names,
  };
  candidates.push(domain);
  return domain;
}
