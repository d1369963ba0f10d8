// A bundle published inside another one on the test radosgw: a destination
// whose prefix lies inside (or is) a published bundle, a bundle whose folder
// lies below another published bundle under the same prefix, and an outer
// bundle holding a publication of another configuration; with the requests
// the check costs.
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import {
  type BundleSpec,
  listKeys,
  putMany,
  s3Config,
  useRgwFixture,
  writeBundle,
} from '../../../../test/helpers/distributor-s3.js';
import type { ProxiedRequest } from '../../../../test/helpers/s3-proxy.js';
import type { S3DestinationConfig } from '../../config/types.js';
import { distributeRun } from '../../run/run.js';
import { createS3Backend } from './index.js';
import { NestedBundleCheck } from './nested.js';

const ctx = useRgwFixture({ work: 's3-nested-', bucket: 'nested', awsEnv: true, proxy: true });

let counter = 0;

const spec = (id: string, created = '2026-05-30T11:10:00Z'): BundleSpec => ({
  id,
  created,
  files: { 'report.md': `# ${id}\n`, 'summary.txt': `${id}\n` },
});

/** A source with `bundles`, and a run of it to `prefix` (through the proxy, which counts requests). */
function source(bundles: Readonly<Record<string, BundleSpec>>) {
  counter += 1;
  const root = mkdtempSync(join(ctx.work, `src-${counter}-`));
  for (const [dir, bundle] of Object.entries(bundles)) writeBundle(root, dir, bundle);
  return {
    root,
    run: (prefix: string, pipeline = 'reports') => {
      const config = s3Config(ctx.rgw, root, { bucket: ctx.bucket, prefix });
      const [base] = config.pipelines;
      const [destination] = base?.destinations ?? [];
      if (base === undefined || destination === undefined) throw new Error('config');
      return distributeRun({
        config: {
          pipelines: [
            { ...base, id: pipeline, destinations: [{ ...destination, endpoint: ctx.proxy.endpoint }] },
          ],
        },
        s3Backend: (c: S3DestinationConfig, context) => createS3Backend(c, context),
      });
    },
  };
}

const outcomes = (report: Awaited<ReturnType<ReturnType<typeof source>['run']>>) =>
  report.outcomes.map((item) => [item.bundle_dir, item.outcome, item.reason_code]);

/** Requests the proxy saw from index `from` on, as `METHOD key`. */
const requestsSince = (from: number): string[] =>
  ctx.proxy.seen.slice(from).map((req: ProxiedRequest) => {
    const path = decodeURIComponent(req.url.split('?')[0] ?? '');
    return `${req.method} ${path.slice(`/${ctx.bucket}/`.length)}`;
  });

describe('a bundle inside another published bundle', () => {
  it('regression: a prefix inside a published bundle is refused destination_nested_bundle before any write, and the outer bundle stays replaceable', async () => {
    counter += 1;
    const site = `site-${counter}`;
    const outer = source({ 'weather/daily/2026-05-01': spec('weather.daily.2026-05-01') });
    expect(outcomes(await outer.run(site))).toEqual([['weather/daily/2026-05-01', 'published', undefined]]);
    const before = (await listKeys(ctx.s3, ctx.bucket, `${site}/`)).sort();

    // Another cron job's configuration: its prefix is that bundle, or a folder inside it.
    const inner = source({
      'weather/daily/2026-05-01': spec('inner.a'),
      'weather/daily/2026-05-02': spec('inner.b'),
    });
    for (const prefix of [
      `${site}/weather/daily/2026-05-01`,
      `${site}/weather/daily/2026-05-01/deeper/still`,
    ]) {
      const report = await inner.run(prefix, 'other');
      expect(outcomes(report)).toEqual([
        ['weather/daily/2026-05-01', 'refused', 'destination_nested_bundle'],
        ['weather/daily/2026-05-02', 'refused', 'destination_nested_bundle'],
      ]);
      const hint = report.outcomes[0]?.refusal?.hint ?? '';
      expect(hint).toContain('set prefix: to a folder outside every published bundle');
      expect(hint).toContain(
        prefix.endsWith('still')
          ? "the destination's prefix lies inside a published bundle (a .distributor.json 2 folders above the prefix)"
          : "the destination's prefix is itself a published bundle",
      );
      expect(hint).not.toContain(site);
    }
    // Nothing was written: no probe, no marker, no output.
    expect((await listKeys(ctx.s3, ctx.bucket, `${site}/`)).sort()).toEqual(before);

    // The outer bundle's next issue is still published over its old one.
    writeBundle(
      outer.root,
      'weather/daily/2026-05-01',
      spec('weather.daily.2026-05-01', '2026-06-01T20:00:00Z'),
    );
    expect(outcomes(await outer.run(site))).toEqual([['weather/daily/2026-05-01', 'replaced', undefined]]);
  }, 60_000);

  it('regression: a bundle folder below another published bundle under the same prefix is refused from the listing, without a request of its own', async () => {
    counter += 1;
    const site = `site-${counter}`;
    const outer = source({ weather: spec('weather') });
    expect(outcomes(await outer.run(site))).toEqual([['weather', 'published', undefined]]);
    const before = (await listKeys(ctx.s3, ctx.bucket, `${site}/`)).sort();
    const inner = source({ 'weather/daily/2026-05-01': spec('weather.daily'), elsewhere: spec('elsewhere') });
    const from = ctx.proxy.seen.length;
    const report = await inner.run(site, 'other');
    expect(outcomes(report)).toEqual([
      ['elsewhere', 'published', undefined],
      ['weather/daily/2026-05-01', 'refused', 'destination_nested_bundle'],
    ]);
    expect(report.outcomes[1]?.refusal?.hint).toContain(
      `'s3://${ctx.bucket}/${site}/weather/' is a published bundle (it holds a .distributor.json), and this bundle's folder lies inside it: publishing here would leave that bundle unreplaceable, so nothing was written; move that published bundle's objects away, or publish this one under another prefix`,
    );
    // The prefix has one segment: nothing above it to ask. The listing answered for the folders below it.
    expect(requestsSince(from).filter((request) => request.startsWith('HEAD '))).toEqual([]);
    const after = (await listKeys(ctx.s3, ctx.bucket, `${site}/`)).sort();
    expect(after.filter((key) => !key.startsWith(`${site}/elsewhere/`))).toEqual(before);
  }, 60_000);

  it('regression: without the listing (a destination too large to list at once) each folder is asked by HEAD, once per run', async () => {
    counter += 1;
    const id = counter;
    const site = `site-${id}/a/b`;
    const outer = source({ x: spec('x') });
    expect(outcomes(await outer.run(site))).toEqual([['x', 'published', undefined]]);
    const client = new S3Client({
      endpoint: ctx.proxy.endpoint,
      region: ctx.rgw.region,
      forcePathStyle: true,
      credentials: { accessKeyId: ctx.rgw.accessKeyId, secretAccessKey: ctx.rgw.secretAccessKey },
    });
    const from = ctx.proxy.seen.length;
    try {
      const check = new NestedBundleCheck(client, ctx.bucket, site);
      expect(await check.abovePrefix()).toBeUndefined();
      expect((await check.around('x/y/z' as never, undefined))?.code).toBe('destination_nested_bundle');
      expect(await check.around('w/v' as never, undefined)).toBeUndefined();
      expect((await check.around('x/q' as never, undefined))?.hint).toContain(
        `'s3://${ctx.bucket}/${site}/x/' is a published bundle`,
      );
      // The prefix, 'x', 'x/y' and 'w' once each, however many bundles ask; above the prefix 'site-N' and 'site-N/a'.
      expect(
        requestsSince(from)
          .filter((request) => request.startsWith('HEAD '))
          .sort(),
      ).toEqual(
        [site, `${site}/w`, `${site}/x`, `${site}/x/y`, `site-${id}`, `site-${id}/a`]
          .map((folder) => `HEAD ${folder}/.distributor.json`)
          .sort(),
      );
      // The prefix's own folders: refused for every bundle.
      const above = new NestedBundleCheck(client, ctx.bucket, `${site}/x/inner`);
      expect((await above.abovePrefix())?.hint).toContain('1 folder above the prefix');
      const itself = new NestedBundleCheck(client, ctx.bucket, `${site}/x`);
      expect(await itself.abovePrefix()).toBeUndefined();
      expect((await itself.around('any' as never, undefined))?.hint).toContain(
        'is itself a published bundle',
      );
    } finally {
      client.destroy();
    }
  }, 60_000);

  it('regression: the folders above the prefix cost one HEAD each per run, not per bundle', async () => {
    counter += 1;
    const top = `cost-${counter}`;
    const site = `${top}/reports/weather`;
    const bundles = source({ a: spec('a'), b: spec('b'), 'c/d': spec('cd') });
    for (const expected of ['published', 'skipped_same']) {
      const from = ctx.proxy.seen.length;
      const report = await bundles.run(site);
      expect(report.outcomes.map((item) => item.outcome)).toEqual([expected, expected, expected]);
      expect(requestsSince(from).filter((request) => request.startsWith('HEAD '))).toEqual([
        `HEAD ${top}/.distributor.json`,
        `HEAD ${top}/reports/.distributor.json`,
      ]);
    }
  }, 60_000);

  it('regression: an outer bundle holding another publication says so when its replacement is refused, not "not written by sealkit"', async () => {
    counter += 1;
    const site = `site-${counter}`;
    const outer = source({ 'weather/daily/2026-05-01': spec('weather.daily.2026-05-01') });
    expect(outcomes(await outer.run(site))).toEqual([['weather/daily/2026-05-01', 'published', undefined]]);
    // What a run before this check could write: a bundle published inside it, and a stray file that sorts first.
    const bundle = `${site}/weather/daily/2026-05-01`;
    await putMany(ctx.s3, ctx.bucket, [
      [`${bundle}/a-stray.txt`, 'x\n'],
      [`${bundle}/weather/daily/2026-05-01/report.md`, '# inner\n'],
      [`${bundle}/weather/daily/2026-05-01/.distributor.json`, '{}\n'],
    ]);
    writeBundle(
      outer.root,
      'weather/daily/2026-05-01',
      spec('weather.daily.2026-05-01', '2026-06-01T20:00:00Z'),
    );
    const report = await outer.run(site);
    expect(outcomes(report)).toEqual([['weather/daily/2026-05-01', 'refused', 'destination_unlisted_entry']]);
    const hint = report.outcomes[0]?.refusal?.hint ?? '';
    expect(hint).toContain(
      "another publication lies inside it: 'weather/daily/2026-05-01/' holds a .distributor.json of its own",
    );
    expect(hint).not.toContain('not written by sealkit');
  }, 60_000);
});
