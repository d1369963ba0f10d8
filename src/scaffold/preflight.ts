import { type Dir, fsPrimitivesAvailable } from '../core/fs/index.js';
import { bindEvidence } from '../migration/index.js';
import type { EditionProfile } from './editions.js';
import { planScaffold, type ScaffoldPlan } from './plan.js';
import { refuseScaffold } from './refusals.js';
import { resolveOrRefuse } from './resolve.js';
import type { SourceId } from './source-id.js';
import { type PathSurvey, surveyPaths } from './workspace/collisions.js';
import { HeldWorkspace } from './workspace/open-workspace.js';

export interface EvidenceInputs {
  readonly mappingFile: string | undefined;
  readonly inventoryFile: string | undefined;
  readonly runManifestFile: string | undefined;
  readonly sourceBindingId: string | undefined;
  readonly maxEvidenceAge: number | undefined;
  readonly now: Date | undefined;
}

/** Everything preflight holds for the steps after it. */
export interface Preflight {
  readonly workspace: HeldWorkspace;
  readonly survey: PathSurvey;
  readonly plan: ScaffoldPlan;
}

/**
 * Every check that needs no write, in the fixed order of
 * docs/scaffold.md#checks-in-order so each failure has one code: the
 * platform (atomic_publish_unavailable), the workspace, the output and
 * staging paths with the collision precedence, one filesystem for staging
 * and output, the evidence binding (the evidence's `scaffold_*` codes), the
 * edition the evidence selects, then the canonical retail scope and the
 * plan. Shared by --dry-run and the default mode.
 */
export function preflight(
  edition: EditionProfile,
  workspacePath: string,
  sourceId: SourceId,
  evidence: EvidenceInputs,
  crossDeviceFault: boolean,
): Preflight {
  if (!fsPrimitivesAvailable()) throw refuseScaffold('atomic_publish_unavailable');
  const workspace = HeldWorkspace.open(workspacePath, edition, sourceId);
  let survey: PathSurvey | undefined;
  try {
    survey = surveyPaths(workspace, sourceId);
    if (survey.refusal !== undefined) {
      // The details say where the result points the operator (see PathCollision).
      throw refuseScaffold(survey.refusal, {
        details: {
          concerns: survey.concerns,
          outputSealed: survey.outputSealed,
          conditions: survey.conditions,
        },
      });
    }
    const stagingDevice = (survey.stagingRoot ?? workspace.project).stat().dev;
    const outputDevice = (survey.generated ?? workspace.migration).stat().dev;
    if (stagingDevice !== outputDevice || crossDeviceFault) throw refuseScaffold('staging_cross_filesystem');
    refuseUnwritableOutputParent(survey.generated ?? workspace.migration);
    refuseUnwritableStagingParent(survey.stagingRoot ?? workspace.project);

    const bound = bindEvidence({
      mappingFile: evidence.mappingFile,
      dryRunFile: evidence.inventoryFile,
      runManifestFile: evidence.runManifestFile,
      sourceBindingId: evidence.sourceBindingId,
      maxAge: evidence.maxEvidenceAge,
      now: evidence.now,
    });
    if (bound.status === 'refused') throw bound.refusal;
    // The artifacts agree with each other (binding step 8 passed): a different
    // edition is the invocation's fault, not the evidence's.
    if (bound.edition !== edition.evidenceEdition) throw refuseScaffold('edition_option_mismatch');
    // An input rule refuses with the canonical table it concerns in its details.
    const models = resolveOrRefuse(bound);
    return { workspace, survey, plan: planScaffold(edition, sourceId, models, bound.integrity) };
  } catch (error: unknown) {
    survey?.generated?.close();
    survey?.stagingRoot?.close();
    workspace.close();
    throw error;
  }
}

/**
 * The folder the publishing rename writes into (generated/, or
 * models/migration/ where generated/ is still to be created) must let this
 * account create entries, by the kernel's own check: otherwise the run would
 * stage and seal every file, fail at the rename, and leave a staging folder
 * for the operator to remove by hand. Asked before anything is written, so
 * --dry-run reports it too. Other errnos (a read-only filesystem) are left
 * to the step that meets them, with their own codes.
 */
function refuseUnwritableOutputParent(outputParent: Dir): void {
  const denied = outputParent.writeDenied();
  if (denied === 'EACCES' || denied === 'EPERM') throw refuseScaffold('publish_permission_denied');
}

/**
 * The folder the staging directory is created in (.scaffold-staging, or the
 * project folder where .scaffold-staging is still to be created) must let
 * this account create entries too: otherwise --dry-run would promise a plan
 * that the run then refuses at its first write. A read-only filesystem is
 * included here, unlike for the output parent, because the staging step
 * would meet it first and refuse with this same code.
 */
function refuseUnwritableStagingParent(stagingParent: Dir): void {
  const denied = stagingParent.writeDenied();
  if (denied === 'EACCES' || denied === 'EPERM' || denied === 'EROFS') {
    throw refuseScaffold('staging_write_failed');
  }
}
