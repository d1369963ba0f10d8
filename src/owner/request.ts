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

export function validateRequest(value: unknown, site: Site, at: string): ActivationRequestValue {
  const f = readRecord(value, FIELDS, site, at);
  if (f.schema !== REQUEST_SCHEMA) fail(site, `${at}.schema`);

  const resourceList = readArray(
    f.resources,
    L.requestResources.min,
    L.requestResources.max,
    site,
    `${at}.resources`,
  );
  const resources: RequestResource[] = [];
  const guards: GuardId[] = [];
  for (const entry of resourceList) {
    const field = `${at}.resources[]`;
    const r = readRecord(entry, RESOURCE_FIELDS, site, field);
    const resource: RequestResource = Object.freeze({
      connector: readOneOf(r.connector, CONNECTORS, site, `${field}.connector`),
      service_id: readMatching(r.service_id, ID, site, `${field}.service_id`),
      physical_subject_sha256: readSha256(
        r.physical_subject_sha256,
        site,
        `${field}.physical_subject_sha256`,
      ),
      observation_sha256: readSha256(r.observation_sha256, site, `${field}.observation_sha256`),
    });
    resources.push(resource);
    guards.push(guardIdOf(resource));
  }
  requireAscending(guards, site, `${at}.resources`);
  const resourceGuards = new Set(guards);

  const workloadList = readArray(
    f.workloads,
    L.requestWorkloads.min,
    L.requestWorkloads.max,
    site,
    `${at}.workloads`,
  );
  const workloads: RequestWorkload[] = [];
  const seenConstituents = new Set<string>();
  const seenWrites = new Set<string>();
  const usedGuards = new Set<GuardId>();
  for (const entry of workloadList) {
    const field = `${at}.workloads[]`;
    const w = readRecord(entry, WORKLOAD_FIELDS, site, field);
    const constituents = readIdList(w.constituents, 1, L.constituents.max, ID, site, `${field}.constituents`);
    for (const constituent of constituents) {
      if (seenConstituents.has(constituent)) fail(site, `${field}.constituents`);
      seenConstituents.add(constituent);
    }
    if (seenConstituents.size > L.constituents.max) fail(site, `${field}.constituents`);
    const groupList = readArray(w.writes, L.writeGroups.min, L.writeGroups.max, site, `${field}.writes`);
    const groups: RequestWriteGroup[] = [];
    for (const groupEntry of groupList) {
      const g = readRecord(groupEntry, GROUP_FIELDS, site, `${field}.writes[]`);
      const guard = readMatching(g.guard_id, GUARD_ID, site, `${field}.writes[].guard_id`) as GuardId;
      if (!resourceGuards.has(guard)) fail(site, `${field}.writes[].guard_id`);
      usedGuards.add(guard);
      const hashes = readSha256List(
        g.logical_write_sha256s,
        1,
        L.logicalWrites.max,
        site,
        `${field}.writes[].logical_write_sha256s`,
      );
      for (const hash of hashes) {
        if (seenWrites.has(hash)) fail(site, `${field}.writes[].logical_write_sha256s`);
        seenWrites.add(hash);
      }
      if (seenWrites.size > L.logicalWrites.max) fail(site, `${field}.writes[].logical_write_sha256s`);
      groups.push(Object.freeze({ guard_id: guard, logical_write_sha256s: hashes }));
    }
    requireAscending(
      groups.map((group) => group.guard_id),
      site,
      `${field}.writes`,
    );
    workloads.push(
      Object.freeze({
        workload_id: readMatching(w.workload_id, ID, site, `${field}.workload_id`) as WorkloadId,
        constituents,
        writes: Object.freeze(groups),
      }),
    );
  }
  requireAscending(
    workloads.map((workload) => workload.workload_id),
    site,
    `${at}.workloads`,
  );
  // A resource no workload writes to has no place in the write partition.
  if (usedGuards.size !== resourceGuards.size) fail(site, `${at}.resources`);

  return Object.freeze({
    schema: REQUEST_SCHEMA,
    activation_id: readMatching(f.activation_id, UUID, site, `${at}.activation_id`),
    execution_cell: readOneOf(f.execution_cell, EXECUTION_CELLS, site, `${at}.execution_cell`),
    pack_sha256: readSha256(f.pack_sha256, site, `${at}.pack_sha256`),
    resources: Object.freeze(resources),
    workloads: Object.freeze(workloads),
  });
}
