import {
  AT_EMPTY_PATH,
  AT_SYMLINK_NOFOLLOW,
  STATX_BASIC_STATS,
  STATX_BUFFER_SIZE,
  STATX_MNT_ID,
  STATX_NEEDED,
} from './constants.js';
import { FsError } from './errors.js';
import { libc } from './libc.js';
import { EMPTY_NAME } from './names.js';

export type FileType = 'file' | 'directory' | 'symlink' | 'fifo' | 'socket' | 'char_device' | 'block_device';

/** What sealkit reads about an inode. Numbers that can exceed 2^53 are bigints. */
export interface FileStat {
  readonly type: FileType;
  /** Permission bits only (`mode & 0o7777`). */
  readonly mode: number;
  readonly uid: number;
  readonly gid: number;
  readonly nlink: number;
  readonly size: bigint;
  readonly ino: bigint;
  /** Combined like glibc's makedev, so it equals `fs.fstatSync(fd, { bigint: true }).dev`. */
  readonly dev: bigint;
  /**
   * The mount it was reached through (statx `stx_mnt_id`), when the kernel
   * tells (Linux 5.8 and later). A rename between two mounts fails with
   * EXDEV even when they show one filesystem (a bind mount): equal `dev`
   * and equal `mountId` mean a rename can work.
   */
  readonly mountId?: bigint;
  /** Last modification, in nanoseconds since the epoch, when the kernel tells. */
  readonly mtimeNs?: bigint;
}

/** statx's mask bit for `stx_mtime`. */
const STATX_MTIME = 0x40;

// A Map, not an object literal with octal keys: Biome's useSimpleNumberKeys
// "safe fix" rewrites such keys wrongly (0o140000 becomes 26411).
const TYPES: ReadonlyMap<number, FileType> = new Map([
  [0o140000, 'socket'],
  [0o120000, 'symlink'],
  [0o100000, 'file'],
  [0o060000, 'block_device'],
  [0o040000, 'directory'],
  [0o020000, 'char_device'],
  [0o010000, 'fifo'],
]);

// Reused by every statx of the process: the call is synchronous and the reply
// is decoded into a fresh object before `statAt` returns. Zeroed before each
// call so a reply can never be mistaken for a field left by an earlier one.
const statxBuffer = Buffer.alloc(STATX_BUFFER_SIZE);

/** statx on `name` inside `dirFd` without following a final symlink; no name means the descriptor itself. */
export function statAt(dirFd: number, name?: Buffer): FileStat {
  const buffer = statxBuffer.fill(0);
  const flags = name === undefined ? AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW : AT_SYMLINK_NOFOLLOW;
  libc().statx(dirFd, name ?? EMPTY_NAME, flags, STATX_BASIC_STATS | STATX_MNT_ID, buffer);
  return decodeStatx(buffer);
}

/**
 * Reads the fixed `struct statx` layout (the same on every architecture,
 * unlike `struct stat`). A reply lacking a field sealkit relies on is refused.
 */
export function decodeStatx(buffer: Buffer): FileStat {
  if ((buffer.readUInt32LE(0) & STATX_NEEDED) !== STATX_NEEDED) throw FsError.synthetic('ENODATA', 'statx');
  const rawMode = buffer.readUInt16LE(28);
  const type = TYPES.get(rawMode & 0o170000);
  if (type === undefined) throw FsError.synthetic('ENODATA', 'statx');
  return {
    type,
    mode: rawMode & 0o7777,
    uid: buffer.readUInt32LE(20),
    gid: buffer.readUInt32LE(24),
    nlink: buffer.readUInt32LE(16),
    size: buffer.readBigUInt64LE(40),
    ino: buffer.readBigUInt64LE(32),
    dev: makedev(buffer.readUInt32LE(136), buffer.readUInt32LE(140)),
    ...((buffer.readUInt32LE(0) & STATX_MNT_ID) === STATX_MNT_ID
      ? { mountId: buffer.readBigUInt64LE(144) }
      : {}),
    // stx_mtime: tv_sec (s64) at 112, tv_nsec (u32) at 120.
    ...((buffer.readUInt32LE(0) & STATX_MTIME) === STATX_MTIME
      ? { mtimeNs: buffer.readBigInt64LE(112) * 1_000_000_000n + BigInt(buffer.readUInt32LE(120)) }
      : {}),
  };
}

function makedev(major: number, minor: number): bigint {
  const ma = BigInt(major);
  const mi = BigInt(minor);
  return (
    ((ma & 0xfffff000n) << 32n) |
    ((ma & 0x00000fffn) << 8n) |
    ((mi & 0xffffff00n) << 12n) |
    (mi & 0x000000ffn)
  );
}

export function sameInode(a: FileStat, b: FileStat): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}
