// How a run's writes are scheduled: batch by batch, one destination's writes
// in each (a local one in group commits, an S3 one up to `transfers` bundles
// at once), the snapshot's owner last. The owner may move the snapshot files
// the S3 uploads read, so its batch starts only after every S3 write of its
// bundles. After an abort no new batch and no new S3 write starts
// (docs/distributor.md#commands).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeTree, makeBundle, writeConfig } from '../../../test/helpers/distributor-fixtures.js';
import { listKeys, useRgwFixture } from '../../../test/helpers/distributor-s3.js';
import type { Step } from '../backend.js';
import type { DistributorConfig } from '../config/types.js';
import type { RunReport } from './report.js';
import { distributeRun } from './run.js';

const CLOCK = () => new Date('2026-06-01T00:00:00Z');
const BUNDLES = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l'];

const ctx = useRgwFixture({ work: 'sealkit-apply-order-', bucket: 'apply-order', awsEnv: true });

let counter = 0;

/** A source root holding every bundle of BUNDLES, two files each. */
function sources(): { dir: string; source: string } {
  counter += 1;
  const dir = mkdtempSync(join(ctx.work, `case-${counter}-`));
  const source = join(dir, 'src');
  for (const name of BUNDLES) {
    makeBundle(
      source,
      name,
      [
        { path: 'report.md', content: `# ${name}\n` },
        { path: 'data.csv', content: `bundle,${name}\n` },
      ],
      { id: `orders.${name}`, created: '2026-05-30T11:10:00Z' },
    );
  }
  return { dir, source };
}

/**
 * A source of every bundle of BUNDLES, configured for two local
 * destinations: `owner` is listed first, so it holds the snapshot and its
 * batch goes last.
 */
function ownerAndOther(): { source: string; owner: string; other: string; configPath: string } {
  const { dir, source } = sources();
  const owner = join(dir, 'owner');
  const other = join(dir, 'other');
  mkdirSync(owner);
  mkdirSync(other);
  const configPath = writeConfig(dir, [
    {
      id: 'orders',
      source,
      destinations: [
        { id: 'owner', root: owner },
        { id: 'other', root: other },
      ],
    },
  ]);
  return { source, owner, other, configPath };
}

const outcomes = (report: RunReport) =>
  report.outcomes.map((o) => [o.destination_id, o.bundle_dir, o.outcome, o.reason_code ?? '']);

/** The bundle directories at a local root, leaving out the work area. */
const bundleDirs = (root: string) => readdirSync(root).filter((name) => name !== '.distributor.work');

describe('distribute run: scheduling of local and S3 writes', () => {
  it('regression: the snapshot owner commits only after every S3 write of its bundles is done', async () => {
    const { dir, source } = sources();
    const site = join(dir, 'site');
    mkdirSync(site);
    const prefix = `case-${counter}`;
    const config: DistributorConfig = {
      pipelines: [
        {
          id: 'orders',
          source: { root: source },
          destinations: [
            // The first local destination holds the snapshot and moves its files.
            { id: 'site', kind: 'local', root: site, outputs: { source: true, html: true } },
            {
              id: 'bucket',
              kind: 's3',
              bucket: ctx.bucket,
              prefix,
              endpoint: ctx.rgw.endpoint,
              region: ctx.rgw.region,
              force_path_style: true,
              outputs: { source: true, html: true },
            },
          ],
        },
      ],
    };
    const steps: Step[] = [];
    let applying = false;
    const report = await distributeRun({
      config,
      now: CLOCK,
      beforeStep: (step) => {
        if (applying) steps.push(step);
      },
      onProgress: (event) => {
        if (event.phase === 'apply') applying = true;
      },
    });
    expect(outcomes(report)).toEqual(
      BUNDLES.flatMap((name) => [
        ['site', name, 'published', ''],
        ['bucket', name, 'published', ''],
      ]),
    );
    const lastPut = steps.findLastIndex((step) => step.destination_id === 'bucket' && step.kind === 'put');
    const firstLocal = steps.findIndex((step) => step.destination_id === 'site');
    expect(lastPut).toBeGreaterThan(0);
    expect(firstLocal).toBeGreaterThan(lastPut);
    for (const name of BUNDLES) {
      expect((await listKeys(ctx.s3, ctx.bucket, `${prefix}/${name}/`)).sort()).toEqual(
        ['.distributor.json', 'data.csv', 'report.html', 'report.md'].map(
          (key) => `${prefix}/${name}/${key}`,
        ),
      );
    }
    expect(bundleDirs(site).sort()).toEqual(BUNDLES);
  }, 120_000);

  it('regression: an abort during a group commit finishes that batch and starts no other (run_interrupted)', async () => {
    const { owner, other, configPath } = ownerAndOther();
    const controller = new AbortController();
    const report = await distributeRun({
      configPath,
      now: CLOCK,
      signal: controller.signal,
      beforeStep: (step) => {
        if (step.destination_id === 'other' && step.kind === 'flush') controller.abort();
      },
    });
    expect(report.status).not.toBe('ok');
    expect(outcomes(report)).toEqual(
      BUNDLES.flatMap((name) => [
        ['owner', name, 'refused', 'run_interrupted'],
        ['other', name, 'published', ''],
      ]),
    );
    expect(bundleDirs(other).sort()).toEqual(BUNDLES);
    expect(describeTree(join(other, 'a'))).toEqual({
      '.distributor.json': expect.stringMatching(/^file 644 /),
      'data.csv': expect.stringMatching(/^file 644 sha256:/),
      'report.html': expect.stringMatching(/^file 644 sha256:/),
      'report.md': expect.stringMatching(/^file 644 sha256:/),
    });
    expect(bundleDirs(owner)).toEqual([]);
  });

  it('regression: an interrupted replacement is not called unpublished: the published version stays', async () => {
    const { source, owner, other, configPath } = ownerAndOther();
    expect((await distributeRun({ configPath, now: CLOCK })).status).toBe('ok');
    for (const name of BUNDLES)
      makeBundle(
        source,
        name,
        [
          { path: 'report.md', content: `# ${name}, corrected\n` },
          { path: 'data.csv', content: `bundle,${name}\n` },
        ],
        { id: `orders.${name}`, created: '2026-05-31T08:00:00Z' },
      );
    const controller = new AbortController();
    const report = await distributeRun({
      configPath,
      now: CLOCK,
      signal: controller.signal,
      beforeStep: (step) => {
        if (step.destination_id === 'other' && step.kind === 'flush') controller.abort();
      },
    });
    expect(outcomes(report).filter(([destination]) => destination === 'owner')).toEqual(
      BUNDLES.map((name) => ['owner', name, 'refused', 'run_interrupted']),
    );
    const hint = report.outcomes.find((o) => o.destination_id === 'owner')?.refusal?.hint ?? '';
    expect(hint).toBe(
      "destination 'owner', bundle 'a': the run was stopped before this bundle's .distributor.json was written, so the version it was writing is not published: run again to publish it (the next run finishes or removes what this one began)",
    );
    // What the owner published before is still there, as its state says.
    for (const name of BUNDLES) {
      expect(readFileSync(join(owner, name, 'report.md'), 'utf8')).toBe(`# ${name}\n`);
      const state = JSON.parse(readFileSync(join(owner, name, '.distributor.json'), 'utf8')) as {
        source: { manifest: { created: string } };
      };
      expect(state.source.manifest.created).toBe('2026-05-30T11:10:00Z');
    }
    expect(readFileSync(join(other, 'a', 'report.md'), 'utf8')).toBe('# a, corrected\n');
  });
});
