// A run refused by the store that cannot end its own claim on the bundle
// either (the proxy answers the test radosgw's QuotaExceeded to the output
// and to the marker's release): the refusal says that the next run will
// find the bundle held, and until when, instead of leaving the next run to
// blame "another run".
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { s3Config, useRgwFixture, writeBundle } from '../../../../test/helpers/distributor-s3.js';
import { isObjectPut } from '../../../../test/helpers/s3-proxy.js';
import { distributeRun } from '../../run/run.js';

const ctx = useRgwFixture({ work: 's3-release-refused-', bucket: 'release', proxy: true, awsEnv: true });

/** A configuration publishing one bundle `name` of one CSV to `prefix`, through the proxy. */
function oneBundleThroughProxy(name: string, prefix: string) {
  const dir = mkdtempSync(join(ctx.work, `${prefix}-`));
  writeBundle(join(dir, 'out'), name, {
    id: name,
    created: '2026-05-30T11:10:00Z',
    files: { 'data.csv': 'day,n\n1,2\n' },
  });
  const config = s3Config(ctx.rgw, join(dir, 'out'), { bucket: ctx.bucket, prefix, html: false });
  const [pipeline] = config.pipelines;
  const [destination] = pipeline?.destinations ?? [];
  if (pipeline === undefined || destination === undefined) throw new Error('config');
  return { pipelines: [{ ...pipeline, destinations: [{ ...destination, endpoint: ctx.proxy.endpoint }] }] };
}

describe('a claim the run could not end', () => {
  it('regression: after a used-up quota refused the marker’s release too, the refusal says the next run finds the bundle held until when (it blamed another run)', async () => {
    const proxied = oneBundleThroughProxy('b', 'site');
    let markerWrites = 0;
    ctx.proxy.decide((req) => {
      if (isObjectPut(req, '/site/b/data.csv')) return { kind: 'answer', status: 403, code: 'QuotaExceeded' };
      if (isObjectPut(req, '/site/b/.distributor.pending.json')) {
        markerWrites += 1;
        // The first write takes the bundle; the release after the failure is refused alike.
        if (markerWrites > 1) return { kind: 'answer', status: 403, code: 'QuotaExceeded' };
      }
      return { kind: 'forward' };
    });
    try {
      const before = Date.now();
      const first = await distributeRun({ config: proxied });
      const refusal = first.outcomes[0]?.refusal;
      expect([first.outcomes[0]?.outcome, refusal?.code]).toEqual(['refused', 'destination_write_failed']);
      expect(markerWrites).toBeGreaterThan(1);
      expect(refusal?.hint).toContain('a quota is used up (QuotaExceeded)');
      const held =
        /this run could not end its claim on the bundle \(that write failed too\): a run before (\S+) \(in (\d+) s\) finds the bundle held as by another run; run again after that, or with --wait (\d+)$/.exec(
          refusal?.hint ?? '',
        );
      expect(held).not.toBeNull();
      const [, until, seconds, wait] = held ?? [];
      // The lease a run takes: two minutes from its marker's write.
      expect(Date.parse(until ?? '') - before).toBeGreaterThan(100_000);
      expect(Number(seconds)).toBeGreaterThan(100);
      expect(Number(wait)).toBe(Number(seconds) + 10);

      // The quota raised, the next run finds the bundle held by that claim, as said.
      ctx.proxy.decide(() => ({ kind: 'forward' }));
      const second = await distributeRun({ config: proxied });
      expect(second.outcomes[0]?.refusal?.code).toBe('destination_locked');
    } finally {
      ctx.proxy.decide(() => ({ kind: 'forward' }));
    }
  }, 60_000);

  it('a release the store takes adds nothing: the next run publishes at once', async () => {
    const proxied = oneBundleThroughProxy('c', 'once');
    ctx.proxy.decide((req) =>
      isObjectPut(req, '/once/c/data.csv')
        ? { kind: 'answer', status: 403, code: 'QuotaExceeded' }
        : { kind: 'forward' },
    );
    try {
      const first = await distributeRun({ config: proxied });
      expect(first.outcomes[0]?.refusal?.code).toBe('destination_write_failed');
      expect(first.outcomes[0]?.refusal?.hint).not.toContain('could not end its claim');
      ctx.proxy.decide(() => ({ kind: 'forward' }));
      const second = await distributeRun({ config: proxied });
      expect(second.outcomes[0]?.outcome).toBe('published');
    } finally {
      ctx.proxy.decide(() => ({ kind: 'forward' }));
    }
  }, 60_000);
});
