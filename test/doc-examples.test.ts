// Examples of the README and the guides, run as a reader pastes them. A new
// field in a refusal once left the README showing an older output, and the
// distributor's quick start named a bundle folder no step had made: these
// tests fail on either.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from './helpers/cli.js';

interface Transcript {
  readonly file: string;
  readonly line: number;
  readonly command: string;
  readonly output: string;
}

/** Every `$ ` command of the fenced blocks of `file` with the output shown below it. */
function transcriptsOf(file: string): Transcript[] {
  const lines = readFileSync(join(REPO_ROOT, file), 'utf8').split('\n');
  const found: Transcript[] = [];
  let inBlock = false;
  let current: { line: number; command: string; output: string[] } | undefined;
  const close = () => {
    if (current !== undefined)
      found.push({ file, line: current.line, command: current.command, output: current.output.join('\n') });
    current = undefined;
  };
  for (const [index, text] of lines.entries()) {
    if (text.startsWith('```')) {
      close();
      inBlock = !inBlock;
    } else if (inBlock && text.startsWith('$ ')) {
      close();
      current = { line: index + 1, command: text.slice(2), output: [] };
    } else if (inBlock) {
      current?.output.push(text);
    }
  }
  return found;
}

const transcripts = ['README.md', 'docs/json.md']
  .flatMap(transcriptsOf)
  .filter((transcript) => transcript.command.includes('sealkit json'));

/** A folder with `sealkit` on the PATH of the shells these tests start: the built CLI. */
function withSealkitOnPath(work: string): NodeJS.ProcessEnv {
  const bin = join(work, 'bin');
  mkdirSync(bin);
  writeFileSync(
    join(bin, 'sealkit'),
    `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(join(REPO_ROOT, 'bin', 'sealkit.js'))} "$@"\n`,
  );
  chmodSync(join(bin, 'sealkit'), 0o755);
  return { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` };
}

/**
 * The sealkit json transcripts: a `$ ` line is a command for bash, the
 * lines below it (up to the next `$ ` line or the end of the block) what it
 * prints.
 */
describe('the sealkit json transcripts of the docs', () => {
  let work: string;
  let env: NodeJS.ProcessEnv;
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'sealkit-transcripts-'));
    env = withSealkitOnPath(work);
    // The file of docs/json.md's "Reading an error" example.
    mkdirSync(join(work, 'data'));
    writeFileSync(join(work, 'data', 'orders.json'), '{\n  "id": 1,\n  "currency": }\n');
  });
  afterAll(() => {
    rmSync(work, { recursive: true, force: true });
  });

  it('finds the transcripts (the README has three, docs/json.md four)', () => {
    expect(transcripts.map((t) => t.file)).toEqual([
      'README.md',
      'README.md',
      'README.md',
      'docs/json.md',
      'docs/json.md',
      'docs/json.md',
      'docs/json.md',
    ]);
  });

  it.each(transcripts.map((t) => [`${t.file}:${t.line}`, t] as const))('%s prints what it shows', (_, t) => {
    const run = spawnSync('bash', ['-c', t.command], {
      cwd: work,
      env,
      encoding: 'utf8',
    });
    // `json canonicalize` ends with no newline of its own: the shell's prompt starts the next line.
    expect(`${run.stdout}${run.stderr}`.replace(/\n$/, '')).toBe(t.output);
  });
});

describe("docs/distributor.md's quick start", () => {
  let work: string;
  afterAll(() => {
    rmSync(work, { recursive: true, force: true });
  });

  it('publishes a page and its data from an empty folder, then skips them on the rerun', () => {
    const guide = readFileSync(join(REPO_ROOT, 'docs', 'distributor.md'), 'utf8');
    const section = guide.slice(guide.indexOf('## Quick start'));
    const start = section.indexOf('```sh\n') + '```sh\n'.length;
    const script = section.slice(start, section.indexOf('```\n', start));
    work = mkdtempSync(join(tmpdir(), 'sealkit-quick-start-'));
    const env = withSealkitOnPath(work);
    const folder = join(work, 'empty');
    mkdirSync(folder);
    const run = spawnSync('bash', ['-e', '-c', script], { cwd: folder, env, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('summary: 1 published, 0 replaced');
    const rerun = /^\{"status":"ok".*$/m.exec(run.stdout)?.[0] ?? '{}';
    expect((JSON.parse(rerun) as { counts?: unknown }).counts).toEqual({
      published: 0,
      replaced: 0,
      skipped_same: 1,
      skipped_newer: 0,
      conflict: 0,
      refused: 0,
    });
    expect(run.stdout.trimEnd().split('\n').slice(-3)).toEqual([
      '.distributor.json',
      'readings.csv',
      'report.html',
    ]);
    expect(
      readFileSync(join(folder, 'site', 'weather', 'daily', '2026-05-30', 'report.html'), 'utf8'),
    ).toContain('<a href="readings.csv">hourly readings</a>');
  });
});
