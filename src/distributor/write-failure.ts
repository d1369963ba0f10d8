import type { Refusal } from '../core/refusal/index.js';
import { refuseDistributor } from './refusals.js';

/**
 * What a failed write at a destination (or in the run's own copy of the
 * sources) most likely means, by errno name: fixed text sealkit writes, never
 * the exception's own message or a path.
 */
const CAUSES: { readonly [code: string]: string } = {
  ENOSPC: 'no space left on the filesystem (ENOSPC)',
  EDQUOT: 'the disk quota of the account running sealkit is used up (EDQUOT)',
  EROFS: 'the filesystem is mounted read-only (EROFS)',
  EIO: 'the device reported an I/O error (EIO)',
  EACCES: 'the account running sealkit may not write there (EACCES)',
  EPERM: 'the account running sealkit may not write there (EPERM)',
  ENOENT: 'a folder it needs does not exist (ENOENT)',
  ENOTDIR: 'a path on the way is not a folder (ENOTDIR)',
  EFBIG: 'a file is larger than the filesystem allows (EFBIG)',
  EMFILE: 'too many open files (EMFILE)',
  ENFILE: 'too many open files on the system (ENFILE)',
};

/** The errno name an error carries (`FsError`, Node's own, `CopyTargetFailed`), if any. */
export function errnoName(error: unknown): string | undefined {
  const code = typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
  return typeof code === 'string' && /^E[A-Z0-9]+$/.test(code) ? code : undefined;
}

/**
 * A write that failed in a known folder of a destination: the folder as the
 * operator wrote the root (`site/weather`), so the hint says where.
 */
export class FolderWriteFailure extends Error {
  readonly code: string | undefined;
  constructor(
    readonly error: unknown,
    readonly folder: string,
  ) {
    super('a write failed in a destination folder');
    this.code = errnoName(error);
  }
}

/**
 * `error` placed in `folder` (a destination root as the operator wrote it)
 * when its cause is the filesystem's, not one folder's: full, over quota,
 * read-only, failing. "No space left" alone does not say which of a run's
 * destinations filled up. Any other error as it is.
 */
export function onFilesystemOf(error: unknown, folder: string): unknown {
  const code = errnoName(error);
  return code !== undefined && FILESYSTEM_CAUSES.has(code) && !(error instanceof FolderWriteFailure)
    ? new FolderWriteFailure(error, folder)
    : error;
}

const FILESYSTEM_CAUSES: ReadonlySet<string> = new Set(['ENOSPC', 'EDQUOT', 'EROFS', 'EIO']);

/**
 * One line saying what a write failure means, when it carries an errno
 * (in words for the ones sealkit knows, by name for the others); with the
 * folder it happened in when that is known.
 */
export function writeFailureCause(error: unknown): string | undefined {
  const code = errnoName(error);
  if (code === undefined) return undefined;
  // An errno without a sentence of its own is still named: a bare
  // "writing to the destination failed" left the operator nothing to look up.
  const cause =
    (Object.hasOwn(CAUSES, code) ? CAUSES[code] : undefined) ?? `a filesystem call failed (${code})`;
  if (!(error instanceof FolderWriteFailure)) return cause;
  const where = `'${error.folder}'`;
  return cause.includes(' there ')
    ? cause.replace(' there ', ` in ${where} `)
    : `writing in ${where}: ${cause}`;
}

/** `destination_write_failed`, with the cause as its hint when known. */
export function destinationWriteFailed(error: unknown): Refusal {
  const cause = writeFailureCause(error);
  return refuseDistributor('destination_write_failed', {
    role: 'destination',
    ...(cause === undefined ? {} : { hint: cause }),
  });
}
