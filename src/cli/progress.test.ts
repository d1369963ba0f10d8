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
