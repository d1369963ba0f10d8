import { type ChildProcess, spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli } from '../../../test/helpers/cli.js';
import { makeBundle, writeConfig } from '../../../test/helpers/distributor-fixtures.js';
import { distributeRun } from './run.js';

// A dry run used to print `published` where the real run is refused: a
// destination folder this account may not write in, and a destination whose
// lock another run holds (docs/distributor.md#commands).

const CLOCK = () => new Date('2026-06-01T00:00:00Z');
const SUMMARY = { path: 'summary.txt', content: 'sunny\n' };

let work: string;
let source: string;
let dest: string;
let config: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'sealkit-dry-'));
  source = join(work, 'src');
  dest = join(work, 'dest');
  mkdirSync(source);
  mkdirSync(dest);
  config = writeConfig(work, [{ id: 'weather', source, destinations: [{ id: 'site', root: dest }] }]);
});
afterEach(() => {
  chmodSync(dest, 0o755);
  if (existsSync(join(dest, 'weather'))) chmodSync(join(dest, 'weather'), 0o755);
  rmSync(work, { recursive: true, force: true });
});

const run = (dryRun: boolean) =>
  distributeRun({ configPath: config, now: CLOCK, ...(dryRun ? { dryRun } : {}) });
const outcomes = (report: Awaited<ReturnType<typeof run>>) =>
  report.outcomes.map((o) => [o.bundle_dir, o.outcome, o.reason_code ?? '', o.refusal?.hint ?? '']);

describe('dry run: a destination folder this account may not write in', () => {
  it('regression: a read-only root is refused destination_write_failed naming the root, as the run is, and nothing is created', async () => {
    makeBundle(source, 'a', [SUMMARY], { id: 'a', created: '2026-05-30T11:10:00Z' });
    chmodSync(dest, 0o555);
    const dry = await run(true);
    const expected = [
      [
        'a',
        'refused',
        'destination_write_failed',
        `destination 'site', bundle 'a': the account running sealkit may not write in '${dest}' (EACCES)`,
      ],
    ];
    expect(outcomes(dry)).toEqual(expected);
    expect(dry.status).toBe('refused');
    expect(readdirSync(dest)).toEqual([]);
    const real = await run(false);
    expect(outcomes(real)).toEqual(expected);
    expect(readdirSync(dest)).toEqual([]);
  });

  it('regression: a read-only folder above a bundle is refused in the plan, dry or not, naming that folder', async () => {
    makeBundle(source, 'weather/b1', [SUMMARY], { id: 'b1', created: '2026-05-30T11:10:00Z' });
    makeBundle(source, 'sales/b2', [SUMMARY], { id: 'b2', created: '2026-05-30T11:10:00Z' });
    mkdirSync(join(dest, 'weather'));
    chmodSync(join(dest, 'weather'), 0o555);
    const hint = `destination 'site', bundle 'weather/b1': the account running sealkit may not write in '${dest}/weather' (EACCES)`;
    const dry = await run(true);
    expect(outcomes(dry)).toEqual([
      ['sales/b2', 'published', '', ''],
      ['weather/b1', 'refused', 'destination_write_failed', hint],
    ]);
    expect(existsSync(join(dest, '.distributor.work'))).toBe(false);
    const real = await run(false);
    expect(real.plan).toEqual(dry.plan);
    expect(outcomes(real)).toEqual([
      ['sales/b2', 'published', '', ''],
      ['weather/b1', 'refused', 'destination_write_failed', hint],
    ]);
    expect(readdirSync(join(dest, 'weather'))).toEqual([]);
  });

  it('a replacement into a read-only parent folder is refused; an unchanged rerun there stays skipped_same', async () => {
    makeBundle(source, 'weather/b1', [SUMMARY], { id: 'b1', created: '2026-05-30T11:10:00Z' });
    expect(outcomes(await run(false))).toEqual([['weather/b1', 'published', '', '']]);
    chmodSync(join(dest, 'weather'), 0o555);
    expect(outcomes(await run(true))).toEqual([['weather/b1', 'skipped_same', '', '']]);
    rmSync(join(source, 'weather/b1'), { recursive: true });
    makeBundle(source, 'weather/b1', [SUMMARY], { id: 'b1', created: '2026-05-31T11:10:00Z' });
    expect(outcomes(await run(true))).toEqual([
      [
        'weather/b1',
        'refused',
        'destination_write_failed',
        `destination 'site', bundle 'weather/b1': the account running sealkit may not write in '${dest}/weather' (EACCES)`,
      ],
    ]);
  });
});

describe('a published bundle folder this account may not write in', () => {
  it('regression: its replacement is refused in the plan, dry or not, naming the bundle folder, and the published bundle stays', async () => {
    makeBundle(source, 'weather/b1', [SUMMARY], { id: 'b1', created: '2026-05-30T11:10:00Z' });
    expect(outcomes(await run(false))).toEqual([['weather/b1', 'published', '', '']]);
    const published = join(dest, 'weather', 'b1');
    const before = readdirSync(published).sort();
    chmodSync(published, 0o555);
    try {
      expect(outcomes(await run(true))).toEqual([['weather/b1', 'skipped_same', '', '']]);
      rmSync(join(source, 'weather/b1'), { recursive: true });
      makeBundle(source, 'weather/b1', [{ path: 'summary.txt', content: 'rain\n' }], {
        id: 'b1',
        created: '2026-05-31T11:10:00Z',
      });
      // The exchange moves the folder itself, and removes its old outputs: it
      // used to fail there with "may not write there", naming no folder.
      const expected = [
        [
          'weather/b1',
          'refused',
          'destination_write_failed',
          `destination 'site', bundle 'weather/b1': the account running sealkit may not write in '${published}' (EACCES)`,
        ],
      ];
      const dry = await run(true);
      expect(outcomes(dry)).toEqual(expected);
      const real = await run(false);
      expect(real.plan).toEqual(dry.plan);
      expect(outcomes(real)).toEqual(expected);
      expect(readdirSync(published).sort()).toEqual(before);
    } finally {
      chmodSync(published, 0o755);
    }
  });
});

describe('dry run: a destination whose lock another run holds', () => {
  /** Another process holding an flock on `path`, through libc directly, until it is killed. */
  const holdLock = async (path: string, releaseAfterMs?: number): Promise<ChildProcess> => {
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `const fs = require('node:fs');
         const flock = require('koffi').load('libc.so.6').func('int flock(int fd, int operation)');
         const fd = fs.openSync(process.argv[1], 'r');
         process.stdout.write((flock(fd, 6) === 0 ? 'acquired' : 'busy') + '\\n');
         const after = Number(process.argv[2]);
         if (after > 0) setTimeout(() => process.exit(0), after);
         else setInterval(() => {}, 1000);`,
        path,
        String(releaseAfterMs ?? 0),
      ],
      { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const line = await new Promise<string>((resolve) => {
      createInterface({ input: holder.stdout ?? process.stdin }).once('line', resolve);
    });
    if (line !== 'acquired') holder.kill('SIGKILL');
    expect(line).toBe('acquired');
    return holder;
  };
  /** The destination's work area and its lock file, as a run leaves them, for another process to hold. */
  const lockFile = (): string => {
    mkdirSync(join(dest, '.distributor.work'), { mode: 0o700 });
    const lock = join(dest, '.distributor.work', 'lock');
    writeFileSync(lock, '', { mode: 0o600 });
    return lock;
  };
  const stop = async (holder: ChildProcess): Promise<void> => {
    const exited = new Promise((resolve) => holder.once('exit', resolve));
    holder.kill('SIGKILL');
    await exited;
  };

  it('regression: a signal while --wait waits for the lock stops the run at once (it waited out the --wait)', async () => {
    makeBundle(source, 'a', [SUMMARY], { id: 'a', created: '2026-05-30T11:10:00Z' });
    const lock = lockFile();
    const holder = await holdLock(lock);
    try {
      const interrupt = new AbortController();
      setTimeout(() => interrupt.abort(), 500);
      const started = Date.now();
      await expect(
        distributeRun({ configPath: config, now: CLOCK, waitMs: 30_000, signal: interrupt.signal }),
      ).rejects.toMatchObject({ code: 'run_interrupted' });
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await stop(holder);
    }
    expect(readdirSync(dest)).toEqual(['.distributor.work']);
  });

  it('regression: a run that waited for another run says so in its report (a log showed no trace of it)', async () => {
    makeBundle(source, 'a', [SUMMARY], { id: 'a', created: '2026-05-30T11:10:00Z' });
    const lock = lockFile();
    const holder = await holdLock(lock);
    const released = new Promise<void>((resolve) => setTimeout(() => resolve(stop(holder)), 1200));
    const report = await distributeRun({ configPath: config, now: CLOCK, waitMs: 30_000 });
    await released;
    expect(report.outcomes.map((o) => o.outcome)).toEqual(['published']);
    expect(report.waited).toEqual([
      { pipeline_id: 'weather', destination_id: 'site', waited_ms: expect.any(Number) },
    ]);
    expect(report.waited?.[0]?.waited_ms).toBeGreaterThanOrEqual(1000);
    // A run that found the lock free waited for nothing, and says nothing of it.
    makeBundle(source, 'b', [SUMMARY], { id: 'b', created: '2026-05-30T11:10:00Z' });
    const free = await distributeRun({ configPath: config, now: CLOCK, waitMs: 30_000 });
    expect(free.outcomes.map((o) => o.outcome)).toEqual(['skipped_same', 'published']);
    expect(free).not.toHaveProperty('waited');
  });

  it('regression: a wait that ran out says so, and a dry run under --wait does not advise --wait', async () => {
    makeBundle(source, 'a', [SUMMARY], { id: 'a', created: '2026-05-30T11:10:00Z' });
    const lock = lockFile();
    const holder = await holdLock(lock);
    try {
      const human = runCli(['distribute', 'run', '--config', config, '--wait', '1']);
      expect(human.status).toBe(2);
      expect(human.stdout.toString()).toMatch(
        /\nwaited \d\.\d s for another run at destination 'site' \(pipeline 'weather'\), which still held it when the wait ran out \(destination_locked\)\n/,
      );
      const dry = runCli(['distribute', 'run', '--config', config, '--dry-run', '--wait', '10', '--json']);
      expect(JSON.parse(dry.stdout.toString()).outcomes[0]).toMatchObject({
        reason_code: 'destination_locked',
        hint: "destination 'site', bundle 'a': another run holds its lock; a dry run does not wait for it, and a real run with this --wait would wait up to 10 s before refusing it",
      });
    } finally {
      await stop(holder);
    }
  });

  it('the CLI says under its table how long a run waited, and --json gives it as waited', async () => {
    makeBundle(source, 'a', [SUMMARY], { id: 'a', created: '2026-05-30T11:10:00Z' });
    const lock = lockFile();
    // Released by the holder itself: the CLI runs synchronously here.
    await holdLock(lock, 1200);
    const human = runCli(['distribute', 'run', '--config', config, '--wait', '30']);
    expect(human.status).toBe(0);
    expect(human.stdout.toString()).toMatch(
      /\n\nwaited \d+\.\d s for another run at destination 'site' \(pipeline 'weather'\)\n\nsummary: 1 published,/,
    );
    // Held for 2.5 s, so that the 1 s asserted below holds even when the CLI takes a second to
    // start on a loaded machine (with 1.2 s it measured 760 ms once).
    await holdLock(lock, 2500);
    makeBundle(source, 'b', [SUMMARY], { id: 'b', created: '2026-05-30T11:10:00Z' });
    const json = JSON.parse(
      runCli(['distribute', 'run', '--config', config, '--wait', '30', '--json']).stdout.toString(),
    );
    expect(json.waited).toEqual([
      { pipeline_id: 'weather', destination_id: 'site', waited_ms: expect.any(Number) },
    ]);
    expect(json.waited[0].waited_ms).toBeGreaterThanOrEqual(1000);
  });

  it('regression: is refused destination_locked for every bundle, without touching the lock file', async () => {
    makeBundle(source, 'a', [SUMMARY], { id: 'a', created: '2026-05-30T11:10:00Z' });
    makeBundle(source, 'b', [SUMMARY], { id: 'b', created: '2026-05-30T11:10:00Z' });
    const lock = lockFile();
    const before = statSync(lock);
    const holder = await holdLock(lock);
    try {
      const dry = await run(true);
      expect(dry.outcomes.map((o) => [o.bundle_dir, o.outcome, o.reason_code])).toEqual([
        ['a', 'refused', 'destination_locked'],
        ['b', 'refused', 'destination_locked'],
      ]);
      // The real run, started now, is refused the same way.
      const real = await run(false);
      expect(real.plan).toEqual(dry.plan);
    } finally {
      await stop(holder);
    }
    const after = statSync(lock);
    expect([after.ino, after.mtimeMs, after.size]).toEqual([before.ino, before.mtimeMs, before.size]);
    expect(readdirSync(dest)).toEqual(['.distributor.work']);
    // Once the holder is gone the dry run plans the publication.
    expect((await run(true)).outcomes.map((o) => o.outcome)).toEqual(['published', 'published']);
  });

  it('creates no work area and no lock file when there is none', async () => {
    makeBundle(source, 'a', [SUMMARY], { id: 'a', created: '2026-05-30T11:10:00Z' });
    expect((await run(true)).outcomes.map((o) => o.outcome)).toEqual(['published']);
    expect(readdirSync(dest)).toEqual([]);
    mkdirSync(join(dest, '.distributor.work'), { mode: 0o700 });
    expect((await run(true)).outcomes.map((o) => o.outcome)).toEqual(['published']);
    expect(readdirSync(join(dest, '.distributor.work'))).toEqual([]);
  });
});
