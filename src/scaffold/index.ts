// The Silver scaffolder (docs/scaffold.md): create-only,
// evidence-bound generation of editable dbt Silver models into a client
// workspace, staged, sealed, verified and published with one atomic
// no-replace rename. Reads local files only; never runs dbt or a warehouse.
export {
  CANONICAL_TABLES as SCAFFOLD_CANONICAL_TABLES,
  type CanonicalTable as ScaffoldCanonicalTable,
  type CanonicalTableName,
} from './canonical.js';
export {
  EDITION_PROFILES,
  type EditionProfile,
  SCAFFOLD_EDITIONS,
  type ScaffoldEdition,
} from './editions.js';
export {
  FAULT_CALLS as SCAFFOLD_FAULT_CALLS,
  FAULT_POINTS as SCAFFOLD_FAULT_POINTS,
  type FaultCall as ScaffoldFaultCall,
  type FaultPause as ScaffoldFaultPause,
  type FaultPoint as ScaffoldFaultPoint,
  parseFaultRules,
  type ScaffoldFault,
  type ScaffoldFaults,
} from './faults.js';
export { type PlannedFile as ScaffoldPlannedFile, planScaffold, type ScaffoldPlan } from './plan.js';
export {
  PUBLICATION_CONDITION_MESSAGES,
  type PublicationConditionCode,
  refuseScaffold,
  type ScaffoldRefusalCode,
} from './refusals.js';
export { type ResolvedModel, resolveModels } from './resolve.js';
export type {
  ScaffoldReasonCode,
  ScaffoldResult,
  ScaffoldStage,
  ScaffoldStatus,
  StagingState,
} from './result.js';
export { type ScaffoldOptions, scaffold } from './run.js';
export { isSourceId, type SourceId } from './source-id.js';
