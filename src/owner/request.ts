import type { Sha256Hex } from '../core/digest/index.js';
import { ORIGINAL_LIMITS } from './limits.js';
import {
  fail,
  readArray,
  readIdList,
  readMatching,
  readOneOf,
  readRecord,
  readSha256,
  readSha256List,
  requireAscending,
  type Site,
} from './read.js';
import {
  CONNECTORS,
  type Connector,
  EXECUTION_CELLS,
  type ExecutionCell,
  GUARD_ID,
  type GuardId,
  guardIdOf,
  ID,
  UUID,
  type WorkloadId,
} from './vocabulary.js';

export const REQUEST_SCHEMA = 'dpone.nonproduction-activation-request.v1';

/** A physical domain the request writes to, with the digest of its execution observation. */
export interface RequestResource {
  readonly connector: Connector;
  readonly service_id: string;
  readonly physical_subject_sha256: Sha256Hex;
  readonly observation_sha256: Sha256Hex;
}

/** The logical write hashes one workload writes into one resource (by guard). */
export interface RequestWriteGroup {
  readonly guard_id: GuardId;
  readonly logical_write_sha256s: readonly Sha256Hex[];
}

export interface RequestWorkload {
  readonly workload_id: WorkloadId;
  readonly constituents: readonly string[];
  readonly writes: readonly RequestWriteGroup[];
}

/**
 * The nonproduction activation request R (sealkit's minimal schema): the
 * activation, its execution cell and pack, the resources it writes to, and
 * its logical write partition by workload and resource.
 */
export interface ActivationRequestValue {
  readonly schema: typeof REQUEST_SCHEMA;
  readonly activation_id: string;
  readonly execution_cell: ExecutionCell;
  readonly pack_sha256: Sha256Hex;
  readonly resources: readonly RequestResource[];
  readonly workloads: readonly RequestWorkload[];
}

const FIELDS = [
  'activation_id',
  'execution_cell',
  'pack_sha256',
  'resources',
  'schema',
  'workloads',
] as const;
const RESOURCE_FIELDS = ['connector', 'observation_sha256', 'physical_subject_sha256', 'service_id'] as const;
const WORKLOAD_FIELDS = ['constituents', 'workload_id', 'writes'] as const;
const GROUP_FIELDS = ['guard_id', 'logical_write_sha256s'] as const;

const L = ORIGINAL_LIMITS;

/** Checks a request at `at` (its path prefix: `request`). */
export function validateRequest(value: unknown, site: Site, at: string): ActivationRequestValue {
  const f = readRecord(value, FIELDS, site, at);
  if (f.schema !== REQUEST_SCHEMA) fail(site, at, '.schema');
  readMatching(f.activation_id, UUID, site, at, '.activation_id');
  readOneOf(f.execution_cell, EXECUTION_CELLS, site, at, '.execution_cell');
  readSha256(f.pack_sha256, site, at, '.pack_sha256');

  const resources = readArray(
    f.resources,
    L.requestResources.min,
    L.requestResources.max,
    site,
    at,
    '.resources',
  );
  const guards: GuardId[] = [];
  for (const entry of resources) {
    const r = readRecord(entry, RESOURCE_FIELDS, site, at, '.resources[]');
    readOneOf(r.connector, CONNECTORS, site, at, '.resources[].connector');
    readMatching(r.service_id, ID, site, at, '.resources[].service_id');
    readSha256(r.physical_subject_sha256, site, at, '.resources[].physical_subject_sha256');
    readSha256(r.observation_sha256, site, at, '.resources[].observation_sha256');
    guards.push(guardIdOf(entry as RequestResource));
  }
  requireAscending(guards, site, at, '.resources');
  const resourceGuards = new Set(guards);

  const workloads = readArray(
    f.workloads,
    L.requestWorkloads.min,
    L.requestWorkloads.max,
    site,
    at,
    '.workloads',
  );
  const ids: string[] = [];
  const constituents = new Set<string>();
  const writes = new Set<string>();
  const usedGuards = new Set<GuardId>();
  for (const entry of workloads) {
    const w = readRecord(entry, WORKLOAD_FIELDS, site, at, '.workloads[]');
    ids.push(readMatching(w.workload_id, ID, site, at, '.workloads[].workload_id'));
    const own = readIdList(w.constituents, 1, L.constituents.max, ID, site, at, '.workloads[].constituents');
    for (const constituent of own) {
      if (constituents.has(constituent)) fail(site, at, '.workloads[].constituents');
      constituents.add(constituent);
    }
    if (constituents.size > L.constituents.max) fail(site, at, '.workloads[].constituents');
    const groups = readArray(w.writes, L.writeGroups.min, L.writeGroups.max, site, at, '.workloads[].writes');
    const groupGuards: string[] = [];
    for (const group of groups) {
      const g = readRecord(group, GROUP_FIELDS, site, at, '.workloads[].writes[]');
      const guard = readMatching(g.guard_id, GUARD_ID, site, at, '.workloads[].writes[].guard_id') as GuardId;
      if (!resourceGuards.has(guard)) fail(site, at, '.workloads[].writes[].guard_id');
      usedGuards.add(guard);
      groupGuards.push(guard);
      const hashes = readSha256List(
        g.logical_write_sha256s,
        1,
        L.logicalWrites.max,
        site,
        at,
        '.workloads[].writes[].logical_write_sha256s',
      );
      for (const hash of hashes) {
        if (writes.has(hash)) fail(site, at, '.workloads[].writes[].logical_write_sha256s');
        writes.add(hash);
      }
      if (writes.size > L.logicalWrites.max) fail(site, at, '.workloads[].writes[].logical_write_sha256s');
    }
    requireAscending(groupGuards, site, at, '.workloads[].writes');
  }
  requireAscending(ids, site, at, '.workloads');
  // A resource no workload writes to has no place in the write partition.
  if (usedGuards.size !== resourceGuards.size) fail(site, at, '.resources');
  return value as ActivationRequestValue;
}
