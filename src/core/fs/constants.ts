/**
 * Linux ABI numbers for the calls sealkit makes through libc. Most are the
 * same on every Linux architecture; the `open` flags that differ are looked up
 * per architecture, and an architecture without a verified table gets none, so
 * the primitives report themselves unavailable rather than pass a wrong flag.
 */

export interface OpenFlags {
  readonly O_RDONLY: number;
  readonly O_WRONLY: number;
  readonly O_RDWR: number;
  readonly O_CREAT: number;
  readonly O_EXCL: number;
  readonly O_NOCTTY: number;
  readonly O_NONBLOCK: number;
  readonly O_DIRECTORY: number;
  readonly O_NOFOLLOW: number;
  readonly O_CLOEXEC: number;
  readonly O_PATH: number;
}

const COMMON = {
  O_RDONLY: 0,
  O_WRONLY: 0o1,
  O_RDWR: 0o2,
  O_CREAT: 0o100,
  O_EXCL: 0o200,
  O_NOCTTY: 0o400,
  O_NONBLOCK: 0o4000,
  O_CLOEXEC: 0o2000000,
  O_PATH: 0o10000000,
} as const;

/** x86_64 is the verified platform; arm64 differs only in O_DIRECTORY/O_NOFOLLOW (asm/fcntl.h). */
const BY_ARCH: { readonly [arch: string]: OpenFlags } = {
  x64: { ...COMMON, O_DIRECTORY: 0o200000, O_NOFOLLOW: 0o400000 },
  arm64: { ...COMMON, O_DIRECTORY: 0o40000, O_NOFOLLOW: 0o100000 },
};

export function openFlagsFor(arch: string): OpenFlags | undefined {
  return Object.hasOwn(BY_ARCH, arch) ? BY_ARCH[arch] : undefined;
}

export const AT_FDCWD = -100;
export const AT_SYMLINK_NOFOLLOW = 0x100;
export const AT_REMOVEDIR = 0x200;
export const AT_EMPTY_PATH = 0x1000;

export const RENAME_NOREPLACE = 1;
export const RENAME_EXCHANGE = 2;

export const LOCK_SH = 1;
export const LOCK_EX = 2;
export const LOCK_NB = 4;
export const LOCK_UN = 8;

export const SEEK_SET = 0;

/** STATX_BASIC_STATS: type, mode, nlink, uid, gid, atime, mtime, ctime, ino, size, blocks. */
export const STATX_BASIC_STATS = 0x7ff;
/** STATX_MNT_ID (Linux 5.8): the mount the inode was reached through; `stx_mnt_id` u64 at offset 144. */
export const STATX_MNT_ID = 0x1000;
/** The fields sealkit reads; a statx answer missing any of them is not trusted. */
export const STATX_NEEDED = 0x1 | 0x2 | 0x4 | 0x8 | 0x10 | 0x100 | 0x200; // type mode nlink uid gid ino size
export const STATX_BUFFER_SIZE = 256;
