// The distributor's library API: validate manifested report bundles and
// publish them to local directories and S3-compatible storage. Generic names
// carry a distributor prefix here, as they are re-exported from src/index.ts.
// What renders pages is in ./rendering.ts, re-exported there too.
export {
  type LeftOut,
  type LeftOutReason,
  MANIFEST_EXCLUDE_OPTION,
  MANIFEST_REPLACE_OPTION,
  type WriteManifestOptions,
  type WrittenManifest,
  writeManifest,
} from './api/write-manifest.js';
export type {
  AppliedOutcome,
  ApplyContext,
  BackendFactory,
  BackendOpenContext,
  DestinationBackend,
  DestinationSnapshot,
  DryRunCaveat,
  LockOutcome,
  OutputSource,
  ReadOptions,
  SnapshotFile,
  Step,
  StepKind,
} from './backend.js';
export type { BackendRegistry, DestinationKind } from './backends/registry.js';
export { createS3Backend, PENDING_FILE, type S3BackendOptions } from './backends/s3/index.js';
export {
  CONFIG_MAX_BYTES as DISTRIBUTOR_CONFIG_MAX_BYTES,
  DEFAULT_CONFIG_FILE as DISTRIBUTOR_CONFIG_FILE,
  parseConfig as parseDistributorConfig,
} from './config/parse.js';
export {
  configSchemaText as distributorConfigSchemaText,
  DISTRIBUTOR_CONFIG_SCHEMA,
} from './config/schema.js';
export type {
  DestinationConfig,
  DistributorConfig,
  LocalDestinationConfig,
  PipelineConfig,
  S3DestinationConfig,
} from './config/types.js';
export { bundleDigest, bundleDigestPayload } from './digest/bundle-digest.js';
export { compareInstants, parseInstant as parseRfc3339Instant } from './model/instant.js';
export {
  idProblem as bundleIdProblem,
  parseManifest as parseBundleManifest,
  serializeManifest as serializeBundleManifest,
} from './model/manifest.js';
export {
  parseState as parseDestinationState,
  STATE_FILE as DESTINATION_STATE_FILE,
  serializeState as serializeDestinationState,
} from './model/state.js';
export type {
  BundleDir,
  BundlePath,
  DestinationState,
  Instant,
  ManifestFile,
  OutputCategories,
  OutputKind,
  OutputRecord,
  SourceManifest,
  TransformId,
} from './model/types.js';
export {
  pathProblem as bundlePathProblem,
  pathSetProblem as bundlePathSetProblem,
} from './path/bundle-path.js';
export { decide as compareDestination, type SnapshotView } from './plan/compare.js';
export type { LinkProblem, LinkWarning } from './plan/links.js';
export { type PlanBundleInput, type PlanPipelineInput, planRun } from './plan/plan-run.js';
export type {
  LateFilesBundle,
  Outcome,
  PipelinePlan,
  PlanItem,
  PlannedOutput,
  PlannedWrite,
  RunFailure,
  RunPlan,
  SharedId,
  StateToken,
} from './plan/types.js';
export {
  type DistributorRefusalCode,
  type NormalizationForm,
  refuseDistributor,
  type UnicodeTwinPaths,
} from './refusals.js';
export { loadConfig as loadDistributorConfig } from './run/load-config.js';
export {
  type DestinationWait,
  type ItemOutcome,
  OUTCOMES as DISTRIBUTE_OUTCOMES,
  type OutcomeCounts,
  type RunReport,
  reportRefusals as distributeReportRefusals,
  type UncheckedByDryRun,
} from './run/report.js';
export {
  DEFAULT_TRANSFERS,
  type DistributeRunOptions,
  distributeRun,
  MAX_TRANSFERS,
  type ProgressEvent,
} from './run/run.js';
export { climbsAboveRoot } from './transform/page-links.js';
export { DISTRIBUTOR_VERSION } from './version.js';
