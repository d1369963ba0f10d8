// Crash behaviour of the S3 backend on a real radosgw: a failure injected at
// every S3 write and delete (through the run's `beforeStep` test hook), and
// SIGKILL of a separate process at random points. After each, a rerun must
// converge to exactly what an uninterrupted run leaves, and no object that no
// state or pending marker of ours names may be deleted.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../../../../bench/prng.js';
import { REPO_ROOT } from '../../../../test/helpers/cli.js';
import {
  type BundleSpec,
  putMany,
  readPrefix,
  s3Config,
  useRgwFixture,
  writeBundle,
} from '../../../../test/helpers/distributor-s3.js';
import type { Step } from '../../backend.js';
import type { S3DestinationConfig } from '../../config/types.js';
import { distributeRun } from '../../run/run.js';
import { createS3Backend } from './index.js';

const ctx = useRgwFixture({ work: 's3-crash-', bucket: 'crash', awsEnv: true });
let sourceV1: string;
let sourceV2: string;

const NOW = '2026-06-01T12:00:00Z';
const DIR = 'daily/brentwood';
const HOUR = 3_600_000;

const v1: BundleSpec = {
  id: 'weather.daily.brentwood',
  created: '2026-05-30T11:10:00Z',
  files: {
    'report.md': '# Brentwood\n\nSunny.\n',
    'summary.txt': 'all clear\n',
    'old/only-in-v1.txt': 'gone after the replacement\n',
  },
};
const v2: BundleSpec = {
  id: 'weather.daily.brentwood',
  created: '2026-05-30T12:10:00Z',
  files: {
    'report.md': '# Brentwood\n\nRain later.\n',
    'summary.txt': 'umbrella\n',
    'data/obs.csv': 'hour,temp\n12,19\n',
  },
};

beforeAll(async () => {
  sourceV1 = mkdtempSync(join(ctx.work, 'v1-'));
  sourceV2 = mkdtempSync(join(ctx.work, 'v2-'));
  writeBundle(sourceV1, DIR, v1);
  writeBundle(sourceV2, DIR, v2);
});

type Scenario = 'publish' | 'replace';

function configFor(source: string, prefix: string) {
  return s3Config(ctx.rgw, source, { bucket: ctx.bucket, prefix });
}

/** An in-process run; `clockOffsetMs` stands for "a later run" (leases of killed runs have expired). */
function runInProcess(
  source: string,
  prefix: string,
  options: { beforeStep?: (step: Step) => void; clockOffsetMs?: number } = {},
) {
  const offset = options.clockOffsetMs ?? 0;
  return distributeRun({
    config: configFor(source, prefix),
    now: () => new Date(NOW),
    s3Backend: (c: S3DestinationConfig, context) =>
      createS3Backend(c, context, { clock: { now: () => new Date(Date.now() + offset) } }),
    ...(options.beforeStep === undefined ? {} : { beforeStep: options.beforeStep }),
  });
}

/** Objects nobody's state or marker names, planted around (and, for a replacement, beside) the bundle. */
function foreignKeys(prefix: string): string[] {
  return [`${prefix}/daily/brentwood-old/x.txt`, `${prefix}/daily/brentwood`, `${prefix}/daily/notes.txt`];
}

/** Prepares a fresh prefix for a scenario: foreign objects, and for a replacement a published v1. */
async function prepare(prefix: string, scenario: Scenario): Promise<void> {
  await putMany(
    ctx.s3,
    ctx.bucket,
    foreignKeys(prefix).map((key) => [key, `foreign ${key.slice(prefix.length)}`] as const),
  );
  if (scenario === 'replace') {
    const first = await runInProcess(sourceV1, prefix);
    expect(first.outcomes[0]?.outcome).toBe('published');
  }
}

/** Bundle-relative key → content digest, under one prefix. */
async function contents(prefix: string): Promise<Map<string, string>> {
  const stored = await readPrefix(ctx.s3, ctx.bucket, `${prefix}/`);
  return new Map([...stored].map(([key, object]) => [key.slice(prefix.length + 1), object.sha256]));
}

const references = new Map<Scenario, Map<string, string>>();
const stepCounts = new Map<Scenario, number>();

/** What an uninterrupted run leaves, and how many S3 writes and deletes it takes. */
async function reference(scenario: Scenario): Promise<{ contents: Map<string, string>; steps: number }> {
  const cached = references.get(scenario);
  const steps = stepCounts.get(scenario);
  if (cached !== undefined && steps !== undefined) return { contents: cached, steps };
  const prefix = `reference-${scenario}`;
  await prepare(prefix, scenario);
  let count = 0;
  const report = await runInProcess(sourceV2, prefix, {
    beforeStep: (step) => {
      if (step.kind === 'put' || step.kind === 'delete') count += 1;
    },
  });
  expect(report.outcomes[0]?.outcome).toBe(scenario === 'publish' ? 'published' : 'replaced');
  const result = await contents(prefix);
  references.set(scenario, result);
  stepCounts.set(scenario, count);
  return { contents: result, steps: count };
}

/** The rerun after a crash converges, and every foreign object is still there, unchanged. */
async function expectConverged(prefix: string, scenario: Scenario): Promise<void> {
  const rerun = await runInProcess(sourceV2, prefix, { clockOffsetMs: HOUR });
  expect(['published', 'replaced', 'skipped_same']).toContain(rerun.outcomes[0]?.outcome);
  const expected = (await reference(scenario)).contents;
  expect(Object.fromEntries(await contents(prefix))).toEqual(Object.fromEntries(expected));
  const again = await runInProcess(sourceV2, prefix, { clockOffsetMs: HOUR });
  expect(again.outcomes[0]?.outcome).toBe('skipped_same');
}

describe('S3 destination: a failure injected at every write and delete converges on rerun', () => {
  for (const scenario of ['publish', 'replace'] as const) {
    it(`${scenario}: every S3 step fails once, then a rerun converges`, async () => {
      const { steps } = await reference(scenario);
      expect(steps).toBeGreaterThanOrEqual(scenario === 'publish' ? 7 : 8);
      for (let failAt = 1; failAt <= steps; failAt++) {
        const prefix = `fail-${scenario}-${failAt}`;
        await prepare(prefix, scenario);
        let count = 0;
        const report = await runInProcess(sourceV2, prefix, {
          beforeStep: (step) => {
            if (step.kind !== 'put' && step.kind !== 'delete') return;
            count += 1;
            if (count === failAt) throw new Error('injected failure');
          },
        });
        const outcome = report.outcomes[0];
        // Before the commit point the bundle is refused; after it the publication stands.
        expect(['refused', 'published', 'replaced']).toContain(outcome?.outcome);
        if (outcome?.outcome === 'refused') expect(outcome.reason_code).toBe('destination_write_failed');
        await expectConverged(prefix, scenario);
      }
    });
  }
});

describe('S3 destination: SIGKILL at random points (30 runs) converges on rerun', () => {
  // Seeded, so a failing kill point can be replayed.
  const random = seededRandom(20260601);

  function child(options: Record<string, unknown>): Promise<{
    code: number | null;
    signal: string | null;
  }> & {
    kill(): void;
    writing: Promise<void>;
  } {
    const process_ = spawn(
      process.execPath,
      [join(REPO_ROOT, 'test/helpers/distribute-s3-child.mjs'), JSON.stringify(options)],
      {
        env: { ...process.env, ...ctx.rgw.awsEnv },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let onWriting: () => void = () => {};
    const writing = new Promise<void>((resolve) => {
      onWriting = resolve;
    });
    process_.stderr.on('data', (chunk: Buffer) => {
      if (chunk.toString('utf8').includes('writing')) onWriting();
    });
    process_.stdout.resume();
    const done = new Promise<{ code: number | null; signal: string | null }>((resolve) => {
      process_.once('exit', (code, signal) => {
        onWriting();
        resolve({ code, signal });
      });
    });
    return Object.assign(done, { kill: () => process_.kill('SIGKILL'), writing });
  }

  for (let run = 0; run < 30; run++) {
    const scenario: Scenario = run % 2 === 0 ? 'publish' : 'replace';
    const byStep = run < 16;
    it(`kill ${run + 1}: ${scenario}, ${byStep ? 'at a random S3 step' : 'after a random delay while writing'}`, async () => {
      const { steps } = await reference(scenario);
      const prefix = `kill-${run}`;
      await prepare(prefix, scenario);
      const config = configFor(sourceV2, prefix);
      if (byStep) {
        const killAtStep = 1 + Math.floor(random() * steps);
        const exit = await child({ config, now: NOW, killAtStep });
        expect(exit.signal).toBe('SIGKILL');
      } else {
        const delayMs = Math.floor(random() * 120);
        const running = child({ config, now: NOW });
        await running.writing;
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        running.kill();
        await running;
      }
      // Right after the kill a live lease may stand: the next run reports it precisely...
      const immediate = await runInProcess(sourceV2, prefix);
      expect(['published', 'replaced', 'skipped_same', 'refused']).toContain(immediate.outcomes[0]?.outcome);
      if (immediate.outcomes[0]?.outcome === 'refused') {
        expect(immediate.outcomes[0]?.reason_code).toBe('destination_locked');
      }
      // ...and a run after the lease converges.
      await expectConverged(prefix, scenario);
    });
  }
});

describe('S3 destination: killed after its commit, before its marker is gone', () => {
  it('regression: a rerun within the lease reports the committed bundle skipped_same (was destination_locked, exit 2)', async () => {
    const { steps } = await reference('replace');
    const prefix = 'killed-after-commit';
    await prepare(prefix, 'replace');
    // The last write or delete of a replacement is the marker's deletion:
    // killed just before it, the new state is written and the marker's
    // lease is live.
    const killed = spawnSync(
      process.execPath,
      [
        join(REPO_ROOT, 'test/helpers/distribute-s3-child.mjs'),
        JSON.stringify({ config: configFor(sourceV2, prefix), now: NOW, killAtStep: steps }),
      ],
      { env: { ...process.env, ...ctx.rgw.awsEnv } },
    );
    expect(killed.signal).toBe('SIGKILL');
    const held = await readPrefix(ctx.s3, ctx.bucket, `${prefix}/`);
    expect([...held.keys()].filter((key) => key.includes('.distributor.'))).toEqual([
      `${prefix}/${DIR}/.distributor.json`,
      `${prefix}/${DIR}/.distributor.pending.json`,
    ]);
    // Within the lease: what the source holds is published; the marker is
    // the dead run's, left alone.
    const before = await contents(prefix);
    for (const dryRun of [true, false]) {
      const within = await distributeRun({
        config: configFor(sourceV2, prefix),
        now: () => new Date(NOW),
        dryRun,
      });
      expect(within.outcomes.map((item) => [item.outcome, item.reason_code])).toEqual([
        ['skipped_same', undefined],
      ]);
    }
    expect(await contents(prefix)).toEqual(before);
    expect([...(await readPrefix(ctx.s3, ctx.bucket, `${prefix}/`)).keys()]).toContain(
      `${prefix}/${DIR}/.distributor.pending.json`,
    );
    // After it, a run removes the marker and converges: it takes the marker
    // over and writes the state again, and sends no output, each already
    // holding its bytes.
    // The dry run after the lease shows the same: every output kept.
    const planned = await distributeRun({
      config: configFor(sourceV2, prefix),
      now: () => new Date(NOW),
      dryRun: true,
      s3Backend: (c: S3DestinationConfig, context) =>
        createS3Backend(c, context, { clock: { now: () => new Date(Date.now() + HOUR) } }),
    });
    const item = planned.plan.items[0];
    expect(item?.outcome).toBe('replaced');
    const all = item !== undefined && 'outputs' in item ? item.outputs.map((output) => output.path) : [];
    expect(all.length).toBeGreaterThan(2);
    expect(item !== undefined && 'kept' in item ? item.kept : undefined).toEqual(all);
    const writes: string[] = [];
    const after = await runInProcess(sourceV2, prefix, {
      clockOffsetMs: HOUR,
      beforeStep: (step) => {
        if (step.kind === 'put' || step.kind === 'delete') writes.push(step.kind);
      },
    });
    expect(after.outcomes.map((item) => [item.outcome, item.reason])).toEqual([
      ['replaced', 'interrupted_run'],
    ]);
    expect(writes).toEqual(['put', 'put', 'delete']);
    await expectConverged(prefix, 'replace');
  });
});
