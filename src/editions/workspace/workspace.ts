import { guardRefusalsAsync, Refusal } from '../../core/refusal/index.js';
import { isStepFaults } from '../../core/steps/index.js';
import { type EditionId, isEditionId } from '../editions.js';
import { editionsRoot, installationRoot } from '../installation.js';
import { type EditionRefusalCode, refuseEdition } from '../refusals.js';
import { applyWorkspacePlan, WORKSPACE_STEPS, type WorkspaceFaults } from './apply.js';
import { holdDestination } from './destination.js';
import { planWorkspace, type WorkspacePlan } from './plan.js';
import { readEditionSource } from './source.js';

export interface NewWorkspaceOptions {
  readonly edition: EditionId;
  /** Where the workspace will be created; it must not exist yet. */
  readonly dest: string;
  /** Check and plan only: nothing is written. */
  readonly dryRun?: boolean;
  /** The sealkit installation to copy from and to keep DEST out of (default: this one). */
  readonly installationRoot?: string;
  /**
   * Aborting stops the copy at its next step boundary before the rename:
   * what the run staged is removed and it refuses with `workspace_interrupted`
   * (the CLI wires SIGINT and SIGTERM to it). After the rename it completes.
   */
  readonly signal?: AbortSignal;
  /** Test-only faults at the copy's step boundaries (docs/editions.md#the-test-only-fault-hook). */
  readonly faults?: WorkspaceFaults;
}

export interface NewWorkspaceResult {
  readonly status: 'created' | 'planned';
  readonly plan: WorkspacePlan;
}

/**
 * `sealkit edition new`: copies one starter edition into a new client
 * workspace. The dry run performs every destination check the real run does
 * and returns the very plan the real run would execute.
 */
export async function newWorkspace(options: NewWorkspaceOptions): Promise<NewWorkspaceResult> {
  try {
    return await createWorkspace(options);
  } catch (error: unknown) {
    if (error instanceof Refusal && typeof options.dest === 'string' && AT_DESTINATION.has(error.code)) {
      // A hint the refusal carries (which link, which cause) says more than the code's own.
      const hint = error.hint ?? DESTINATION_HINTS[error.code];
      throw error.at({ path: options.dest }, hint);
    }
    throw error;
  }
}

/** Refusals about DEST: they name it as the user typed it (docs/editions.md#reading-an-error). */
const AT_DESTINATION: ReadonlySet<string> = new Set<EditionRefusalCode>([
  'destination_invalid',
  'destination_inside_installation',
  'workspace_destination_symlink',
  'destination_exists',
  'destination_parent_missing',
  'destination_parent_invalid',
  'workspace_write_failed',
  'workspace_verify_failed',
  'workspace_rename_unavailable',
  'workspace_interrupted',
]);

const DESTINATION_HINTS: { readonly [code: string]: string } = {
  destination_exists: 'choose a folder name that does not exist yet; edition new never writes into one',
  workspace_destination_symlink: 'choose a path that is not a symbolic link',
};

function createWorkspace(options: NewWorkspaceOptions): Promise<NewWorkspaceResult> {
  return guardRefusalsAsync(async () => {
    // Library callers are not type-checked at run time: an unknown name is refused, not looked up.
    if (typeof options.edition !== 'string' || !isEditionId(options.edition))
      throw refuseEdition('edition_unknown');
    const root = options.installationRoot ?? installationRoot();
    const source = readEditionSource(editionsRoot(root), options.edition);
    const plan = planWorkspace(source);
    // A test-only option of the wrong shape is a caller's bug: internal_error, never a silent no-op.
    if (options.faults !== undefined && !isStepFaults(options.faults, WORKSPACE_STEPS))
      throw new TypeError('faults');
    if (options.dryRun === true) {
      holdDestination(options.dest, root).parent.close();
      return { status: 'planned', plan };
    }
    return await applyWorkspacePlan(plan, source, options.dest, root, {
      signal: options.signal,
      faults: options.faults,
    });
  });
}
