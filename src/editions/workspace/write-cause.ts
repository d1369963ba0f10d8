import { isFsError } from '../../core/fs/index.js';

/**
 * What a failed write beside DEST most likely means, by errno name: fixed
 * text, never the exception's own message or a path. `edition new` gives it
 * as the hint of `workspace_write_failed`, in a dry run (where the kernel is
 * asked with faccessat) as in a real run.
 */
const CAUSES: { readonly [code: string]: string } = {
  EACCES: 'the folder that would hold the destination is not writable by this account (EACCES)',
  EPERM: 'the folder that would hold the destination is not writable by this account (EPERM)',
  EROFS: 'the folder that would hold the destination is on a read-only filesystem (EROFS)',
  ENOSPC: 'no space left on the filesystem (ENOSPC)',
  EDQUOT: 'the disk quota of this account is used up (EDQUOT)',
  EIO: 'the device reported an I/O error (EIO)',
  ENAMETOOLONG: 'a path is longer than the filesystem allows (ENAMETOOLONG)',
  EMFILE: 'too many open files (EMFILE)',
  ENFILE: 'too many open files on the system (ENFILE)',
};

/** The cause of a write failure when its errno is one sealkit knows, for a refusal's hint. */
export function writeCause(error: unknown): { readonly hint?: string } {
  for (const [code, cause] of Object.entries(CAUSES)) if (isFsError(error, code)) return { hint: cause };
  return {};
}

/** The cause of an errno name returned by `Dir.writeDenied()`. */
export function writeDeniedCause(code: string): { readonly hint?: string } {
  const cause = Object.hasOwn(CAUSES, code) ? CAUSES[code] : undefined;
  return cause === undefined
    ? { hint: `the folder that would hold the destination is not writable (${code})` }
    : { hint: cause };
}
