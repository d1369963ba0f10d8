// Migration evidence (docs/evidence.md): the readers, the
// fingerprints and the binding contract every generator calls. Nothing here
// opens a source connection, reads credentials or queries a warehouse.
export {
  type BindEvidenceOptions,
  bindEvidence,
  bindEvidenceDocuments,
  type EvidenceDocuments,
  type EvidenceOutcome,
  type RefusedEvidence,
} from './bind-evidence.js';
export {
  ALLOWED_BLOCKERS,
  type BindingInvocation,
  BRONZE_NAMESPACE_PREFIX,
  bindRecords,
  type ParsedEvidence,
} from './binding.js';
export type { BoundEvidence, BoundTable, IntegrityMarkers } from './bound.js';
export {
  checkDryRunBounds,
  type DryRunRecord,
  type InventoryEntry,
  type NormalizedColumn,
  type NormalizedTable,
  parseDryRun,
  type ReportedRule,
} from './dry-run.js';
export { EDITIONS, type EditionDestination, type EditionPath, editionFor } from './edition.js';
export { EVIDENCE_FIELDS, EVIDENCE_ROLES, type EvidenceField, type EvidenceRole } from './fields.js';
export {
  mappingsFingerprint,
  SCHEMA_CONFIRMATION_ALGORITHM,
  SNAPSHOT_ALGORITHM,
  SOURCE_SCHEMA_ALGORITHM,
  schemaConfirmationFingerprint,
  sourceSchemaFingerprint,
  TYPE_PROFILE_ALGORITHM,
  TYPED_SCHEMA_ALGORITHM,
  typedSchemaFingerprint,
} from './fingerprints.js';
export {
  isMaxEvidenceAge,
  MAX_EVIDENCE_AGE_FORMS,
  type MaxEvidenceAge,
  parseMaxEvidenceAge,
} from './freshness.js';
export {
  CASTS,
  type Cast,
  DESTINATIONS,
  type Destination,
  type FoldedIdentifier,
  fold,
  isSafeIdentifier,
  isSourceBindingId,
  type SafeIdentifier,
  SOURCE_KINDS,
  type SourceBindingId,
  type SourceKind,
  TYPE_FAMILIES,
  type TypeFamily,
} from './identifiers.js';
export { EVIDENCE_LIMITS } from './limits.js';
export {
  checkMappingBounds,
  type Mapping,
  type MappingRule,
  type MappingTable,
  mappingRuleCount,
  parseMapping,
} from './mapping.js';
export { loadMappingFile, readMappingDocument } from './mapping-file.js';
export { guardPrivate, guardPrivateAsync } from './private-boundary.js';
export { ADMISSION_CODE_FOR, readPrivateEvidenceJson } from './private-json.js';
export type { TargetIdentity, TypeProfile } from './record-fields.js';
export { type EvidenceRefusalCode, refuseEvidence, refuseSynth, type SynthRefusalCode } from './refusals.js';
export { type ExtractionMatch, reviewedSchemaFromRecord } from './reviewed-schema.js';
export {
  checkRunManifestBounds,
  parseRunManifest,
  RUN_MANIFEST_KIND,
  type RunManifestRecord,
  type SourceIdentity,
  type ValidatedManifest,
  validateManifest,
} from './run-manifest.js';
export type { SchemaRecord } from './schema-record.js';
export type { SnapshotColumn, SnapshotTable } from './snapshot.js';
export {
  type ApplySynthesisOptions,
  applySynthesisPlan,
  checkSynthesisOut,
  SYNTH_STEPS,
  type SynthesisResult,
  type SynthFaults,
  type SynthStep,
} from './synth/apply.js';
export {
  type BundleSpec,
  buildEvidenceBundle,
  type EvidenceBundle,
  SYNTHETIC_NOTE,
  type SynthColumnSpec,
  type SynthTableSpec,
} from './synth/bundle.js';
export {
  bundleSpecFor,
  DRY_RUN_FILE,
  MAPPING_FILE,
  type PlannedFile,
  planSynthesis,
  RUN_MANIFEST_DIR,
  renderJson,
  SYNTH_DEFAULTS,
  type SynthesisPlan,
  type SynthesizeOptions,
} from './synth/plan.js';
export { RETAIL_TABLE_NAMES, RETAIL_TABLES, type RetailColumn, type RetailTable } from './synth/retail.js';
export { synthesizeEvidence } from './synth/synthesize.js';
export { type EpochMicros, formatUtcTimestamp, parseUtcTimestamp } from './timestamps.js';
