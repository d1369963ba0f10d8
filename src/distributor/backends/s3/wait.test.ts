// `--wait` at an S3 destination: a bundle whose pending marker another run
// holds is looked at again every second until that run has deleted its
// marker or its lease has ended, within the run's one deadline; past it the
// bundle is refused `destination_locked` as without `--wait`. On a real
// radosgw, with the other run's marker written as that run writes it.
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DeleteObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import {
  type BundleSpec,
  listKeys,
  s3Config,
  useRgwFixture,
  writeBundle,
} from '../../../../test/helpers/distributor-s3.js';
import { instantOf } from '../../model/instant.js';
import type { RunReport } from '../../run/report.js';
import { type DistributeRunOptions, distributeRun, type ProgressEvent } from '../../run/run.js';
import { createS3Backend } from './lazy.js';

const ctx = useRgwFixture({ work: 's3-wait-', bucket: 'wait', awsEnv: true });

const DIR = 'daily/brentwood';
const v1: BundleSpec = {
  id: 'weather.daily.brentwood',
  created: '2026-05-30T11:10:00Z',
  files: { 'report.md': '# Brentwood\n\nSunny.\n' },
};
const PUBLISHED = ['.distributor.json', 'report.html', 'report.md'];

let counter = 0;
/** A fresh source holding `v1`, a fresh prefix, and a run over them that records its `wait` progress. */
function fixture() {
  counter += 1;
  const source = mkdtempSync(join(ctx.work, `src-${counter}-`));
  writeBundle(source, DIR, v1);
  const prefix = `case-${counter}`;
  const key = (name: string) => `${prefix}/${DIR}/${name}`;
  const waits: ProgressEvent[] = [];
  const run = (
    options: Pick<DistributeRunOptions, 'waitMs' | 'signal' | 's3Backend' | 'dryRun'> = {},
  ): Promise<RunReport> =>
    distributeRun({
      config: s3Config(ctx.rgw, source, { bucket: ctx.bucket, prefix, id: 's3' }),
      ...options,
      onProgress: (event) => {
        if (event.phase === 'wait') waits.push(event);
      },
    });
  const stored = async () =>
    (await listKeys(ctx.s3, ctx.bucket, `${prefix}/${DIR}/`)).map((k) => k.slice(key('').length));
  return { key, run, stored, waits };
}

/** The marker another run writes when it starts on the bundle, its lease ending `leaseMs` from now. */
async function markerOfAnotherRun(key: string, leaseMs: number): Promise<void> {
  const expires = instantOf(new Date(Date.now() + leaseMs));
  await ctx.s3.send(
    new PutObjectCommand({
      Bucket: ctx.bucket,
      Key: key,
      Body: `{"claims":[{"path":"report.md","sha256":["sha256:${'a'.repeat(64)}"]}],"expires":"${expires}","run":"0123456789abcdef0123456789abcdef","schema_version":2}\n`,
      IfNoneMatch: '*',
    }),
  );
}

/**
 * The S3 backend, with `act` run once before its first write: what another
 * run does between this run's inspection and its apply.
 */
function beforeFirstApply(act: () => Promise<void>): NonNullable<DistributeRunOptions['s3Backend']> {
  let done = false;
  return (config, context) => {
    const real = createS3Backend(config, context);
    return {
      ...real,
      apply: async (write, source, applyContext) => {
        if (!done) {
          done = true;
          await act();
        }
        return real.apply(write, source, applyContext);
      },
    };
  };
}

const outcomeOf = (report: RunReport) => [report.outcomes[0]?.outcome, report.outcomes[0]?.reason_code];

describe('S3 destination: --wait for a bundle another run holds', () => {
  it('regression: --wait publishes the bundle once the run holding it deletes its marker', async () => {
    const { key, run, stored, waits } = fixture();
    await markerOfAnotherRun(key('.distributor.pending.json'), 95_000);
    // The other run finishes about 1.5 s after this one began to wait, and
    // deletes its marker. Counted from the first wait, not from the start:
    // on a busy machine this run's first look came after a fixed 1.5 s, found
    // no marker, and the test saw no wait at all.
    const released = (async () => {
      for (let polls = 0; waits.length === 0 && polls < 600; polls += 1) await sleep(50);
      await sleep(1500);
      await ctx.s3.send(
        new DeleteObjectCommand({ Bucket: ctx.bucket, Key: key('.distributor.pending.json') }),
      );
    })();
    const started = Date.now();
    const report = await run({ waitMs: 30_000 });
    await released;
    expect(outcomeOf(report)).toEqual(['published', undefined]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1500);
    expect(await stored()).toEqual(PUBLISHED);
    // The terminal said which destination it waited for, against the run's whole wait.
    expect(waits.length).toBeGreaterThan(0);
    expect(waits.every((event) => event.destination_id === 's3' && event.total === 30)).toBe(true);
    // And the report says how long, for a log kept of the run.
    expect(report.waited).toEqual([
      { pipeline_id: expect.any(String), destination_id: 's3', waited_ms: expect.any(Number) },
    ]);
    expect(report.waited?.[0]?.waited_ms).toBeGreaterThanOrEqual(1500);
  });

  it('regression: --wait outlasts the lease of a run that died, then publishes', async () => {
    const { key, run, stored } = fixture();
    await markerOfAnotherRun(key('.distributor.pending.json'), 2000);
    const started = Date.now();
    const report = await run({ waitMs: 30_000 });
    expect(outcomeOf(report)).toEqual(['published', undefined]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1500);
    expect(await stored()).toEqual(PUBLISHED);
  });

  it('regression: a wait that runs out refuses the bundle destination_locked at its deadline, not the lease', async () => {
    const { key, run, stored, waits } = fixture();
    await markerOfAnotherRun(key('.distributor.pending.json'), 95_000);
    const started = Date.now();
    const report = await run({ waitMs: 1500 });
    const took = Date.now() - started;
    expect(outcomeOf(report)).toEqual(['refused', 'destination_locked']);
    expect(took).toBeGreaterThanOrEqual(1400);
    expect(took).toBeLessThan(20_000);
    expect(report.outcomes[0]?.refusal?.hint).toMatch(
      /unless that run renews it\), still after this run's --wait \(2 s\): run again once that run is done, or with a --wait longer than what is left of the lease if it died$/,
    );
    expect(waits.length).toBeGreaterThan(0);
    expect(await stored()).toEqual(['.distributor.pending.json']);
  });

  it('regression: without --wait a held bundle is refused at once', async () => {
    const { key, run, waits } = fixture();
    await markerOfAnotherRun(key('.distributor.pending.json'), 95_000);
    const started = Date.now();
    const report = await run();
    expect(outcomeOf(report)).toEqual(['refused', 'destination_locked']);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(waits).toEqual([]);
    expect(report.outcomes[0]?.refusal?.hint).toMatch(
      /run again once that run is done, or after the lease if it died \(--wait SECONDS waits up to that long for it\)$/,
    );
  });

  it('regression: a dry run under --wait says what a real run would do, not to pass --wait', async () => {
    const { key, run, stored, waits } = fixture();
    await markerOfAnotherRun(key('.distributor.pending.json'), 95_000);
    const started = Date.now();
    const report = await run({ dryRun: true, waitMs: 120_000 });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(outcomeOf(report)).toEqual(['refused', 'destination_locked']);
    expect(report.outcomes[0]?.refusal?.hint).toMatch(
      /unless that run renews it\); a dry run does not wait for it, and a real run with this --wait \(120 s\) would look at the bundle again every second, past the end of the lease: the bundle is then published from what that run left, or taken over if it died$/,
    );
    // A wait shorter than what is left of the lease would not outlast it.
    const shorter = await run({ dryRun: true, waitMs: 30_000 });
    expect(shorter.outcomes[0]?.refusal?.hint).toMatch(
      /would look at the bundle again every second, and its wait ends before the lease does: unless that run finishes first, it refuses the bundle too$/,
    );
    expect(waits).toEqual([]);
    expect(await stored()).toEqual(['.distributor.pending.json']);
  });

  it('regression: a signal during the wait stops the run at once, before any write', async () => {
    const { key, run, stored } = fixture();
    await markerOfAnotherRun(key('.distributor.pending.json'), 95_000);
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 700);
    const started = Date.now();
    await expect(run({ waitMs: 60_000, signal: stop.signal })).rejects.toMatchObject({
      code: 'run_interrupted',
    });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await stored()).toEqual(['.distributor.pending.json']);
  });

  it('regression: a run that takes the bundle after this one looked is waited for, and its wait said spent', async () => {
    const { key, run, stored } = fixture();
    // The other run writes its marker after this run's inspection, while this
    // run validates its sources: this run's own marker write then loses, and
    // the run waits for that run's lease (95 s) until its own --wait ends.
    const started = Date.now();
    const report = await run({
      waitMs: 3000,
      s3Backend: beforeFirstApply(() => markerOfAnotherRun(key('.distributor.pending.json'), 95_000)),
    });
    expect(outcomeOf(report)).toEqual(['refused', 'destination_locked']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2500);
    expect(report.outcomes[0]?.refusal?.hint).toMatch(
      /unless that run renews it\), still after this run's --wait \(3 s\): run again once that run is done, or with a --wait longer than what is left of the lease if it died$/,
    );
    // Nothing of this run was written: the other run's marker alone.
    expect(await stored()).toEqual(['.distributor.pending.json']);
  });

  it('regression: two runs started together with --wait converge: one publishes, the other finds it published', async () => {
    const { run, stored } = fixture();
    let other: RunReport | undefined;
    // The other run starts on the bundle after this run had inspected it and
    // publishes it before this run writes anything: this run's create-only
    // writes then lose, and it plans the bundle again from what that run left.
    const report = await run({
      waitMs: 60_000,
      s3Backend: beforeFirstApply(async () => {
        other = await run({ waitMs: 60_000 });
      }),
    });
    expect(other === undefined ? undefined : outcomeOf(other)).toEqual(['published', undefined]);
    expect(outcomeOf(report)).toEqual(['skipped_same', undefined]);
    expect(report.plan.items[0]?.outcome).toBe('skipped_same');
    expect(await stored()).toEqual(PUBLISHED);
    // Regression: the run that lost the race waited (a pause and a fresh look) and said nothing of it.
    expect(report.waited?.[0]?.waited_ms).toBeGreaterThanOrEqual(1000);
  });

  it('regression: a race lost to a run that then died is waited out, and the bundle published', async () => {
    const { key, run, stored } = fixture();
    const started = Date.now();
    const report = await run({
      waitMs: 60_000,
      s3Backend: beforeFirstApply(() => markerOfAnotherRun(key('.distributor.pending.json'), 2000)),
    });
    expect(outcomeOf(report)).toEqual(['published', undefined]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1500);
    expect(await stored()).toEqual(PUBLISHED);
    expect(report.waited).toEqual([
      { pipeline_id: expect.any(String), destination_id: 's3', waited_ms: expect.any(Number) },
    ]);
    expect(report.waited?.[0]?.waited_ms).toBeGreaterThanOrEqual(1000);
  });
});
