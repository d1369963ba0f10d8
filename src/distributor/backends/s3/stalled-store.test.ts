// A store that stops answering writes in the middle of a run (a Ceph
// cluster whose OSDs are full holds every write without an answer, while
// listings still come back). Each bundle's upload then waited out its
// retries and timeouts — about two minutes a bundle with the defaults, 16
// at a time — so a nightly run of 2,000 bundles would have gone on for
// hours, reporting destination_unreachable one bundle after another. Once a
// write has found the store silent, the destination's other bundles are
// refused at once, as they are after a read that failed so.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useRgwFixture, writeBundle } from '../../../../test/helpers/distributor-s3.js';
import { isObjectPut } from '../../../../test/helpers/s3-proxy.js';
import type { DistributorConfig } from '../../config/types.js';
import { distributeRun } from '../../run/run.js';

const ctx = useRgwFixture({ work: 's3-stalled-store-', bucket: 'stalled', awsEnv: true, proxy: true });

const BUNDLES = 8;
const TRANSFERS = 2;

describe('a store that stops answering writes during a run', () => {
  it('regression: once a write found the store silent, the other bundles are refused at once, not each after its own timeouts', async () => {
    const root = join(ctx.work, 'src');
    const dirs = Array.from({ length: BUNDLES }, (_, index) => `day-${index}`);
    for (const dir of dirs)
      writeBundle(root, dir, {
        id: dir,
        created: '2026-06-01T02:00:00Z',
        files: { 'report.md': `# ${dir}\n` },
      });
    const config: DistributorConfig = {
      pipelines: [
        {
          id: 'nightly',
          source: { root },
          destinations: [
            {
              id: 'ceph',
              kind: 's3',
              bucket: ctx.bucket,
              prefix: 'site',
              endpoint: ctx.proxy.endpoint,
              region: ctx.rgw.region,
              force_path_style: true,
              request_timeout_seconds: 1,
              outputs: { source: true, html: false },
            },
          ],
        },
      ],
    };
    // The probe and the markers are answered; no output upload ever is.
    const never = new Promise<void>(() => {});
    ctx.proxy.decide((req) =>
      isObjectPut(req, '/report.md') ? { kind: 'hold', release: never } : { kind: 'forward' },
    );
    const seenBefore = ctx.proxy.seen.length;

    const report = await distributeRun({ config, transfers: TRANSFERS });

    expect(
      report.outcomes.map((outcome) => [outcome.bundle_dir, outcome.outcome, outcome.reason_code]),
    ).toEqual(dirs.map((dir) => [dir, 'refused', 'destination_unreachable']));
    // Only the bundles already in flight when the store went silent wrote a
    // marker; before, every bundle of the run did, and waited out its timeouts.
    const markersWritten = new Set(
      ctx.proxy.seen
        .slice(seenBefore)
        .filter((req) => isObjectPut(req, '/.distributor.pending.json'))
        .map((req) => decodeURIComponent(req.url.split('?')[0] ?? '').split('/')[3]),
    );
    expect(markersWritten.size).toBe(TRANSFERS);
  }, 60_000);
});
