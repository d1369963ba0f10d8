import { at } from '../list/index.js';

/**
 * The one strict UTF-8 decoder: every text input sealkit reads (JSON, YAML,
 * CSV, Markdown) goes through it. One policy, documented in
 * docs/refusals.md#text-inputs: the bytes must be well-formed UTF-8 and must
 * not start with a byte order mark (a BOM is refused, never stripped: a
 * stripped BOM makes two different files read alike, and digests differ).
 */

export type Utf8Decoding =
  | { readonly ok: true; readonly text: string }
  | {
      readonly ok: false;
      readonly reason: 'bom' | 'invalid';
      /** 0-based byte offset of the first byte that is not well-formed UTF-8 (0 for a BOM). */
      readonly offset: number;
      /** 1-based line and column (in characters) of that byte. */
      readonly line: number;
      readonly column: number;
    };

const fatal = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export function decodeUtf8Strict(bytes: Uint8Array): Utf8Decoding {
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    return { ok: false, reason: 'bom', offset: 0, line: 1, column: 1 };
  }
  try {
    return { ok: true, text: fatal.decode(bytes) };
  } catch {
    const offset = firstInvalidOffset(bytes);
    const before = fatal.decode(bytes.subarray(0, offset));
    const { line, column } = positionAtEnd(before);
    return { ok: false, reason: 'invalid', offset, line, column };
  }
}

/** 1-based line and column of the character right after `text`. */
function positionAtEnd(text: string): { line: number; column: number } {
  const lastBreak = text.lastIndexOf('\n');
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) line += 1;
  const tail = text.slice(lastBreak + 1);
  return { line, column: [...tail].length + 1 };
}

/**
 * The offset of the first byte that starts an ill-formed sequence (Unicode's
 * well-formed table: no overlongs, no surrogates, nothing above U+10FFFF).
 */
function firstInvalidOffset(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const lead = at(bytes, i);
    if (lead < 0x80) {
      i += 1;
      continue;
    }
    let length: number;
    let low = 0x80;
    let high = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) length = 2;
    else if (lead >= 0xe0 && lead <= 0xef) {
      length = 3;
      if (lead === 0xe0) low = 0xa0;
      if (lead === 0xed) high = 0x9f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      length = 4;
      if (lead === 0xf0) low = 0x90;
      if (lead === 0xf4) high = 0x8f;
    } else return i;
    for (let k = 1; k < length; k += 1) {
      const next = bytes[i + k];
      const min = k === 1 ? low : 0x80;
      const max = k === 1 ? high : 0xbf;
      if (next === undefined || next < min || next > max) return i;
    }
    i += length;
  }
  return bytes.length;
}
