import {
  type Dir,
  type DirEntryType,
  type FileStat,
  isFsError,
  type ReadableFile,
} from '../../core/fs/index.js';

export type OpenProblem = 'missing' | 'symlink' | 'not_regular' | 'unreadable';

export type OpenedFile =
  | { readonly ok: true; readonly file: ReadableFile; readonly stat: FileStat }
  | {
      readonly ok: false;
      readonly problem: OpenProblem;
      /** `unreadable` from a failed system call: its errno code (`EACCES`), for the hint. */
      readonly errno?: string;
    };

/**
 * Opens `segments` below `base` for reading without following any symbolic
 * link (a linked parent directory is refused like a linked file), stats the
 * name first so a FIFO or device is never opened, and checks the opened
 * descriptor is that same regular file.
 */
export function openRegular(base: Dir, segments: readonly string[], listedAs?: DirEntryType): OpenedFile {
  const parents: Dir[] = [];
  try {
    let dir = base;
    for (const segment of segments.slice(0, -1)) {
      dir = dir.openDir(segment);
      parents.push(dir);
    }
    const name = segments[segments.length - 1] ?? '';
    // A no-follow statx by name gives the type before any open (a FIFO or
    // device is never opened), and the descriptor opened below must be that
    // same inode. A caller that has just listed the directory passes the type
    // the listing showed instead: the statx would be as racy against a swap
    // before the open, which is no-follow and non-blocking, and whose own
    // stat must still show a regular file.
    const expected: FileStat | undefined =
      listedAs === 'file' && segments.length === 1 ? undefined : dir.stat(name);
    if (expected?.type === 'symlink') return { ok: false, problem: 'symlink' };
    if (expected !== undefined && expected.type !== 'file') return { ok: false, problem: 'not_regular' };
    const file = dir.openFile(name);
    const stat = file.stat();
    const swapped = expected !== undefined && (stat.dev !== expected.dev || stat.ino !== expected.ino);
    if (swapped || stat.type !== 'file') {
      file.close();
      return { ok: false, problem: swapped ? 'unreadable' : 'not_regular' };
    }
    return { ok: true, file, stat };
  } catch (error: unknown) {
    const problem = problemOf(error);
    return problem === 'unreadable' && isFsError(error)
      ? { ok: false, problem, errno: error.code }
      : { ok: false, problem };
  } finally {
    for (const dir of parents) dir.close();
  }
}

function problemOf(error: unknown): OpenProblem {
  if (isFsError(error, 'ENOENT') || isFsError(error, 'ENOTDIR')) return 'missing';
  if (isFsError(error, 'ELOOP')) return 'symlink';
  return 'unreadable';
}
