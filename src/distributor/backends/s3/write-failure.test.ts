// A failing S3 destination on a real radosgw is that destination's own
// outcome: the store refusing a write (a bucket quota), and no room anywhere
// for the run's verified copy (a full TMPDIR, the 1 MiB tmpfs `npm test`
// mounts). Two S3 destinations on overlapping prefixes are refused before
// anything is written.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listKeys, useRgwFixture, writeBundle } from '../../../../test/helpers/distributor-s3.js';
import { mountFixtures } from '../../../../test/helpers/mount-fixtures.js';
import { Refusal } from '../../../core/refusal/index.js';
import type { DistributorConfig } from '../../config/types.js';
import { distributeRun } from '../../run/run.js';

const mounts = mountFixtures();
const ctx = useRgwFixture({ work: 's3-write-failure-', awsEnv: true });

const CREATED = '2026-05-30T11:10:00Z';
const s3Destination = (id: string, bucket: string, prefix: string) => ({
  id,
  kind: 's3' as const,
  bucket,
  prefix,
  endpoint: ctx.rgw.endpoint,
  region: ctx.rgw.region,
  force_path_style: true,
  outputs: { source: true, html: false },
});

function sourceWith(name: string, files: Record<string, string | Uint8Array>): string {
  const root = join(ctx.work, name);
  mkdirSync(root);
  writeBundle(root, 'b', { id: `${name}.b`, created: CREATED, files });
  return root;
}

const rows = (report: Awaited<ReturnType<typeof distributeRun>>) =>
  report.outcomes.map((o) => [o.pipeline_id, o.destination_id, o.outcome, o.reason_code ?? '']);

describe('S3 destinations that fail', () => {
  it('a write the store refuses (bucket quota) is that destination’s refusal; the other pipeline publishes', async () => {
    const quota = await ctx.rgw.createBucket('quota');
    const open = await ctx.rgw.createBucket('open');
    await ctx.rgw.admin(['quota', 'set', '--quota-scope=bucket', `--bucket=${quota}`, '--max-size=4096']);
    await ctx.rgw.admin(['quota', 'enable', '--quota-scope=bucket', `--bucket=${quota}`]);
    const config: DistributorConfig = {
      pipelines: [
        {
          id: 'big',
          source: { root: sourceWith('big', { 'data.bin': randomBytes(64 * 1024) }) },
          destinations: [s3Destination('capped', quota, 'site')],
        },
        {
          id: 'other',
          source: { root: sourceWith('other', { 'report.md': '# Other\n' }) },
          destinations: [s3Destination('bucket', open, 'site')],
        },
      ],
    };
    const report = await distributeRun({ config });
    expect(report.aborted).toBe(false);
    expect(report.failures).toEqual([]);
    // The store answers 403 QuotaExceeded; which of the S3 destination codes
    // names it is the S3 backend's mapping (docs/distributor.md#s3-refusals).
    // What this test holds is that it is that destination's own refusal.
    const [capped, other] = rows(report);
    expect(capped?.slice(0, 3)).toEqual(['big', 'capped', 'refused']);
    expect(['destination_write_failed', 'destination_access_denied']).toContain(capped?.[3]);
    expect(other).toEqual(['other', 'bucket', 'published', '']);
    // Never published: no state, so a later run does not call it published.
    expect(
      (await listKeys(ctx.s3, quota, 'site/')).filter((key) => key.endsWith('.distributor.json')),
    ).toEqual([]);
    expect((await listKeys(ctx.s3, open, 'site/')).sort()).toEqual([
      'site/b/.distributor.json',
      'site/b/report.md',
    ]);
  });

  it('regression: a used-up bucket quota is destination_write_failed saying so, not a missing s3:PutObject', async () => {
    const bucket = await ctx.rgw.createBucket('full');
    await ctx.rgw.admin(['quota', 'set', '--quota-scope=bucket', `--bucket=${bucket}`, '--max-size=4096']);
    await ctx.rgw.admin(['quota', 'enable', '--quota-scope=bucket', `--bucket=${bucket}`]);
    const config: DistributorConfig = {
      pipelines: [
        {
          id: 'big',
          source: { root: sourceWith('full', { 'data.bin': randomBytes(64 * 1024) }) },
          destinations: [s3Destination('capped', bucket, 'site')],
        },
      ],
    };
    const first = await distributeRun({ config });
    const refusal = first.outcomes[0]?.refusal;
    // The same credentials wrote the probe and the pending marker: blaming a
    // permission sent users to their access policy instead of the store.
    expect([first.outcomes[0]?.outcome, refusal?.code]).toEqual(['refused', 'destination_write_failed']);
    expect(refusal?.hint).toContain('a quota is used up (QuotaExceeded)');
    expect(refusal?.hint).toContain('raise the quota or free space in the bucket');
    expect(refusal?.hint).not.toContain('s3:PutObject');

    // Once the quota is raised, the next run publishes over what the refused one left.
    await ctx.rgw.admin(['quota', 'disable', '--quota-scope=bucket', `--bucket=${bucket}`]);
    const second = await distributeRun({ config });
    expect(rows(second)).toEqual([['big', 'capped', 'published', '']]);
    expect((await listKeys(ctx.s3, bucket, 'site/')).sort()).toEqual([
      'site/b/.distributor.json',
      'site/b/data.bin',
    ]);
  });

  it('no room for the verified copy anywhere (a full TMPDIR): refused with snapshot_write_failed, the run goes on', async () => {
    const bucket = await ctx.rgw.createBucket('snap');
    const config: DistributorConfig = {
      pipelines: [
        {
          id: 'big',
          source: { root: sourceWith('huge', { 'data.bin': randomBytes(2 * 1024 * 1024) }) },
          destinations: [s3Destination('bucket', bucket, 'big')],
        },
        {
          id: 'small',
          source: { root: sourceWith('tiny', { 'report.md': '# Small\n' }) },
          destinations: [s3Destination('bucket', bucket, 'small')],
        },
      ],
    };
    const previous = process.env.TMPDIR;
    process.env.TMPDIR = mounts.fullTmpdir;
    let report: Awaited<ReturnType<typeof distributeRun>>;
    try {
      report = await distributeRun({ config });
    } finally {
      process.env.TMPDIR = previous;
    }
    expect(rows(report)).toEqual([
      ['big', 'bucket', 'refused', 'snapshot_write_failed'],
      ['small', 'bucket', 'published', ''],
    ]);
    expect(report.outcomes[0]?.refusal?.hint).toBe(
      "destination 'bucket', bundle 'b': the run's temporary directory (TMPDIR, else /tmp) could not hold its copy of the bundle: no space left on the filesystem (ENOSPC)",
    );
    expect(await listKeys(ctx.s3, bucket, 'big/')).toEqual([]);
    expect(readdirSync(mounts.fullTmpdir)).toEqual([]);

    // Regression: a TMPDIR that does not exist was also told to check its free space.
    process.env.TMPDIR = join(mounts.fullTmpdir, 'no-such-folder');
    try {
      report = await distributeRun({ config });
    } finally {
      process.env.TMPDIR = previous;
    }
    expect(report.outcomes[0]?.refusal?.hint).toBe(
      "destination 'bucket', bundle 'b': the run's temporary directory (TMPDIR, else /tmp) could not hold its copy of the bundle: a folder it needs does not exist (ENOENT)",
    );
  });

  it('refuses two destinations on overlapping prefixes of one bucket before writing anything', async () => {
    // Regression: two destinations sharing a root reported success, and the
    // second one's outputs never arrived.
    const bucket = await ctx.rgw.createBucket('overlap');
    const root = sourceWith('shared', { 'report.md': '# Shared\n' });
    for (const [first, second, relation] of [
      ['site', 'site', 'same'],
      ['site', 'site/mirror', 'inside'],
      ['', 'site', 'inside'],
    ] as const) {
      const config: DistributorConfig = {
        pipelines: [
          {
            id: 'p',
            source: { root },
            destinations: [
              { ...s3Destination('archive', bucket, first), outputs: { source: true, html: false } },
              { ...s3Destination('html', bucket, second), outputs: { source: false, html: true } },
            ],
          },
        ],
      };
      const refusal = await distributeRun({ config }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refusal).toBeInstanceOf(Refusal);
      expect([(refusal as Refusal).code, (refusal as Refusal).details]).toEqual([
        'destination_roots_overlap',
        {
          relation,
          destination: { pipeline_id: 'p', destination_id: 'html' },
          other: { pipeline_id: 'p', destination_id: 'archive' },
        },
      ]);
    }
    expect(await listKeys(ctx.s3, bucket, '')).toEqual([]);
    // Prefixes that only share leading characters are separate places.
    const config: DistributorConfig = {
      pipelines: [
        {
          id: 'p',
          source: { root },
          destinations: [s3Destination('a', bucket, 'site'), s3Destination('b', bucket, 'site-archive')],
        },
      ],
    };
    expect(rows(await distributeRun({ config }))).toEqual([
      ['p', 'a', 'published', ''],
      ['p', 'b', 'published', ''],
    ]);
    expect(readFileSync(join(root, 'b', 'report.md'), 'utf8')).toBe('# Shared\n');
  });
});
