import { createHash } from 'node:crypto';
import type { SqlParser } from './parser.js';

/**
 * The parser's answers kept between runs, so a project whose model SQL has
 * not changed is projected without loading DuckDB (its native library, an
 * instance and the parse cost a later publication about 150 ms and 35 MB;
 * docs/contracts.md#the-sql-parse-cache). The cache holds DuckDB's JSON
 * document for each text, exactly as `SqlParser.serialize` returned it, so
 * everything after the parse (the checks, the projection, its seal) runs
 * every time as without it.
 *
 * A document is used only when it is of this format and names the same
 * parser (sealkit's and DuckDB's versions): a sealkit or DuckDB upgrade
 * starts from an empty cache. Bump the format whenever what the parser
 * adapter returns for a text changes.
 */
export const SQL_PARSE_CACHE_FORMAT = 'sealkit-sql-parse-cache/1';

/** Answers by `sqlTextKey` of the text they answer. */
export type SqlParseAnswers = ReadonlyMap<string, string>;

interface CacheDocument {
  readonly format: string;
  readonly parser: string;
  /** `[key, answer]`, sorted by key. */
  readonly entries: readonly (readonly [string, string])[];
  /** sha256 of the entries as written, so a damaged file is never half-used. */
  readonly digest: string;
}

/** The key of a text: the sha256 of its UTF-8 bytes, in hex. */
export function sqlTextKey(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

function entriesDigest(entries: readonly (readonly [string, string])[]): string {
  return createHash('sha256').update(JSON.stringify(entries), 'utf8').digest('hex');
}

/** The cache file's bytes for `answers` (sorted keys; same answers, same bytes). */
export function encodeSqlParseCache(answers: SqlParseAnswers, parser: string): Uint8Array {
  const entries = [...answers].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const document: CacheDocument = {
    format: SQL_PARSE_CACHE_FORMAT,
    parser,
    entries,
    digest: entriesDigest(entries),
  };
  return Buffer.from(`${JSON.stringify(document)}\n`, 'utf8');
}

const KEY = /^[0-9a-f]{64}$/;

/**
 * The answers of a cache file, or an empty map for anything else: another
 * format or parser, a damaged or truncated file, an unexpected shape. A
 * cache is never a reason to refuse; at worst the texts are parsed again.
 */
export function decodeSqlParseCache(bytes: Uint8Array, parser: string): SqlParseAnswers {
  const empty = new Map<string, string>();
  if (!nestedAtMost(bytes, MAX_DEPTH)) return empty;
  let document: unknown;
  try {
    document = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    return empty;
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document)) return empty;
  const {
    format,
    parser: named,
    entries,
    digest,
  } = document as Partial<Record<keyof CacheDocument, unknown>>;
  if (format !== SQL_PARSE_CACHE_FORMAT || named !== parser || !Array.isArray(entries)) return empty;
  if (typeof digest !== 'string' || digest !== entriesDigest(entries)) return empty;
  const answers = new Map<string, string>();
  for (const entry of entries) {
    if (!Array.isArray(entry) || entry.length !== 2) return empty;
    const [key, answer] = entry as unknown[];
    if (typeof key !== 'string' || !KEY.test(key) || typeof answer !== 'string') return empty;
    answers.set(key, answer);
  }
  return answers;
}

/** The document, its entries, each entry: deeper is not a cache file. */
const MAX_DEPTH = 3;

/**
 * Whether JSON text nests objects and arrays no deeper than `limit`, by one
 * pass over the bytes (strings skipped). Checked before parsing: a damaged
 * file of deeply nested brackets takes `JSON.parse` seconds, where this
 * pass takes milliseconds.
 */
export function nestedAtMost(bytes: Uint8Array, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (inString) {
      if (byte === 0x5c) i++;
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) inString = true;
    else if (byte === 0x5b || byte === 0x7b) {
      depth++;
      if (depth > limit) return false;
    } else if (byte === 0x5d || byte === 0x7d) depth--;
  }
  return true;
}

/** A parser that answers from the cache and asks `inner` only for the texts it lacks. */
export interface CachingSqlParser {
  readonly parser: SqlParser;
  /** Every answer this run used or obtained: what the cache should hold next. */
  answersUsed(): SqlParseAnswers;
  /** Whether `answersUsed()` differs from what was read (new answers, or entries no longer used). */
  changed(): boolean;
  /** Whether any answer came from the cache rather than from `inner`. */
  answeredFromCache(): boolean;
}

export function cachingSqlParser(cached: SqlParseAnswers, inner: SqlParser): CachingSqlParser {
  const used = new Map<string, string>();
  let obtained = false;
  let fromCache = false;
  const parser: SqlParser = {
    async serialize(texts) {
      const keys = texts.map(sqlTextKey);
      const missing = texts.filter((_, index) => !cached.has(keys[index] as string));
      const answers = missing.length > 0 ? await inner.serialize(missing) : [];
      const fresh = new Map<string, string | undefined>();
      for (const [index, text] of missing.entries()) fresh.set(text, answers[index]);
      return texts.map((text, index) => {
        const key = keys[index] as string;
        const answer = cached.get(key) ?? fresh.get(text);
        // A text the parser failed on (`undefined`) is asked again next run.
        if (answer !== undefined) {
          if (cached.has(key)) fromCache = true;
          else obtained = true;
          used.set(key, answer);
        }
        return answer;
      });
    },
    close() {
      inner.close();
    },
  };
  return {
    parser,
    answersUsed: () => used,
    changed: () => obtained || used.size !== cached.size,
    answeredFromCache: () => fromCache,
  };
}
