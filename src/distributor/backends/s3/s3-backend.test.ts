// The S3 backend against a real S3 implementation (Ceph RGW on 127.0.0.1),
// driven through the distributor's library run: discovery, validation, the
// pure planner and this backend, exactly as `sealkit distribute run` does.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { DeleteObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import {
  type BundleSpec,
  listKeys,
  putMany,
  readPrefix,
  s3Config,
  useRgwFixture,
  writeBundle,
} from '../../../../test/helpers/distributor-s3.js';
import { scanBytes } from '../../../../test/helpers/sentinels.js';
import type { S3DestinationConfig } from '../../config/types.js';
import { parseState } from '../../model/state.js';
import { distributeRun } from '../../run/run.js';
import { createS3Backend } from './index.js';

const ctx = useRgwFixture({ work: 's3-backend-', bucket: 'dist', awsEnv: true });

const NOW = new Date('2026-06-01T12:00:00Z');
/** The digest of the one-byte body 'x' the crashed-run fixtures put at every claimed key. */
const X_DIGEST = `sha256:${createHash('sha256').update('x').digest('hex')}`;
let counter = 0;

/** A fresh source root and destination prefix per test. */
type Outputs = { source?: boolean; html?: boolean; assets?: boolean; lang?: string };

function fixture(destination: Outputs = {}) {
  counter += 1;
  const source = mkdtempSync(join(ctx.work, `src-${counter}-`));
  const prefix = `site-${counter}/reports`;
  const config = s3Config(ctx.rgw, source, { bucket: ctx.bucket, prefix, ...destination });
  const run = (options: { dryRun?: boolean; outputs?: Outputs } = {}) =>
    distributeRun({
      config:
        options.outputs === undefined
          ? config
          : s3Config(ctx.rgw, source, { bucket: ctx.bucket, prefix, ...options.outputs }),
      ...(options.dryRun === undefined ? {} : { dryRun: options.dryRun }),
      now: () => NOW,
      s3Backend: (c: S3DestinationConfig, context) => createS3Backend(c, context),
    });
  return { source, prefix, config, run };
}

/**
 * What a crashed run of ours leaves at `bundle`: 1,200 one-byte objects and
 * its expired pending marker claiming them, written with `others` beside.
 */
async function plantCrashedRun(bundle: string, others: readonly (readonly [string, string])[] = []) {
  const claimed = Array.from({ length: 1200 }, (_, i) => `part-${String(i).padStart(4, '0')}.txt`);
  const marker = {
    claims: claimed.map((path) => ({ path, sha256: [X_DIGEST] })),
    expires: '2026-01-01T00:00:00Z',
    run: '0123456789abcdef0123456789abcdef',
    schema_version: 2,
  };
  await putMany(ctx.s3, ctx.bucket, [
    ...claimed.map((name) => [`${bundle}/${name}`, 'x'] as const),
    [`${bundle}/.distributor.pending.json`, `${JSON.stringify(marker)}\n`],
    ...others,
  ]);
}

const daily = (created: string, summary = 'all clear\n'): BundleSpec => ({
  id: 'weather.daily.brentwood',
  created,
  files: { 'report.md': '# Brentwood\n\nSunny, *22 °C*.\n', 'summary.txt': summary },
});

describe('S3 destination: the six outcomes on a real radosgw', () => {
  it('regression: a page linking into a folder in no bundle of the run is named when the bucket holds nothing there (was never checked)', async () => {
    const { source, prefix, run } = fixture({ source: false, html: true });
    writeBundle(source, 'sales/W02', {
      id: 'W02',
      created: '2026-05-30T11:10:00Z',
      files: {
        'report.md':
          '# W02\n\n[last week](../W01/report.md), [typo](../W0/report.md), [older](../W00/), [guide](../W01/guide)\n',
      },
    });
    // Last week's bundle was published before and has left the source since: its page is there.
    // Regression: its folder linked without the slash (guide) was looked up as an object alone, and named.
    await putMany(ctx.rgw.client(), ctx.bucket, [
      [`${prefix}/sales/W01/report.html`, '<!DOCTYPE html>'],
      [`${prefix}/sales/W01/guide/index.html`, '<!DOCTYPE html>'],
    ]);
    const report = await run({ dryRun: true });
    expect(report.plan.items[0]?.outcome).toBe('published');
    const warnings = report.plan.items[0]?.outcome === 'published' ? report.plan.items[0].link_warnings : [];
    expect(warnings?.map((warning) => [warning.href, warning.problem])).toEqual([
      ['../W0/report.html', 'not_at_destination'],
      ['../W00/', 'not_at_destination'],
    ]);
  });

  it('publishes outputs first and .distributor.json last, leaves no marker, then skips the same manifest', async () => {
    const { source, prefix, run } = fixture();
    writeBundle(source, 'brentwood/2026-05-30', daily('2026-05-30T11:10:00Z'));
    writeBundle(source, 'leeds/2026-05-30', { ...daily('2026-05-30T11:10:00Z'), id: 'weather.daily.leeds' });

    const first = await run();
    expect(first.outcomes.map((o) => [o.bundle_dir, o.outcome])).toEqual([
      ['brentwood/2026-05-30', 'published'],
      ['leeds/2026-05-30', 'published'],
    ]);
    const stored = await readPrefix(ctx.s3, ctx.bucket, `${prefix}/`);
    const bundle = `${prefix}/brentwood/2026-05-30`;
    expect([...stored.keys()].filter((key) => key.startsWith(`${bundle}/`)).sort()).toEqual([
      `${bundle}/.distributor.json`,
      `${bundle}/report.html`,
      `${bundle}/report.md`,
      `${bundle}/summary.txt`,
    ]);
    const state = parseState(stored.get(`${bundle}/.distributor.json`)?.bytes ?? Buffer.alloc(0));
    expect(state.published_at).toBe('2026-06-01T12:00:00Z');
    expect(state.destination_id).toBe('bucket');
    for (const output of state.outputs) {
      const object = stored.get(`${bundle}/${output.path}`);
      expect(`sha256:${object?.sha256}`).toBe(output.sha256);
      expect(object?.bytes.length).toBe(output.size);
    }
    expect(stored.get(`${bundle}/report.html`)?.contentType).toBe('text/html; charset=utf-8');
    expect(stored.get(`${bundle}/report.html`)?.bytes.toString('utf8')).toContain(
      '<h1 id="brentwood">Brentwood</h1>',
    );

    const second = await run();
    expect(second.outcomes.map((o) => o.outcome)).toEqual(['skipped_same', 'skipped_same']);
    const after = await readPrefix(ctx.s3, ctx.bucket, `${prefix}/`);
    expect([...after].map(([key, o]) => [key, o.etag])).toEqual([...stored].map(([key, o]) => [key, o.etag]));
  });

  it('replaces an older publication, deleting only the outputs its state listed', async () => {
    const { source, prefix, run } = fixture();
    const dir = 'brentwood/2026-05-30';
    writeBundle(source, dir, daily('2026-05-30T11:10:00Z'));
    expect((await run()).outcomes[0]?.outcome).toBe('published');
    const bundle = `${prefix}/${dir}`;
    // Someone else's objects next to the bundle and under a longer sibling name.
    await putMany(ctx.s3, ctx.bucket, [
      [`${prefix}/brentwood/2026-05-300/x.txt`, 'sibling'],
      [`${prefix}/brentwood/2026-05-30`, 'bare key'],
      [`${prefix}/brentwood/notes.txt`, 'parent'],
    ]);

    rmSync(join(source, dir), { recursive: true });
    writeBundle(source, dir, {
      id: 'weather.daily.brentwood',
      created: '2026-05-30T12:00:00Z',
      files: { 'summary.txt': 'rain later\n', 'data/obs.csv': 'hour,temp\n12,19\n' },
    });
    const report = await run();
    expect(report.outcomes[0]?.outcome).toBe('replaced');
    const keys = await listKeys(ctx.s3, ctx.bucket, `${prefix}/`);
    expect(keys.sort()).toEqual(
      [
        `${bundle}/.distributor.json`,
        `${bundle}/data/obs.csv`,
        `${bundle}/summary.txt`,
        `${prefix}/brentwood/2026-05-30`,
        `${prefix}/brentwood/2026-05-300/x.txt`,
        `${prefix}/brentwood/notes.txt`,
      ].sort(),
    );
  });

  it('regression: turning html and assets on republishes a published bundle (outputs_changed), then skips', async () => {
    const { source, prefix, run } = fixture({ source: true, html: false });
    const dir = 'sales/week-22';
    writeBundle(source, dir, {
      id: 'sales.week-22',
      created: '2026-05-30T11:10:00Z',
      files: {
        'report.md': '# Week 22\n\n![chart](chart.svg) and the [notes](notes.md).\n',
        'notes.md': '# Notes\n',
        'chart.svg': '<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>',
      },
    });
    expect((await run()).outcomes.map((o) => o.outcome)).toEqual(['published']);
    const bundle = `${prefix}/${dir}`;
    const site = { source: false, html: true, assets: true, lang: 'en' };
    const changed = await run({ outputs: site });
    expect(changed.outcomes.map((o) => [o.outcome, o.reason ?? ''])).toEqual([
      ['replaced', 'outputs_changed'],
    ]);
    const stored = await readPrefix(ctx.s3, ctx.bucket, `${prefix}/`);
    // The Markdown copies the old state listed are gone; pages and the asset are there; no marker is left.
    expect([...stored.keys()].sort()).toEqual(
      [
        `${bundle}/.distributor.json`,
        `${bundle}/chart.svg`,
        `${bundle}/notes.html`,
        `${bundle}/report.html`,
      ].sort(),
    );
    expect(stored.get(`${bundle}/chart.svg`)?.contentType).toBe('image/svg+xml');
    const page = stored.get(`${bundle}/report.html`)?.bytes.toString('utf8') ?? '';
    expect(page).toContain('<html lang="en">');
    expect(page).toContain('<a href="notes.html">notes</a>');
    const state = parseState(stored.get(`${bundle}/.distributor.json`)?.bytes ?? new Uint8Array());
    expect(state.outputs.map((o) => [o.path, o.kind])).toEqual([
      ['chart.svg', 'source'],
      ['notes.html', 'generated'],
      ['report.html', 'generated'],
    ]);
    const again = await run({ outputs: site });
    expect(again.outcomes.map((o) => o.outcome)).toEqual(['skipped_same']);
    const after = await readPrefix(ctx.s3, ctx.bucket, `${prefix}/`);
    expect([...after].map(([key, o]) => [key, o.etag])).toEqual([...stored].map(([key, o]) => [key, o.etag]));
  });

  it('skips when the destination is newer, and reports both conflicts', async () => {
    const { source, run } = fixture();
    const dir = 'brentwood/2026-05-30';
    writeBundle(source, dir, daily('2026-05-30T12:00:00Z'));
    expect((await run()).outcomes[0]?.outcome).toBe('published');

    rmSync(join(source, dir), { recursive: true });
    writeBundle(source, dir, daily('2026-05-30T11:00:00Z', 'older\n'));
    expect((await run()).outcomes[0]?.outcome).toBe('skipped_newer');

    rmSync(join(source, dir), { recursive: true });
    writeBundle(source, dir, daily('2026-05-30T12:00:00Z', 'same created, other bytes\n'));
    const same = await run();
    expect([same.outcomes[0]?.outcome, same.outcomes[0]?.reason_code]).toEqual([
      'conflict',
      'conflict_same_created',
    ]);

    rmSync(join(source, dir), { recursive: true });
    writeBundle(source, dir, { ...daily('2026-05-30T13:00:00Z'), id: 'weather.daily.other' });
    const other = await run();
    expect([other.outcomes[0]?.outcome, other.outcomes[0]?.reason_code]).toEqual([
      'conflict',
      'conflict_different_id',
    ]);
    expect(other.status).toBe('refused');
  });

  it('refuses a prefix holding objects without state as unmanaged, and writes nothing there', async () => {
    const { source, prefix, run } = fixture();
    writeBundle(source, 'brentwood/2026-05-30', daily('2026-05-30T11:10:00Z'));
    await putMany(ctx.s3, ctx.bucket, [[`${prefix}/brentwood/2026-05-30/index.html`, 'hand-made']]);
    const report = await run();
    expect([report.outcomes[0]?.outcome, report.outcomes[0]?.reason_code]).toEqual([
      'refused',
      'destination_unmanaged',
    ]);
    expect(await listKeys(ctx.s3, ctx.bucket, `${prefix}/`)).toEqual([
      `${prefix}/brentwood/2026-05-30/index.html`,
    ]);
  });

  it('regression: objects under a longer sibling prefix (a/bc) or at the bare bundle key do not make a/b unmanaged', async () => {
    const { source, prefix, run } = fixture();
    writeBundle(source, 'a/b', daily('2026-05-30T11:10:00Z'));
    await putMany(ctx.s3, ctx.bucket, [
      [`${prefix}/a/bc/report.md`, 'sibling'],
      [`${prefix}/a/b`, 'bare key'],
    ]);
    expect((await run()).outcomes[0]?.outcome).toBe('published');
  });

  it('a --dry-run inspects and plans but writes nothing', async () => {
    const { source, prefix, run } = fixture();
    writeBundle(source, 'brentwood/2026-05-30', daily('2026-05-30T11:10:00Z'));
    const report = await run({ dryRun: true });
    expect(report.dry_run).toBe(true);
    expect(report.outcomes[0]?.outcome).toBe('published');
    expect(await listKeys(ctx.s3, ctx.bucket, `${prefix}/`)).toEqual([]);
  });

  it('regression: a --dry-run refuses destination_locked, as the run does, a bundle whose marker another run holds (it said published); one that run already committed stays skipped_same', async () => {
    const { source, prefix, run } = fixture();
    writeBundle(source, 'brentwood/2026-05-29', daily('2026-05-29T11:10:00Z'));
    expect((await run()).outcomes.map((o) => o.outcome)).toEqual(['published']);
    writeBundle(source, 'brentwood/2026-05-30', daily('2026-05-30T11:10:00Z'));
    // Another run's live marker on each: one bundle it is publishing, one it has committed.
    const marker = `${JSON.stringify({ claims: [], expires: '2099-01-01T00:00:00Z', run: 'ffffffffffffffffffffffffffffffff', schema_version: 2 })}\n`;
    await putMany(ctx.s3, ctx.bucket, [
      [`${prefix}/brentwood/2026-05-29/.distributor.pending.json`, marker],
      [`${prefix}/brentwood/2026-05-30/.distributor.pending.json`, marker],
    ]);
    const before = await listKeys(ctx.s3, ctx.bucket, `${prefix}/`);
    const outcomes = (report: Awaited<ReturnType<typeof run>>) =>
      report.outcomes.map((o) => [o.bundle_dir, o.outcome, o.reason_code ?? '']);
    const expected = [
      ['brentwood/2026-05-29', 'skipped_same', ''],
      ['brentwood/2026-05-30', 'refused', 'destination_locked'],
    ];
    const dry = await run({ dryRun: true });
    expect(outcomes(dry)).toEqual(expected);
    expect(dry.outcomes[1]?.refusal?.hint).toContain(
      "another run is publishing it (its pending marker's lease ends at 2099-01-01T00:00:00Z",
    );
    expect(outcomes(await run())).toEqual(expected);
    expect(await listKeys(ctx.s3, ctx.bucket, `${prefix}/`)).toEqual(before);
  });

  it('refuses a .distributor.json sealkit did not write as destination_state_invalid', async () => {
    const { source, prefix, run } = fixture();
    writeBundle(source, 'brentwood/2026-05-30', daily('2026-05-30T11:10:00Z'));
    await putMany(ctx.s3, ctx.bucket, [
      [`${prefix}/brentwood/2026-05-30/.distributor.json`, '{"schema_version":1}'],
    ]);
    const report = await run();
    expect(report.outcomes[0]?.reason_code).toBe('destination_state_invalid');
  });

  it('regression: a state sealkit did not write on S3 is set aside by its objects, not by moving a folder (the hint said to move the bundle folder away)', async () => {
    const { source, prefix, run } = fixture();
    writeBundle(source, 'brentwood/2026-05-30', daily('2026-05-30T11:10:00Z'));
    await putMany(ctx.s3, ctx.bucket, [
      [`${prefix}/brentwood/2026-05-30/.distributor.json`, '{"schema_version":1}'],
    ]);
    const report = await run();
    expect(report.outcomes[0]?.refusal?.hint).toBe(
      `destination 'bucket', bundle 'brentwood/2026-05-30': 's3://${ctx.bucket}/${prefix}/brentwood/2026-05-30/.distributor.json' is not one sealkit wrote: no key 'pipeline_id' at line 1, column 1; restore the file sealkit wrote, or move or delete every object under 's3://${ctx.bucket}/${prefix}/brentwood/2026-05-30/', and the next run publishes it anew`,
    );
  });
});

describe('S3 destination: listings longer than one page (> 1,000 keys)', () => {
  it('publishes a bundle of 1,100 files and recognises it on the rerun (every page read)', async () => {
    const { source, prefix, run } = fixture({ html: false });
    const files: Record<string, string> = {};
    for (let i = 0; i < 1100; i++) files[`rows/${String(i).padStart(4, '0')}.csv`] = `id\n${i}\n`;
    writeBundle(source, 'big', { id: 'big', created: '2026-05-30T11:10:00Z', files });
    expect((await run()).outcomes[0]?.outcome).toBe('published');
    expect(await listKeys(ctx.s3, ctx.bucket, `${prefix}/big/`)).toHaveLength(1101);
    expect((await run()).outcomes[0]?.outcome).toBe('skipped_same');
  });

  it('regression: a foreign object sorted after the first 1,000 keys still makes the prefix unmanaged', async () => {
    const { source, prefix, run } = fixture();
    writeBundle(source, 'bulk', daily('2026-05-30T11:10:00Z'));
    // 1,200 objects of a crashed run of ours, named by its (expired) pending marker...
    await plantCrashedRun(`${prefix}/bulk`);
    const dry = await run({ dryRun: true });
    expect(dry.outcomes[0]?.outcome).toBe('published');
    const plannedResidue =
      dry.plan.items[0] && 'residue' in dry.plan.items[0] ? dry.plan.items[0].residue : [];
    expect(plannedResidue).toHaveLength(1200);

    // ...plus one object nobody claimed, on the second page of the listing.
    await ctx.s3.send(
      new PutObjectCommand({ Bucket: ctx.bucket, Key: `${prefix}/bulk/zz-foreign.txt`, Body: 'foreign' }),
    );
    const report = await run();
    expect(report.outcomes[0]?.reason_code).toBe('destination_unmanaged');
    // regression: the object no run of ours wrote is named, as a local destination's entry is
    expect(report.outcomes[0]?.entry_path).toBe('zz-foreign.txt');
    expect(await listKeys(ctx.s3, ctx.bucket, `${prefix}/bulk/`)).toHaveLength(1202);
  });

  it('converges a prefix holding 1,200 objects of a crashed run: publishes, then deletes exactly the residue', async () => {
    const { source, prefix, run } = fixture();
    writeBundle(source, 'bulk', daily('2026-05-30T11:10:00Z'));
    await plantCrashedRun(`${prefix}/bulk`, [[`${prefix}/bulky/keep.txt`, 'sibling']]);
    expect((await run()).outcomes[0]?.outcome).toBe('published');
    expect((await listKeys(ctx.s3, ctx.bucket, `${prefix}/`)).sort()).toEqual(
      [
        `${prefix}/bulk/.distributor.json`,
        `${prefix}/bulk/report.html`,
        `${prefix}/bulk/report.md`,
        `${prefix}/bulk/summary.txt`,
        `${prefix}/bulky/keep.txt`,
      ].sort(),
    );
  });
});

describe('S3 destination: failures are fixed refusals', () => {
  it('a missing bucket is destination_bucket_missing', async () => {
    const { source, config } = fixture();
    writeBundle(source, 'brentwood/2026-05-30', daily('2026-05-30T11:10:00Z'));
    const destination = config.pipelines[0]?.destinations[0];
    if (destination === undefined) throw new Error('fixture');
    const report = await distributeRun({
      config: {
        pipelines: [
          {
            id: 'reports',
            source: { root: source },
            destinations: [{ ...destination, bucket: 'no-such-bucket-here' }],
          },
        ],
      },
      now: () => NOW,
      s3Backend: (c: S3DestinationConfig, context) => createS3Backend(c, context),
    });
    expect(report.outcomes[0]?.reason_code).toBe('destination_bucket_missing');
  });

  it('an output the state lists that someone deleted is reported as destination_incomplete, not skipped', async () => {
    const { source, prefix, run } = fixture();
    writeBundle(source, 'brentwood/2026-05-30', daily('2026-05-30T11:10:00Z'));
    expect((await run()).outcomes[0]?.outcome).toBe('published');
    await ctx.s3.send(
      new DeleteObjectCommand({ Bucket: ctx.bucket, Key: `${prefix}/brentwood/2026-05-30/summary.txt` }),
    );
    const report = await run();
    expect([
      report.outcomes[0]?.outcome,
      report.outcomes[0]?.reason_code,
      report.outcomes[0]?.entry_path,
    ]).toEqual(['refused', 'destination_incomplete', 'summary.txt']);
  });

  it('an unreachable endpoint is destination_unreachable, with no key, credential or error text in the report, the bucket only where the plan restates it', async () => {
    const { source, config, prefix } = fixture();
    writeBundle(source, 'brentwood/2026-05-30', daily('2026-05-30T11:10:00Z'));
    const destination = config.pipelines[0]?.destinations[0];
    if (destination === undefined) throw new Error('fixture');
    const unreachable = {
      pipelines: [
        {
          ...config.pipelines[0],
          id: 'reports',
          source: { root: source },
          destinations: [{ ...destination, endpoint: 'http://127.0.0.1:9', bucket: 'sentinel-bucket-name' }],
        },
      ],
    };
    const report = await distributeRun({
      config: unreachable,
      now: () => NOW,
      s3Backend: (c: S3DestinationConfig, context) => createS3Backend(c, context),
    });
    expect([report.outcomes[0]?.outcome, report.outcomes[0]?.reason_code]).toEqual([
      'refused',
      'destination_unreachable',
    ]);
    // The bucket is named where the configuration is restated, the plan's
    // location of the destination, and nowhere else: no store or socket
    // error text reaches the report.
    expect(report.plan.pipelines[0]?.destinations[0]?.location).toBe(`s3://sentinel-bucket-name/${prefix}/`);
    const withoutLocation = {
      ...report,
      plan: {
        ...report.plan,
        pipelines: report.plan.pipelines.map((pipeline) => ({
          ...pipeline,
          destinations: pipeline.destinations.map(({ location: _, ...rest }) => rest),
        })),
      },
    };
    const hits = scanBytes(
      [{ label: 'report', bytes: JSON.stringify(withoutLocation) }],
      ['sentinel-bucket-name', ctx.rgw.accessKeyId, ctx.rgw.secretAccessKey, '127.0.0.1:9'],
    );
    expect(hits).toEqual([]);
  });
});
