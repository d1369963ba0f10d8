import { isFsError, writeFailureCause } from '../../core/fs/index.js';

/**
 * What `edition new` was writing beside DEST, for the causes of
 * `workspace_write_failed` (`writeFailureCause`), given in a dry run (where
 * the kernel is asked with faccessat) as in a real run.
 */
const TARGET = 'the destination';

/** The cause of a write failure when its errno is one sealkit knows, for a refusal's hint. */
export function writeCause(error: unknown): { readonly hint?: string } {
  const cause = isFsError(error) ? writeFailureCause(error.code, TARGET) : undefined;
  return cause === undefined ? {} : { hint: cause };
}

/** The cause of an errno name returned by `Dir.writeDenied()`. */
export function writeDeniedCause(code: string): { readonly hint?: string } {
  const cause = writeFailureCause(code, TARGET);
  return cause === undefined
    ? { hint: `the folder that would hold ${TARGET} is not writable (${code})` }
    : { hint: cause };
}
