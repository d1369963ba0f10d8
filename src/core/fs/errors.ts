import { getSystemErrorName } from 'node:util';

/**
 * A failed system call, in the shape Node gives its own errors (`code`,
 * negative `errno`, `syscall`) so callers can test `error.code === 'EEXIST'`.
 * It never carries a path: these errors are internal and are turned into
 * refusals with fixed text before anything reaches a user.
 */
export class FsError extends Error {
  readonly code: string;
  readonly errno: number;
  readonly syscall: string;

  constructor(code: string, errno: number, syscall: string) {
    super(`${code}: ${syscall}`);
    this.name = 'FsError';
    this.code = code;
    this.errno = errno;
    this.syscall = syscall;
  }

  /** Builds the error from a positive errno read right after the failing call. */
  static fromErrno(errno: number, syscall: string): FsError {
    const code = errno > 0 ? getSystemErrorName(-errno) : 'EUNKNOWN';
    return new FsError(code, errno > 0 ? -errno : 0, syscall);
  }

  /** An errno-style error raised by sealkit itself (bad name, raced inode). */
  static synthetic(code: string, syscall: string): FsError {
    const errno = ERRNO_BY_NAME[code];
    return new FsError(code, errno === undefined ? 0 : -errno, syscall);
  }
}

const ERRNO_BY_NAME: { readonly [code: string]: number } = {
  ENOENT: 2,
  EIO: 5,
  EBADF: 9,
  EXDEV: 18,
  ENOTDIR: 20,
  EINVAL: 22,
  ELOOP: 40,
  ENODATA: 61,
  ESTALE: 116,
};

/**
 * The held-descriptor primitives cannot run here (not Linux, an unverified
 * architecture, or koffi/libc failed to load). Every operation throws this, so
 * callers fail closed instead of falling back to path-based calls.
 */
export class FsUnavailable extends Error {
  readonly code = 'ERR_FS_UNAVAILABLE';

  constructor() {
    super('held-descriptor filesystem primitives are unavailable on this platform');
    this.name = 'FsUnavailable';
  }
}

export function isFsError(value: unknown, code?: string): value is FsError {
  return value instanceof FsError && (code === undefined || value.code === code);
}
