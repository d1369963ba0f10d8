import { FsError } from './errors.js';

/**
 * Runs one of Node's fd-based calls and gives its failure the same `FsError`
 * type as the libc wrappers, so callers match on one class.
 */
export function nodeCall<T>(syscall: string, call: () => T): T {
  try {
    return call();
  } catch (error: unknown) {
    const code = typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
    const errno = typeof error === 'object' && error !== null && 'errno' in error ? error.errno : undefined;
    throw new FsError(
      typeof code === 'string' ? code : 'EUNKNOWN',
      typeof errno === 'number' ? errno : 0,
      syscall,
    );
  }
}
