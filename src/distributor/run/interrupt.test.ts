// A signal that comes before any write stops the run there: nothing is
// published, no snapshot is left, and the CLI exits 130 (SIGINT), 143
// (SIGTERM) or 129 (SIGHUP, also from a terminal that hung up) with a
// run_interrupted refusal — also for a dry run and for a rerun that has
// nothing to write (docs/distributor.md#commands).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli } from '../../../test/helpers/cli.js';
import { CliChild } from '../../../test/helpers/cli-child.js';
import { makeBundle, writeConfig } from '../../../test/helpers/distributor-fixtures.js';
import { Refusal } from '../../core/refusal/index.js';
import { distributeRun } from './run.js';

const base = mkdtempSync(join(tmpdir(), 'sealkit-interrupt-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));
let counter = 0;

/** A source of `count` bundles of one `bytes`-long file and a report, and an empty destination. */
function tree(count: number, bytes: number): { source: string; site: string; config: string } {
  counter += 1;
  const dir = join(base, `case-${counter}`);
  const source = join(dir, 'src');
  const site = join(dir, 'site');
  mkdirSync(site, { recursive: true });
  for (let index = 0; index < count; index += 1) {
    makeBundle(
      source,
      `b${String(index).padStart(4, '0')}`,
      [
        { path: 'data.bin', content: Buffer.alloc(bytes, index % 251) },
        { path: 'report.md', content: `# Report ${index}\n` },
      ],
      { id: `orders.${index}`, created: '2026-05-30T11:10:00Z' },
    );
  }
  const config = writeConfig(dir, [{ id: 'orders', source, destinations: [{ id: 'site', root: site }] }]);
  return { source, site, config };
}

const published = (site: string) => readdirSync(site).filter((name) => name !== '.distributor.work');
const snapshots = (site: string) =>
  existsSync(join(site, '.distributor.work'))
    ? readdirSync(join(site, '.distributor.work')).filter((name) => name !== 'lock')
    : [];

describe('distribute run: interrupted before any write', () => {
  for (const dryRun of [false, true]) {
    it(`regression: an abort during validation refuses the whole run, nothing written (${dryRun ? 'dry run' : 'run'})`, async () => {
      const { site, config } = tree(12, 64 * 1024);
      const controller = new AbortController();
      const run = distributeRun({
        configPath: config,
        dryRun,
        signal: controller.signal,
        onProgress: (progress) => {
          if (progress.phase === 'validate' && progress.done === 3) controller.abort();
        },
      });
      await expect(run).rejects.toThrow(Refusal);
      await expect(run).rejects.toMatchObject({ code: 'run_interrupted' });
      expect(published(site)).toEqual([]);
      expect(snapshots(site)).toEqual([]);
    });
  }

  it('an abort while --checksum reads several bundles at once refuses the run, every bundle as it was; the next run reads them all', async () => {
    const { site, config } = tree(24, 256 * 1024);
    expect((await distributeRun({ configPath: config })).status).toBe('ok');
    const controller = new AbortController();
    const run = distributeRun({
      configPath: config,
      checksum: true,
      signal: controller.signal,
      onProgress: (progress) => {
        if (progress.phase === 'inspect' && progress.done === 5) controller.abort();
      },
    });
    await expect(run).rejects.toMatchObject({ code: 'run_interrupted' });
    expect(published(site)).toHaveLength(24);
    expect(snapshots(site)).toEqual([]);
    const again = await distributeRun({ configPath: config, checksum: true });
    expect(again.outcomes.map((item) => item.outcome)).toEqual(Array(24).fill('skipped_same'));
  });

  it('regression: a rerun with nothing to write, aborted, is refused rather than reported ok', async () => {
    const { site, config } = tree(6, 1024);
    expect((await distributeRun({ configPath: config })).status).toBe('ok');
    const controller = new AbortController();
    controller.abort();
    await expect(distributeRun({ configPath: config, signal: controller.signal })).rejects.toMatchObject({
      code: 'run_interrupted',
    });
    expect(published(site)).toHaveLength(6);
  });

  for (const [name, exit] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const) {
    it(`regression: ${name} while validating exits ${exit} at once, publishing nothing`, async () => {
      // Enough bytes that validation outlasts the signal: it is sent as soon as the run holds its lock.
      const { site, config } = tree(200, 512 * 1024);
      const child = spawn(
        process.execPath,
        [join(REPO_ROOT, 'bin', 'sealkit.js'), 'distribute', 'run', '--config', config, '--json'],
        {
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString('utf8');
      });
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8');
      });
      const lock = join(site, '.distributor.work', 'lock');
      const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
      while (!existsSync(lock) && child.exitCode === null)
        await new Promise((resolve) => setTimeout(resolve, 2));
      child.kill(name);
      expect(await exited).toBe(exit);
      expect(stderr).toBe('');
      expect(JSON.parse(stdout)).toMatchObject({
        status: 'refused',
        reason_code: 'run_interrupted',
        hint: expect.stringContaining('stopped before any write: nothing was published'),
      });
      // Regression: it said role "config", as if the configuration were at fault.
      expect(JSON.parse(stdout)).not.toHaveProperty('role');
      expect(published(site)).toEqual([]);
      expect(snapshots(site)).toEqual([]);
    }, 60_000);
  }
});

/**
 * Runs the CLI on a real terminal (a pseudo-terminal from Python's `pty`),
 * reads what it draws, and hangs the terminal up (closes its master side)
 * once `lock` exists: the kernel then sends SIGHUP and every later write to
 * the terminal fails with EIO, as when an ssh session drops. Returns the
 * CLI's exit code (negative: the signal that ended it) and what it drew.
 */
function hungUpOnce(
  lock: string,
  args: readonly string[],
): { readonly exit: number; readonly drawn: string } {
  const script = [
    'import json, os, pty, select, sys, time',
    'lock = sys.argv[1]',
    'pid, fd = pty.fork()',
    'if pid == 0:',
    '    os.execv(sys.argv[2], sys.argv[2:])',
    "drawn = b''",
    'deadline = time.time() + 50',
    'while not os.path.exists(lock) and time.time() < deadline:',
    '    if select.select([fd], [], [], 0.002)[0]:',
    '        try:',
    '            drawn += os.read(fd, 65536)',
    '        except OSError:',
    '            break',
    'os.close(fd)',
    'status = os.waitpid(pid, 0)[1]',
    "print(json.dumps({'exit': os.waitstatus_to_exitcode(status), 'drawn': drawn.decode('utf-8', 'replace')}))",
  ].join('\n');
  const run = spawnSync(
    'python3',
    ['-c', script, lock, process.execPath, join(REPO_ROOT, 'bin', 'sealkit.js'), ...args],
    {
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  if (run.status !== 0) throw new Error(`the terminal harness failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as { exit: number; drawn: string };
}

describe('distribute run: the terminal hangs up', () => {
  it('regression: a run whose terminal hung up stops as on SIGTERM (exit 129), publishing nothing, leaving no snapshot', () => {
    // Before, SIGHUP's default action ended the process where it stood, and with a
    // handler alone the first progress line to the dead terminal (EIO) ended it with 70.
    const { site, config } = tree(200, 512 * 1024);
    const { exit, drawn } = hungUpOnce(join(site, '.distributor.work', 'lock'), [
      'distribute',
      'run',
      '--config',
      config,
    ]);
    expect(exit).toBe(129);
    expect(drawn).not.toContain('Error');
    expect(published(site)).toEqual([]);
    expect(snapshots(site)).toEqual([]);
  }, 90_000);
});

describe('distribute run: a signal after the report', () => {
  // The CLI paused by SEALKIT_DISTRIBUTE_FAULTS where the report is printed and
  // the process has not ended: before, the signal handlers were gone there and
  // the signal's default action ended the process (a shell saw 130 or 143).
  for (const [name, quiet] of [
    ['SIGINT', false],
    ['SIGTERM', true],
  ] as const) {
    it(`regression: ${name} changes nothing: every bundle stays published and the exit is 0${quiet ? ' (-q: no note)' : ''}`, async () => {
      const { site, config } = tree(3, 1024);
      const child = new CliChild(['distribute', 'run', '--config', config, ...(quiet ? ['-q'] : [])], {
        env: { SEALKIT_DISTRIBUTE_FAULTS: 'pause@after_result' },
      });
      await child.paused('after_result#1');
      child.kill(name);
      if (!quiet) await child.stderrHas(`sealkit: ${name} came after the run completed; the result stands\n`);
      const outcome = await child.finished();
      expect(outcome.signal).toBeNull();
      expect(outcome.status).toBe(0);
      expect(published(site)).toHaveLength(3);
      if (quiet) {
        expect(outcome.stdout).toBe('');
        expect(outcome.stderr).toBe('sealkit distribute run fault: paused at after_result#1\n');
      } else {
        expect(outcome.stdout).toContain('summary: 3 published');
      }
    }, 60_000);
  }

  it("regression: a second SIGINT after the report ends the process with the report's exit code (it was 130)", async () => {
    const { site, config } = tree(2, 1024);
    const child = new CliChild(['distribute', 'run', '--config', config], {
      env: { SEALKIT_DISTRIBUTE_FAULTS: 'pause@after_result' },
    });
    await child.paused('after_result#1');
    child.kill('SIGINT');
    await child.stderrHas('sealkit: SIGINT came after the run completed; the result stands\n');
    // Well outside the window in which a repeat counts as the same signal.
    await new Promise((resolve) => setTimeout(resolve, 300));
    child.kill('SIGINT');
    const outcome = await child.finished();
    expect(outcome.signal).toBeNull();
    expect(outcome.status).toBe(0);
    expect(outcome.stdout).toContain('summary: 2 published');
    expect(published(site)).toHaveLength(2);
  }, 60_000);

  it('a fault rule it cannot read is a usage error naming the variable, before anything is written', () => {
    const { site, config } = tree(1, 16);
    const run = runCli(['distribute', 'run', '--config', config], {
      env: { ...process.env, SEALKIT_DISTRIBUTE_FAULTS: 'pause@after_validation' },
    });
    expect(run.status).toBe(1);
    expect(run.stderr.toString().split('\n')[0]).toContain(
      "invalid rule 'pause@after_validation' in SEALKIT_DISTRIBUTE_FAULTS",
    );
    expect(published(site)).toEqual([]);
  });
});
