// Publish report bundles: a producer writes manifest.json, sealkit checks every
// file against it and publishes to a local site folder (Markdown rendered to
// HTML), a rerun skips, an edited report is refused with the file named, a
// typo in the configuration is refused with line, column and a suggestion.
// The published page is saved as a screenshot from headless Chromium.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const title = 'publish report bundles to a static site folder';

const CONFIG = `pipelines:
  - id: reports
    source: {root: reports}
    destinations:
      - id: site
        kind: local
        root: site
        outputs: {source: true, html: true}
`;

export async function run(ctx) {
  const base = join(ctx.workDir, 'distributor');
  const weather = join(base, 'reports', 'weather', '2026-05-30');
  mkdirSync(weather, { recursive: true });
  mkdirSync(join(base, 'site'));
  writeFileSync(
    join(weather, 'report.md'),
    '# Weather for Brentwood, 30 May\n\nSunny, **21 °C**. <script>alert("raw HTML is escaped")</script>\n\n| hour | temp |\n| --- | ---: |\n| 09 | 17 |\n| 15 | 21 |\n\nSee the [summary](summary.txt).\n',
  );
  writeFileSync(join(weather, 'summary.txt'), 'sunny, 21 C\n');
  writeFileSync(join(base, 'sealkit.distributor.yaml'), CONFIG);

  ctx.cd(base);
  ctx.say('The producer writes manifest.json (files sorted, sizes and SHA-256 computed):');
  ctx.sealkit([
    'distribute',
    'manifest',
    'reports/weather/2026-05-30',
    '--id',
    'weather.brentwood.2026-05-30',
    '--created',
    '2026-05-30T11:10:00Z',
  ]);
  ctx.show(join(base, 'sealkit.distributor.yaml'));
  ctx.sealkit(['distribute', 'run', '--dry-run'], { lines: 6 });
  ctx.sealkit(['distribute', 'run']);
  ctx.say('A rerun changes nothing:');
  ctx.sealkit(['distribute', 'run'], { tail: 1 });

  await screenshot(ctx, join(base, 'site', 'weather', '2026-05-30', 'report.html'), join(base, 'report.png'));

  ctx.say('The report is edited after its manifest was written: refused, the file named, nothing published.');
  ctx.shell("echo 'sunny, 23 C (edited)' > reports/weather/2026-05-30/summary.txt");
  ctx.sealkit(['distribute', 'verify', 'reports/weather/2026-05-30']);
  ctx.say('A typo in the configuration (htm for html) is refused with where and a suggestion:');
  ctx.shell("sed 's/html: true/htm: true/' sealkit.distributor.yaml > typo.yaml");
  ctx.sealkit(['distribute', 'run', '--config', 'typo.yaml']);
}

/** Opens the published page in headless Chromium and saves what a reader sees. */
async function screenshot(ctx, page, png) {
  if (!existsSync('/usr/bin/chromium')) {
    ctx.say('(No screenshot: install the Debian package chromium to get one.)');
    return;
  }
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  try {
    const tab = await browser.newPage({ viewport: { width: 900, height: 560 } });
    await tab.goto(`file://${page}`);
    await tab.screenshot({ path: png });
  } finally {
    await browser.close();
  }
  ctx.say(`The published page, as headless Chromium shows it (no script ran): ${png}`);
}
