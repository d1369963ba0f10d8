// The scoped execution owner codec (docs/owner.md): the strict
// dpone.composition-scoped-execution-owner.v1 document, the originals it
// embeds or is compared with, and its fixed refusal reasons.
export type { ActivationAttemptValue } from './attempt.js';
export { ATTEMPT_SCHEMA } from './attempt.js';
export type { DirectionalClaim, PhysicalClaim } from './claim.js';
export type { OriginalDescriptor } from './descriptor.js';
export type { SelectedEpoch } from './document/compare.js';
export {
  type EpochMove,
  OWNER_SCHEMA,
  type OwnerEffect,
  type OwnerHandoff,
  type OwnerObject,
  type OwnerObservation,
  type OwnerWorkload,
  type OwnerWriteBinding,
  type ScopedExecutionOwnerValue,
  type SourceSealAssociation,
} from './document/model.js';
export { type CompositionGrantValue, GRANT_KINDS, GRANT_SCHEMA, type GrantKind } from './grant.js';
export type { GuardEpoch } from './guard-epochs.js';
export { MAX_ORIGINAL_BYTES, MAX_OWNER_BYTES, ORIGINAL_LIMITS, OWNER_LIMITS } from './limits.js';
export {
  OPERATION_ACTIONS,
  OPERATION_SCHEMA,
  type OperationAction,
  type QualificationOperationValue,
} from './operation.js';
export {
  ActivationAttempt,
  ActivationRequest,
  CompositionGrant,
  type DecodeOptions,
  type GrantDecodeOptions,
  type GrantRole,
  QualificationOperation,
  QualificationOwner,
} from './originals.js';
export {
  type OwnerReference,
  type OwnerSummary,
  type ProjectedWrite,
  type RequiredOriginals,
  ScopedExecutionOwner,
} from './owner.js';
export { QUALIFICATION_OWNER_SCHEMA, type QualificationOwnerValue } from './qualification-owner.js';
export {
  isScopedExecutionRefusal,
  refuseScopedExecution,
  SCOPED_EXECUTION_REASONS,
  type ScopedExecutionReason,
  type ScopedExecutionRefusal,
} from './refusals.js';
export {
  type ActivationRequestValue,
  REQUEST_SCHEMA,
  type RequestResource,
  type RequestWorkload,
  type RequestWriteGroup,
} from './request.js';
export {
  type Access,
  CELL_RULES,
  type ClaimRole,
  CONNECTOR_ALIASES,
  CONNECTOR_RULES,
  type Connector,
  EXECUTION_CELLS,
  type ExecutionCell,
  type GuardId,
  guardIdOf,
  type ObjectId,
  type ObjectKind,
  type Purpose,
  type WorkloadId,
} from './vocabulary.js';
export {
  createDbtRelationWrite,
  type DbtRelationWrite,
  type DbtRelationWriteInput,
  DEFAULT_WRITE_ROLE,
  logicalWriteSha256,
} from './write.js';
