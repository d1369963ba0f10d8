import { Sha256Accumulator, toPrefixed } from '../../../core/digest/index.js';
import {
  closeEach,
  type Dir,
  exchange,
  fsyncAll,
  isFsError,
  type OpenDescriptor,
  renameNoReplace,
  syncFilesystemOf,
  syncfsFlushesEveryFile,
} from '../../../core/fs/index.js';
import { toRefusal } from '../../../core/refusal/index.js';
import type { AppliedOutcome, BatchWrite, OutputSource, SnapshotBundleDir } from '../../backend.js';
import { STATE_FILE, serializeState } from '../../model/state.js';
import type { DestinationState, Instant } from '../../model/types.js';
import { removeOwnTree } from '../../own-tree.js';
import { parentDirs } from '../../path/bundle-path.js';
import type { PlannedOutput, PlannedWrite } from '../../plan/types.js';
import { refuseDistributor } from '../../refusals.js';
import { destinationWriteFailed, onFilesystemOf } from '../../write-failure.js';
import { readState } from './inspect.js';
import {
  destinationProblem,
  type EnsuredDirs,
  ensureDirs,
  openDirs,
  removeEnsured,
  type StepHook,
} from './tree.js';
import { cleanStage, type LocalRoot } from './work-area.js';

const FILE_MODE = 0o644;
const DIR_MODE = 0o755;
/** Descriptors a batch holds at most before flushing those early (a bundle of many files). */
const HELD_MAX = 1024;
/**
 * A flush of at least this many descriptors, averaging fewer than
 * `SYNCFS_MAX_AVERAGE_BYTES` each, is one syncfs of the destination's
 * filesystem instead of an fsync of each: every fsync of a small new file
 * waits for a journal commit of its own (four at a time on Node's pool),
 * where one syncfs waits for one. With larger files the data is the wait
 * either way, and fsyncs do not wait for other writers' dirty data on the
 * same filesystem, which a syncfs does (docs/performance.md, "Many small
 * bundles").
 */
const SYNCFS_MIN_HELD = 64;
const SYNCFS_MAX_AVERAGE_BYTES = 64 * 1024;

/** Where a bundle's descriptors begin in a `PendingFlush` (see `release`). */
interface FlushMark {
  readonly flushes: number;
  readonly length: number;
  readonly bytes: number;
}

/**
 * The descriptors of everything a batch staged — files and directories the
 * staging is done with — made durable together by one flush: fsyncs issued
 * together on the thread pool (the filesystem folds them into few journal
 * commits; docs/performance.md, "Group commit"), or for many small files one
 * syncfs (see `SYNCFS_MIN_HELD`). When more than `HELD_MAX` are held, those
 * are flushed and closed early; that makes nothing visible.
 */
class PendingFlush {
  #held: OpenDescriptor[] = [];
  /** Bytes written through the held descriptors (directories count none). */
  #bytes = 0;
  /** Counts flushes, so a mark taken before one still finds what came after it. */
  #flushes = 0;
  /** The destination root: the staging trees lie on its filesystem. */
  readonly #filesystem: OpenDescriptor;
  #syncfsFlushes: boolean | undefined;

  constructor(filesystem: OpenDescriptor) {
    this.#filesystem = filesystem;
  }

  hold(descriptor: OpenDescriptor, bytes = 0): void {
    this.#held.push(descriptor);
    this.#bytes += bytes;
  }

  /** Where the descriptors of the next bundle begin (see `release`). */
  mark(): FlushMark {
    return { flushes: this.#flushes, length: this.#held.length, bytes: this.#bytes };
  }

  /**
   * Closes and forgets what was held since `mark`: a bundle whose staging
   * failed. Its tree is removed, and on a full filesystem the space of a
   * removed file comes back only when its last descriptor closes; the next
   * bundles of the batch need it.
   */
  release(mark: FlushMark): void {
    const sameFlush = mark.flushes === this.#flushes;
    closeEach(this.#held.splice(sameFlush ? mark.length : 0));
    this.#bytes = sameFlush ? mark.bytes : 0;
  }

  async bound(step: StepHook): Promise<void> {
    if (this.#held.length < HELD_MAX) return;
    step('fsync');
    await this.flush(step);
  }

  async flush(step: StepHook): Promise<void> {
    const held = this.#held;
    const bytes = this.#bytes;
    this.#held = [];
    this.#bytes = 0;
    this.#flushes += 1;
    try {
      if (this.#prefersSyncfs(held.length, bytes)) {
        step('syncfs');
        if (await syncFilesystemOf(this.#filesystem)) return;
        // It failed: every descriptor is fsynced instead, and the fsync reports why.
        step('fsync');
      }
      await fsyncAll(held);
    } finally {
      closeEach(held);
    }
  }

  close(): void {
    closeEach(this.#held);
    this.#held = [];
    this.#bytes = 0;
  }

  #prefersSyncfs(count: number, bytes: number): boolean {
    if (count < SYNCFS_MIN_HELD || bytes >= count * SYNCFS_MAX_AVERAGE_BYTES) return false;
    this.#syncfsFlushes ??= syncfsFlushesEveryFile(this.#filesystem);
    return this.#syncfsFlushes;
  }
}

/** A bundle built in staging, durable once its batch is flushed, not yet visible. */
interface Staged {
  readonly index: number;
  readonly write: PlannedWrite;
  readonly state: DestinationState;
  /** Where the staging tree sits until its commit rename. */
  readonly at: Dir;
  readonly name: string;
}

/** After a commit rename: the parent to flush once, and what is left to tidy up. */
interface Committed {
  readonly parent: Dir;
  readonly opened: readonly Dir[];
  readonly tidy: (() => void) | undefined;
}

/**
 * One group commit at a local destination (docs/distributor.md, "Crash
 * behaviour"):
 *
 * 1. stage every write of the batch: the whole new tree of each bundle in
 *    its own staging directory of this run's work area (same filesystem) —
 *    the snapshot's bundle directory itself when its files may be moved,
 *    else a fresh one — each output moved from the snapshot or copied from
 *    it while hashing, checked against the plan, and the state written last;
 * 2. flush the batch once (`PendingFlush`): every staged byte and
 *    directory entry is durable before anything becomes visible;
 * 3. commit each bundle with its own rename: RENAME_NOREPLACE onto the absent
 *    bundle path (first publish; an entry that appeared meanwhile fails it),
 *    or, after re-reading the state and finding the planned token,
 *    RENAME_EXCHANGE with the managed bundle directory (replacement) —
 *    readers see the old tree or the new one, whole, never a mix;
 * 4. flush each parent directory that received a commit, once;
 * 5. after an exchange the old tree sits in staging: only the outputs and
 *    state it lists are deleted, and directories that became empty; anything
 *    else keeps the tree, moved to `kept-*`.
 *
 * Each write has its own outcome. Before its commit a failure removes its
 * staging tree and the parent directories its commit created; a failed
 * flush refuses every write of the batch; after a commit the outcome stands
 * and cleanup problems are left for the next run's sweep.
 */
export async function applyLocalBatch(
  root: LocalRoot,
  writes: readonly BatchWrite[],
  now: Instant,
  step: StepHook,
): Promise<AppliedOutcome[]> {
  const outcomes: AppliedOutcome[] = writes.map(() => ({
    outcome: 'refused',
    refusal: writeFailed(),
  }));
  const staged = await stageBatch(root, writes, now, step, outcomes);
  if (staged.length === 0) return outcomes;
  const committed = commitBatch(root, staged, step, outcomes);
  for (const one of committed) {
    try {
      one.tidy?.();
    } catch {
      // Committed: what is left in the run directory is swept narrowly (by its own state) later.
    }
  }
  return outcomes;
}

/**
 * The refusal of a write that failed with `error`: its own refusal, or
 * `destination_write_failed`, a full or read-only filesystem named by the
 * destination root (the work area is on its filesystem).
 */
function refusedBy(error: unknown, root: LocalRoot): AppliedOutcome {
  return {
    outcome: 'refused',
    refusal: toRefusal(error, () => destinationWriteFailed(onFilesystemOf(error, root.shown.root))),
  };
}

/**
 * Stages every write of the batch, then makes all of them durable with one
 * flush. Returns the staged writes; a write that failed (or every write,
 * when the flush failed) has its refusal in `outcomes` and nothing staged.
 */
async function stageBatch(
  root: LocalRoot,
  writes: readonly BatchWrite[],
  now: Instant,
  step: StepHook,
  outcomes: AppliedOutcome[],
): Promise<Staged[]> {
  const staged: Staged[] = [];
  const pending = new PendingFlush(root.root);
  try {
    for (const [index, { write, source }] of writes.entries()) {
      try {
        staged.push(await stageOne(root, index, write, source, now, step, pending));
      } catch (error: unknown) {
        outcomes[index] = refusedBy(error, root);
      }
    }
    if (staged.length === 0) return staged;
    try {
      step('flush');
      await pending.flush(step);
    } catch (error: unknown) {
      for (const one of staged) {
        outcomes[one.index] = refusedBy(error, root);
        discard(one, step);
      }
      return [];
    }
    return staged;
  } finally {
    pending.close();
  }
}

/**
 * Commits each durable staged write by its own rename, records its outcome,
 * then flushes each parent directory that received one once. Returns the
 * committed writes, their handles closed.
 */
function commitBatch(
  root: LocalRoot,
  staged: readonly Staged[],
  step: StepHook,
  outcomes: AppliedOutcome[],
): Committed[] {
  const committed: Committed[] = [];
  try {
    for (const one of staged) {
      try {
        committed.push(commitOne(root, one, step));
        outcomes[one.index] = {
          outcome: one.write.outcome === 'published' ? 'published' : 'replaced',
          outputs: one.state.outputs,
        };
      } catch (error: unknown) {
        outcomes[one.index] = refusedBy(error, root);
        discard(one, step);
      }
    }
    flushParents(committed, step);
  } finally {
    for (const one of committed) closeEach(one.opened);
  }
  return committed;
}

/** Builds one bundle's staging tree (not yet durable: the batch flush does that). */
async function stageOne(
  root: LocalRoot,
  index: number,
  write: PlannedWrite,
  source: OutputSource,
  now: Instant,
  step: StepHook,
  pending: PendingFlush,
): Promise<Staged> {
  const state: DestinationState = { ...write.state, published_at: now };
  const snapshot = source.takeDir?.();
  let at: Dir;
  let name: string;
  let stage: Dir;
  if (snapshot !== undefined) {
    at = snapshot.parent;
    name = snapshot.name;
    stage = snapshot.dir;
  } else {
    at = root.runDir(step);
    name = root.nextStageName();
    step('mkdir');
    stage = at.mkdirExclusive(name, DIR_MODE);
  }
  const mark = pending.mark();
  try {
    await buildTree(stage, write.outputs, serializeState(state), source, snapshot, pending, step);
    // The snapshot's directory was private (0700); it is published as it is.
    if (snapshot !== undefined) stage.chmod(DIR_MODE);
  } catch (error: unknown) {
    pending.release(mark);
    if (snapshot === undefined) stage.close();
    try {
      removeOwnTree(at, name, step);
    } catch {
      // The run directory is removed, or swept by the next run.
    }
    throw error;
  }
  // The snapshot's own handle stays the snapshot's to close (closing is idempotent).
  pending.hold(stage);
  return { index, write, state, at, name };
}

async function buildTree(
  stage: Dir,
  outputs: readonly PlannedOutput[],
  stateText: string,
  source: OutputSource,
  snapshot: SnapshotBundleDir | undefined,
  pending: PendingFlush,
  step: StepHook,
): Promise<void> {
  const dirs = new Map<string, Dir>([['', stage]]);
  const taken = new Set<string>();
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
      const moved = await placeOutput(parent, output, source, pending, step);
      if (moved !== undefined) taken.add(moved);
      await pending.bound(step);
    }
    // Snapshot files this destination does not publish (another destination's
    // pages, say) leave the staging tree before its state is written, so a
    // staged tree with a state holds exactly what the state lists.
    for (const leftover of snapshot?.names ?? []) {
      if (taken.has(leftover)) continue;
      step('unlink');
      stage.unlink(leftover);
    }
    const stateBytes = Buffer.from(stateText, 'utf8');
    step('create');
    const stateFile = stage.createExclusive(STATE_FILE, FILE_MODE);
    try {
      step('write');
      stateFile.write(stateBytes);
    } finally {
      pending.hold(stateFile, stateBytes.byteLength);
    }
  } finally {
    for (const [path, dir] of dirs) if (path !== '') pending.hold(dir);
  }
}

/** Places one output; returns the snapshot name it moved, if it moved one. */
async function placeOutput(
  parent: Dir,
  output: PlannedOutput,
  source: OutputSource,
  pending: PendingFlush,
  step: StepHook,
): Promise<string | undefined> {
  const name = output.path.slice(output.path.lastIndexOf('/') + 1);
  const taken = source.take?.(output);
  if (taken !== undefined) {
    step('rename');
    renameNoReplace(taken.dir, taken.name, parent, name);
    // One no-follow open serves the check and the batch flush: the file sits
    // in this run's private staging tree, created there with its published
    // mode, so no name is looked up twice and no chmod is needed.
    const file = parent.openFile(name);
    pending.hold(file, output.size);
    const stat = file.stat();
    if (stat.type !== 'file' || stat.size !== BigInt(output.size) || (stat.mode & 0o7777) !== FILE_MODE) {
      throw refuseDistributor('destination_write_failed', { role: 'destination' });
    }
    return taken.name;
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
  } finally {
    pending.hold(file, output.size);
  }
  return undefined;
}

/** Removes a staging tree that will not be committed (never anything else). */
function discard(one: Staged, step: StepHook): void {
  try {
    removeOwnTree(one.at, one.name, step);
  } catch {
    // The run directory is removed, or swept by the next run.
  }
}

function commitOne(root: LocalRoot, one: Staged, step: StepHook): Committed {
  const segments = one.write.bundle_dir.split('/');
  return one.write.outcome === 'published'
    ? commitPublish(root, segments, one, step)
    : commitReplace(root, segments, one, step);
}

function commitPublish(root: LocalRoot, segments: readonly string[], one: Staged, step: StepHook): Committed {
  const leaf = segments[segments.length - 1] ?? '';
  const scratch = { dir: root.runDir(step), nextName: () => root.nextParentName() };
  const parents: EnsuredDirs = ensureDirs(root.root, segments.slice(0, -1), scratch, step);
  let swappedEmpty = false;
  try {
    step('rename');
    try {
      renameNoReplace(one.at, one.name, parents.dir, leaf);
    } catch (error: unknown) {
      if (!isFsError(error, 'EEXIST') && !isFsError(error, 'ENOTEMPTY')) throw destinationProblem(error);
      // A directory without entries at the bundle path counts as empty
      // (docs/distributor.md#outcomes): swap the new tree in for it,
      // atomically, instead of writing into it.
      if (!isEmptyDirectory(parents.dir, leaf))
        throw refuseDistributor('destination_changed', { role: 'destination' });
      step('exchange');
      exchange(one.at, one.name, parents.dir, leaf);
      swappedEmpty = true;
    }
  } catch (error: unknown) {
    removeEnsured(parents, step);
    closeEach(parents.opened);
    throw error;
  }
  const tidy = swappedEmpty
    ? () => {
        try {
          step('rmdir');
          one.at.rmdir(one.name);
        } catch {
          // Someone wrote into it meanwhile: it is theirs, kept.
          root.keep(one.at, one.name, step);
        }
      }
    : undefined;
  return { parent: parents.dir, opened: parents.opened, tidy };
}

function isEmptyDirectory(parent: Dir, name: string): boolean {
  const located = openDirs(parent, [name]);
  if (located === undefined) return false;
  try {
    return located.dir.list().length === 0;
  } finally {
    closeEach(located.opened);
  }
}

/**
 * After the commit renames the outcomes stand: a failing directory fsync is
 * not reported as a failed publication (the rename is visible; the next run
 * reads the state as usual). Each parent directory is flushed once, however
 * many bundles it received.
 */
function flushParents(committed: readonly Committed[], step: StepHook): void {
  const flushed = new Set<string>();
  for (const one of committed) {
    try {
      const stat = one.parent.stat();
      const key = `${stat.dev}:${stat.ino}`;
      if (flushed.has(key)) continue;
      flushed.add(key);
      step('fsync');
      one.parent.fsync();
    } catch {
      // See above.
    }
  }
}

function commitReplace(root: LocalRoot, segments: readonly string[], one: Staged, step: StepHook): Committed {
  const leaf = segments[segments.length - 1] ?? '';
  const located = openDirs(root.root, segments.slice(0, -1));
  if (located === undefined) throw refuseDistributor('destination_changed', { role: 'destination' });
  try {
    const current = openDirs(located.dir, [leaf]);
    if (current === undefined) throw refuseDistributor('destination_changed', { role: 'destination' });
    try {
      if (readState(current.dir)?.token !== one.write.previous?.token) {
        throw refuseDistributor('destination_changed', { role: 'destination' });
      }
    } finally {
      closeEach(current.opened);
    }
    step('exchange');
    exchange(one.at, one.name, located.dir, leaf);
  } catch (error: unknown) {
    closeEach(located.opened);
    throw error;
  }
  return {
    parent: located.dir,
    opened: located.opened,
    tidy: () => {
      if (!cleanStage(one.at, one.name, step)) root.keep(one.at, one.name, step);
    },
  };
}

const writeFailed = () => refuseDistributor('destination_write_failed', { role: 'destination' });
