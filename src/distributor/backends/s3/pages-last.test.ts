// The order of a bundle's uploads to the test radosgw, seen through the
// proxy: a bucket served as a site shows every object as soon as it is
// written, so the pages go after the charts and files they link to.
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { s3Config, useRgwFixture, writeBundle } from '../../../../test/helpers/distributor-s3.js';
import { isObjectPut, type ProxiedRequest } from '../../../../test/helpers/s3-proxy.js';
import { distributeRun } from '../../run/run.js';

const ctx = useRgwFixture({ work: 's3-pages-last-', bucket: 'pages-last', proxy: true, awsEnv: true });

const isPagePut = (req: ProxiedRequest): boolean => req.method === 'PUT' && /\.html(\?|$)/.test(req.url);

describe('the order of a bundle’s uploads', () => {
  it('regression: a page is written only once every chart and file of its bundle is stored (a stopped first publish showed pages with broken charts)', async () => {
    const dir = mkdtempSync(join(ctx.work, 'site-'));
    writeBundle(join(dir, 'out'), 'weekly', {
      id: 'weekly',
      created: '2026-05-30T11:10:00Z',
      files: {
        'a-summary.md': '# Summary\n\n![trend](charts/trend.svg)\n',
        'charts/trend.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>\n',
        'data.csv': 'day,n\n1,2\n',
        'notes.md': '# Notes\n\n[data](data.csv)\n',
      },
    });
    const config = s3Config(ctx.rgw, join(dir, 'out'), {
      bucket: ctx.bucket,
      prefix: 'site',
      source: false,
      assets: true,
    });
    const [pipeline] = config.pipelines;
    const [destination] = pipeline?.destinations ?? [];
    if (pipeline === undefined || destination === undefined) throw new Error('config');
    // The chart's upload is held: were the pages sent beside it, one would
    // reach the store while it is held.
    let releaseChart = (): void => {};
    const chartHeld = new Promise<void>((resolve) => {
      releaseChart = resolve;
    });
    let chartReleased = false;
    const pagesWhileChartHeld: string[] = [];
    ctx.proxy.decide((req) => {
      if (isPagePut(req) && !chartReleased) pagesWhileChartHeld.push(req.url);
      if (isObjectPut(req, '/weekly/charts/trend.svg')) {
        setTimeout(() => {
          chartReleased = true;
          releaseChart();
        }, 500);
        return { kind: 'hold', release: chartHeld };
      }
      return { kind: 'forward' };
    });
    try {
      const report = await distributeRun({
        config: {
          pipelines: [{ ...pipeline, destinations: [{ ...destination, endpoint: ctx.proxy.endpoint }] }],
        },
      });
      expect(report.outcomes.map((item) => item.outcome)).toEqual(['published']);
      expect(chartReleased).toBe(true);
      expect(pagesWhileChartHeld).toEqual([]);
      const puts = ctx.proxy.seen
        .filter((req) => req.method === 'PUT' && req.url.includes('/site/weekly/'))
        .map((req) => (req.url.split('?')[0] ?? '').replace(/^.*\/site\/weekly\//, ''));
      const lastOther = Math.max(puts.indexOf('charts/trend.svg'), puts.indexOf('data.csv'));
      const firstPage = Math.min(puts.indexOf('a-summary.html'), puts.indexOf('notes.html'));
      expect(lastOther).toBeGreaterThanOrEqual(0);
      expect(firstPage).toBeGreaterThan(lastOther);
    } finally {
      ctx.proxy.decide(() => ({ kind: 'forward' }));
    }
  }, 60_000);
});
