import { type Dir, type FileStat, isFsError, type ReadableFile } from '../../core/fs/index.js';

export type OpenProblem = 'missing' | 'symlink' | 'not_regular' | 'unreadable';

export type OpenedFile =
  | { readonly ok: true; readonly file: ReadableFile; readonly stat: FileStat }
  | { readonly ok: false; readonly problem: OpenProblem };

/**
 * Opens `segments` below `base` for reading without following any symbolic
 * link (a linked parent directory is refused like a linked file), stats the
 * name first so a FIFO or device is never opened, and checks the opened
 * descriptor is that same regular file.
 */
export function openRegular(base: Dir, segments: readonly string[]): OpenedFile {
  const parents: Dir[] = [];
  try {
    let dir = base;
    for (const segment of segments.slice(0, -1)) {
      dir = dir.openDir(segment);
      parents.push(dir);
    }
    const name = segments[segments.length - 1] ?? '';
    // A no-follow statx by name tells the same as pinning the name with O_PATH
    // and closing the pin before the open (what this did before), one open and
    // close fewer: the type is known before any open, and the descriptor
    // opened below must be that same inode, so a swap in between is refused.
    const expected: FileStat = dir.stat(name);
    if (expected.type === 'symlink') return { ok: false, problem: 'symlink' };
    if (expected.type !== 'file') return { ok: false, problem: 'not_regular' };
    const file = dir.openFile(name);
    const stat = file.stat();
    if (stat.dev !== expected.dev || stat.ino !== expected.ino || stat.type !== 'file') {
      file.close();
      return { ok: false, problem: 'unreadable' };
    }
    return { ok: true, file, stat };
  } catch (error: unknown) {
    return { ok: false, problem: problemOf(error) };
  } finally {
    for (const dir of parents) dir.close();
  }
}

function problemOf(error: unknown): OpenProblem {
  if (isFsError(error, 'ENOENT') || isFsError(error, 'ENOTDIR')) return 'missing';
  if (isFsError(error, 'ELOOP')) return 'symlink';
  return 'unreadable';
}
