import { type Dir, isFsError } from '../core/fs/index.js';

/** One regular file read from a held directory tree; `path` is relative, '/'-separated. */
export interface TreeFile {
  readonly path: string;
  readonly bytes: Uint8Array;
  /**
   * Not read (`bytes` empty), only with `skipOversized`: `file` when it is
   * over the per-file limit, `total` when the files read before it already
   * fill the tree's byte limit.
   */
  readonly oversized?: 'file' | 'total';
}

export interface Tree {
  /** Every directory below the root, parents before children, sorted by path. */
  readonly dirs: readonly string[];
  /** Every regular file, sorted by path. */
  readonly files: readonly TreeFile[];
}

export interface TreeLimits {
  readonly maxFiles: number;
  readonly maxTotalBytes: number;
  readonly maxFileBytes: number;
  readonly maxDepth: number;
}

/**
 * Why a tree could not be read whole; callers map it to their own refusal
 * code. `unreadable`: the account may not open or read an entry (EACCES,
 * EPERM), or reading it failed (EIO): the entry, not the tree, is at fault.
 */
export type TreeProblem = 'entry_invalid' | 'too_large' | 'unreadable';

export class TreeReadError extends Error {
  readonly problem: TreeProblem;
  /** The entry at fault, relative to the root read (its folder, for a name that is not UTF-8). */
  readonly path: string | undefined;
  /** Whether the entry at fault is a folder (an `unreadable` one could not be opened or listed). */
  readonly folder: boolean;
  constructor(problem: TreeProblem, path?: string, folder = false) {
    super(problem);
    this.name = 'TreeReadError';
    this.problem = problem;
    this.path = path === '' ? undefined : path;
    this.folder = folder;
  }
}

export interface TreeReadOptions {
  readonly limits: TreeLimits;
  /** Entries to leave out (not read, not listed), by relative path; e.g. `.ci`. */
  readonly skip?: (path: string) => boolean;
  /** Only files for which this holds are read; others are ignored (default: all). */
  readonly include?: (path: string) => boolean;
  /**
   * A file over `maxFileBytes`, or one that would take the tree past
   * `maxTotalBytes`, is listed unread (`oversized`) instead of refusing the
   * tree: for data a caller can do without (a large seed). Files are then
   * read in name order, so which ones are left unread does not depend on
   * the order the filesystem lists them in.
   */
  readonly skipOversized?: boolean;
}

/**
 * Reads a whole tree through held descriptors: every directory is opened
 * relative to its parent with O_NOFOLLOW, every file is opened no-follow and
 * checked to be a regular file on the opened descriptor itself, so a symlink
 * swapped in mid-walk is refused rather than followed. A symlink, a special
 * file or a name that is not UTF-8 anywhere in the tree is `entry_invalid`;
 * exceeding a limit is `too_large` (files are read at most limit + 1 bytes).
 */
export function readTree(root: Dir, options: TreeReadOptions): Tree {
  const dirs: string[] = [];
  const files: TreeFile[] = [];
  let total = 0;
  const { limits } = options;

  const walk = (dir: Dir, prefix: string, depth: number): void => {
    if (depth > limits.maxDepth) throw new TreeReadError('too_large', prefix);
    const listed = unreadableAs(prefix, () => dir.list(), true);
    const entries =
      options.skipOversized === true
        ? [...listed].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
        : listed;
    for (const entry of entries) {
      if (!entry.utf8) throw new TreeReadError('entry_invalid', prefix);
      const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
      if (options.skip?.(path) === true) continue;
      const stat = dir.stat(entry.name);
      if (stat.type === 'directory') {
        dirs.push(path);
        const child = unreadableAs(path, () => dir.openDir(entry.name), true);
        try {
          walk(child, path, depth + 1);
        } finally {
          child.close();
        }
        continue;
      }
      if (stat.type !== 'file') throw new TreeReadError('entry_invalid', path);
      if (options.include !== undefined && !options.include(path)) continue;
      if (files.length + 1 > limits.maxFiles) throw new TreeReadError('too_large');
      if (options.skipOversized === true) {
        const over =
          stat.size > BigInt(limits.maxFileBytes)
            ? 'file'
            : BigInt(total) + stat.size > BigInt(limits.maxTotalBytes)
              ? 'total'
              : undefined;
        if (over !== undefined) {
          files.push({ path, bytes: new Uint8Array(0), oversized: over });
          continue;
        }
      }
      const file = unreadableAs(path, () => dir.openFile(entry.name));
      try {
        const opened = file.stat();
        if (opened.type !== 'file' || opened.ino !== stat.ino || opened.dev !== stat.dev)
          throw new TreeReadError('entry_invalid', path);
        const bytes = unreadableAs(path, () => file.readUpTo(limits.maxFileBytes + 1));
        if (bytes.length > limits.maxFileBytes) throw new TreeReadError('too_large', path);
        total += bytes.length;
        if (total > limits.maxTotalBytes) throw new TreeReadError('too_large');
        files.push({ path, bytes });
      } finally {
        file.close();
      }
    }
  };

  walk(root, '', 0);
  const byPath = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  dirs.sort(byPath);
  files.sort((a, b) => byPath(a.path, b.path));
  return { dirs, files };
}

/** Errnos that say the entry cannot be read by this account, or at all. */
const UNREADABLE = ['EACCES', 'EPERM', 'EIO'] as const;

/** Runs one open or read of the entry at `path`; a permission or I/O failure names that entry. */
function unreadableAs<T>(path: string, read: () => T, folder = false): T {
  try {
    return read();
  } catch (error: unknown) {
    if (UNREADABLE.some((code) => isFsError(error, code)))
      throw new TreeReadError('unreadable', path, folder);
    throw error;
  }
}
