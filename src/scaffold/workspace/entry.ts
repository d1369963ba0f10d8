import { type Dir, type EntryName, type FileStat, isFsError } from '../../core/fs/index.js';

/** What sits at a name, seen without following a symlink. */
export type Entry =
  | { readonly kind: 'absent' }
  | { readonly kind: 'symlink' | 'special' | 'file' | 'directory'; readonly stat: FileStat };

/** lstat-style look at one child of a held directory; ENOENT is `absent`, other errors propagate. */
export function lookAt(dir: Dir, name: EntryName): Entry {
  let stat: FileStat;
  try {
    stat = dir.stat(name);
  } catch (error: unknown) {
    if (isFsError(error, 'ENOENT')) return { kind: 'absent' };
    throw error;
  }
  if (stat.type === 'symlink') return { kind: 'symlink', stat };
  if (stat.type === 'file') return { kind: 'file', stat };
  if (stat.type === 'directory') return { kind: 'directory', stat };
  return { kind: 'special', stat };
}

export function sameInode(a: FileStat, b: FileStat): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

/** The effective uid; owner checks compare against it. */
export function currentUid(): number {
  const uid = process.geteuid?.();
  if (uid === undefined) throw new Error('no effective uid on this platform');
  return uid;
}

/** A directory the run may trust: owned by the running user, no group or other bit in `forbidden`. */
export function ownedWithout(stat: FileStat, forbidden: number): boolean {
  return stat.type === 'directory' && stat.uid === currentUid() && (stat.mode & forbidden) === 0;
}
