import { FsError } from './errors.js';

/** A directory entry name: text, or the raw bytes of a name that is not valid UTF-8. */
export type EntryName = string | Uint8Array;

const SLASH = 0x2f;
const DOT = 0x2e;
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * Encodes one path component as a NUL-terminated buffer for libc. Only a
 * single real component is accepted: '', '.', '..', '/' or NUL would make a
 * `*at` call reach outside the held directory or name something else.
 */
export function encodeName(name: EntryName, syscall: string): Buffer {
  const bytes = toBytes(name, syscall);
  if (!isSingleComponent(bytes)) throw FsError.synthetic('EINVAL', syscall);
  return nulTerminated(bytes);
}

/** The empty name, used with AT_EMPTY_PATH to act on the held descriptor itself. */
export const EMPTY_NAME: Buffer = Buffer.from([0]);

export function isSingleComponent(bytes: Uint8Array): boolean {
  if (bytes.length === 0) return false;
  if (bytes.length <= 2 && bytes.every((byte) => byte === DOT)) return false;
  return !bytes.includes(SLASH) && !bytes.includes(0);
}

/**
 * Splits a path into the components a no-follow walk opens one by one. Empty
 * and '.' components are dropped; '..' is kept and resolved physically by the
 * walk (it can never be a symlink, and every component before it was already
 * checked not to be one).
 */
export function splitPath(
  path: string,
  syscall: string,
): { readonly absolute: boolean; readonly parts: Buffer[] } {
  if (path.length === 0) throw FsError.synthetic('ENOENT', syscall);
  const bytes = toBytes(path, syscall);
  if (bytes.includes(0)) throw FsError.synthetic('EINVAL', syscall);
  const parts: Buffer[] = [];
  let start = 0;
  for (let index = 0; index <= bytes.length; index += 1) {
    if (index === bytes.length || bytes[index] === SLASH) {
      const part = bytes.subarray(start, index);
      if (part.length > 0 && !(part.length === 1 && part[0] === DOT)) parts.push(nulTerminated(part));
      start = index + 1;
    }
  }
  return { absolute: bytes[0] === SLASH, parts };
}

function toBytes(name: EntryName, syscall: string): Buffer {
  if (typeof name !== 'string') return Buffer.from(name);
  // A lone surrogate would be encoded as U+FFFD and name a different entry.
  if (LONE_SURROGATE.test(name)) throw FsError.synthetic('EINVAL', syscall);
  return Buffer.from(name, 'utf8');
}

function nulTerminated(bytes: Uint8Array): Buffer {
  const buffer = Buffer.alloc(bytes.length + 1);
  buffer.set(bytes);
  return buffer;
}
