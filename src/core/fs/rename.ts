import { RENAME_EXCHANGE, RENAME_NOREPLACE } from './constants.js';
import type { Dir } from './dir.js';
import { libc } from './libc.js';
import { type EntryName, encodeName } from './names.js';

/**
 * Moves `fromName` to `toName` only if nothing exists at `toName`: an empty
 * directory, a file or a dangling symlink there all give EEXIST and change
 * nothing (unlike rename(2), which silently replaces an empty directory).
 */
export function renameNoReplace(fromDir: Dir, fromName: EntryName, toDir: Dir, toName: EntryName): void {
  libc().renameat2(
    fromDir.fd,
    encodeName(fromName, 'renameat2'),
    toDir.fd,
    encodeName(toName, 'renameat2'),
    RENAME_NOREPLACE,
  );
}

/** Atomically swaps two existing entries (both must exist); readers see one or the other, never neither. */
export function exchange(dirA: Dir, nameA: EntryName, dirB: Dir, nameB: EntryName): void {
  libc().renameat2(
    dirA.fd,
    encodeName(nameA, 'renameat2'),
    dirB.fd,
    encodeName(nameB, 'renameat2'),
    RENAME_EXCHANGE,
  );
}

/**
 * rename(2): moves `fromName` to `toName`, atomically replacing a file or a
 * symlink there (the symlink itself, never its target). A directory at
 * `toName` is never replaced by a file (EISDIR), nor a non-empty one at all.
 * For replacing a file no one else relies on (a cache); published outputs use
 * `renameNoReplace` and `exchange`.
 */
export function renameReplacing(fromDir: Dir, fromName: EntryName, toDir: Dir, toName: EntryName): void {
  libc().renameat2(
    fromDir.fd,
    encodeName(fromName, 'renameat2'),
    toDir.fd,
    encodeName(toName, 'renameat2'),
    0,
  );
}
