import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Dir, type FileStat, openOrCreateDir, renameReplacing } from '../../core/fs/index.js';
import { packageVersion } from '../../core/package/index.js';
import { EMBEDDED_LEDGER_DIR } from '../publication/location.js';
import { decodeSqlParseCache, encodeSqlParseCache, type SqlParseAnswers } from '../sql/parse-cache.js';

const [SEALKIT_DIR] = EMBEDDED_LEDGER_DIR;
const CACHE_DIR = 'cache';
const CACHE_FILE = 'sql-parse.json';
const TEMP_PREFIX = `${CACHE_FILE}.tmp-`;
/** Far above any project's answers (the project's own limits bound its SQL); a larger cache is not kept. */
const MAX_CACHE_BYTES = 64 * 1024 * 1024;

/**
 * Where a contract project keeps DuckDB's answers between runs:
 * `<project>/.sealkit/cache/sql-parse.json`, beside the embedded ledger
 * (docs/contracts.md#the-sql-parse-cache). It is reached through held
 * descriptors without following symlinks, as the ledger is, and used only
 * when it is a regular file, and it, `cache/` and `.sealkit/` are this
 * account's and writable by no other. Every failure to read or write it is
 * silent: the texts are then parsed as without it.
 */
export interface SqlParseCacheStore {
  read(): SqlParseAnswers;
  /** Replaces the cache; creates `.sealkit/` (0700) only when `createSealkit`. */
  write(answers: SqlParseAnswers, createSealkit: boolean): void;
}

/** The parser the answers come from; undefined when DuckDB's package cannot be found (no cache then). */
function parserIdentity(): string | undefined {
  try {
    const require = createRequire(import.meta.url);
    const version = (name: string) => {
      const raw = readFileSync(require.resolve(`${name}/package.json`), 'utf8');
      const value = (JSON.parse(raw) as { version?: unknown }).version;
      if (typeof value !== 'string') throw new Error('no version');
      return value;
    };
    return `sealkit ${packageVersion()}; @duckdb/node-api ${version('@duckdb/node-api')}; @duckdb/node-bindings ${version('@duckdb/node-bindings')}`;
  } catch {
    return undefined;
  }
}

export function sqlParseCacheStore(projectDir: string): SqlParseCacheStore | undefined {
  const parser = parserIdentity();
  if (parser === undefined) return undefined;
  return {
    read: () => readCache(projectDir, parser),
    write: (answers, createSealkit) => writeCache(projectDir, parser, answers, createSealkit),
  };
}

function readCache(projectDir: string, parser: string): SqlParseAnswers {
  const empty = new Map<string, string>();
  const held: Dir[] = [];
  try {
    const cache = openCacheDir(projectDir, held, 'read');
    if (cache === undefined) return empty;
    const file = cache.openFile(CACHE_FILE);
    try {
      const stat = file.stat();
      if (stat.type !== 'file' || !ours(stat) || stat.size > BigInt(MAX_CACHE_BYTES)) return empty;
      return decodeSqlParseCache(file.readExpected(Number(stat.size)), parser);
    } finally {
      file.close();
    }
  } catch {
    return empty;
  } finally {
    for (const dir of held) dir.close();
  }
}

/**
 * Owned by this account and writable by no one else: what another account
 * could have written, or could replace, is neither read nor written.
 */
function ours(stat: FileStat): boolean {
  return stat.uid === process.geteuid?.() && (stat.mode & 0o022) === 0;
}

/**
 * `.sealkit/cache/`, held, when it and `.sealkit/` are ours. To read, nothing
 * is created; to write, `cache/` is created (0700) in an existing
 * `.sealkit/`, and `.sealkit/` too when `write-creating-sealkit`.
 */
function openCacheDir(
  projectDir: string,
  held: Dir[],
  purpose: 'read' | 'write' | 'write-creating-sealkit',
): Dir | undefined {
  const project = hold(held, Dir.open(projectDir));
  const sealkit = openOrCreateDir(project, SEALKIT_DIR, 0o700, purpose === 'write-creating-sealkit');
  if (sealkit === undefined || !ours(hold(held, sealkit).stat())) return undefined;
  const cache = openOrCreateDir(sealkit, CACHE_DIR, 0o700, purpose !== 'read');
  if (cache === undefined || !ours(hold(held, cache).stat())) return undefined;
  return cache;
}

function writeCache(
  projectDir: string,
  parser: string,
  answers: SqlParseAnswers,
  createSealkit: boolean,
): void {
  const bytes = encodeSqlParseCache(answers, parser);
  if (bytes.length > MAX_CACHE_BYTES) return;
  const held: Dir[] = [];
  try {
    const cache = openCacheDir(projectDir, held, createSealkit ? 'write-creating-sealkit' : 'write');
    if (cache !== undefined) replaceFile(cache, bytes);
  } catch {
    // A cache that cannot be written costs the next run its parse, nothing else.
  } finally {
    for (const dir of held) dir.close();
  }
}

/**
 * Writes a temporary file named after this process, then renames it over
 * the cache file (a file or a symlink there is replaced, never followed; a
 * directory there is left alone and the write given up), so a reader sees
 * the old file or the new one, never a part. Not fsynced: a cache lost in a
 * crash is parsed again, and a damaged one fails its digest. Temporary
 * files of processes that no longer run (killed mid-write) are removed.
 */
function replaceFile(cache: Dir, bytes: Uint8Array): void {
  removeStaleTemporaries(cache);
  const temp = `${TEMP_PREFIX}${process.pid}`;
  const file = cache.createExclusive(temp, 0o600);
  try {
    try {
      file.write(bytes);
    } finally {
      file.close();
    }
    renameReplacing(cache, temp, cache, CACHE_FILE);
  } catch (error: unknown) {
    // A full disk, a directory at the name: the temporary goes, the old file stays.
    cache.unlink(temp);
    throw error;
  }
}

/** Only non-directories are removed; one that cannot be removed does not stop the write. */
function removeStaleTemporaries(cache: Dir): void {
  for (const entry of cache.list()) {
    if (!entry.name.startsWith(TEMP_PREFIX) || entry.type === 'directory') continue;
    const pid = Number(entry.name.slice(TEMP_PREFIX.length));
    // Our own pid's is a leftover of an earlier process that had it.
    if (!Number.isSafeInteger(pid) || pid <= 0 || (pid !== process.pid && running(pid))) continue;
    try {
      cache.unlink(entry.bytes);
    } catch {
      // Gone already, or not ours to remove.
    }
  }
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error: unknown) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function hold(held: Dir[], dir: Dir): Dir {
  held.push(dir);
  return dir;
}
