// Tour of the distributor: two producer bundles (one a Markdown report) get a
// manifest, are verified, published to a local directory, rerun (skipped),
// replaced after `created` moves on, and a conflicting bundle is refused.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const title = 'distributor: manifested report bundles published to a local directory';

export async function run(ctx) {
  const base = join(ctx.workDir, 'distributor');
  const source = join(base, 'reports');
  const site = join(base, 'site');
  const weather = join(source, 'weather', 'daily', '2026-05-30');
  const sales = join(source, 'sales', 'weekly', '2026-w22');
  mkdirSync(weather, { recursive: true });
  mkdirSync(join(sales, 'data'), { recursive: true });
  mkdirSync(site, { recursive: true });
  writeFileSync(
    join(weather, 'report.md'),
    '# Weather for Brentwood, 30 May\n\nSunny, **21 °C**. <script>alert("raw HTML is escaped")</script>\n\n| hour | temp |\n| --- | ---: |\n| 09 | 17 |\n| 15 | 21 |\n',
  );
  writeFileSync(join(weather, 'summary.txt'), 'sunny, 21 C\n');
  writeFileSync(join(sales, 'data', 'totals.csv'), 'region,total\nnorth,120\nsouth,95\n');
  const config = join(base, 'sealkit.distributor.yaml');
  writeFileSync(
    config,
    [
      'pipelines:',
      '  - id: reports',
      '    source: {root: reports}',
      '    destinations:',
      '      - id: site',
      '        kind: local',
      '        root: site',
      '        outputs: {source: true, html: true}',
      '',
    ].join('\n'),
  );

  ctx.say('Producers write manifest.json with `distribute manifest` (files sorted, digests computed):');
  ctx.sealkit([
    'distribute',
    'manifest',
    weather,
    '--id',
    'weather.daily.brentwood.2026-05-30',
    '--created',
    '2026-05-30T11:10:00Z',
  ]);
  ctx.sealkit([
    'distribute',
    'manifest',
    sales,
    '--id',
    'sales.weekly.2026-w22',
    '--created',
    '2026-06-01T08:00:00Z',
  ]);
  ctx.sealkit(['distribute', 'verify', weather]);

  ctx.say('The plan first (--dry-run writes nothing), then the run:');
  ctx.sealkit(['distribute', 'run', '--dry-run'], { cwd: base });
  ctx.sealkit(['distribute', 'run'], { cwd: base });
  const state = JSON.parse(
    readFileSync(join(site, 'weather', 'daily', '2026-05-30', '.distributor.json'), 'utf8'),
  );
  ctx.say(
    `site/weather/daily/2026-05-30 now holds ${state.outputs.map((o) => `${o.path} (${o.kind})`).join(', ')} and .distributor.json`,
  );

  ctx.say('A rerun changes nothing:');
  ctx.sealkit(['distribute', 'run'], { cwd: base });

  ctx.say(
    'The producer re-issues the weather report later the same day: same id, newer `created` -> replaced:',
  );
  writeFileSync(join(weather, 'summary.txt'), 'sunny, 22 C (corrected)\n');
  rmSync(join(weather, 'manifest.json'));
  ctx.sealkit([
    'distribute',
    'manifest',
    weather,
    '--id',
    'weather.daily.brentwood.2026-05-30',
    '--created',
    '2026-05-30T17:00:00Z',
  ]);
  ctx.sealkit(['distribute', 'run'], { cwd: base });

  ctx.say(
    'Another producer reuses the sales directory for a different bundle id -> conflict, exit 2, nothing touched:',
  );
  rmSync(join(sales, 'manifest.json'));
  ctx.sealkit([
    'distribute',
    'manifest',
    sales,
    '--id',
    'sales.weekly.2026-w22.eu',
    '--created',
    '2026-06-02T08:00:00Z',
  ]);
  ctx.sealkit(['distribute', 'run'], { cwd: base });

  ctx.say('A bundle whose file no longer matches its manifest stops the whole run before any write:');
  writeFileSync(join(sales, 'data', 'totals.csv'), 'region,total\nnorth,999\n');
  ctx.sealkit(['distribute', 'run'], { cwd: base });
}
