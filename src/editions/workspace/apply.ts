import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../../core/digest/index.js';
import { type Dir, FsUnavailable, isFsError, renameNoReplace } from '../../core/fs/index.js';
import { guardRefusalsAsync, Refusal } from '../../core/refusal/index.js';
import { STAGED_TREE_STEPS, type StagedTreeStep, type StepFaults, Steps } from '../../core/steps/index.js';
import { refuseEdition } from '../refusals.js';
import { readTree, TreeReadError } from '../tree.js';
import { holdDestination } from './destination.js';
import type { WorkspacePlan } from './plan.js';
import { EDITION_LIMITS, type EditionSource } from './source.js';
import { writeCause } from './write-cause.js';

export interface WorkspaceCreated {
  readonly status: 'created';
  readonly plan: WorkspacePlan;
}

/**
 * The step boundaries of a workspace copy, in run order, where SIGINT or
 * SIGTERM stops it and the test-only faults can be armed
 * (docs/editions.md#the-test-only-fault-hook). `after_dir` and `after_file`
 * are reached once per folder and file.
 */
export const WORKSPACE_STEPS = STAGED_TREE_STEPS;
export type WorkspaceStep = StagedTreeStep;

/** The `faults` option of `newWorkspace`: test-only; production callers leave it out. */
export type WorkspaceFaults = StepFaults<WorkspaceStep>;

export interface ApplyWorkspaceOptions {
  /** Aborting stops the copy at its next step boundary, before the rename (`workspace_interrupted`). */
  readonly signal?: AbortSignal | undefined;
  readonly faults?: WorkspaceFaults | undefined;
}

/**
 * Creates the workspace at `dest` from `plan` with one commit point: the
 * whole tree is written into a fresh staging folder beside DEST (same
 * filesystem), every file and folder fsynced, the staged tree read back and
 * compared with the plan, and only then renamed to DEST with
 * renameat2(RENAME_NOREPLACE) through the held parent. A failure or an
 * interruption before the rename removes the staging folder (this run
 * created every entry in it) and leaves nothing at DEST; a DEST that
 * appears meanwhile is never replaced. After the rename the copy completes
 * whatever arrives.
 */
export async function applyWorkspacePlan(
  plan: WorkspacePlan,
  source: EditionSource,
  dest: string,
  installationRoot: string,
  options: ApplyWorkspaceOptions = {},
): Promise<WorkspaceCreated> {
  const steps = new Steps<WorkspaceStep>({
    signal: options.signal,
    faults: options.faults,
    interrupted: () => refuseEdition('workspace_interrupted'),
  });
  return guardRefusalsAsync(
    async () => {
      const held = holdDestination(dest, installationRoot);
      try {
        await steps.at('after_preflight');
        await publish(plan, source, held.parent, held.name, steps);
        return { status: 'created', plan };
      } finally {
        held.parent.close();
      }
    },
    (error) => refuseEdition('workspace_write_failed', writeCause(error)),
  );
}

function stagingName(): string {
  return `.sealkit-edition-staging-${randomBytes(8).toString('hex')}`;
}

async function publish(
  plan: WorkspacePlan,
  source: EditionSource,
  parent: Dir,
  name: string,
  steps: Steps<WorkspaceStep>,
): Promise<void> {
  const bytesByPath = new Map(source.tree.files.map((file) => [file.path, file.bytes]));
  const staging = stageName(parent);
  const created: string[] = [];
  let published = false;
  try {
    await steps.at('after_staging');
    await writeTree(plan, bytesByPath, staging.dir, created, steps);
    verifyStaged(plan, staging.dir);
    // The last boundary: the rename is the commit point, and nothing stops the run after it.
    await steps.at('before_rename');
    try {
      renameNoReplace(parent, staging.name, parent, name);
    } catch (error: unknown) {
      if (isFsError(error, 'EEXIST') || isFsError(error, 'ENOTEMPTY'))
        throw refuseEdition('destination_exists');
      if (isFsError(error, 'EINVAL') || isFsError(error, 'ENOSYS') || isFsError(error, 'EXDEV'))
        throw refuseEdition('workspace_rename_unavailable');
      throw error;
    }
    published = true;
    parent.fsync();
  } catch (error: unknown) {
    if (!published) removeStaged(parent, staging.name, staging.dir, created);
    if (error instanceof FsUnavailable) throw refuseEdition('workspace_rename_unavailable');
    if (error instanceof Refusal) throw error;
    throw refuseEdition('workspace_write_failed', writeCause(error));
  } finally {
    staging.dir.close();
  }
}

function stageName(parent: Dir): { readonly name: string; readonly dir: Dir } {
  for (let attempt = 0; attempt < 8; attempt += 1) {
    const name = stagingName();
    try {
      return { name, dir: parent.mkdirExclusive(name, 0o700) };
    } catch (error: unknown) {
      if (!isFsError(error, 'EEXIST')) throw error;
    }
  }
  throw refuseEdition('workspace_write_failed');
}

/** Opens `path` (relative, '/'-separated) below `root` one component at a time. */
function openBelow(root: Dir, path: string): Dir {
  let dir = root;
  for (const part of path.split('/')) {
    const next = dir.openDir(part);
    if (dir !== root) dir.close();
    dir = next;
  }
  return dir;
}

function splitLast(path: string): { readonly dir: string; readonly name: string } {
  const slash = path.lastIndexOf('/');
  return slash === -1 ? { dir: '', name: path } : { dir: path.slice(0, slash), name: path.slice(slash + 1) };
}

function withParent<T>(root: Dir, path: string, work: (dir: Dir, name: string) => T): T {
  const { dir, name } = splitLast(path);
  if (dir === '') return work(root, name);
  const held = openBelow(root, dir);
  try {
    return work(held, name);
  } finally {
    held.close();
  }
}

async function writeTree(
  plan: WorkspacePlan,
  bytesByPath: ReadonlyMap<string, Uint8Array>,
  root: Dir,
  created: string[],
  steps: Steps<WorkspaceStep>,
): Promise<void> {
  for (const path of plan.dirs) {
    withParent(root, path, (dir, name) => dir.mkdirExclusive(name, plan.dirMode).close());
    created.push(path);
    await steps.at('after_dir');
  }
  for (const file of plan.files) {
    const bytes = bytesByPath.get(file.path);
    if (bytes === undefined || sha256Hex(bytes) !== file.sha256)
      throw refuseEdition('workspace_verify_failed');
    withParent(root, file.path, (dir, name) => {
      const out = dir.createExclusive(name, plan.fileMode);
      created.push(file.path);
      try {
        out.write(bytes);
        out.fsync();
      } finally {
        out.close();
      }
    });
    await steps.at('after_file');
  }
  // Children before parents, so each directory's entries are durable before its own entry is.
  for (const path of [...plan.dirs].reverse()) {
    const dir = openBelow(root, path);
    try {
      dir.fsync();
    } finally {
      dir.close();
    }
  }
  root.fsync();
  await steps.at('after_fsync');
}

/** Reads the staged tree back through held descriptors and requires it to be exactly the plan. */
function verifyStaged(plan: WorkspacePlan, root: Dir): void {
  let staged: ReturnType<typeof readTree>;
  try {
    staged = readTree(root, { limits: EDITION_LIMITS });
  } catch (error: unknown) {
    if (error instanceof TreeReadError) throw refuseEdition('workspace_verify_failed');
    throw error;
  }
  const same =
    staged.dirs.length === plan.dirs.length &&
    staged.dirs.every((path, index) => path === plan.dirs[index]) &&
    staged.files.length === plan.files.length &&
    staged.files.every((file, index) => {
      const expected = plan.files[index];
      return (
        expected !== undefined && file.path === expected.path && sha256Hex(file.bytes) === expected.sha256
      );
    });
  if (!same) throw refuseEdition('workspace_verify_failed');
  for (const path of plan.dirs) {
    const mode = withParent(root, path, (dir, name) => dir.stat(name).mode);
    if (mode !== plan.dirMode) throw refuseEdition('workspace_verify_failed');
  }
  for (const file of plan.files) {
    const mode = withParent(root, file.path, (dir, name) => dir.stat(name).mode);
    if (mode !== plan.fileMode) throw refuseEdition('workspace_verify_failed');
  }
}

/**
 * Removes what this run staged, and only that: the entries it recorded as
 * created, deepest first, then the staging folder. Best effort: a failure
 * leaves the (hidden, never published) staging folder in place.
 */
function removeStaged(parent: Dir, name: string, root: Dir, created: readonly string[]): void {
  try {
    for (const path of [...created].reverse()) {
      withParent(root, path, (dir, entry) => {
        if (dir.stat(entry).type === 'directory') dir.rmdir(entry);
        else dir.unlink(entry);
      });
    }
    parent.rmdir(name);
  } catch {
    // Left for the operator: the staging folder is hidden and was never published.
  }
}
