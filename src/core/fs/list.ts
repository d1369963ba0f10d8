import { SEEK_SET } from './constants.js';
import { FsError } from './errors.js';
import { libc } from './libc.js';

export type DirEntryType =
  | 'file'
  | 'directory'
  | 'symlink'
  | 'fifo'
  | 'socket'
  | 'char_device'
  | 'block_device'
  | 'unknown';

export interface DirEntry {
  /** The name decoded as UTF-8; invalid sequences appear as U+FFFD, so use `bytes` when `utf8` is false. */
  readonly name: string;
  /** The name exactly as stored; pass it back to `Dir` methods to act on a non-UTF-8 name. */
  readonly bytes: Uint8Array;
  readonly utf8: boolean;
  /** d_type as reported by the filesystem; 'unknown' when it does not say (stat the entry then). */
  readonly type: DirEntryType;
}

const D_TYPES: { readonly [code: number]: DirEntryType } = {
  1: 'fifo',
  2: 'char_device',
  4: 'directory',
  6: 'block_device',
  8: 'file',
  10: 'symlink',
  12: 'socket',
};

const strict = new TextDecoder('utf-8', { fatal: true });

// One buffer for every listing of the process, allocated without zero-filling
// once: the kernel fills it and only the `length` bytes it reports are read;
// names are copied out before `listEntries` returns, and listing is
// synchronous (no other listing can interleave with one in progress).
const LISTING_BUFFER_BYTES = 64 * 1024;
let listingBuffer: Buffer | undefined;
const lenient = new TextDecoder('utf-8');

/**
 * Every entry of the directory held by `fd`, except '.' and '..', sorted by
 * the bytes of the name so the order is the same on every filesystem and locale.
 */
export function listEntries(fd: number, rewind = true): readonly DirEntry[] {
  const c = libc();
  // A held descriptor keeps its read position: rewind so a second listing is
  // complete. A descriptor never listed is at the start already.
  if (rewind) c.lseek(fd, 0, SEEK_SET);
  listingBuffer ??= Buffer.allocUnsafe(LISTING_BUFFER_BYTES);
  const buffer = listingBuffer;
  const entries: DirEntry[] = [];
  for (;;) {
    const length = c.getdents64(fd, buffer);
    if (length === 0) break;
    let offset = 0;
    while (offset < length) {
      // linux_dirent64: d_ino u64 @0, d_off s64 @8, d_reclen u16 @16, d_type u8 @18, d_name @19.
      const reclen = buffer.readUInt16LE(offset + 16);
      if (reclen < 20 || offset + reclen > length) throw FsError.synthetic('EIO', 'getdents64');
      const type = D_TYPES[buffer.readUInt8(offset + 18)] ?? 'unknown';
      const nameStart = offset + 19;
      const nul = buffer.indexOf(0, nameStart);
      const nameEnd = nul === -1 || nul > offset + reclen ? offset + reclen : nul;
      const bytes = Uint8Array.from(buffer.subarray(nameStart, nameEnd));
      offset += reclen;
      if (isDotOrDotDot(bytes)) continue;
      entries.push(describe(bytes, type));
    }
  }
  return entries.sort((a, b) => Buffer.compare(a.bytes, b.bytes));
}

function describe(bytes: Uint8Array, type: DirEntryType): DirEntry {
  try {
    return { name: strict.decode(bytes), bytes, utf8: true, type };
  } catch {
    return { name: lenient.decode(bytes), bytes, utf8: false, type };
  }
}

function isDotOrDotDot(bytes: Uint8Array): boolean {
  return (
    (bytes.length === 1 && bytes[0] === 0x2e) ||
    (bytes.length === 2 && bytes[0] === 0x2e && bytes[1] === 0x2e)
  );
}
