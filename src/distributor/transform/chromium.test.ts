import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
 * page proves the probe does see a script that runs.
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
