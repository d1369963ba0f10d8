import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli } from '../../test/helpers/cli.js';
import { makeBundle, writeConfig } from '../../test/helpers/distributor-fixtures.js';
import { EDITION_PROJECTS } from '../../test/helpers/edition-trees.js';

// Slow steps say what they are doing, on stderr, to a person at a terminal
// only (docs/cli.md#output); `script` (util-linux) gives the CLI a real pty.

const BIN = join(REPO_ROOT, 'bin', 'sealkit.js');

function inTerminal(args: readonly string[], cwd: string): { status: number | null; shown: string } {
  const command = [process.execPath, BIN, ...args].map((word) => `'${word}'`).join(' ');
  const run = spawnSync('script', ['--quiet', '--return', '--command', command, '/dev/null'], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  return { status: run.status, shown: run.stdout };
}

/** The progress lines `shown` on a terminal, in order, each as drawn (after `sealkit distribute: `). */
function distributeLines(shown: string): string[] {
  return shown
    .split(/\r\n|\r/)
    .map((line) => line.replace('\u001b[2K', ''))
    .filter((line) => line.startsWith('sealkit distribute: '))
    .map((line) => line.slice('sealkit distribute: '.length));
}

describe('progress on slow steps', () => {
  it('regression: distribute run counts bundle paths inspected, each destination named, then validates and applies', () => {
    const work = mkdtempSync(join(tmpdir(), 'sealkit-progress-'));
    for (const name of ['a', 'b', 'c'])
      makeBundle(join(work, 'src'), name, [{ path: 'report.md', content: `# ${name}\n` }], {
        id: name,
        created: '2026-05-30T11:10:00Z',
      });
    mkdirSync(join(work, 'site'));
    mkdirSync(join(work, 'archive'));
    writeConfig(work, [
      {
        id: 'reports',
        source: join(work, 'src'),
        destinations: [
          { id: 'site', root: join(work, 'site') },
          { id: 'archive', root: join(work, 'archive'), html: false },
        ],
      },
    ]);
    const shown = inTerminal(['distribute', 'run'], work);
    expect(shown.status).toBe(0);
    // Inspection had no line at all; apply names the destination it writes to.
    expect(distributeLines(shown.shown)).toEqual([
      ...[0, 1, 2, 3].map((n) => `inspect ${n}/3, destination site`),
      ...[0, 1, 2, 3].map((n) => `inspect ${n}/3, destination archive`),
      ...[0, 1, 2, 3].map((n) => `validate ${n}/3`),
      'apply 0/6, destination archive',
      'apply 3/6, destination site',
      'apply 6/6',
    ]);
    const piped = runCli(['distribute', 'run'], { cwd: work });
    expect(piped.status).toBe(0);
    expect(piped.stderr.toString()).toBe('');
  });

  it('regression: a run of many bundles draws each phase in at most 200 steps, first and last count included', () => {
    // 10,000 bundles drew the line 20,000 times, a megabyte written to the
    // terminal; a run of up to 200 bundles still shows every count (above).
    const BUNDLES = 500;
    const work = mkdtempSync(join(tmpdir(), 'sealkit-progress-'));
    for (let n = 0; n < BUNDLES; n += 1)
      makeBundle(
        join(work, 'src'),
        `day-${String(n).padStart(3, '0')}`,
        [{ path: 'report.md', content: `# ${n}\n` }],
        {
          id: `day-${n}`,
          created: '2026-05-30T11:10:00Z',
        },
      );
    mkdirSync(join(work, 'site'));
    writeConfig(work, [
      { id: 'reports', source: join(work, 'src'), destinations: [{ id: 'site', root: join(work, 'site') }] },
    ]);
    const shown = inTerminal(['distribute', 'run'], work);
    expect(shown.status).toBe(0);
    const lines = distributeLines(shown.shown);
    for (const [phase, suffix] of [
      ['inspect', ', destination site'],
      ['validate', ''],
    ] as const) {
      const counts = lines.flatMap((line) => {
        const found = new RegExp(`^${phase} (\\d+)/${BUNDLES}${suffix}$`).exec(line);
        return found === null ? [] : [Number(found[1])];
      });
      expect(counts[0]).toBe(0);
      expect(counts.at(-1)).toBe(BUNDLES);
      expect(counts.length).toBeLessThanOrEqual(201);
      // Steps of 2.5 bundles: no count jumps by more than 3, none is drawn twice.
      for (let n = 1; n < counts.length; n += 1) {
        expect(counts[n]).toBeGreaterThan(counts[n - 1] as number);
        expect((counts[n] as number) - (counts[n - 1] as number)).toBeLessThanOrEqual(3);
      }
    }
    expect(lines.at(-1)).toBe(`apply ${BUNDLES}/${BUNDLES}`);
  }, 120_000);

  it('edition check says it is building on DuckDB, on a terminal only', () => {
    const project = EDITION_PROJECTS.bigquery;
    const args = ['edition', 'check', project, '--fixtures', join(project, 'fixtures')];
    const shown = inTerminal(args, REPO_ROOT);
    expect(shown.status).toBe(0);
    expect(shown.shown).toContain(`sealkit: checking ${project}, building its models on DuckDB…`);
    const piped = runCli(args);
    expect(piped.status).toBe(0);
    expect(piped.stderr.toString()).toBe('');
    const quiet = inTerminal([...args, '--quiet'], REPO_ROOT);
    expect(quiet.status).toBe(0);
    expect(quiet.shown).toBe('');
  });

  it('contract publish says it is creating the embedded ledger the first time, on a terminal only', () => {
    const work = mkdtempSync(join(tmpdir(), 'sealkit-progress-'));
    cpSync(join(REPO_ROOT, 'examples', 'contracts', 'retail'), join(work, 'retail'), { recursive: true });
    const first = inTerminal(['contract', 'publish', 'retail'], work);
    expect(first.status).toBe(0);
    expect(first.shown).toContain('sealkit: creating the embedded ledger in retail/.sealkit/ledger');
    cpSync(join(REPO_ROOT, 'examples', 'contracts', 'retail'), join(work, 'quiet'), { recursive: true });
    const quiet = inTerminal(['contract', 'publish', 'quiet', '-q'], work);
    expect(quiet.status).toBe(0);
    expect(quiet.shown).toBe('');
    const again = inTerminal(['contract', 'publish', 'retail'], work);
    expect(again.status).toBe(0);
    expect(again.shown).not.toContain('creating the embedded ledger');
    cpSync(join(REPO_ROOT, 'examples', 'contracts', 'retail'), join(work, 'piped'), { recursive: true });
    const piped = runCli(['contract', 'publish', 'piped'], { cwd: work });
    expect(piped.status).toBe(0);
    expect(piped.stderr.toString()).toBe('');
    // Four whole embedded-ledger publishes, each a new process: on a loaded
    // 2-core machine one takes up to half a minute.
  }, 300_000);
});
