// Publish report bundles: a producer writes manifest.json (hidden files left
// out), sealkit checks every file against it and publishes an HTML-only site
// (Markdown rendered to styled pages, the chart copied as an asset), a rerun
// skips, a published file edited by hand with the same size is caught by
// --checksum, an edited report is refused with the file named, a typo in the
// configuration is refused with line, column and a suggestion. The published
// page is saved as a screenshot from headless Chromium.
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
        outputs: {source: false, html: {lang: en}, assets: true}
`;

const REPORT = `# Weekly sales — week 22

Sales rose **8 %** on week 21, led by the South.[^returns] Figures are in
EUR; the method is in the [notes](notes.md).

## By region

| region | sales | share | vs. week 21 |
| :--- | ---: | ---: | ---: |
| North | 1,204 | 41 % | +2 % |
| South | 1,733 | 59 % | +13 % |
| **Total** | **2,937** | 100 % | +8 % |

![Sales by region, weeks 21 and 22](chart.svg)

## How it was computed

\`\`\`sql
select region, sum(amount) as sales
from silver.orders
where order_week = 22
group by region;
\`\`\`

Raw figures: [data/sales.csv](data/sales.csv).

Checks before sending:

- [x] figures reconciled with finance
- [ ] South's late orders confirmed

[^returns]: Before returns, which are counted in the week they are refunded.
`;

const CHART = `<svg xmlns="http://www.w3.org/2000/svg" width="520" height="200" font-family="sans-serif" font-size="13">
  <text x="10" y="18" font-weight="bold">Sales by region (EUR)</text>
  <g fill="#8c959f"><rect x="60" y="110" width="40" height="60"/><rect x="220" y="84" width="40" height="86"/></g>
  <g fill="#0969da"><rect x="104" y="104" width="40" height="66"/><rect x="264" y="58" width="40" height="112"/></g>
  <line x1="40" y1="170" x2="500" y2="170" stroke="#57606a"/>
  <text x="80" y="188">North</text><text x="240" y="188">South</text>
  <rect x="360" y="40" width="12" height="12" fill="#8c959f"/><text x="378" y="51">week 21</text>
  <rect x="360" y="60" width="12" height="12" fill="#0969da"/><text x="378" y="71">week 22</text>
</svg>
`;

export async function run(ctx) {
  const base = join(ctx.workDir, 'distributor');
  const week = join(base, 'reports', 'sales', 'week-22');
  mkdirSync(join(week, 'data'), { recursive: true });
  mkdirSync(join(base, 'site'));
  writeFileSync(join(week, 'report.md'), REPORT);
  writeFileSync(join(week, 'notes.md'), '# Notes\n\nOrders are counted in the week they ship.\n');
  writeFileSync(join(week, 'chart.svg'), CHART);
  writeFileSync(join(week, 'data', 'sales.csv'), 'region,sales\nNorth,1204\nSouth,1733\n');
  writeFileSync(join(week, '.DS_Store'), 'left by a file manager');
  // A file at the source root itself: never published, and named by a run that finds no bundle.
  writeFileSync(join(base, 'reports', 'README.md'), '# Reports\n\nOne folder per report bundle.\n');
  writeFileSync(join(base, 'sealkit.distributor.yaml'), CONFIG);

  ctx.cd(base);
  const nonBlank = (line) => line.trim() !== '';
  ctx.say(
    'Before the producer writes its manifest, a run finds no bundle and says where one is missing (and that files at the root are never published):',
  );
  ctx.sealkit(['distribute', 'run', '--dry-run'], { pick: nonBlank, status: 0 });
  ctx.say(
    'The producer writes manifest.json (files sorted, sizes and SHA-256 computed, hidden files left out):',
  );
  manifest(ctx, 'week-22', '2026-05-30T11:10:00Z');
  ctx.show(join(base, 'sealkit.distributor.yaml'));
  ctx.sealkit(['distribute', 'run', '--dry-run'], { pick: nonBlank, status: 0 });
  ctx.sealkit(['distribute', 'run', '-q'], { comment: 'publish (-q: no report)', status: 0 });
  ctx.sealkit(['distribute', 'run'], { tail: 1, comment: 'a rerun changes nothing', status: 0 });
  ctx.say(
    'Someone corrects a figure in the published CSV by hand, keeping its size: a rerun compares sizes and skips; --checksum reads every published file and refuses the bundle, naming it, nothing overwritten:',
  );
  ctx.shell("sed -i 's/1204/1205/' site/sales/week-22/data/sales.csv");
  const week22 = (line) => line.includes('sales/week-22');
  ctx.sealkit(['distribute', 'run'], { pick: week22, status: 0 });
  ctx.sealkit(['distribute', 'run', '--checksum'], { pick: week22, status: 2 });
  ctx.shell("sed -i 's/1205/1204/' site/sales/week-22/data/sales.csv");
  ctx.sealkit(['distribute', 'run', '--dry-run', '--checksum'], {
    pick: (line) => line.startsWith('published outputs') || week22(line),
    comment: 'the published file put back: an audit finds the bundle intact',
    status: 0,
  });

  screenshot(ctx, 'site/sales/week-22/report.html', join(base, 'report.png'));

  // Week 23's page links last week's Markdown (its page on this site), a misspelt note, a folder of a
  // week no bundle holds and the site lacks too (a typo), a logo from another site and a chart drawn
  // after its manifest.
  const week23 = join(base, 'reports', 'sales', 'week-23');
  mkdirSync(week23);
  writeFileSync(
    join(week23, 'report.md'),
    '# Sales by region — week 23\n\nAs [last week](../week-22/report.md), the north leads ([method](../week-22/notse.md)); see also [week 12](../week-12/report.md).\n\n![Forecast](forecast.svg) ![Logo](https://example.com/logo.png)\n',
  );
  // Notes saved by an editor that capitalizes the extension: no page is made from them.
  writeFileSync(join(week23, 'Notes.MD'), '# Notes\n\nThe north counts two new stores.\n');
  ctx.say(
    'A link to last week\u2019s .md points at its page on this site (it gets pages only). A page whose links will not load is published as written, and the run names each link with its line: a misspelt note of last week, a week the site does not hold (looked up there: an older week published before would load), a logo from another site, which the page never loads, and a chart drawn after the manifest. Notes saved as Notes.MD are named too: only a lowercase .md becomes a page:',
  );
  ctx.show(join(week23, 'report.md'));
  manifest(ctx, 'week-23', '2026-06-06T11:10:00Z');
  ctx.shell('cp reports/sales/week-22/chart.svg reports/sales/week-23/forecast.svg');
  ctx.sealkit(['distribute', 'run'], {
    pick: nonBlank,
    comment:
      'the chart is named twice: as a link that will not load, and as a file its manifest does not list; Notes.MD as no page',
    status: 0,
  });

  ctx.say(
    'Someone drops a file into the published week 22. The run leaves it where it is, and says now what it will cost later: the next version of that bundle is refused until the file is moved out:',
  );
  ctx.shell('echo "Options -Indexes" > site/sales/week-22/.htaccess');
  ctx.sealkit(['distribute', 'run'], {
    pick: (line) => line.startsWith("not sealkit's"),
    status: 0,
  });
  ctx.shell('rm site/sales/week-22/.htaccess');

  ctx.say(
    'A nightly job writes week 22\u2019s manifest again over the same files: the manifest command says only created changed, and the run says it of the replacement, with how to keep the bundle as published:',
  );
  manifest(ctx, 'week-22', '2026-05-31T02:00:00Z', '--replace');
  ctx.sealkit(['distribute', 'run'], {
    pick: (line) => week22(line) || line.includes('over the same files'),
    status: 0,
  });

  ctx.say('The data is edited after its manifest was written: refused, the file named, nothing published.');
  ctx.shell("echo 'North,9999' >> reports/sales/week-22/data/sales.csv");
  ctx.sealkit(['distribute', 'verify', 'reports/sales/week-22'], { status: 2 });
  ctx.say('A typo in the configuration (htm for html) is refused with where and a suggestion:');
  ctx.shell("sed 's/html:/htm:/' sealkit.distributor.yaml > typo.yaml");
  ctx.sealkit(['distribute', 'run', '--config', 'typo.yaml'], { status: 2 });
}

/** The producer's step: week N's manifest, with the created it gives. */
function manifest(ctx, week, created, ...extra) {
  ctx.sealkit(
    [
      'distribute',
      'manifest',
      `reports/sales/${week}`,
      '--id',
      `sales.${week}`,
      '--created',
      created,
      ...extra,
    ],
    { status: 0 },
  );
}

/**
 * Saves the published page as headless Chromium renders it, with the command
 * a user would type (--no-sandbox only because Chromium refuses root without it).
 */
function screenshot(ctx, page, png) {
  if (!existsSync('/usr/bin/chromium')) {
    ctx.say('(No screenshot: install the Debian package chromium to get one.)');
    return;
  }
  const sandbox = process.getuid?.() === 0 ? ' --no-sandbox' : '';
  ctx.shell(
    `chromium --headless${sandbox} --window-size=1000,1060 --screenshot=report.png ${page} 2>/dev/null`,
  );
  if (!existsSync(png)) throw new Error('chromium wrote no screenshot');
  ctx.say(`The published page (styled HTML, no script), as headless Chromium shows it: ${png}`);
}
