import { randomBytes } from 'node:crypto';
import {
  type Dir,
  FsError,
  type HeldLock,
  isFsError,
  lockExclusiveNonBlocking,
  peekLock,
  renameNoReplace,
} from '../../../core/fs/index.js';
import { parseState, STATE_FILE, STATE_MAX_BYTES } from '../../model/state.js';
import { removeOwnTree } from '../../own-tree.js';
import { HeldDirs } from '../../validate/held-dirs.js';
import { openRegular } from '../../validate/open-source.js';
import { errnoName, FolderWriteFailure } from '../../write-failure.js';
import { removeListed, type StepHook } from './tree.js';

/**
 * sealkit's own directory at a local destination root. It holds the lock
 * file, one `run-*` directory per live run (the source snapshot and staging
 * trees, on the destination's filesystem so publication is a rename), and
 * `kept-*` trees: old publications whose replacement found files the old
 * state did not list, kept rather than deleted. Its name begins with
 * `.distributor`, which no bundle path may use.
 */
export const WORK_AREA = '.distributor.work';
const LOCK_FILE = 'lock';
const RUN_PREFIX = 'run-';
const STAGE_PREFIX = 'stage-';
const SNAPSHOT_PREFIX = 'snapshot-';
const KEPT_PREFIX = 'kept-';

/**
 * The work area, made by this run or, when another run made it between this
 * run's open and its mkdir (two runs started together on a new
 * destination), the one that run made: the lock inside decides which of them
 * goes on. Refusing there reported the losing run's bundles as a failed
 * write instead of `destination_locked`.
 */
function madeOrOpened(base: Dir): Dir {
  try {
    return base.mkdirExclusive(WORK_AREA, 0o700);
  } catch (error: unknown) {
    if (!isFsError(error, 'EEXIST')) throw error;
    return base.openDir(WORK_AREA);
  }
}

/** One destination root opened by a run; shared by every destination configured with the same root. */
export class LocalRoot {
  readonly root: Dir;
  /** Directories above bundle paths already checked for a state, for this run (see `startInspectLocal`). */
  readonly ancestors = new Map<string, boolean>();
  /** Directories above bundle paths, held while the run inspects its sorted bundle paths. */
  readonly parents: HeldDirs;
  #work: Dir | undefined;
  #lock: HeldLock | undefined;
  #run: { readonly dir: Dir; readonly name: string } | undefined;
  #stages = 0;
  #locked: boolean | undefined;
  #released = false;

  /** The directory holding the work area: the configured `work_dir`, else the root itself. */
  readonly #workBase: Dir;
  /** The root, and the directory holding the work area, as the operator wrote them (for hints). */
  readonly shown: { readonly root: string; readonly workBase: string };

  constructor(root: Dir, workBase?: Dir, shown?: { readonly root: string; readonly workBase: string }) {
    this.root = root;
    this.#workBase = workBase ?? root;
    this.parents = new HeldDirs(root);
    this.shown = shown ?? { root: '.', workBase: '.' };
  }

  get locked(): boolean {
    return this.#locked === true;
  }

  /** True once `release` began: several destinations share a root and close it once. */
  get closing(): boolean {
    return this.#released;
  }

  /**
   * Takes the root's exclusive lock (once per run, whatever the number of
   * destinations sharing the root), then removes what interrupted runs left
   * in the work area: their snapshots and staging trees. A leftover staging
   * tree that carries a state is an old publication swapped out by a
   * replacement (or a new one not yet swapped in); only what that state
   * lists is removed, so a file someone else put there survives, kept.
   */
  acquire(step: StepHook): boolean {
    if (this.#locked !== undefined) return this.#locked;
    const work = this.#openWorkArea(step);
    let result: ReturnType<typeof lockExclusiveNonBlocking>;
    try {
      result = lockExclusiveNonBlocking(work, LOCK_FILE);
    } catch (error: unknown) {
      work.close();
      throw new FolderWriteFailure(error, this.#shownWorkArea());
    }
    if (result.kind === 'busy') {
      // Not remembered: a caller that waits asks again.
      work.close();
      return false;
    }
    this.#work = work;
    this.#lock = result.lock;
    this.#locked = true;
    for (const entry of work.list()) {
      if (entry.utf8 && entry.type === 'directory' && entry.name.startsWith(RUN_PREFIX)) {
        this.#sweepRun(entry.name, step);
      }
    }
    return true;
  }

  /**
   * What `acquire` would meet, taking nothing and creating nothing (the dry
   * run, docs/distributor.md#commands): `busy` when another process holds
   * the lock, `denied` when the work area or its lock file could not be
   * made (the errno, in the folder as written). A lock the kernel's table
   * does not show (held from another container) reads as free.
   */
  peek():
    | { readonly kind: 'free' | 'busy' }
    | { readonly kind: 'denied'; readonly error: FolderWriteFailure } {
    const base = this.#workBase;
    let work: Dir;
    try {
      work = base.openDir(WORK_AREA);
    } catch (error: unknown) {
      if (!isFsError(error, 'ENOENT'))
        return { kind: 'denied', error: new FolderWriteFailure(error, this.#shownWorkArea()) };
      return deniedIn(base, this.shown.workBase);
    }
    try {
      const held = peekLock(work, LOCK_FILE);
      if (held === 'held') return { kind: 'busy' };
      return held === 'absent' ? deniedIn(work, this.#shownWorkArea()) : { kind: 'free' };
    } catch (error: unknown) {
      return { kind: 'denied', error: new FolderWriteFailure(error, this.#shownWorkArea()) };
    } finally {
      work.close();
    }
  }

  #shownWorkArea(): string {
    return `${this.shown.workBase}/${WORK_AREA}`;
  }

  /** This run's private directory in the work area (0700), created on first use. */
  runDir(step: StepHook): Dir {
    if (this.#run !== undefined) return this.#run.dir;
    const work = this.#work;
    if (work === undefined) throw new Error('work area used before the lock was taken');
    const name = `${RUN_PREFIX}${randomBytes(8).toString('hex')}`;
    step('mkdir');
    const dir = work.mkdirExclusive(name, 0o700);
    this.#run = { dir, name };
    return dir;
  }

  nextStageName(): string {
    this.#stages += 1;
    return `${STAGE_PREFIX}${this.#stages}`;
  }

  /** A fresh name in this run's directory for a destination parent folder built before it is renamed into place. */
  nextParentName(): string {
    this.#stages += 1;
    return `parent-${this.#stages}`;
  }

  /** A fresh name for a source snapshot in this run's directory (several pipelines may share a root). */
  nextSnapshotName(): string {
    this.#stages += 1;
    return `${SNAPSHOT_PREFIX}${this.#stages}`;
  }

  /**
   * Keeps an old tree whose replacement left unlisted files in it: moved to
   * `kept-*` in the work area, never deleted by sealkit.
   */
  keep(from: Dir, name: string, step: StepHook): void {
    const work = this.#work;
    if (work === undefined) return;
    step('rename');
    renameNoReplace(from, name, work, `${KEPT_PREFIX}${randomBytes(8).toString('hex')}`);
  }

  /** Removes this run's directory (everything in it is the run's own) and releases the lock. */
  release(step: StepHook): void {
    if (this.#released) return;
    this.#released = true;
    try {
      const run = this.#run;
      const work = this.#work;
      if (run !== undefined && work !== undefined) {
        run.dir.close();
        this.#run = undefined;
        this.#cleanRun(work, run.name, step);
      }
    } finally {
      this.#lock?.release();
      this.#lock = undefined;
      this.#work?.close();
      this.#work = undefined;
      this.parents.close();
      if (this.#workBase !== this.root) this.#workBase.close();
      this.root.close();
    }
  }

  #openWorkArea(step: StepHook): Dir {
    const base = this.#workBase;
    try {
      return base.openDir(WORK_AREA);
    } catch (error: unknown) {
      if (!isFsError(error, 'ENOENT')) throw new FolderWriteFailure(error, this.#shownWorkArea());
    }
    try {
      step('mkdir');
      const work = madeOrOpened(base);
      step('fsync');
      base.fsync();
      return work;
    } catch (error: unknown) {
      throw errnoName(error) === undefined ? error : new FolderWriteFailure(error, this.shown.workBase);
    }
  }

  #sweepRun(name: string, step: StepHook): void {
    const work = this.#work;
    if (work === undefined) return;
    try {
      this.#cleanRun(work, name, step);
    } catch {
      // A leftover that cannot be cleaned now stays for a later run; it is
      // invisible at every bundle path and never blocks publication.
    }
  }

  /**
   * A snapshot's bundle directories are staging trees too (a local
   * destination stages in them, and an exchange leaves the old publication
   * there): each is cleaned like a stage, narrowly when it carries a state.
   */
  #cleanSnapshot(work: Dir, run: Dir, name: string, step: StepHook): void {
    const snapshot = run.openDir(name);
    try {
      for (const entry of snapshot.list()) {
        if (entry.type !== 'directory') {
          step('unlink');
          snapshot.unlink(entry.bytes);
        } else if (!entry.utf8 || !cleanStage(snapshot, entry.name, step)) {
          step('rename');
          renameNoReplace(snapshot, entry.bytes, work, `${KEPT_PREFIX}${randomBytes(8).toString('hex')}`);
        }
      }
    } finally {
      snapshot.close();
    }
    step('rmdir');
    run.rmdir(name);
  }

  #cleanRun(work: Dir, name: string, step: StepHook): void {
    const run = work.openDir(name);
    let emptied = true;
    try {
      for (const entry of run.list()) {
        if (entry.utf8 && entry.type === 'directory' && entry.name.startsWith(STAGE_PREFIX)) {
          if (!cleanStage(run, entry.name, step)) {
            step('rename');
            renameNoReplace(run, entry.name, work, `${KEPT_PREFIX}${randomBytes(8).toString('hex')}`);
          }
        } else if (entry.utf8 && entry.type === 'directory' && entry.name.startsWith(SNAPSHOT_PREFIX)) {
          this.#cleanSnapshot(work, run, entry.name, step);
        } else if (entry.type === 'directory' || entry.type === 'file') {
          removeOwnTree(run, entry.bytes, step);
        } else emptied = false;
      }
    } finally {
      run.close();
    }
    if (emptied) {
      step('rmdir');
      work.rmdir(name);
    }
  }
}

/** `free` when this account may write in `dir`, else `denied` with the kernel's errno, in `shown`. */
function deniedIn(
  dir: Dir,
  shown: string,
): { readonly kind: 'free' } | { readonly kind: 'denied'; readonly error: FolderWriteFailure } {
  const code = dir.writeDenied();
  return code === undefined
    ? { kind: 'free' }
    : { kind: 'denied', error: new FolderWriteFailure(FsError.synthetic(code, 'faccessat'), shown) };
}

/**
 * Removes one staging tree: narrowly (what its state lists) when it carries
 * a valid state, entirely when it does not. A tree without a valid state is
 * always a new tree this kind of run was building (its state is written
 * last, and a crash can leave it missing, empty or cut short); an old
 * publication swapped out by a replacement carries the complete state that
 * was read and checked just before the swap, and keeps it until everything
 * else of it is gone. False when something unlisted remains.
 */
export function cleanStage(parent: Dir, name: string, step: StepHook): boolean {
  const dir = parent.openDir(name);
  let listed: readonly string[] | undefined;
  try {
    const opened = openRegular(dir, [STATE_FILE]);
    if (opened.ok) {
      try {
        listed = parseState(opened.file.readUpTo(STATE_MAX_BYTES + 1)).outputs.map((output) => output.path);
      } catch {
        listed = undefined;
      } finally {
        opened.file.close();
      }
    } else if (opened.problem !== 'missing') return false;
  } finally {
    dir.close();
  }
  if (listed === undefined) {
    removeOwnTree(parent, name, step);
    return true;
  }
  return removeListed(parent, name, listed, STATE_FILE, step);
}
