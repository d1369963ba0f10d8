// destination_access_denied on the test radosgw, with bucket policies that
// deny one permission on one object or on all: the refusal names the
// operation, the permission and the object under the destination's prefix,
// never the bucket, the prefix or the endpoint; probe objects that cannot be
// deleted are named for the operator to remove.
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { DeleteBucketPolicyCommand, PutBucketPolicyCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import {
  type BundleSpec,
  listKeys,
  s3Config,
  useRgwFixture,
  writeBundle,
} from '../../../../test/helpers/distributor-s3.js';
import type { S3DestinationConfig } from '../../config/types.js';
import { distributeRun } from '../../run/run.js';
import { createS3Backend } from './index.js';

const ctx = useRgwFixture({ work: 's3-denied-', awsEnv: true });

const daily: BundleSpec = {
  id: 'weather.daily',
  created: '2026-05-30T11:10:00Z',
  files: { 'report.md': '# Daily\n\nSunny.\n', 'summary.txt': 'all clear\n' },
};

const PREFIX = 'sentinel-prefix-d3n1/site';

/** A fresh bucket with bundle `weather/daily` in a fresh source, and a run of it. */
async function fixture() {
  const bucket = await ctx.rgw.createBucket('denied');
  const source = mkdtempSync(join(ctx.work, 'src-'));
  writeBundle(source, 'weather/daily', daily);
  const config = s3Config(ctx.rgw, source, { bucket, prefix: PREFIX });
  const run = () =>
    distributeRun({
      config,
      s3Backend: (c: S3DestinationConfig, context) =>
        createS3Backend(c, context, { retry: { attempts: 2, baseDelayMs: 10 } }),
    });
  /** The one refusal's hint, checked to show no bucket, prefix or endpoint. */
  const refusedHint = async (): Promise<string> => {
    const report = await run();
    expect(report.outcomes.map((item) => [item.outcome, item.reason_code])).toEqual([
      ['refused', 'destination_access_denied'],
    ]);
    const hint = report.outcomes[0]?.refusal?.hint ?? '';
    for (const sentinel of [bucket, 'sentinel-prefix', ctx.rgw.endpoint.replace('http://', '')])
      expect(hint).not.toContain(sentinel);
    return hint;
  };
  return { bucket, source, run, refusedHint };
}

/** `work`'s result while a bucket policy denies `action` on `resource` (a key, `*`, or the bucket itself with ''). */
async function withDenied<T>(bucket: string, action: string, resource: string, work: () => Promise<T>) {
  await ctx.s3.send(
    new PutBucketPolicyCommand({
      Bucket: bucket,
      Policy: JSON.stringify({
        Version: '2012-10-17',
        Statement: [
          {
            Effect: 'Deny',
            Principal: '*',
            Action: [action],
            Resource: [resource === '' ? `arn:aws:s3:::${bucket}` : `arn:aws:s3:::${bucket}/${resource}`],
          },
        ],
      }),
    }),
  );
  try {
    return await work();
  } finally {
    await ctx.s3.send(new DeleteBucketPolicyCommand({ Bucket: bucket }));
  }
}

describe('destination_access_denied says what was denied', () => {
  it('regression: a denied output PUT names the object in the bundle and s3:PutObject (was: "list, read, write or delete")', async () => {
    const { bucket, refusedHint } = await fixture();
    const hint = await withDenied(bucket, 's3:PutObject', `${PREFIX}/weather/daily/summary.txt`, refusedHint);
    expect(hint).toContain(
      "the store denied writing 'weather/daily/summary.txt' under the destination's prefix: these credentials need s3:PutObject there",
    );
  }, 60_000);

  it('regression: a PUT denied on every object names the store check object it was refused first', async () => {
    const { bucket, refusedHint } = await fixture();
    const hint = await withDenied(bucket, 's3:PutObject', '*', refusedHint);
    expect(hint).toMatch(
      /the store denied writing '\.distributor\.probe-[0-9a-f]{32}', the object sealkit checks the store with, under the destination's prefix: these credentials need s3:PutObject there/,
    );
    expect(await listKeys(ctx.s3, bucket, '')).toEqual([]);
  }, 60_000);

  it('regression: a denied listing names s3:ListBucket', async () => {
    const { bucket, refusedHint } = await fixture();
    const hint = await withDenied(bucket, 's3:ListBucket', '', refusedHint);
    expect(hint).toContain(
      "the store denied listing the destination's prefix: these credentials need s3:ListBucket on the bucket for that prefix",
    );
  }, 60_000);

  it("regression: a denied read of the bundle's .distributor.json names it and s3:GetObject", async () => {
    const { bucket, run, refusedHint } = await fixture();
    expect((await run()).outcomes.map((item) => item.outcome)).toEqual(['published']);
    const hint = await withDenied(
      bucket,
      's3:GetObject',
      `${PREFIX}/weather/daily/.distributor.json`,
      refusedHint,
    );
    expect(hint).toContain(
      "the store denied reading 'weather/daily/.distributor.json' under the destination's prefix: these credentials need s3:GetObject there",
    );
  }, 60_000);

  it('regression: probe objects a denied DeleteObject leaves behind are named, to remove once it is granted', async () => {
    const { bucket, refusedHint } = await fixture();
    const hint = await withDenied(bucket, 's3:DeleteObject', '*', refusedHint);
    expect(hint).toContain('sealkit needs s3:DeleteObject');
    const left = await listKeys(ctx.s3, bucket, '');
    expect(left).toHaveLength(3);
    for (const key of left) {
      expect(key).toMatch(/^sentinel-prefix-d3n1\/site\/\.distributor\.probe-[0-9a-f]{32}$/);
      expect(hint).toContain(`'${key.slice(`${PREFIX}/`.length)}'`);
    }
    expect(hint).toContain("stay directly under the destination's prefix, beside the bundles (");
    expect(hint).toContain('): remove them once the permission is granted');
  }, 60_000);
});
