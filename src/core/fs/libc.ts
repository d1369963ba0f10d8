import { createRequire } from 'node:module';
import { type OpenFlags, openFlagsFor } from './constants.js';
import { FsError, FsUnavailable } from './errors.js';

/**
 * The libc calls Node does not expose, bound lazily through koffi. Each wrapper
 * reads errno immediately after a failing call, before any other code can run
 * a syscall that would overwrite it, and throws an `FsError`. Names and paths
 * are NUL-terminated byte buffers so that non-UTF-8 names round-trip.
 */
export interface Libc {
  readonly flags: OpenFlags;
  openat(dirFd: number, name: Uint8Array, flags: number, mode?: number): number;
  mkdirat(dirFd: number, name: Uint8Array, mode: number): void;
  unlinkat(dirFd: number, name: Uint8Array, flags: number): void;
  renameat2(
    fromDirFd: number,
    fromName: Uint8Array,
    toDirFd: number,
    toName: Uint8Array,
    flags: number,
  ): void;
  statx(dirFd: number, name: Uint8Array, flags: number, mask: number, buffer: Uint8Array): void;
  getdents64(fd: number, buffer: Uint8Array): number;
  lseek(fd: number, offset: number, whence: number): number;
  flock(fd: number, operation: number): void;
  fchmod(fd: number, mode: number): void;
  /**
   * faccessat(dirFd, name, mode, AT_EACCESS): the kernel's own permission
   * check (modes, ACLs, read-only mounts) with the effective credentials, as
   * the write itself will be made. Without AT_EACCESS the kernel checks the
   * real uid and drops the effective capabilities: an account granted
   * CAP_DAC_OVERRIDE was told it may not write where it can.
   */
  faccessat(dirFd: number, name: Uint8Array, mode: number): void;
  fsync(fd: number): void;
  /**
   * fstatfs(fd).f_type: the magic number of the filesystem holding the
   * descriptor (a 64-bit `long` first in `struct statfs` on both
   * architectures with an open-flag table).
   */
  filesystemMagic(fd: number): number;
  /**
   * syncfs(fd) on a thread of Node's pool, so the event loop (progress,
   * signals) keeps running while the filesystem flushes: resolves true when
   * it returned 0. A failure carries no errno across threads; the caller
   * falls back to fsyncs, which report it.
   */
  syncFilesystem(fd: number): Promise<boolean>;
  /** sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE): starts writeback of the whole file, waits for nothing. */
  startWriteback(fd: number): void;
  /** dup2(oldFd, newFd): `newFd` names what `oldFd` names (closed first if open). */
  dup2(oldFd: number, newFd: number): void;
  close(fd: number): void;
}

type Native = ((...args: readonly unknown[]) => unknown) & {
  /** The same call on a pool thread; the callback gets koffi's error or the result. */
  readonly async: (...args: readonly unknown[]) => void;
};

interface KoffiModule {
  load(path: string): { func(definition: string): Native };
  errno(): number;
}

const SYNC_FILE_RANGE_WRITE = 2;
const STATFS_BYTES = 128;

let cached: Libc | FsUnavailable | undefined;

/** The bound libc, or `FsUnavailable` thrown; the outcome is decided once per process. */
export function libc(): Libc {
  cached ??= bind();
  if (cached instanceof FsUnavailable) throw new FsUnavailable();
  return cached;
}

/** Lets callers refuse with their own fail-closed code before starting work that needs the primitives. */
export function fsPrimitivesAvailable(): boolean {
  try {
    libc();
    return true;
  } catch {
    return false;
  }
}

/** Closes on an error path, where the original error is the one worth reporting. */
export function closeFdQuietly(fd: number): void {
  try {
    libc().close(fd);
  } catch {
    // The descriptor is released by the kernel even when close reports an error.
  }
}

function bind(): Libc | FsUnavailable {
  const flags = process.platform === 'linux' ? openFlagsFor(process.arch) : undefined;
  if (flags === undefined) return new FsUnavailable();
  try {
    // Loaded on first use, not at import: a missing prebuilt binary must make
    // only these operations unavailable, not the whole CLI fail to start.
    const koffi = createRequire(import.meta.url)('koffi') as KoffiModule;
    const lib = koffi.load('libc.so.6');
    return makeLibc(flags, koffi, lib.func.bind(lib));
  } catch {
    return new FsUnavailable();
  }
}

function makeLibc(flags: OpenFlags, koffi: KoffiModule, func: (definition: string) => Native): Libc {
  const openat = func('int openat(int dirfd, void *path, int flags, ...)');
  const mkdirat = func('int mkdirat(int dirfd, void *path, uint32_t mode)');
  const unlinkat = func('int unlinkat(int dirfd, void *path, int flags)');
  const renameat2 = func(
    'int renameat2(int olddirfd, void *oldpath, int newdirfd, void *newpath, unsigned int flags)',
  );
  const statx = func('int statx(int dirfd, void *path, int flags, unsigned int mask, void *statxbuf)');
  const getdents64 = func('int64_t getdents64(int fd, void *dirp, size_t count)');
  const lseek = func('int64_t lseek(int fd, int64_t offset, int whence)');
  const flock = func('int flock(int fd, int operation)');
  const fchmod = func('int fchmod(int fd, uint32_t mode)');
  const faccessat = func('int faccessat(int dirfd, void *path, int mode, int flags)');
  const AT_EACCESS = 0x200;
  const fsync = func('int fsync(int fd)');
  const fstatfs = func('int fstatfs(int fd, void *buf)');
  const syncfs = func('int syncfs(int fd)');
  const syncFileRange = func(
    'int sync_file_range(int fd, int64_t offset, int64_t nbytes, unsigned int flags)',
  );
  const close = func('int close(int fd)');
  const dup2 = func('int dup2(int oldfd, int newfd)');

  // `result` is evaluated by the caller before this runs, and koffi.errno()
  // does no syscall of its own, so errno is still the failing call's.
  const check = (result: unknown, syscall: string): number => {
    const value = typeof result === 'bigint' ? Number(result) : result;
    if (typeof value !== 'number') throw new FsError('EUNKNOWN', 0, syscall);
    if (value < 0) throw FsError.fromErrno(koffi.errno(), syscall);
    return value;
  };

  return {
    flags,
    openat: (dirFd, name, openFlags, mode) =>
      check(
        (openFlags & flags.O_CREAT) !== 0
          ? openat(dirFd, name, openFlags | flags.O_CLOEXEC, 'uint32_t', mode ?? 0)
          : openat(dirFd, name, openFlags | flags.O_CLOEXEC),
        'openat',
      ),
    mkdirat: (dirFd, name, mode) => {
      check(mkdirat(dirFd, name, mode), 'mkdirat');
    },
    unlinkat: (dirFd, name, unlinkFlags) => {
      check(unlinkat(dirFd, name, unlinkFlags), 'unlinkat');
    },
    renameat2: (fromDirFd, fromName, toDirFd, toName, renameFlags) => {
      check(renameat2(fromDirFd, fromName, toDirFd, toName, renameFlags), 'renameat2');
    },
    statx: (dirFd, name, statFlags, mask, buffer) => {
      check(statx(dirFd, name, statFlags, mask, buffer), 'statx');
    },
    getdents64: (fd, buffer) => check(getdents64(fd, buffer, buffer.byteLength), 'getdents64'),
    lseek: (fd, offset, whence) => check(lseek(fd, offset, whence), 'lseek'),
    flock: (fd, operation) => {
      check(flock(fd, operation), 'flock');
    },
    fchmod: (fd, mode) => {
      check(fchmod(fd, mode), 'fchmod');
    },
    faccessat: (dirFd, name, mode) => {
      check(faccessat(dirFd, name, mode, AT_EACCESS), 'faccessat');
    },
    fsync: (fd) => {
      check(fsync(fd), 'fsync');
    },
    filesystemMagic: (fd) => {
      // struct statfs is 120 bytes on x86_64 and arm64; f_type comes first.
      const buffer = new Uint8Array(STATFS_BYTES);
      check(fstatfs(fd, buffer), 'fstatfs');
      return Number(new DataView(buffer.buffer).getBigInt64(0, true));
    },
    syncFilesystem: (fd) =>
      new Promise<boolean>((resolve) => {
        try {
          syncfs.async(fd, (error: unknown, result: unknown) => resolve(error == null && result === 0));
        } catch {
          // koffi's queue of asynchronous calls is full: fsyncs decide instead.
          resolve(false);
        }
      }),
    startWriteback: (fd) => {
      check(syncFileRange(fd, 0, 0, SYNC_FILE_RANGE_WRITE), 'sync_file_range');
    },
    dup2: (oldFd, newFd) => {
      check(dup2(oldFd, newFd), 'dup2');
    },
    close: (fd) => {
      check(close(fd), 'close');
    },
  };
}
