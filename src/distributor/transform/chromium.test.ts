import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../test/helpers/cli.js';
import { makeBundle, writeConfig } from '../../../test/helpers/distributor-fixtures.js';
import { CHROMIUM_REQUIREMENTS, requireInstalled } from '../../../test/services/installed.js';
import { distributeRun } from '../run/run.js';

/**
 * A page the distributor generated from hostile Markdown (script tags, event
 * handlers, javascript:/vbscript:/data: links) is opened in headless Chromium:
 * nothing runs on load, and clicking every link runs nothing either. A control
 * page proves the probe does see a script that runs. A report page of an
 * HTML-only site is styled by its inlined stylesheet (computed styles), shows
 * its chart from the bundle's assets, links to the bundle's other page, and
 * makes no request beyond its own files.
 */
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

let work: string;
let browser: Browser;
beforeAll(async () => {
  requireInstalled('Chromium (the headless browser the page tests use)', CHROMIUM_REQUIREMENTS);
  work = mkdtempSync(join(tmpdir(), 'sealkit-chromium-'));
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ARGS });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  rmSync(work, { recursive: true, force: true });
});

async function probe(url: string, clickLinks: boolean) {
  const page = await browser.newPage();
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.type());
    void dialog.dismiss();
  });
  await page.goto(url);
  if (clickLinks) {
    // A click that leaves the page is cancelled: the page (and anything a
    // click ran in it) stays to be looked at. A navigation let through
    // could commit after the click returned and destroy the page under the
    // evaluation below, which made this test fail now and then.
    await page.route('**/*', (route) =>
      route.request().isNavigationRequest() && route.request().url() !== url
        ? route.abort()
        : route.continue(),
    );
    for (const link of await page.locator('a').all()) {
      await link.click({ modifiers: [] }).catch(() => undefined);
      if (page.url() !== url) await page.goto(url);
    }
  }
  // A string, evaluated in the page: the test's own TypeScript program has no DOM types.
  const state = (await page.evaluate(`({
    pwned: window.__sealkitPwned === true,
    title: document.title,
    scripts: document.querySelectorAll('script').length,
    handlers: [...document.querySelectorAll('*')].filter((el) => [...el.attributes].some((a) => a.name.startsWith('on'))).length,
    dangerousLinks: [...document.querySelectorAll('a')].filter((a) => !/^https?:/.test(a.href)).length,
    links: document.querySelectorAll('a').length,
  })`)) as {
    pwned: boolean;
    title: string;
    scripts: number;
    handlers: number;
    dangerousLinks: number;
    links: number;
  };
  await page.close();
  return { ...state, dialogs };
}

describe('generated HTML in a real browser', () => {
  it('runs no script from hostile Markdown, on load or on click', async () => {
    const source = join(work, 'src');
    const dest = join(work, 'site');
    mkdirSync(source);
    mkdirSync(dest);
    const hostile = readFileSync(join(REPO_ROOT, 'src', 'distributor', 'transform', 'golden', 'hostile.md'));
    makeBundle(source, 'reports/r1', [{ path: 'report.md', content: hostile }], {
      id: 'r1',
      created: '2026-05-30T11:10:00Z',
    });
    const config = writeConfig(work, [
      { id: 'p', source, destinations: [{ id: 'site', root: dest, source: false }] },
    ]);
    const report = await distributeRun({ configPath: config });
    expect(report.outcomes.map((o) => o.outcome)).toEqual(['published']);
    const url = pathToFileURL(join(dest, 'reports', 'r1', 'report.html')).href;
    const result = await probe(url, true);
    expect(result).toEqual({
      pwned: false,
      title: 'Click <b>me</b> & see',
      scripts: 0,
      handlers: 0,
      dangerousLinks: 0,
      links: 1,
      dialogs: [],
    });
  }, 60_000);

  it('control: the probe sees a script that does run', async () => {
    const control = join(work, 'control.html');
    writeFileSync(control, '<!DOCTYPE html><title>c</title><script>window.__sealkitPwned = true</script>');
    const result = await probe(pathToFileURL(control).href, false);
    expect(result.pwned).toBe(true);
    expect(result.scripts).toBe(1);
  }, 60_000);
});

const REPORT_MD = `# Sales by region — week 22

Totals per region, from the [notes](notes.md#method).

| region | sales |
| :--- | ---: |
| North | 1,204 |
| South | 1,733 |

![Sales by region](chart.svg)

\`\`\`sql
select region, sum(amount) from sales group by region;
\`\`\`

A picture from elsewhere is not loaded: ![remote](https://remote.invalid/pixel.png)
`;
const CHART_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="60"><rect width="50" height="40" y="20" fill="#0969da"/><rect x="60" width="50" height="60" fill="#1a7f37"/></svg>';

/**
 * Opens `url` recording every request that is not to the page's own site
 * (its files, or the origin serving it), stopped before it leaves the
 * machine; `own` lists every request to the site itself.
 */
async function openRecording(url: string) {
  const page = await browser.newPage();
  const foreign: string[] = [];
  const own: string[] = [];
  const origin = url.startsWith('file:') ? 'file:' : new URL(url).origin;
  await page.route('**/*', async (route) => {
    const target = route.request().url();
    if (target.startsWith(origin)) {
      own.push(target);
      await route.continue();
    } else {
      foreign.push(target);
      await route.abort();
    }
  });
  const violations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  await page.goto(url);
  await page.waitForLoadState('load');
  return { page, foreign, own, violations };
}

describe('a published report page in a real browser', () => {
  it('is styled by its inlined stylesheet, shows its chart, links to its page, runs nothing, loads nothing remote', async () => {
    const source = join(work, 'src-site');
    const dest = join(work, 'site-only');
    mkdirSync(source);
    mkdirSync(dest);
    makeBundle(
      source,
      'sales/week-22',
      [
        { path: 'report.md', content: REPORT_MD },
        { path: 'notes.md', content: '# Notes\n\n## Method\n\nSummed per region.\n' },
        { path: 'chart.svg', content: CHART_SVG },
      ],
      { id: 'sales.week-22', created: '2026-05-30T11:10:00Z' },
    );
    const config = writeConfig(work, [
      {
        id: 'p',
        source,
        destinations: [{ id: 'site', root: dest, source: false, html: { lang: 'en' }, assets: true }],
      },
    ]);
    const report = await distributeRun({ configPath: config });
    expect(report.outcomes.map((o) => o.outcome)).toEqual(['published']);
    const bundle = join(dest, 'sales', 'week-22');
    const url = pathToFileURL(join(bundle, 'report.html')).href;
    const { page, foreign, violations } = await openRecording(url);
    const seen = (await page.evaluate(`(() => {
      const style = (selector) => getComputedStyle(document.querySelector(selector));
      const cell = style('td');
      return {
        lang: document.documentElement.lang,
        title: document.title,
        viewport: document.querySelector('meta[name=viewport]')?.content ?? null,
        scripts: document.querySelectorAll('script').length,
        tdBorder: [cell.borderTopStyle, cell.borderTopWidth, cell.borderLeftStyle],
        alignRight: style('td.align-right').textAlign,
        maxWidth: style('.markdown-body').maxWidth,
        codeFont: style('pre code').fontFamily,
        preBackground: style('pre').backgroundColor,
        chartWidth: document.querySelector('img[src="chart.svg"]').naturalWidth,
        remoteWidth: document.querySelector('img[alt=remote]').naturalWidth,
        notesLink: document.querySelector('a').getAttribute('href'),
      };
    })()`)) as Record<string, unknown>;
    expect(seen).toEqual({
      lang: 'en',
      title: 'Sales by region — week 22',
      viewport: 'width=device-width, initial-scale=1',
      scripts: 0,
      tdBorder: ['solid', '1px', 'solid'],
      alignRight: 'right',
      maxWidth: '980px',
      codeFont: expect.stringMatching(/monospace/),
      preBackground: expect.not.stringMatching(/^rgba\(0, 0, 0, 0\)$/),
      chartWidth: 120,
      remoteWidth: 0,
      notesLink: 'notes.html#method',
    });
    // The remote picture was refused by the page's own policy, before any request.
    expect(foreign).toEqual([]);
    expect(violations.some((text) => text.includes('remote.invalid'))).toBe(true);
    await page.click('a[href="notes.html#method"]');
    await page.waitForLoadState('load');
    expect(await page.title()).toBe('Notes');
    expect(foreign).toEqual([]);
    await page.close();
  }, 60_000);

  it('served over HTTP from 127.0.0.1 as a static site: requests only its page and its chart', async () => {
    const root = join(work, 'site-only');
    const server = createServer((request, response) => {
      const path = join(root, decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname));
      if (!path.startsWith(`${root}/`) || !existsSync(path)) {
        response.writeHead(404).end();
        return;
      }
      const type = path.endsWith('.html')
        ? 'text/html; charset=utf-8'
        : path.endsWith('.svg')
          ? 'image/svg+xml'
          : 'application/octet-stream';
      response.writeHead(200, { 'content-type': type }).end(readFileSync(path));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const base = `http://127.0.0.1:${port}/sales/week-22/`;
      const { page, foreign, own } = await openRecording(`${base}report.html`);
      expect(await page.evaluate(`getComputedStyle(document.querySelector('td')).borderTopStyle`)).toBe(
        'solid',
      );
      expect(await page.evaluate(`document.querySelector('img[src="chart.svg"]').naturalWidth`)).toBe(120);
      expect(own.sort()).toEqual([`${base}chart.svg`, `${base}report.html`]);
      expect(foreign).toEqual([]);
      await page.close();
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  }, 60_000);

  it('control: without the page policy, the recorder does see a remote request (and stops it)', async () => {
    const control = join(work, 'remote-control.html');
    writeFileSync(control, '<!DOCTYPE html><title>c</title><img src="https://remote.invalid/pixel.png">');
    const { page, foreign } = await openRecording(pathToFileURL(control).href);
    expect(foreign).toEqual(['https://remote.invalid/pixel.png']);
    await page.close();
  }, 60_000);

  it('control: a page whose style element the policy does not allow is unstyled', async () => {
    const published = readFileSync(join(work, 'site-only', 'sales', 'week-22', 'report.html'), 'utf8');
    const tampered = join(work, 'site-only', 'sales', 'week-22', 'tampered.html');
    writeFileSync(
      tampered,
      published.replace('.markdown-body{box-sizing', '.markdown-body{color:red;box-sizing'),
    );
    const { page } = await openRecording(pathToFileURL(tampered).href);
    const border = await page.evaluate(`getComputedStyle(document.querySelector('td')).borderTopStyle`);
    expect(border).toBe('none');
    await page.close();
  }, 60_000);

  it('regression: printed, a wide table and a long code line wrap instead of being cut; Arabic reads right to left', async () => {
    const source = join(work, 'print-src');
    const wide = [
      'Region',
      'Orders',
      'Revenue',
      'Margin',
      'Returns',
      'Refunds',
      'Basket',
      'Churn',
      'Channel',
      'Comment',
    ];
    const row = wide.map((name) => `${name.toLowerCase()}-value-with-some-length`);
    const query = `SELECT region, COUNT(DISTINCT order_id) AS orders, SUM(amount) AS revenue FROM sales.orders WHERE week = 22 GROUP BY region ORDER BY revenue DESC`;
    makeBundle(
      source,
      'wide',
      [
        {
          path: 'report.md',
          content: `# Wide\n\n| ${wide.join(' | ')} |\n|${wide.map(() => '---').join('|')}|\n| ${row.join(' | ')} |\n\n\`\`\`sql\n${query}\n\`\`\`\n`,
        },
        { path: 'arabic.md', content: '# تقرير المبيعات\n\n- الأسبوع 22 (week 22).\n' },
      ],
      { id: 'print.wide', created: '2026-05-30T11:10:00Z' },
    );
    const site = join(work, 'print-site');
    mkdirSync(site);
    const dir = join(work, 'print-config');
    mkdirSync(dir);
    writeFileSync(
      join(dir, 'sealkit.distributor.yaml'),
      `pipelines:\n  - id: p\n    source: {root: ${JSON.stringify(source)}}\n    destinations:\n      - {id: site, kind: local, root: ${JSON.stringify(site)}, outputs: {source: false, html: {lang: ar}}}\n`,
    );
    expect((await distributeRun({ configPath: join(dir, 'sealkit.distributor.yaml') })).status).toBe('ok');
    // A4's printable width at 96 dpi.
    const page = await browser.newPage({ viewport: { width: 700, height: 1000 } });
    await page.goto(pathToFileURL(join(site, 'wide', 'report.html')).href);
    const overflow = `({
      table: document.querySelector('table').scrollWidth - document.querySelector('table').clientWidth,
      code: document.querySelector('pre').scrollWidth - document.querySelector('pre').clientWidth,
      right: Math.max(document.querySelector('table').getBoundingClientRect().right, document.querySelector('pre').getBoundingClientRect().right) - document.documentElement.clientWidth,
    })`;
    type Overflow = { table: number; code: number; right: number };
    // On screen both scroll inside their own boxes.
    const screen = (await page.evaluate(overflow)) as Overflow;
    expect(screen.table).toBeGreaterThan(0);
    expect(screen.code).toBeGreaterThan(0);
    await page.emulateMedia({ media: 'print' });
    const printed = (await page.evaluate(overflow)) as Overflow;
    expect(printed.table).toBeLessThanOrEqual(0);
    expect(printed.code).toBeLessThanOrEqual(0);
    expect(printed.right).toBeLessThanOrEqual(0);
    await page.emulateMedia({ media: 'screen' });
    await page.goto(pathToFileURL(join(site, 'wide', 'arabic.html')).href);
    expect(
      await page.evaluate(
        `[document.documentElement.dir, getComputedStyle(document.querySelector('li')).direction]`,
      ),
    ).toEqual(['rtl', 'rtl']);
    await page.close();
  }, 60_000);
});

describe('footnotes of a published page in a real browser', () => {
  it('regression: beside a heading named fn1, a footnote link lands on its note and back, and #fn1 on the heading', async () => {
    const source = join(work, 'notes-src');
    const site = join(work, 'notes-site');
    mkdirSync(source);
    mkdirSync(site);
    makeBundle(
      source,
      'sales/week-22',
      [
        {
          path: 'report.md',
          content: [
            '# Revenue',
            '',
            'Up 3.1 %.[^1] See [the method](#fn1).',
            '',
            '## fn1',
            '',
            'The method, under a heading whose id footnotes once took as well.',
            '',
            '## FN 1',
            '',
            'Again[^1], and a late store.[^late]',
            '',
            '[^1]: Two stores reported late.',
            '[^late]: Zürich, on Monday.',
            '',
          ].join('\n'),
        },
        { path: 'notes.md', content: '# Notes\n\nThe [late store](report.md#user-content-fn-late).\n' },
      ],
      { id: 'sales.notes', created: '2026-05-30T11:10:00Z' },
    );
    const config = writeConfig(work, [
      { id: 'p', source, destinations: [{ id: 'site', root: site, source: false, html: { lang: 'en' } }] },
    ]);
    expect((await distributeRun({ configPath: config })).outcomes.map((o) => o.outcome)).toEqual([
      'published',
    ]);
    const url = pathToFileURL(join(site, 'sales', 'week-22', 'report.html')).href;
    const page = await browser.newPage();
    await page.goto(url);
    // The element the address's fragment selects, as the browser scrolled to it.
    const target = `(() => { const el = document.querySelector(':target'); return el === null ? null : [el.tagName, el.id, el.textContent.trim().slice(0, 24)]; })()`;
    const ids = (await page.evaluate(
      `[...document.querySelectorAll('[id]')].map((el) => el.id)`,
    )) as string[];
    expect(new Set(ids).size).toBe(ids.length);
    await page.click('sup.footnote-ref >> nth=0');
    expect(await page.evaluate(target)).toEqual(['LI', 'user-content-fn-1', 'Two stores reported late']);
    await page.click('#user-content-fn-1 a.footnote-backref >> nth=1');
    expect(await page.evaluate(target)).toEqual(['A', 'user-content-fnref-1-2', '[1:1]']);
    await page.click('a[href="#fn1"]');
    expect(await page.evaluate(target)).toEqual(['H2', 'fn1', 'fn1']);
    // A note linked from another page, as a link copied from the file's view on GitHub reads.
    await page.goto(pathToFileURL(join(site, 'sales', 'week-22', 'notes.html')).href);
    await page.click('a[href="report.html#user-content-fn-late"]');
    await page.waitForLoadState('load');
    expect(await page.evaluate(target)).toEqual([
      'LI',
      'user-content-fn-late',
      'Zürich, on Monday. \u21a9\uFE0E',
    ]);
    await page.close();
  }, 60_000);
});

describe('what GitHub shows of a team’s Markdown, on a published site', () => {
  it('regression: a [!WARNING] quote is a callout, <br> breaks a cell, <details> folds, a link to last week’s .md opens its page', async () => {
    const source = join(work, 'gfm-src');
    const site = join(work, 'gfm-site');
    mkdirSync(source);
    mkdirSync(site);
    makeBundle(source, 'sales/2026-W21', [{ path: 'report.md', content: '# Week 21\n' }], {
      id: 'sales.2026-W21',
      created: '2026-05-23T11:10:00Z',
    });
    makeBundle(
      source,
      'sales/2026-W22',
      [
        {
          path: 'report.md',
          content: [
            '# Week 22',
            '',
            '> [!WARNING]',
            '> The EMEA feed was late; compare with [last week](../2026-W21/report.md).',
            '',
            '| region | note |',
            '| --- | --- |',
            '| EMEA | late feed<br>rerun at 02:00 |',
            '',
            '<details>',
            '<summary>Query used</summary>',
            '',
            '```sql',
            'select region, sum(amount) from sales group by region;',
            '```',
            '</details>',
            '',
          ].join('\n'),
        },
      ],
      { id: 'sales.2026-W22', created: '2026-05-30T11:10:00Z' },
    );
    const config = writeConfig(work, [
      { id: 'p', source, destinations: [{ id: 'site', root: site, source: false, html: { lang: 'en' } }] },
    ]);
    const report = await distributeRun({ configPath: config });
    expect(report.outcomes.map((o) => [o.bundle_dir, o.outcome])).toEqual([
      ['sales/2026-W21', 'published'],
      ['sales/2026-W22', 'published'],
    ]);
    expect(report.plan.items.flatMap((item) => ('link_warnings' in item ? item.link_warnings : []))).toEqual(
      [],
    );
    const { page, foreign } = await openRecording(
      pathToFileURL(join(site, 'sales', '2026-W22', 'report.html')).href,
    );
    const seen = (await page.evaluate(`(() => {
      const alert = document.querySelector('.markdown-alert');
      const title = alert.querySelector('.markdown-alert-title');
      return {
        quotes: document.querySelectorAll('blockquote').length,
        bar: [getComputedStyle(alert).borderLeftStyle, getComputedStyle(alert).borderLeftColor],
        title: [title.textContent, getComputedStyle(title).color],
        text: alert.textContent.includes('[!WARNING]'),
        cell: document.querySelectorAll('td')[1].innerText,
      };
    })()`)) as Record<string, unknown>;
    expect(seen).toEqual({
      quotes: 0,
      // github-markdown-css's warning colour, as on GitHub.
      bar: ['solid', 'rgb(154, 103, 0)'],
      title: ['Warning', 'rgb(154, 103, 0)'],
      text: false,
      cell: 'late feed\nrerun at 02:00',
    });
    // Folded until its summary is clicked, with no script.
    const shown = `[document.querySelector('details pre').checkVisibility(), document.querySelector('details').open]`;
    expect(await page.evaluate(shown)).toEqual([false, false]);
    await page.click('details summary');
    expect(await page.evaluate(shown)).toEqual([true, true]);
    await page.click('a[href="../2026-W21/report.html"]');
    await page.waitForLoadState('load');
    expect(await page.title()).toBe('Week 21');
    expect(foreign).toEqual([]);
    await page.close();
  }, 60_000);
});
