import { isJsonObject, type JsonObject, parseStrict } from '../json/index.js';
import { guardRefusals, refuseInternal } from '../refusal/index.js';
import { Dir } from './dir.js';
import { isFsError } from './errors.js';
import { fsPrimitivesAvailable } from './libc.js';
import { refuseFs } from './refusals.js';
import { type FileStat, sameInode } from './stat.js';

export interface ReadPrivateOptions {
  /** Largest accepted size in bytes; 10 MiB by default (docs/filesystem.md#private-files). */
  readonly maxBytes?: number;
}

export const DEFAULT_PRIVATE_MAX_BYTES = 10 * 1024 * 1024;

const LONE_SURROGATE = /\p{Cs}/u;

/**
 * Reads a file under the private-file rule (docs/filesystem.md#private-files):
 * current-user-owned, owner-only, single-link regular file; owner-only parent
 * owned by the user; no symlink at any component; at most `maxBytes`. Checks
 * run in a fixed order so each failure has one code:
 *
 * 1. the path itself (private_path_invalid), the platform (private_unverifiable);
 * 2. a no-follow walk to the parent (private_symlink, private_missing);
 * 3. the final entry pinned with O_PATH|O_NOFOLLOW, never opened for reading
 *    yet: private_missing, private_symlink, private_not_regular,
 *    private_not_owned, private_mode_too_open, private_hard_linked,
 *    private_too_large;
 * 4. the parent: private_parent_not_private;
 * 5. one read descriptor, required to be the pinned inode, checks re-run on
 *    it, at most maxBytes + 1 bytes read (private_changed, private_too_large).
 *
 * Any other failure (EACCES, an unavailable FFI, a bug) is
 * private_unverifiable: the rule is never assumed to hold.
 */
export function readPrivateFile(path: string, options: ReadPrivateOptions = {}): Uint8Array {
  const maxBytes = options.maxBytes ?? DEFAULT_PRIVATE_MAX_BYTES;
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) throw refuseInternal('internal_error');
  return guardRefusals(
    () => readChecked(path, maxBytes),
    () => refuseFs('private_unverifiable'),
  );
}

/**
 * `readPrivateFile`, then strict JSON (UTF-8 without BOM, no duplicate keys,
 * bounded depth; `json_*` refusals) that must be an object (private_not_object).
 */
export function readPrivateJson(path: string, options: ReadPrivateOptions = {}): JsonObject {
  const bytes = readPrivateFile(path, options);
  return guardRefusals(
    () => {
      const value = parseStrict(bytes, { maxBytes: options.maxBytes ?? DEFAULT_PRIVATE_MAX_BYTES });
      if (!isJsonObject(value)) throw refuseFs('private_not_object');
      return value;
    },
    () => refuseFs('private_unverifiable'),
  );
}

function readChecked(path: string, maxBytes: number): Uint8Array {
  const { parent, name } = splitFinal(path);
  const euid = process.geteuid?.();
  if (euid === undefined || !fsPrimitivesAvailable()) throw refuseFs('private_unverifiable');

  // O_PATH: the parent needs search permission only, so an owner-only 0300
  // parent is judged by its mode and owner, not refused for being unlistable.
  const dir = translate(() => Dir.openForLookup(parent), 'walk');
  try {
    const pinned = translate(() => dir.openPath(name), 'entry');
    try {
      const checked = pinned.stat();
      checkEntry(checked, euid, maxBytes);
      checkParent(dir.stat(), euid);

      const file = translate(() => dir.openFile(name), 'reopen');
      try {
        const held = file.stat();
        if (!sameInode(held, checked)) throw refuseFs('private_changed');
        checkEntry(held, euid, maxBytes);
        const bytes = file.readUpTo(maxBytes + 1);
        if (bytes.length > maxBytes) throw refuseFs('private_too_large');
        if (BigInt(bytes.length) !== held.size) throw refuseFs('private_changed');
        return bytes;
      } finally {
        file.close();
      }
    } finally {
      pinned.close();
    }
  } finally {
    dir.close();
  }
}

function checkEntry(stat: FileStat, euid: number, maxBytes: number): void {
  if (stat.type === 'symlink') throw refuseFs('private_symlink');
  if (stat.type !== 'file') throw refuseFs('private_not_regular');
  if (stat.uid !== euid) throw refuseFs('private_not_owned');
  if ((stat.mode & 0o077) !== 0) throw refuseFs('private_mode_too_open');
  if (stat.nlink !== 1) throw refuseFs('private_hard_linked');
  if (stat.size > BigInt(maxBytes)) throw refuseFs('private_too_large');
}

function checkParent(stat: FileStat, euid: number): void {
  if (stat.type !== 'directory') throw refuseFs('private_unverifiable');
  if (stat.uid !== euid || (stat.mode & 0o077) !== 0) throw refuseFs('private_parent_not_private');
}

/** Splits off the final component; a path that cannot name a regular file is refused here. */
function splitFinal(path: string): { readonly parent: string; readonly name: string } {
  if (path.length === 0 || path.includes('\0') || path.endsWith('/') || LONE_SURROGATE.test(path)) {
    throw refuseFs('private_path_invalid');
  }
  const slash = path.lastIndexOf('/');
  const name = path.slice(slash + 1);
  if (name === '.' || name === '..') throw refuseFs('private_path_invalid');
  const parent = slash === -1 ? '.' : slash === 0 ? '/' : path.slice(0, slash);
  return { parent, name };
}

/**
 * Maps the errno of one step to its refusal. After the entry was pinned and
 * checked, a symlink or a missing name on reopen means it was replaced.
 */
function translate<T>(step: () => T, stage: 'walk' | 'entry' | 'reopen'): T {
  try {
    return step();
  } catch (error: unknown) {
    if (stage === 'reopen') {
      if (isFsError(error, 'ELOOP') || isFsError(error, 'ENOENT')) throw refuseFs('private_changed');
      throw error;
    }
    if (isFsError(error, 'ELOOP')) throw refuseFs('private_symlink');
    // ENOTDIR: a component of the parent path is a file, so the private file cannot exist.
    if (isFsError(error, 'ENOENT') || (stage === 'walk' && isFsError(error, 'ENOTDIR'))) {
      throw refuseFs('private_missing');
    }
    throw error;
  }
}
