import { isUtf8 } from 'node:buffer';
import { readFileSync } from 'node:fs';

const REPLACEMENT = '\uFFFD';

/**
 * The bytes of a command-line argument that is not valid text, or undefined
 * when it is. Node decodes argv as UTF-8 and replaces every ill-formed
 * sequence with U+FFFD, so `bad\xffname` reaches a command as `bad�name`
 * and would name another file than the one typed. An argument holding
 * U+FFFD is looked up among the kernel's own bytes (/proc/self/cmdline):
 * it is text when those bytes are UTF-8 (U+FFFD typed as such), not text
 * when they are not. Where the kernel's bytes cannot be read, U+FFFD is
 * taken for a lossy decoding: refusing a rare real U+FFFD beats creating a
 * file under a name nobody typed.
 */
export function invalidTextBytes(value: string): Uint8Array | undefined {
  if (!value.includes(REPLACEMENT)) return undefined;
  let cmdline: Buffer;
  try {
    cmdline = readFileSync('/proc/self/cmdline');
  } catch {
    return Buffer.from(value, 'utf8');
  }
  for (const raw of splitNul(cmdline)) {
    // `--flag=value` arrives as one word: compare the whole word and its value.
    const equals = raw.indexOf(0x3d);
    for (const bytes of equals === -1 ? [raw] : [raw, raw.subarray(equals + 1)]) {
      if (bytes.toString('utf8') === value) return isUtf8(bytes) ? undefined : bytes;
    }
  }
  // Not an argument of this process (a library caller's string): it is what it is.
  return undefined;
}

function splitNul(bytes: Buffer): Buffer[] {
  const words: Buffer[] = [];
  let start = 0;
  for (let index = bytes.indexOf(0); index !== -1; index = bytes.indexOf(0, start)) {
    words.push(bytes.subarray(start, index));
    start = index + 1;
  }
  if (start < bytes.length) words.push(bytes.subarray(start));
  return words;
}

/**
 * Bytes shown as text a reader can type back: well-formed UTF-8 as it is,
 * every other byte (and control characters and the backslash) as `\xNN`,
 * the form `distribute manifest` shows a name that is not UTF-8 in.
 */
export function escapedBytes(bytes: Uint8Array): string {
  let shown = '';
  let index = 0;
  while (index < bytes.length) {
    const byte = bytes[index] ?? 0;
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    const sequence = bytes.subarray(index, index + length);
    if (length > 1 && sequence.length === length && isUtf8(sequence)) {
      shown += Buffer.from(sequence).toString('utf8');
      index += length;
      continue;
    }
    shown +=
      byte >= 0x20 && byte < 0x7f && byte !== 0x5c
        ? String.fromCharCode(byte)
        : `\\x${byte.toString(16).padStart(2, '0')}`;
    index += 1;
  }
  return shown;
}
