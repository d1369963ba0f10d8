// `distribute run --checksum` at an S3 destination, on the test radosgw
// (through the proxy, which counts the requests): an object rewritten by
// someone else with other bytes of the same size is seen only when outputs
// are compared by content; the bundle is then refused and the object left
// as it is. Without the flag no output is read.
import { randomBytes } from 'node:crypto';
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

const ctx = useRgwFixture({ work: 's3-checksum-', bucket: 'checksum', proxy: true, awsEnv: true });

const CLOCK = () => new Date('2026-06-01T00:00:00Z');
const SUMMARY = 'day,sky\nmon,sun\n';
/** As many bytes as SUMMARY, other content. */
const SUMMARY_EDITED = 'day,sky\nmon,fog\n';

function setUp(name: string, files: Readonly<Record<string, string | Uint8Array>> = {}) {
  const dir = mkdtempSync(join(ctx.work, `${name}-`));
  const source = join(dir, 'out');
  writeBundle(source, 'weather/brentwood', {
    id: 'weather.daily.brentwood',
    created: '2026-05-30T11:10:00Z',
    files: { 'report.md': '# Brentwood\n\nSunny.\n', 'summary.csv': SUMMARY, ...files },
  });
  const prefix = `checksum/${name}`;
  const run = runThroughProxy(
    s3Config(ctx.rgw, source, { bucket: ctx.bucket, prefix }),
    ctx.proxy.endpoint,
    CLOCK,
  );
  const bundleKey = (path: string) => `${prefix}/weather/brentwood/${path}`;
  return { dir, prefix, run, bundleKey };
}

/** The requests the proxy sees while `action` runs. */
async function requestsDuring(action: () => Promise<unknown>): Promise<readonly ProxiedRequest[]> {
  const from = ctx.proxy.seen.length;
  await action();
  return ctx.proxy.seen.slice(from);
}

/** GETs of objects under `prefix` (not listings, which name the bucket and a query). */
function objectGets(requests: readonly ProxiedRequest[], prefix: string): string[] {
  return requests
    .filter(
      (req) => req.method === 'GET' && !req.url.includes('list-type') && req.url.includes(`/${prefix}/`),
    )
    .map((req) => decodeURIComponent((req.url.split('?')[0] ?? '').slice(`/${ctx.bucket}/${prefix}/`.length)))
    .sort();
}

const outcomes = (report: Awaited<ReturnType<typeof distributeRun>>) =>
  report.outcomes.map((o) => [o.bundle_dir, o.outcome, o.reason_code ?? '']);

describe('distribute run --checksum, S3 destination', () => {
  it('regression: a same-size rewrite of a published object stays skipped_same without --checksum, and is refused destination_incomplete with it, naming the object', async () => {
    const { prefix, run, bundleKey } = setUp('same-size');
    expect(outcomes(await run())).toEqual([['weather/brentwood', 'published', '']]);
    await putMany(ctx.s3, ctx.bucket, [[bundleKey('summary.csv'), SUMMARY_EDITED]]);
    const before = await readPrefix(ctx.s3, ctx.bucket, `${prefix}/`);

    const bySize = await run();
    expect(outcomes(bySize)).toEqual([['weather/brentwood', 'skipped_same', '']]);
    expect(bySize.plan.outputs_compared_by).toBe('size');

    const byContent = await run({ checksum: true });
    expect(byContent.plan.outputs_compared_by).toBe('sha256');
    expect(outcomes(byContent)).toEqual([['weather/brentwood', 'refused', 'destination_incomplete']]);
    const [item] = byContent.outcomes;
    expect(item?.entry_path).toBe('summary.csv');
    expect(item?.entry_sha256_differs).toBe(true);
    expect(item?.entry_size).toBeUndefined();
    expect(item?.refusal?.hint).toBe(
      `destination 'bucket', bundle 'weather/brentwood': outputs its .distributor.json lists are not as published in 's3://${ctx.bucket}/${prefix}/weather/brentwood/' (the only one: 'summary.csv' has the size it records, but its bytes differ from what sealkit published, so something else wrote over it): sealkit never overwrites what it did not write; put the published object back, or delete every object under 's3://${ctx.bucket}/${prefix}/weather/brentwood/', and the next run publishes it anew`,
    );
    // Nothing written or deleted: every object as it was, the rewritten one with its bytes.
    const after = await readPrefix(ctx.s3, ctx.bucket, `${prefix}/`);
    expect([...after.entries()].map(([key, o]) => [key, o.sha256, o.etag])).toEqual(
      [...before.entries()].map(([key, o]) => [key, o.sha256, o.etag]),
    );
    expect(after.get(bundleKey('summary.csv'))?.bytes.toString('utf8')).toBe(SUMMARY_EDITED);
  });

  it('reads each listed output once with --checksum, and no output without it', async () => {
    const { prefix, run } = setUp('requests');
    await run();
    const bySize = await requestsDuring(() => run());
    // The state alone: sizes come from the listing.
    expect(objectGets(bySize, prefix)).toEqual(['weather/brentwood/.distributor.json']);
    const byContent = await requestsDuring(() => run({ checksum: true }));
    expect(objectGets(byContent, prefix)).toEqual(
      ['.distributor.json', 'report.html', 'report.md', 'summary.csv'].map(
        (name) => `weather/brentwood/${name}`,
      ),
    );
  });

  it('dry run --checksum reads without writing, and plans what the real run then refuses', async () => {
    const { prefix, run, bundleKey } = setUp('dry');
    await run();
    await putMany(ctx.s3, ctx.bucket, [[bundleKey('summary.csv'), SUMMARY_EDITED]]);
    const before = await readPrefix(ctx.s3, ctx.bucket, `${prefix}/`);
    let dry: Awaited<ReturnType<typeof run>> | undefined;
    const requests = await requestsDuring(async () => {
      dry = await run({ checksum: true, dryRun: true });
    });
    expect(requests.filter((req) => req.method !== 'GET' && req.method !== 'HEAD')).toEqual([]);
    expect(dry?.dry_run).toBe(true);
    expect(dry === undefined ? [] : outcomes(dry)).toEqual([
      ['weather/brentwood', 'refused', 'destination_incomplete'],
    ]);
    const real = await run({ checksum: true });
    expect(real.plan).toEqual(dry?.plan);
    const after = await readPrefix(ctx.s3, ctx.bucket, `${prefix}/`);
    expect([...after.entries()].map(([key, o]) => [key, o.etag])).toEqual(
      [...before.entries()].map(([key, o]) => [key, o.etag]),
    );
  });

  it('hashes a large object as it streams, and finds the one byte that changed', async () => {
    const large = randomBytes(6 * 1024 * 1024);
    const { run, bundleKey } = setUp('large', { 'data/large.bin': large });
    await run();
    expect(outcomes(await run({ checksum: true }))).toEqual([['weather/brentwood', 'skipped_same', '']]);
    const edited = Buffer.from(large);
    edited[5_000_000] = (edited[5_000_000] ?? 0) ^ 0x01;
    await putMany(ctx.s3, ctx.bucket, [[bundleKey('data/large.bin'), edited]]);
    const report = await run({ checksum: true });
    expect(outcomes(report)).toEqual([['weather/brentwood', 'refused', 'destination_incomplete']]);
    expect(report.outcomes[0]?.entry_path).toBe('data/large.bin');
  }, 60_000);
});

describe('S3 destination refusals name what to act on', () => {
  it('regression: an S3 hint names the bundle by its pasteable s3:// location and speaks of objects, and counts what it names the first of (was "under the destination\'s prefix", "files or folders")', async () => {
    const { dir, prefix, run, bundleKey } = setUp('location');
    await run();
    await putMany(ctx.s3, ctx.bucket, [
      [bundleKey('summary.csv'), SUMMARY_EDITED],
      [bundleKey('report.md'), '# Brentwood\n\nSunnx.\n'],
    ]);
    const location = `s3://${ctx.bucket}/${prefix}/weather/brentwood/`;
    const [edited] = (await run({ checksum: true })).outcomes;
    expect([edited?.reason_code, edited?.entry_path, edited?.entry_count]).toEqual([
      'destination_incomplete',
      'report.md',
      2,
    ]);
    expect(edited?.refusal?.hint).toContain(
      `not as published in '${location}' (the first of 2: 'report.md' has the size it records`,
    );
    expect(edited?.refusal?.hint).toContain(
      `put the published object back, or delete every object under '${location}', and the next run publishes it anew`,
    );

    // Objects sealkit did not write, once the source is newer: object words, the location, a count.
    await putMany(ctx.s3, ctx.bucket, [
      [bundleKey('report.md'), '# Brentwood\n\nSunny.\n'],
      [bundleKey('summary.csv'), SUMMARY],
      [bundleKey('extra.txt'), 'mine\n'],
      [bundleKey('more/notes.txt'), 'mine\n'],
    ]);
    writeBundle(join(dir, 'out'), 'weather/brentwood', {
      id: 'weather.daily.brentwood',
      created: '2026-05-31T11:10:00Z',
      files: { 'report.md': '# Brentwood\n\nSunny.\n', 'summary.csv': SUMMARY },
    });
    const before = await readPrefix(ctx.s3, ctx.bucket, `${prefix}/`);
    const [unlisted] = (await run()).outcomes;
    expect([unlisted?.reason_code, unlisted?.entry_path, unlisted?.entry_count]).toEqual([
      'destination_unlisted_entry',
      'extra.txt',
      2,
    ]);
    expect(unlisted?.entry_kind).toBeUndefined();
    expect(unlisted?.refusal?.hint).toBe(
      `destination 'bucket', bundle 'weather/brentwood': objects sealkit did not write are under '${location}' (the first of 2: 'extra.txt'), and it never deletes them: move them to keys outside the bundle's folder to let it replace the bundle`,
    );
    expect([...(await readPrefix(ctx.s3, ctx.bucket, `${prefix}/`)).keys()]).toEqual([...before.keys()]);
  });

  it('regression: beside a deleted object, objects sealkit did not write are moved out before every object under the bundle is deleted (the hint said to delete them all)', async () => {
    const { prefix, run, bundleKey } = setUp('beside-missing');
    await run();
    await ctx.s3.send(new DeleteObjectCommand({ Bucket: ctx.bucket, Key: bundleKey('summary.csv') }));
    await putMany(ctx.s3, ctx.bucket, [[bundleKey('extra.txt'), 'mine\n']]);
    const location = `s3://${ctx.bucket}/${prefix}/weather/brentwood/`;
    const [item] = (await run()).outcomes;
    expect([item?.reason_code, item?.entry_path, item?.unlisted_path, item?.unlisted_count]).toEqual([
      'destination_incomplete',
      'summary.csv',
      'extra.txt',
      1,
    ]);
    expect(item?.refusal?.hint).toBe(
      `destination 'bucket', bundle 'weather/brentwood': outputs its .distributor.json lists are gone from '${location}' (the only one: 'summary.csv'): first move what sealkit did not write there (1 object, the first: 'extra.txt') to keys outside it, then delete every object under '${location}', and the next run publishes it anew`,
    );
  });

  it('regression: a rendered page rewritten on S3 is not to be "put back": the next run renders it anew', async () => {
    const { run, bundleKey } = setUp('page');
    await run();
    const key = bundleKey('report.html');
    const page = (await readPrefix(ctx.s3, ctx.bucket, key)).get(key)?.bytes.toString('utf8') ?? '';
    expect(page).toContain('Sunny');
    await putMany(ctx.s3, ctx.bucket, [[key, page.replace('Sunny', 'Sunnx')]]);
    const [item] = (await run({ checksum: true })).outcomes;
    expect([item?.reason_code, item?.entry_path, item?.entry_generated]).toEqual([
      'destination_incomplete',
      'report.html',
      true,
    ]);
    expect(item?.refusal?.hint).toContain(
      "'report.html' is a page sealkit rendered, which no file of the source holds to put back:",
    );
    expect(item?.refusal?.hint).toContain('and the next run renders and publishes it anew');
  });
  it('regression: a hand-edited SHA-256 of a copied object in .distributor.json is destination_state_invalid with and without --checksum (was replaced without it, refused destination_incomplete with it)', async () => {
    const { prefix, run, bundleKey } = setUp('state-digest');
    await run();
    const key = bundleKey('.distributor.json');
    const text = (await readPrefix(ctx.s3, ctx.bucket, key)).get(key)?.bytes.toString('utf8') ?? '';
    const state = JSON.parse(text) as { outputs: { path: string; sha256: string }[] };
    const recorded = state.outputs.find((output) => output.path === 'summary.csv')?.sha256 ?? '';
    expect(recorded).toMatch(/^sha256:[0-9a-f]{64}$/);
    const at = text.indexOf(recorded, text.indexOf('"outputs"'));
    await putMany(ctx.s3, ctx.bucket, [
      [key, `${text.slice(0, at)}sha256:${'0'.repeat(64)}${text.slice(at + recorded.length)}`],
    ]);
    const before = await readPrefix(ctx.s3, ctx.bucket, `${prefix}/`);
    for (const checksum of [false, true]) {
      const [item] = (await run({ checksum })).outcomes;
      expect(item?.reason_code).toBe('destination_state_invalid');
      expect(item?.refusal?.hint).toContain('is not the SHA-256 source.manifest records for its source_path');
    }
    const after = await readPrefix(ctx.s3, ctx.bucket, `${prefix}/`);
    expect([...after.entries()].map(([k, o]) => [k, o.etag])).toEqual(
      [...before.entries()].map(([k, o]) => [k, o.etag]),
    );
  });
});
