import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli } from '../../../test/helpers/cli.js';
import { copyExample } from '../fixtures/resources.js';
import { decodeSqlParseCache, encodeSqlParseCache, sqlTextKey } from '../sql/parse-cache.js';
import { createDuckDbSqlParser } from '../sql/parser.js';
import type { ContractProject } from './contract-project.js';
import { openContractProject, openContractProjectCached } from './open.js';

const CACHE = ['.sealkit', 'cache', 'sql-parse.json'] as const;
const ORDER_FACTS = 'models/order_facts.yaml';

/** What a project says: each file's status, and each projection's digest (of its canonical bytes). */
function said(project: ContractProject): Record<string, string> {
  const out: Record<string, string> = {};
  for (const outcome of project.outcomes) {
    out[outcome.path] = outcome.status;
    if (
      outcome.status === 'valid' &&
      outcome.id !== null &&
      outcome.version !== null &&
      outcome.kind !== 'Dashboard'
    )
      out[outcome.id] = project.project(outcome.id).digest;
  }
  return out;
}

describe('the SQL parse cache of a contract project', () => {
  let dir: string;
  let project: string;
  let counter = 0;
  let clean: Record<string, string>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sealkit-parse-cache-'));
    const reference = join(dir, 'reference');
    copyExample(reference);
    clean = said(await openContractProject(reference));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  beforeEach(() => {
    counter += 1;
    project = join(dir, `retail-${counter}`);
    copyExample(project);
  });

  const cacheFile = () => join(project, ...CACHE);
  const readAnswers = () => {
    const raw = readFileSync(cacheFile());
    const parser = (JSON.parse(raw.toString('utf8')) as { parser: string }).parser;
    return { answers: decodeSqlParseCache(raw, parser), parser };
  };
  const sqlOf = (file: string) => {
    const text = readFileSync(join(project, file), 'utf8');
    // The example's model SQL is the block scalar after `sql: |`, indented two spaces.
    const block = /^sql: \|\n((?: {2}.*\n|\n)+)/m.exec(text)?.[1] ?? '';
    return block
      .split('\n')
      .map((line) => line.slice(2))
      .join('\n');
  };

  it('writes nothing and creates no .sealkit/ unless told to, and creates both 0700 when told', async () => {
    const first = await openContractProjectCached(project);
    first.keepParses(false);
    expect(existsSync(join(project, '.sealkit'))).toBe(false);
    first.keepParses(true);
    expect(statSync(join(project, '.sealkit')).mode & 0o777).toBe(0o700);
    expect(statSync(join(project, '.sealkit', 'cache')).mode & 0o777).toBe(0o700);
    expect(statSync(cacheFile()).mode & 0o777).toBe(0o600);
    expect(readAnswers().answers.size).toBe(2);
  });

  it('projects every resource exactly as without the cache', async () => {
    (await openContractProjectCached(project)).keepParses(true);
    const before = readFileSync(cacheFile());
    const warm = await openContractProjectCached(project);
    expect(said(warm.project)).toEqual(clean);
    warm.keepParses(true);
    // Nothing changed, nothing rewritten: the same bytes (and no temporary file left).
    expect(readFileSync(cacheFile()).equals(before)).toBe(true);
    expect(readdirSync(join(project, '.sealkit', 'cache'))).toEqual(['sql-parse.json']);
  });

  it('parses an edited model again and drops the answer for its old SQL', async () => {
    (await openContractProjectCached(project)).keepParses(true);
    const oldKey = sqlTextKey(sqlOf(ORDER_FACTS));
    expect(readAnswers().answers.has(oldKey)).toBe(true);
    const path = join(project, ORDER_FACTS);
    writeFileSync(path, readFileSync(path, 'utf8').replace("'shipped', 'delivered'", "'shipped'"));
    const edited = await openContractProjectCached(project);
    expect(edited.project.valid).toBe(true);
    edited.keepParses(false);
    const { answers } = readAnswers();
    expect(answers.has(oldKey)).toBe(false);
    expect(answers.has(sqlTextKey(sqlOf(ORDER_FACTS)))).toBe(true);
    expect(answers.size).toBe(2);
  });

  it('writes nothing for a refused project', async () => {
    mkdirSync(join(project, '.sealkit'), { mode: 0o700 });
    const path = join(project, ORDER_FACTS);
    writeFileSync(
      path,
      readFileSync(path, 'utf8').replace('name: order_facts', 'name: order_facts\nbogus: 1'),
    );
    const refused = await openContractProjectCached(project);
    expect(refused.project.valid).toBe(false);
    refused.keepParses(true);
    expect(existsSync(join(project, '.sealkit', 'cache'))).toBe(false);
  });

  /** DuckDB's answer for a text, from a parser of its own. */
  const answerFor = async (text: string) => {
    const duckdb = await createDuckDbSqlParser();
    try {
      return (await duckdb.serialize([text]))[0] as string;
    } finally {
      duckdb.close();
    }
  };
  /** Replaces the cached answer for order_facts' SQL with `answer`, the digest recomputed. */
  const forgeOrderFacts = async (answer: string) => {
    (await openContractProjectCached(project)).keepParses(true);
    const { answers, parser } = readAnswers();
    const forged = new Map(answers);
    forged.set(sqlTextKey(sqlOf(ORDER_FACTS)), answer);
    writeFileSync(cacheFile(), encodeSqlParseCache(forged, parser), { mode: 0o600 });
  };
  /**
   * A cache answer is trusted like the project's own files (only this
   * account can write `.sealkit/`): one forged with a valid digest, for SQL
   * that is valid too, changes the projection. That is what makes the file
   * checks below observable.
   */
  const forgeValidOrderFacts = async () =>
    forgeOrderFacts(await answerFor(sqlOf(ORDER_FACTS).replace("'shipped', 'delivered'", "'shipped'")));

  it('uses an answer from a cache file of this account that no one else may write', async () => {
    await forgeValidOrderFacts();
    const opened = await openContractProjectCached(project);
    expect(opened.project.valid).toBe(true);
    expect(said(opened.project)).not.toEqual(clean);
  });

  it('reads a project again without the cache when cached answers made it refused, and rewrites the cache', async () => {
    await forgeOrderFacts(await answerFor('select from where'));
    const opened = await openContractProjectCached(project);
    expect(said(opened.project)).toEqual(clean);
    opened.keepParses(false);
    expect(readAnswers().answers.get(sqlTextKey(sqlOf(ORDER_FACTS)))).toBe(
      await answerFor(sqlOf(ORDER_FACTS)),
    );
  });

  it('neither reads nor writes a cache in a folder another account may write', async () => {
    await forgeValidOrderFacts();
    const forged = readFileSync(cacheFile());
    chmodSync(join(project, '.sealkit', 'cache'), 0o777);
    const opened = await openContractProjectCached(project);
    expect(said(opened.project)).toEqual(clean);
    opened.keepParses(false);
    expect(readFileSync(cacheFile()).equals(forged)).toBe(true);
  });

  it('leaves a directory at the cache file alone, and leaves no temporary file', async () => {
    mkdirSync(join(project, '.sealkit', 'cache', 'sql-parse.json'), { recursive: true, mode: 0o700 });
    writeFileSync(join(project, '.sealkit', 'cache', 'sql-parse.json', 'kept'), 'mine');
    (await openContractProjectCached(project)).keepParses(false);
    expect(readdirSync(join(project, '.sealkit', 'cache'))).toEqual(['sql-parse.json']);
    expect(readFileSync(join(project, '.sealkit', 'cache', 'sql-parse.json', 'kept'), 'utf8')).toBe('mine');
  });

  it('writes past a temporary name that is a directory', async () => {
    mkdirSync(join(project, '.sealkit', 'cache', 'sql-parse.json.tmp-2147483646'), {
      recursive: true,
      mode: 0o700,
    });
    (await openContractProjectCached(project)).keepParses(false);
    expect(readAnswers().answers.size).toBe(2);
  });

  it('ignores a cache file that another account may write', async () => {
    await forgeValidOrderFacts();
    chmodSync(cacheFile(), 0o666);
    expect(said((await openContractProjectCached(project)).project)).toEqual(clean);
  });

  it('never follows a symlink at the cache file, reading or writing', async () => {
    await forgeValidOrderFacts();
    const elsewhere = join(dir, `elsewhere-${counter}.json`);
    writeFileSync(elsewhere, readFileSync(cacheFile()), { mode: 0o600 });
    rmSync(cacheFile());
    symlinkSync(elsewhere, cacheFile());
    const opened = await openContractProjectCached(project);
    expect(said(opened.project)).toEqual(clean);
    const target = readFileSync(elsewhere);
    opened.keepParses(false);
    expect(readFileSync(elsewhere).equals(target)).toBe(true);
    expect(statSync(cacheFile()).isFile()).toBe(true);
    expect(readAnswers().answers.size).toBe(2);
  });

  it('removes temporary files of processes that no longer run, never of one that does', async () => {
    (await openContractProjectCached(project)).keepParses(true);
    const cacheDir = join(project, '.sealkit', 'cache');
    const dead = join(cacheDir, 'sql-parse.json.tmp-2147483646');
    const alive = join(cacheDir, `sql-parse.json.tmp-${process.ppid}`);
    writeFileSync(dead, 'half');
    writeFileSync(alive, 'half');
    const path = join(project, ORDER_FACTS);
    writeFileSync(path, readFileSync(path, 'utf8').replace("'shipped', 'delivered'", "'delivered'"));
    (await openContractProjectCached(project)).keepParses(false);
    expect(existsSync(dead)).toBe(false);
    expect(existsSync(alive)).toBe(true);
  });
});

describe('sealkit contract publish with a warm parse cache', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sealkit-parse-cache-cli-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Runs the CLI with a preload that records, at exit, whether DuckDB's native library was mapped. */
  const publishRecordingDuckDb = (project: string, ...args: string[]) => {
    const report = join(dir, `duckdb-${Math.random().toString(16).slice(2)}.txt`);
    const probe = join(dir, 'probe.mjs');
    writeFileSync(
      probe,
      `import { readFileSync, writeFileSync } from 'node:fs';\n` +
        `process.on('exit', () => writeFileSync(process.env.DUCKDB_REPORT, /libduckdb|duckdb\\.node/.test(readFileSync('/proc/self/maps', 'utf8')) ? 'loaded' : 'not loaded'));\n`,
    );
    const run = runCli(['contract', 'publish', project, '-q', ...args], {
      env: { ...process.env, NODE_OPTIONS: `--import=${probe}`, DUCKDB_REPORT: report },
    });
    return { status: run.status, stderr: run.stderr.toString('utf8'), duckdb: readFileSync(report, 'utf8') };
  };

  it('leaves no temporary file when the cache cannot be written for want of space', () => {
    const project = join(dir, 'full');
    copyExample(project);
    mkdirSync(join(project, '.sealkit', 'cache'), { recursive: true, mode: 0o700 });
    // A file-size limit below the cache's 5.7 KB stands in for a full disk
    // (the write fails with EFBIG; SIGXFSZ is ignored so the write returns).
    const run = spawnSync(
      'sh',
      [
        '-c',
        `trap '' XFSZ; exec prlimit --fsize=4096 "$0" "$@"`,
        process.execPath,
        join(REPO_ROOT, 'bin', 'sealkit.js'),
        'contract',
        'validate',
        project,
      ],
      { encoding: 'utf8' },
    );
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('8 resources valid');
    expect(readdirSync(join(project, '.sealkit', 'cache'))).toEqual([]);
  });

  it('loads DuckDB on the first publication and not on a later one; a dry run writes no cache', () => {
    const project = join(dir, 'retail');
    copyExample(project);
    const first = publishRecordingDuckDb(project);
    expect(first).toEqual({ status: 0, stderr: '', duckdb: 'loaded' });
    expect(existsSync(join(project, ...CACHE))).toBe(true);
    const later = publishRecordingDuckDb(project);
    expect(later).toEqual({ status: 0, stderr: '', duckdb: 'not loaded' });

    const before = readFileSync(join(project, ...CACHE));
    const path = join(project, ORDER_FACTS);
    writeFileSync(path, readFileSync(path, 'utf8').replace("'shipped', 'delivered'", "'shipped'"));
    const dry = publishRecordingDuckDb(project, '--dry-run');
    expect(dry.duckdb).toBe('loaded');
    expect(readFileSync(join(project, ...CACHE)).equals(before)).toBe(true);
  });
});
