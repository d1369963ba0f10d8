import { type Dir, type EntryName, isFsError } from '../core/fs/index.js';

/**
 * Removes a tree sealkit built itself (a staging directory, the source
 * snapshot): files and directories, depth first, never following a link.
 * The run (its source snapshots and temporary area) and the local backend
 * (staging, the work area) both remove their own trees with it, so it sits
 * beside them rather than inside either.
 */
export function removeOwnTree(parent: Dir, name: EntryName, step: (kind: 'unlink' | 'rmdir') => void): void {
  let dir: Dir;
  try {
    dir = parent.openDir(name);
  } catch (error: unknown) {
    if (isFsError(error, 'ENOENT')) return;
    if (isFsError(error, 'ENOTDIR') || isFsError(error, 'ELOOP')) {
      step('unlink');
      parent.unlink(name);
      return;
    }
    throw error;
  }
  try {
    for (const entry of dir.list()) {
      if (entry.type === 'directory') removeOwnTree(dir, entry.bytes, step);
      else {
        step('unlink');
        dir.unlink(entry.bytes);
      }
    }
  } finally {
    dir.close();
  }
  step('rmdir');
  parent.rmdir(name);
}
