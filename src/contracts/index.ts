// Data contracts: authoring resources, sealed leapview.contract/v1 projections,
// canonical bytes and identity.
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
export { type OutputFile, writeTreeCreateOnly } from './output/write-tree.js';
export {
  ContractProject,
  type DependencyEdge,
  type OutcomeStatus,
  type ProjectFile,
  type ResourceOutcome,
} from './project/contract-project.js';
export { DEFAULT_PROJECT_LIMITS, type ProjectLimits, readContractProjectFiles } from './project/load.js';
export { contractProjectFromFiles, type OpenOptions, openContractProject } from './project/open.js';
export { ReferenceContext, type ReferenceSite } from './project/reference-context.js';
export { PROJECTED_FIELDS } from './projection/allowlist.js';
export type { ContractFallback } from './projection/construct.js';
export {
  authoringJsonSchemas,
  type CoverageIssue,
  checkProjectionCoverage,
  type ExclusionEntry,
  fieldShapeHash,
} from './projection/coverage.js';
export { type TypedLiteral, typeLiteral } from './projection/literals.js';
export { PROFILE, type ProjectionPayload, ProjectionSchema } from './projection/payload.js';
export { type ProjectionView, SealedProjection } from './projection/sealed.js';
export { normalizeUrl } from './projection/url.js';
export type { SqlExpr, SqlFrom, SqlQuery } from './sql/ast.js';
export { createDuckDbSqlParser, type SqlParser } from './sql/parser.js';
