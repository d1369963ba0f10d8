import { Sha256Accumulator, toPrefixed } from '../../../core/digest/index.js';
import { type Dir, exchange, isFsError, renameNoReplace } from '../../../core/fs/index.js';
import { toRefusal } from '../../../core/refusal/index.js';
import type { AppliedOutcome, OutputSource } from '../../backend.js';
import { STATE_FILE, serializeState } from '../../model/state.js';
import type { DestinationState, Instant } from '../../model/types.js';
import { parentDirs } from '../../path/bundle-path.js';
import type { PlannedOutput, PlannedWrite } from '../../plan/types.js';
import { refuseDistributor } from '../../refusals.js';
import { destinationWriteFailed } from '../../write-failure.js';
import { readState } from './inspect.js';
import {
  closeAll,
  destinationProblem,
  ensureDirs,
  openDirs,
  removeEnsured,
  removeOwnTree,
  type StepHook,
} from './tree.js';
import { cleanStage, type LocalRoot } from './work-area.js';

const FILE_MODE = 0o644;
const DIR_MODE = 0o755;

/**
 * One publication or replacement at a local destination:
 *
 * 1. build the whole new tree in a staging directory of this run's work area
 *    (same filesystem): each output moved from the snapshot or copied from it
 *    while hashing, checked against the plan, fsynced; the state written
 *    last; every directory fsynced;
 * 2. commit with one rename: RENAME_NOREPLACE onto the absent bundle path
 *    (first publish; an entry that appeared meanwhile fails it), or, after
 *    re-reading the state and finding the planned token, RENAME_EXCHANGE with
 *    the managed bundle directory (replacement) — readers see the old tree or
 *    the new one, whole, never a mix;
 * 3. after an exchange the old tree sits in staging: only the outputs and
 *    state it lists are deleted, and directories that became empty; anything
 *    else keeps the tree, moved to `kept-*`.
 *
 * Before the commit any failure removes the staging tree and the parent
 * directories this call created; after it, the outcome stands and cleanup
 * problems are left for the next run's sweep.
 */
export async function applyLocal(
  root: LocalRoot,
  write: PlannedWrite,
  source: OutputSource,
  now: Instant,
  step: StepHook,
): Promise<AppliedOutcome> {
  const runDir = root.runDir(step);
  const stageName = root.nextStageName();
  const state: DestinationState = { ...write.state, published_at: now };
  let staged = false;
  try {
    step('mkdir');
    const stage = runDir.mkdirExclusive(stageName, DIR_MODE);
    staged = true;
    try {
      await buildTree(stage, write.outputs, serializeState(state), source, step);
    } finally {
      stage.close();
    }
    // The stage's own entry in the run directory is not fsynced: the commit
    // renames it away, and that rename is made durable by the fsync of the
    // destination parent (syncCommitted). A crash before it leaves scratch
    // that the next run sweeps, durable or not.
    const segments = write.bundle_dir.split('/');
    if (write.outcome === 'published') {
      commitPublish(root, segments, runDir, stageName, step);
      staged = false;
      return { outcome: 'published', outputs: state.outputs };
    }
    commitReplace(root.root, segments, runDir, stageName, write, step);
    staged = false;
    try {
      if (!cleanStage(runDir, stageName, step)) root.keep(runDir, stageName, step);
    } catch {
      // Committed: the old tree left in the run directory is swept narrowly (by its own state) later.
    }
    return { outcome: 'replaced', outputs: state.outputs };
  } catch (error: unknown) {
    if (staged) {
      try {
        removeOwnTree(runDir, stageName, step);
      } catch {
        // The run directory is removed, or swept by the next run.
      }
    }
    return { outcome: 'refused', refusal: toRefusal(error, () => destinationWriteFailed(error)) };
  }
}

async function buildTree(
  stage: Dir,
  outputs: readonly PlannedOutput[],
  stateText: string,
  source: OutputSource,
  step: StepHook,
): Promise<void> {
  const dirs = new Map<string, Dir>([['', stage]]);
  try {
    for (const output of outputs) {
      const parents = parentDirs(output.path);
      let parent = stage;
      for (const path of parents) {
        const existing = dirs.get(path);
        if (existing !== undefined) {
          parent = existing;
          continue;
        }
        step('mkdir');
        parent = parent.mkdirExclusive(path.slice(path.lastIndexOf('/') + 1), DIR_MODE);
        dirs.set(path, parent);
      }
      await placeOutput(parent, output, source, step);
    }
    step('create');
    const stateFile = stage.createExclusive(STATE_FILE, FILE_MODE);
    try {
      step('write');
      stateFile.write(Buffer.from(stateText, 'utf8'));
      step('fsync');
      stateFile.fsync();
    } finally {
      stateFile.close();
    }
    const deepestFirst = [...dirs.keys()].sort((a, b) => b.length - a.length);
    for (const path of deepestFirst) {
      step('fsync');
      dirs.get(path)?.fsync();
    }
  } finally {
    for (const [path, dir] of dirs) if (path !== '') dir.close();
  }
}

async function placeOutput(
  parent: Dir,
  output: PlannedOutput,
  source: OutputSource,
  step: StepHook,
): Promise<void> {
  const name = output.path.slice(output.path.lastIndexOf('/') + 1);
  const taken = source.take?.(output);
  if (taken !== undefined) {
    step('rename');
    renameNoReplace(taken.dir, taken.name, parent, name);
    // One no-follow open serves the check, the mode and the fsync: the file
    // sits in this run's private staging tree, so no name is looked up twice.
    const file = parent.openFile(name);
    try {
      const stat = file.stat();
      if (stat.type !== 'file' || stat.size !== BigInt(output.size)) {
        throw refuseDistributor('destination_write_failed');
      }
      file.chmod(FILE_MODE);
      step('fsync');
      file.fsync();
    } finally {
      file.close();
    }
    return;
  }
  step('create');
  const file = parent.createExclusive(name, FILE_MODE);
  try {
    step('write');
    const accumulator = new Sha256Accumulator();
    for await (const chunk of source.open(output)) {
      accumulator.update(chunk);
      file.write(chunk);
    }
    const written = accumulator.finish();
    if (written.bytes !== output.size || toPrefixed(written.hex) !== output.sha256) {
      throw refuseDistributor('destination_write_failed', { role: 'destination' });
    }
    step('fsync');
    file.fsync();
  } finally {
    file.close();
  }
}

function commitPublish(
  root: LocalRoot,
  segments: readonly string[],
  runDir: Dir,
  stageName: string,
  step: StepHook,
): void {
  const leaf = segments[segments.length - 1] ?? '';
  const scratch = { dir: runDir, nextName: () => root.nextParentName() };
  const parents = ensureDirs(root.root, segments.slice(0, -1), scratch, step);
  let swappedEmpty = false;
  try {
    step('rename');
    try {
      renameNoReplace(runDir, stageName, parents.dir, leaf);
    } catch (error: unknown) {
      if (!isFsError(error, 'EEXIST') && !isFsError(error, 'ENOTEMPTY')) throw destinationProblem(error);
      // The seed counts an existing directory without entries as empty: swap
      // the new tree in for it, atomically, instead of writing into it.
      if (!isEmptyDirectory(parents.dir, leaf))
        throw refuseDistributor('destination_changed', { role: 'destination' });
      step('exchange');
      exchange(runDir, stageName, parents.dir, leaf);
      swappedEmpty = true;
    }
  } catch (error: unknown) {
    removeEnsured(parents, step);
    closeAll(parents.opened);
    throw error;
  }
  syncCommitted(parents.dir, step);
  closeAll(parents.opened);
  if (swappedEmpty) {
    try {
      step('rmdir');
      runDir.rmdir(stageName);
    } catch {
      try {
        // Someone wrote into it meanwhile: it is theirs, kept.
        root.keep(runDir, stageName, step);
      } catch {
        // Committed; what is left is swept narrowly by a later run.
      }
    }
  }
}

function isEmptyDirectory(parent: Dir, name: string): boolean {
  const located = openDirs(parent, [name]);
  if (located === undefined) return false;
  try {
    return located.dir.list().length === 0;
  } finally {
    closeAll(located.opened);
  }
}

/**
 * After the commit rename the outcome stands: a failing directory fsync is
 * not reported as a failed publication (the rename is visible; the next run
 * reads the state as usual).
 */
function syncCommitted(dir: Dir, step: StepHook): void {
  try {
    step('fsync');
    dir.fsync();
  } catch {
    // See above.
  }
}

function commitReplace(
  root: Dir,
  segments: readonly string[],
  runDir: Dir,
  stageName: string,
  write: PlannedWrite,
  step: StepHook,
): void {
  const leaf = segments[segments.length - 1] ?? '';
  const located = openDirs(root, segments.slice(0, -1));
  if (located === undefined) throw refuseDistributor('destination_changed', { role: 'destination' });
  try {
    const current = openDirs(located.dir, [leaf]);
    if (current === undefined) throw refuseDistributor('destination_changed', { role: 'destination' });
    try {
      if (readState(current.dir)?.token !== write.previous?.token) {
        throw refuseDistributor('destination_changed', { role: 'destination' });
      }
    } finally {
      closeAll(current.opened);
    }
    step('exchange');
    exchange(runDir, stageName, located.dir, leaf);
    syncCommitted(located.dir, step);
  } finally {
    closeAll(located.opened);
  }
}
