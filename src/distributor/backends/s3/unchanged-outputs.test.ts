// A replacement at an S3 destination sends only the outputs that changed,
// on the test radosgw through the proxy, which sees every request: an
// output whose path, SHA-256 and size are those the published state
// records stays as it is, as a bundle that did not change does.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { DeleteObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import {
  putMany,
  readPrefix,
  runThroughProxy,
  s3Config,
  useRgwFixture,
  writeBundle,
} from '../../../../test/helpers/distributor-s3.js';
import type { ProxiedRequest } from '../../../../test/helpers/s3-proxy.js';
import type { distributeRun } from '../../run/run.js';

const ctx = useRgwFixture({ work: 's3-unchanged-', bucket: 'unchanged', proxy: true, awsEnv: true });

const CLOCK = () => new Date('2026-06-01T00:00:00Z');
const DATA = randomBytes(300 * 1024);
const REPORT = '# Brentwood\n\nSunny all week.\n';
/** What a publication that sends every output puts: each output, the pending marker, the state. */
const EVERY_PUT = [
  '.distributor.json',
  '.distributor.pending.json',
  'data.bin',
  'report.html',
  'report.md',
  'summary.csv',
];

function setUp(name: string) {
  const dir = mkdtempSync(join(ctx.work, `${name}-`));
  const source = join(dir, 'out');
  // Each version of the bundle is newer than the one before, as a producer's would be.
  let version = 0;
  const write = (summary: string, data: Uint8Array = DATA) =>
    writeBundle(source, 'weather/brentwood', {
      id: 'weather.daily.brentwood',
      created: `2026-05-30T11:1${version++}:00Z`,
      files: { 'report.md': REPORT, 'data.bin': data, 'summary.csv': summary },
    });
  const prefix = `unchanged/${name}`;
  const run = runThroughProxy(
    s3Config(ctx.rgw, source, { bucket: ctx.bucket, prefix }),
    ctx.proxy.endpoint,
    CLOCK,
  );
  const bundleKey = (path: string) => `${prefix}/weather/brentwood/${path}`;
  return { prefix, write, run, bundleKey };
}

/** The keys of the bundle under `prefix` PUT while `action` runs, relative to it (not the store's probe). */
async function putsDuring(prefix: string, action: () => Promise<unknown>): Promise<string[]> {
  const from = ctx.proxy.seen.length;
  await action();
  return ctx.proxy.seen
    .slice(from)
    .filter(
      (req: ProxiedRequest) => req.method === 'PUT' && req.url.includes(`/${prefix}/weather/brentwood/`),
    )
    .map((req) =>
      decodeURIComponent(
        (req.url.split('?')[0] ?? '').slice(`/${ctx.bucket}/${prefix}/weather/brentwood/`.length),
      ),
    )
    .sort();
}

const outcomes = (report: Awaited<ReturnType<typeof distributeRun>>) =>
  report.outcomes.map((o) => [o.bundle_dir, o.outcome, o.reason_code ?? '']);
const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');

describe('replacing a bundle at S3', () => {
  it('sends only the outputs that changed; the others keep their objects', async () => {
    const { prefix, write, run, bundleKey } = setUp('one-changed');
    write('day,sky\nmon,sun\n');
    expect(outcomes(await run())).toEqual([['weather/brentwood', 'published', '']]);
    const before = await readPrefix(ctx.s3, ctx.bucket, `${prefix}/`);

    write('day,sky\nmon,sun\ntue,rain\n');
    // regression: the dry run said every output would be written.
    const planned = (await run({ dryRun: true })).plan.items[0];
    expect(planned !== undefined && 'kept' in planned ? planned.kept : undefined).toEqual([
      'data.bin',
      'report.html',
      'report.md',
    ]);
    let report: Awaited<ReturnType<typeof run>> | undefined;
    const puts = await putsDuring(prefix, async () => {
      report = await run();
    });
    expect(report === undefined ? [] : outcomes(report)).toEqual([['weather/brentwood', 'replaced', '']]);
    // The marker, the one changed output, the state: not data.bin, report.md or its page.
    expect(puts).toEqual(['.distributor.json', '.distributor.pending.json', 'summary.csv']);
    const after = await readPrefix(ctx.s3, ctx.bucket, `${prefix}/`);
    for (const path of ['data.bin', 'report.md', 'report.html'])
      expect(after.get(bundleKey(path))?.etag).toBe(before.get(bundleKey(path))?.etag);
    expect(after.get(bundleKey('summary.csv'))?.bytes.toString('utf8')).toBe('day,sky\nmon,sun\ntue,rain\n');
    expect(sha256(after.get(bundleKey('data.bin'))?.bytes ?? '')).toBe(sha256(DATA));
    // The next run finds exactly what it planned.
    expect(outcomes(await run({ checksum: true }))).toEqual([['weather/brentwood', 'skipped_same', '']]);
  });

  it('refuses, sending nothing, when an output it would keep was written over (seen with --checksum)', async () => {
    const { prefix, write, run, bundleKey } = setUp('written-over');
    write('day,sky\nmon,sun\n');
    expect(outcomes(await run())).toEqual([['weather/brentwood', 'published', '']]);
    // Someone rewrites data.bin with other bytes of the same size.
    await putMany(ctx.s3, ctx.bucket, [[bundleKey('data.bin'), randomBytes(DATA.length)]]);
    write('day,sky\nmon,fog\ntue,rain\n');
    // Compared by content the bundle is refused, nothing written (sealkit never overwrites
    // what it did not write); compared by size the replacement keeps that object, as a
    // bundle compared by size is skipped_same.
    const puts = await putsDuring(prefix, async () => {
      expect(outcomes(await run({ checksum: true }))).toEqual([
        ['weather/brentwood', 'refused', 'destination_incomplete'],
      ]);
    });
    expect(puts).toEqual([]);
  });

  it('sends every output again when an output the state lists is missing (the replacement repairs it)', async () => {
    const { prefix, write, run, bundleKey } = setUp('one-missing');
    write('day,sky\nmon,sun\n');
    expect(outcomes(await run())).toEqual([['weather/brentwood', 'published', '']]);
    await ctx.s3.send(new DeleteObjectCommand({ Bucket: ctx.bucket, Key: bundleKey('report.md') }));
    write('day,sky\nmon,sun\ntue,rain\n');
    // The dry run says so too: nothing kept.
    const planned = (await run({ dryRun: true })).plan.items[0];
    expect(planned?.outcome).toBe('replaced');
    expect(planned !== undefined && 'kept' in planned ? planned.kept : undefined).toBeUndefined();
    let report: Awaited<ReturnType<typeof run>> | undefined;
    const puts = await putsDuring(prefix, async () => {
      report = await run();
    });
    expect(report === undefined ? [] : outcomes(report)).toEqual([['weather/brentwood', 'replaced', '']]);
    expect(puts).toEqual(EVERY_PUT);
    expect(outcomes(await run({ checksum: true }))).toEqual([['weather/brentwood', 'skipped_same', '']]);
  });

  it('sends every output of a first publication, then each output that changed', async () => {
    const { prefix, write, run } = setUp('two-changed');
    write('day,sky\nmon,sun\n');
    expect(await putsDuring(prefix, () => run())).toEqual(EVERY_PUT);
    write('day,sky\nmon,fog\n', randomBytes(DATA.length));
    expect(await putsDuring(prefix, () => run())).toEqual([
      '.distributor.json',
      '.distributor.pending.json',
      'data.bin',
      'summary.csv',
    ]);
  });
});
