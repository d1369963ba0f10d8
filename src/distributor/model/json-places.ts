import { decodeUtf8Strict, type PathSegment, pointerOf } from '../../core/input/index.js';
import { textPositionOf } from '../../core/json/index.js';

/** A 1-based line and column (in characters), as an editor shows them. */
export interface Place {
  readonly line: number;
  readonly column: number;
}

/**
 * Where each key and value of a JSON document is written, for refusals
 * about a document the strict parser has already accepted (a manifest, a
 * destination state): the parser keeps no positions, so they are found
 * again, only when a refusal needs one. Keyed by the key path as sealkit
 * prints it (`files[3].path`, `source.manifest.id`).
 */
export interface JsonPlaces {
  /** Where the value at `path` begins (`{`, `[`, `"`, a digit …); the root is `[]`. */
  value(path: readonly PathSegment[]): Place | undefined;
  /** Where the key of the member at `path` is written (its opening quote). */
  key(path: readonly PathSegment[]): Place | undefined;
}

interface Entry {
  readonly value: number;
  readonly key?: number;
}

/**
 * The places of a document given as its bytes. Nothing is decoded or
 * scanned until the first question (a document read without a fault costs
 * nothing), and the scan assumes strict JSON: it is only asked about text
 * the parser accepted. Bytes that are not strict UTF-8 have no places.
 */
export function jsonPlaces(bytes: Uint8Array): JsonPlaces {
  let scanned: { readonly text: string; readonly index: Map<string, Entry> } | null | undefined;
  const entry = (
    path: readonly PathSegment[],
  ): { readonly text: string; readonly at?: Entry } | undefined => {
    if (scanned === undefined) {
      const decoded = decodeUtf8Strict(bytes);
      scanned = decoded.ok ? { text: decoded.text, index: scan(decoded.text) } : null;
    }
    if (scanned === null) return undefined;
    const at = scanned.index.get(pointerOf(path));
    return at === undefined ? { text: scanned.text } : { text: scanned.text, at };
  };
  const place = (path: readonly PathSegment[], which: 'value' | 'key'): Place | undefined => {
    const found = entry(path);
    const offset = found?.at?.[which];
    return found === undefined || offset === undefined ? undefined : textPositionOf(found.text, offset);
  };
  return {
    value: (path) => place(path, 'value'),
    key: (path) => place(path, 'key'),
  };
}

/** Every value of the document by its key path: where it and its key begin. */
function scan(text: string): Map<string, Entry> {
  const index = new Map<string, Entry>();
  let pos = 0;
  const skip = (): void => {
    while (pos < text.length && ' \t\r\n'.includes(text.charAt(pos))) pos += 1;
  };
  const readString = (): string => {
    // At the opening quote; the text is strict JSON, so every escape is valid.
    pos += 1;
    let out = '';
    for (;;) {
      const c = text.charAt(pos);
      if (c === '"') {
        pos += 1;
        return out;
      }
      if (c !== '\\') {
        out += c;
        pos += 1;
        continue;
      }
      const e = text.charAt(pos + 1);
      if (e === 'u') {
        out += String.fromCharCode(Number.parseInt(text.slice(pos + 2, pos + 6), 16));
        pos += 6;
        continue;
      }
      out += ({ b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' } as Record<string, string>)[e] ?? e;
      pos += 2;
    }
  };
  const value = (path: PathSegment[], key: number | undefined): void => {
    skip();
    const start = pos;
    const c = text.charAt(pos);
    if (c === '{') {
      index.set(pointerOf(path), { value: start, ...(key === undefined ? {} : { key }) });
      pos += 1;
      skip();
      if (text.charAt(pos) === '}') {
        pos += 1;
        return;
      }
      for (;;) {
        skip();
        const keyAt = pos;
        const name = readString();
        skip();
        pos += 1; // ':'
        value([...path, name], keyAt);
        skip();
        if (text.charAt(pos) === ',') {
          pos += 1;
          continue;
        }
        pos += 1; // '}'
        return;
      }
    }
    index.set(pointerOf(path), { value: start, ...(key === undefined ? {} : { key }) });
    if (c === '[') {
      pos += 1;
      skip();
      if (text.charAt(pos) === ']') {
        pos += 1;
        return;
      }
      for (let item = 0; ; item += 1) {
        value([...path, item], undefined);
        skip();
        if (text.charAt(pos) === ',') {
          pos += 1;
          continue;
        }
        pos += 1; // ']'
        return;
      }
    }
    if (c === '"') {
      readString();
      return;
    }
    // A number, true, false or null: up to the next delimiter.
    while (pos < text.length && !',]} \t\r\n'.includes(text.charAt(pos))) pos += 1;
  };
  value([], undefined);
  return index;
}
