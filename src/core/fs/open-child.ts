import { AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, STATX_BUFFER_SIZE } from './constants.js';
import { FsError, isFsError } from './errors.js';
import { libc } from './libc.js';
import { decodeStatx } from './stat.js';

/**
 * openat with O_NOFOLLOW. With O_DIRECTORY the kernel reports a symlink as
 * ENOTDIR, without it as ELOOP; a no-follow statx tells which, so that a
 * symlink is always reported as ELOOP and a real non-directory as ENOTDIR.
 */
export function openChild(dirFd: number, name: Buffer, flags: number, mode?: number): number {
  const c = libc();
  try {
    return c.openat(dirFd, name, flags | c.flags.O_NOFOLLOW, mode);
  } catch (error: unknown) {
    if ((isFsError(error, 'ENOTDIR') || isFsError(error, 'ELOOP')) && isSymlink(dirFd, name)) {
      throw FsError.synthetic('ELOOP', 'openat');
    }
    throw error;
  }
}

function isSymlink(dirFd: number, name: Buffer): boolean {
  const buffer = Buffer.alloc(STATX_BUFFER_SIZE);
  try {
    libc().statx(dirFd, name, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, buffer);
    return decodeStatx(buffer).type === 'symlink';
  } catch {
    // Cannot tell: the original open error stands.
    return false;
  }
}
