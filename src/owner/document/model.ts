import type { Sha256Hex } from '../../core/digest/index.js';
import type { PhysicalClaim } from '../claim.js';
import type { OriginalDescriptor } from '../descriptor.js';
import type { QualificationOperationValue } from '../operation.js';
import type { ActivationRequestValue } from '../request.js';
import type { Access, Connector, GuardId, ObjectId, ObjectKind, Purpose, WorkloadId } from '../vocabulary.js';
import type { DbtRelationWrite } from '../write.js';

/**
 * The owner document exactly as it is serialized: field names are the wire
 * names, epochs are bigints. Every value of these types that sealkit hands
 * out was produced by the validator and is deeply frozen.
 */

export const OWNER_SCHEMA = 'dpone.composition-scoped-execution-owner.v1';

export interface OwnerObject {
  readonly object_id: ObjectId;
  readonly connector: Connector;
  readonly service_id: string;
  readonly physical_subject_sha256: Sha256Hex;
  readonly subject_sha256: Sha256Hex;
  readonly object_kind: ObjectKind;
  /** database/schema/object (MSSQL, PostgreSQL) or database/object (ClickHouse), separate parts. */
  readonly qualified_name: readonly string[];
}

export interface OwnerObservation {
  readonly guard_id: GuardId;
  readonly object_ids: readonly ObjectId[];
  readonly original: OriginalDescriptor;
}

export interface OwnerEffect {
  readonly object_id: ObjectId;
  readonly access: Access;
  readonly purpose: Purpose;
}

export interface OwnerWriteBinding {
  readonly write: DbtRelationWrite;
  readonly object_id: ObjectId;
}

export interface OwnerWorkload {
  readonly workload_id: WorkloadId;
  readonly effects: readonly OwnerEffect[];
  readonly write_bindings: readonly OwnerWriteBinding[];
}

export interface EpochMove {
  readonly guard_id: GuardId;
  readonly qualification_epoch: bigint;
  readonly execution_epoch: bigint;
}

export interface SourceSealAssociation {
  readonly source_object_ids: readonly ObjectId[];
  readonly operation: QualificationOperationValue;
  readonly original: OriginalDescriptor;
}

export interface OwnerHandoff {
  readonly qualification_owner_key: string;
  readonly qualification_owner_subject_sha256: Sha256Hex;
  readonly epochs: readonly EpochMove[];
  readonly source_seals: readonly SourceSealAssociation[];
}

export interface ScopedExecutionOwnerValue {
  readonly schema: typeof OWNER_SCHEMA;
  readonly request: ActivationRequestValue;
  readonly scope_sha256: Sha256Hex;
  readonly claims: readonly PhysicalClaim[];
  readonly objects: readonly OwnerObject[];
  readonly retained_source_ids: readonly ObjectId[];
  readonly workloads: readonly OwnerWorkload[];
  readonly observations: readonly OwnerObservation[];
  readonly handoff: OwnerHandoff;
}

export const OWNER_FIELDS = [
  'claims',
  'handoff',
  'objects',
  'observations',
  'request',
  'retained_source_ids',
  'schema',
  'scope_sha256',
  'workloads',
] as const;
