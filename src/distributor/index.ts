// The distributor's library API: validate manifested report bundles and
// publish them to local directories and S3-compatible storage.
export { type VerifiedBundle, verifyBundle } from './api/verify.js';
export { type WriteManifestOptions, writeManifest } from './api/write-manifest.js';
export type {
  AppliedOutcome,
  ApplyContext,
  BackendFactory,
  BackendOpenContext,
  DestinationBackend,
  DestinationSnapshot,
  LockOutcome,
  OutputSource,
  SnapshotFile,
  Step,
  StepKind,
} from './backend.js';
export { CONFIG_MAX_BYTES, DEFAULT_CONFIG_FILE, parseConfig } from './config/parse.js';
export { configSchemaText, DISTRIBUTOR_CONFIG_SCHEMA } from './config/schema.js';
export type {
  DestinationConfig,
  DistributorConfig,
  LocalDestinationConfig,
  PipelineConfig,
  S3DestinationConfig,
} from './config/types.js';
export { bundleDigest, bundleDigestPayload } from './digest/bundle-digest.js';
export { compareInstants, parseInstant } from './model/instant.js';
export { parseManifest, serializeManifest } from './model/manifest.js';
export { parseState, STATE_FILE, serializeState } from './model/state.js';
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
export { pathProblem, pathSetProblem } from './path/bundle-path.js';
export { decide, type SnapshotView } from './plan/compare.js';
export { type PlanBundleInput, type PlanPipelineInput, planRun } from './plan/plan-run.js';
export type {
  Outcome,
  PlanItem,
  PlannedAction,
  PlannedOutput,
  PlannedWrite,
  RunFailure,
  RunPlan,
  StateToken,
} from './plan/types.js';
export { type DistributorRefusalCode, refuseDistributor } from './refusals.js';
export { loadConfig } from './run/load-config.js';
export { type ItemOutcome, OUTCOMES, type OutcomeCounts, type RunReport } from './run/report.js';
export { type DistributeRunOptions, distributeRun, type ProgressEvent } from './run/run.js';
export { renderMarkdownPage } from './transform/markdown.js';
export { DISTRIBUTOR_VERSION } from './version.js';
