// Data contracts: authoring resources, sealed leapview.contract/v1 projections,
// canonical bytes and identity. Names are prefixed where a bare name could
// collide with another domain in the package's flat library API.
export { MAX_DECIMAL_PRECISION, type PhysicalType } from './authoring/physical-type.js';
export { type ContractRefusalCode, type ContractRole, refuseContract } from './authoring/refusals.js';
export { interpretContractSchemas } from './authoring/schema-compilation.js';
export {
  type AuthoredResource,
  CONTRACT_KINDS,
  type ContractKind,
  type DashboardResource,
  type ModelResource,
  RESOURCE_KINDS,
  RESOURCE_SCHEMAS,
  type ResourceKind,
  ResourceSchema,
  type SemanticModelResource,
  type SourceResource,
} from './authoring/schemas/resource.js';
export {
  isValidatedResource,
  readResource,
  type Validated,
  type ValidatedResource,
  validateResource,
} from './authoring/validate.js';
export {
  parseStrictYaml,
  type ResourceDocument,
  readResourceYaml,
  type YamlValue,
} from './authoring/yaml.js';
export { type CanonicalProjection, canonicalizeProjection } from './canonical/canonical.js';
export { decodeProjection } from './canonical/decode.js';
// Version classification, the append-only publication ledger and the project graph.
export { affectedDashboards } from './graph/affected.js';
export { projectGraphOf } from './graph/from-project.js';
export {
  GRAPH_EDGE_KINDS,
  type GraphEdge as ProjectGraphEdge,
  type GraphNode as ProjectGraphNode,
  ProjectGraph,
} from './graph/graph.js';
export {
  type ContractGraphRefusalCode,
  type ContractGraphRefusalDetails,
  type GraphPath,
  type GraphRefusal,
  graphRefusal,
  refuseGraph,
} from './graph/refusals.js';
export { contractJsonSchemas } from './output/json-schemas.js';
export { projectionTree } from './output/projection-tree.js';
export {
  type OutputFile as ContractOutputFile,
  writeTreeCreateOnly as writeContractOutput,
} from './output/write-tree.js';
export {
  ContractProject,
  type DependencyEdge as ContractDependencyEdge,
  type OutcomeStatus as ContractOutcomeStatus,
  type ProjectFile as ContractProjectFile,
  type ProjectOptions as ContractProjectFromFilesOptions,
  type PublishedResource,
  type ResourceOutcome as ContractResourceOutcome,
  type ResourceSelection as ContractResourceSelection,
} from './project/contract-project.js';
export {
  DEFAULT_PROJECT_LIMITS as DEFAULT_CONTRACT_PROJECT_LIMITS,
  type ProjectInFolder as ContractProjectInFolder,
  type ProjectLimits as ContractProjectLimits,
  projectAbove as contractProjectAbove,
  projectsInFolder as contractProjectsInFolder,
  readContractProjectFiles,
  requireContractProjectFolder,
} from './project/load.js';
export {
  type CachedContractProject,
  contractProjectFromFiles,
  type OpenOptions as ContractProjectOptions,
  openContractProject,
  openContractProjectCached,
} from './project/open.js';
export { ReferenceContext, type ReferenceSite } from './project/reference-context.js';
export { PROJECTED_FIELDS as CONTRACT_PROJECTED_FIELDS } from './projection/allowlist.js';
export type { ContractFallback } from './projection/construct.js';
export {
  authoringJsonSchemas as contractAuthoringJsonSchemas,
  type CoverageIssue as ProjectionCoverageIssue,
  checkProjectionCoverage,
  type ExclusionEntry as ProjectionExclusionEntry,
  fieldShapeHash as contractFieldShapeHash,
} from './projection/coverage.js';
export {
  type TypedLiteral as ContractTypedLiteral,
  typeLiteral as typeContractLiteral,
} from './projection/literals.js';
export {
  PROFILE as CONTRACT_PROFILE,
  type ProjectionPayload as ContractProjectionPayload,
  ProjectionSchema as ContractProjectionSchema,
} from './projection/payload.js';
export { type ProjectionView, SealedProjection } from './projection/sealed.js';
export { normalizeUrl as normalizeDefinitionUrl } from './projection/url.js';
export { type AppliedPublication, applyPublicationPlan } from './publication/apply.js';
export { checkApproval as checkWideningApproval, type WideningApproval } from './publication/approval.js';
export type { LedgerConnection } from './publication/connection.js';
export type { PublicationCandidate, PublicationRequest } from './publication/decide.js';
export {
  type LedgerEntry,
  PUBLICATION_CHECKS,
  type PublicationCheck,
  type PublicationVerdict,
  type ResourceIdentity as ContractResourceIdentity,
  type SecurityResult as PublicationSecurityResult,
} from './publication/entry.js';
export { readPublicationHistory, readPublishedResourceIds } from './publication/history.js';
export { type LedgerLocation, ledgerLocation } from './publication/location.js';
export { openLedger } from './publication/open.js';
export { type EmbeddedLedgerStart, prepareEmbeddedLedger } from './publication/open-embedded.js';
export { ledgerServerShown } from './publication/open-postgres.js';
export { pgLedgerSession } from './publication/pg-session.js';
export { pgliteLedgerSession } from './publication/pglite-session.js';
export {
  PLAN_FORMAT as PUBLICATION_PLAN_FORMAT,
  type PlanItem as PublicationPlanItem,
  type PublicationPlan,
  planPublication,
} from './publication/plan.js';
export {
  type IdentifiedCandidate,
  type LedgerPublicationOptions,
  type PublicationRun,
  type PublicationRunOptions,
  planLatestPublication,
  publishToLedger,
  runContractPublication,
} from './publication/publish.js';
export {
  type ContractLedgerRefusalCode,
  type ContractLedgerRefusalDetails,
  isPublicationRefusal,
  type LedgerTamper,
  type LedgerTamperRefusal,
  type PublicationRefusal,
  type PublicationRefusalCode,
  refuseLedger,
} from './publication/refusals.js';
export { type LedgerReplay, replayLedger } from './publication/replay.js';
export {
  approvalOutsideRun,
  approvalOutsideRunInLedger,
  resourceNotFoundInLedger,
} from './publication/requested.js';
export {
  INDEX_BUCKETS as RESOURCE_INDEX_BUCKETS,
  indexBucketOf as resourceIndexBucketOf,
  type ResourceIndex,
} from './publication/resource-index.js';
export {
  APPEND_ONLY_SQLSTATE,
  ensureLedgerSchema,
  LEDGER_FORMAT,
  LEDGER_PUBLISHER_ROLE,
  LEDGER_TABLE,
  lockLedger,
} from './publication/schema.js';
export {
  type LedgerParam,
  type LedgerRow,
  type LedgerSession,
  LedgerSqlError,
} from './publication/session.js';
export {
  absentResources,
  emptyLedgerState,
  type LedgerHead,
  type LedgerReadOptions,
  type LedgerState,
  latestBaseline,
  readLedgerState,
} from './publication/state.js';
export type {
  SqlExpr as ContractSqlExpr,
  SqlFrom as ContractSqlFrom,
  SqlQuery as ContractSqlQuery,
} from './sql/ast.js';
export { createDuckDbSqlParser, type SqlParser as ContractSqlParser } from './sql/parser.js';
export type { ContractChange } from './version/changes.js';
export {
  type ClassifyOptions as ContractClassifyOptions,
  type ContractClassification,
  classifyContractVersion,
} from './version/classify.js';
export { type ContractVersionRefusalCode, refuseContractVersion } from './version/refusals.js';
export { CONTRACT_RULE_IDS, CONTRACT_RULES, type ContractRuleId } from './version/rules.js';
export type { ChangeVerdict as ContractChangeVerdict, ContractVerdict } from './version/verdict.js';
