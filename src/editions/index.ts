// The editions domain: the starter dbt projects under editions/, the
// workspace copier (`sealkit edition new`) and the offline dbt check
// (`sealkit edition check`).
export { type CapturedRows, type CheckRun, runCheck } from './check/apply.js';
export { type CheckProjectOptions, checkProject, parseVars } from './check/check.js';
export { FINDING_MESSAGES, type FindingCode } from './check/findings.js';
export { type FixtureSet, readFixtures } from './check/fixtures.js';
export { type CheckOptions, type CheckPlan, planCheck } from './check/plan.js';
export { type ProjectFiles, readProjectFiles } from './check/project-files.js';
export type {
  CheckReport,
  CheckSummary,
  FileReport,
  Finding,
  FindingDraft,
  ModelReport,
  SourceReport,
  TestReport,
} from './check/report.js';
export { orderedFindings } from './check/report.js';
export { loadDbtSchemas } from './check/schemas.js';
export {
  type EditionId,
  type EditionSpec,
  isEditionId,
  STARTER_EDITION_IDS,
  STARTER_EDITIONS,
} from './editions.js';
export { editionsRoot, installationRoot } from './installation.js';
export { type EditionRefusalCode, refuseEdition } from './refusals.js';
export {
  type ApplyWorkspaceOptions,
  WORKSPACE_STEPS,
  type WorkspaceFaults,
  type WorkspaceStep,
} from './workspace/apply.js';
export { planWorkspace, type WorkspaceFile, type WorkspacePlan } from './workspace/plan.js';
export { readEditionSource } from './workspace/source.js';
export { type NewWorkspaceOptions, type NewWorkspaceResult, newWorkspace } from './workspace/workspace.js';
