import { closeEach, type Dir, type DirEntry, isFsError, renameNoReplace } from '../../../core/fs/index.js';
import type { StepKind } from '../../backend.js';
import type { EntryKind } from '../../plan/types.js';
import { refuseDistributor } from '../../refusals.js';
import { destinationWriteFailed } from '../../write-failure.js';

/** Reports one mutating step to the fault hook before it is taken (the object-store kinds aside). */
export type StepHook = (kind: Exclude<StepKind, 'put' | 'delete'>) => void;

/** Bounds on walking a destination bundle tree. */
export const TREE_LIMITS = { maxDepth: 64, maxEntries: 1_000_000 } as const;

/** What `ensureDirs` opened (the caller closes `opened`) and which of those it created. */
export interface EnsuredDirs {
  readonly dir: Dir;
  /** Paths of the directories it created, outermost first. */
  readonly created: readonly string[];
  readonly opened: readonly Dir[];
  readonly base: Dir;
  readonly segments: readonly string[];
  /** Indexes into `segments` (and `opened`) of the directories it created. */
  readonly madeAt: readonly number[];
}

/** Where `ensureDirs` builds a missing directory before renaming it into place. */
export interface Scratch {
  readonly dir: Dir;
  /** A name not used in `dir` yet. */
  readonly nextName: () => string;
}

/**
 * Opens (creating when absent, 0755) each directory of `segments` below
 * `base`, without following symlinks. A missing directory is made in
 * `scratch` (same filesystem), given its mode there, and renamed into place
 * without replacing: it appears whole, with its exact mode, or not at all,
 * whatever the umask and wherever the process is killed (a leftover in
 * scratch is the run's own). Every directory it creates is fsynced into its
 * parent and reported, so a failed publication can remove exactly those
 * again (`removeEnsured`); a failure inside it removes them itself.
 */
export function ensureDirs(
  base: Dir,
  segments: readonly string[],
  scratch: Scratch,
  step: StepHook,
): EnsuredDirs {
  const opened: Dir[] = [];
  const created: string[] = [];
  const madeAt: number[] = [];
  let current = base;
  try {
    for (const [index, segment] of segments.entries()) {
      let next: Dir;
      let made = false;
      try {
        next = current.openDir(segment);
      } catch (error: unknown) {
        if (!isFsError(error, 'ENOENT')) throw destinationProblem(error);
        const built = buildInScratch(scratch, current, segment, step);
        next = built.dir;
        made = built.made;
      }
      // Recorded before anything else can fail, so a failure below closes
      // the handle and removes the directory this call made.
      opened.push(next);
      if (made) {
        madeAt.push(index);
        created.push(segments.slice(0, index + 1).join('/'));
        step('fsync');
        current.fsync();
      }
      current = next;
    }
  } catch (error: unknown) {
    removeMade(base, segments, opened, madeAt, step);
    for (const dir of opened) dir.close();
    throw error;
  }
  return { dir: current, created, opened, base, segments, madeAt };
}

/**
 * One missing directory: made in scratch and renamed to `name` in `parent`.
 * The held handle follows the inode through the rename. When the name was
 * taken meanwhile (by someone else: the run holds the lock), the scratch
 * copy is removed and the existing directory opened instead, not made.
 */
function buildInScratch(
  scratch: Scratch,
  parent: Dir,
  name: string,
  step: StepHook,
): { readonly dir: Dir; readonly made: boolean } {
  const scratchName = scratch.nextName();
  step('mkdir');
  const dir = scratch.dir.mkdirExclusive(scratchName, 0o755);
  try {
    step('rename');
    renameNoReplace(scratch.dir, scratchName, parent, name);
    return { dir, made: true };
  } catch (error: unknown) {
    dir.close();
    if (!isFsError(error, 'EEXIST') && !isFsError(error, 'ENOTEMPTY')) throw error;
    try {
      scratch.dir.rmdir(scratchName);
    } catch {
      // Left in the run's scratch, removed with it.
    }
    try {
      return { dir: parent.openDir(name), made: false };
    } catch (opening: unknown) {
      throw destinationProblem(opening);
    }
  }
}

/**
 * Removes the directories `ensureDirs` created, innermost first, if still
 * empty, through the handles it holds (no name is looked up again).
 */
export function removeEnsured(ensured: EnsuredDirs, step: StepHook): void {
  removeMade(ensured.base, ensured.segments, ensured.opened, ensured.madeAt, step);
}

/** Removes the directories made at `madeAt`, innermost first, if still empty. */
function removeMade(
  base: Dir,
  segments: readonly string[],
  opened: readonly Dir[],
  madeAt: readonly number[],
  step: StepHook,
): void {
  for (const index of [...madeAt].reverse()) {
    const parent = index === 0 ? base : opened[index - 1];
    const name = segments[index];
    if (parent === undefined || name === undefined) continue;
    try {
      step('rmdir');
      parent.rmdir(name);
    } catch {
      // Not empty any more, or the step failed: left for a later run's narrow sweep.
    }
  }
}

/** Opens existing directories only; undefined when one is absent. */
export function openDirs(base: Dir, segments: readonly string[]): { dir: Dir; opened: Dir[] } | undefined {
  const opened: Dir[] = [];
  let current = base;
  try {
    for (const segment of segments) {
      current = current.openDir(segment);
      opened.push(current);
    }
    return { dir: current, opened };
  } catch (error: unknown) {
    for (const dir of opened) dir.close();
    if (isFsError(error, 'ENOENT')) return undefined;
    throw destinationProblem(error);
  }
}

export function destinationProblem(error: unknown) {
  if (isFsError(error, 'ELOOP')) return refuseDistributor('destination_symlink', { role: 'destination' });
  if (isFsError(error, 'ENOTDIR'))
    return refuseDistributor('destination_not_directory', { role: 'destination' });
  return destinationWriteFailed(error);
}

/**
 * Replacement's narrow deletion
 * (docs/distributor.md#local-destinations-atomicity-lock-crash-behaviour): removes
 * the listed files, then the directories that became empty (deepest first),
 * then the state file and the tree's own directory only if nothing else is
 * left. Returns false when something unlisted remains; the state is then
 * kept, so the tree stays recognisable as an old publication and no later
 * cleanup ever treats its leftovers as sealkit's own.
 */
export function removeListed(
  parent: Dir,
  name: string,
  listed: readonly string[],
  stateName: string,
  step: StepHook,
): boolean {
  const dir = parent.openDir(name);
  try {
    for (const path of listed) {
      const segments = path.split('/');
      const located = openDirs(dir, segments.slice(0, -1));
      if (located === undefined) continue;
      try {
        step('unlink');
        located.dir.unlink(segments[segments.length - 1] ?? '');
      } catch (error: unknown) {
        if (!isFsError(error, 'ENOENT') && !isFsError(error, 'EISDIR')) throw error;
      } finally {
        closeEach(located.opened);
      }
    }
    const parents = new Set<string>();
    for (const path of listed) {
      const segments = path.split('/');
      for (let depth = 1; depth < segments.length; depth += 1)
        parents.add(segments.slice(0, depth).join('/'));
    }
    const deepestFirst = [...parents].sort(
      (a, b) => b.split('/').length - a.split('/').length || (a < b ? -1 : 1),
    );
    for (const path of deepestFirst) {
      const segments = path.split('/');
      const located = openDirs(dir, segments.slice(0, -1));
      if (located === undefined) continue;
      try {
        step('rmdir');
        located.dir.rmdir(segments[segments.length - 1] ?? '');
      } catch (error: unknown) {
        if (!isFsError(error, 'ENOTEMPTY') && !isFsError(error, 'ENOENT') && !isFsError(error, 'ENOTDIR'))
          throw error;
      } finally {
        closeEach(located.opened);
      }
    }
    const rest = dir.list();
    if (rest.length > 1 || (rest.length === 1 && rest[0]?.name !== stateName)) return false;
    if (rest.length === 1) {
      step('unlink');
      dir.unlink(stateName);
    }
  } finally {
    dir.close();
  }
  step('rmdir');
  parent.rmdir(name);
  return true;
}

export interface TreeListing {
  /** Regular files, as slash-separated paths relative to the tree. */
  readonly files: ReadonlySet<string>;
  /** Directories (empty or not), as slash-separated paths relative to the tree. */
  readonly dirs: ReadonlySet<string>;
  /** True when the tree holds a symlink, a FIFO, a device, a socket or a non-UTF-8 name. */
  readonly other: boolean;
  /** Symlinks, FIFOs, devices and sockets with a UTF-8 name, as slash-separated paths relative to the tree. */
  readonly others: ReadonlySet<string>;
  /** Entries whose name is not UTF-8 (counted, never named). */
  readonly unnamed: number;
  /** What each entry that is not a regular file is, by path (named in a refusal: a folder where an output was). */
  readonly kinds: ReadonlyMap<string, EntryKind>;
  /** The size of each regular file `sized` asked for, by path. */
  readonly sizes: ReadonlyMap<string, number>;
}

/**
 * Lists a destination bundle tree without following links (`top`: the
 * root's entries, when already listed). Files named in `sized` are also
 * stat'ed for their size: only those, so a tree of foreign files costs no
 * more than before.
 */
export function listTree(root: Dir, top?: readonly DirEntry[], sized?: ReadonlySet<string>): TreeListing {
  const files = new Set<string>();
  const dirs = new Set<string>();
  const sizes = new Map<string, number>();
  const others = new Set<string>();
  const kinds = new Map<string, EntryKind>();
  let other = false;
  let unnamed = 0;
  let seen = 0;
  const walk = (dir: Dir, prefix: string, depth: number): void => {
    if (depth > TREE_LIMITS.maxDepth)
      throw refuseDistributor('destination_unlisted_entry', { role: 'destination' });
    for (const entry of depth === 0 && top !== undefined ? top : dir.list()) {
      seen += 1;
      if (seen > TREE_LIMITS.maxEntries)
        throw refuseDistributor('destination_unlisted_entry', { role: 'destination' });
      if (!entry.utf8) {
        other = true;
        unnamed += 1;
        continue;
      }
      const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
      const stat = entry.type === 'unknown' || sized?.has(path) === true ? dir.stat(entry.bytes) : undefined;
      const type = stat?.type ?? entry.type;
      if (type === 'file') {
        files.add(path);
        if (stat !== undefined && sized?.has(path) === true) sizes.set(path, Number(stat.size));
      } else if (type === 'directory') {
        dirs.add(path);
        kinds.set(path, 'folder');
        const child = dir.openDir(entry.bytes);
        try {
          walk(child, path, depth + 1);
        } finally {
          child.close();
        }
      } else {
        other = true;
        others.add(path);
        kinds.set(path, type === 'symlink' ? 'symlink' : 'special');
      }
    }
  };
  walk(root, '', 0);
  return { files, dirs, other, others, unnamed, kinds, sizes };
}
