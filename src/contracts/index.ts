// Data contracts: authoring resources, sealed leapview.contract/v1 projections,
// canonical bytes and identity. Names are prefixed where a bare name could
// collide with another domain in the package's flat library API.
export { MAX_DECIMAL_PRECISION, type PhysicalType } from './authoring/physical-type.js';
export { type ContractRefusalCode, type ContractRole, refuseContract } from './authoring/refusals.js';
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
export { parseStrictYaml, type YamlValue } from './authoring/yaml.js';
export { type CanonicalProjection, canonicalizeProjection } from './canonical/canonical.js';
export { decodeProjection } from './canonical/decode.js';
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
  type ResourceOutcome as ContractResourceOutcome,
} from './project/contract-project.js';
export {
  DEFAULT_PROJECT_LIMITS as DEFAULT_CONTRACT_PROJECT_LIMITS,
  type ProjectLimits as ContractProjectLimits,
  readContractProjectFiles,
} from './project/load.js';
export {
  contractProjectFromFiles,
  type OpenOptions as ContractProjectOptions,
  openContractProject,
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
export type {
  SqlExpr as ContractSqlExpr,
  SqlFrom as ContractSqlFrom,
  SqlQuery as ContractSqlQuery,
} from './sql/ast.js';
export { createDuckDbSqlParser, type SqlParser as ContractSqlParser } from './sql/parser.js';
