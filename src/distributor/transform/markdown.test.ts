import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../test/helpers/cli.js';
import { expectGolden } from '../../../test/helpers/golden.js';
import { Refusal } from '../../core/refusal/index.js';
import {
  htmlSidecarPath,
  MARKDOWN_MAX_BYTES,
  type PageOptions,
  pageHref,
  renderMarkdownPage,
} from './markdown.js';
import { isAsset } from './sidecar.js';
import { pageStylesheet } from './stylesheet.js';

const GOLDEN = join(REPO_ROOT, 'src', 'distributor', 'transform', 'golden');
/** The page `links.md` is, inside a bundle that lists these files. */
const LINKS_BUNDLE: PageOptions = {
  lang: 'en-GB',
  path: 'week-22/links.md',
  listed: new Set([
    'index.md',
    'week-22/links.md',
    'week-22/details/north.md',
    'week-22/data/sales.csv',
    'week-22/chart.png',
    'reports/other.md',
  ]),
};
const CASES: readonly (readonly [string, PageOptions])[] = [
  ['report', {}],
  ['hostile', {}],
  ['plain', { lang: 'de' }],
  ['links', LINKS_BUNDLE],
];

const render = (markdown: string | Uint8Array, title = 't', options: PageOptions = {}): string =>
  Buffer.from(
    renderMarkdownPage(typeof markdown === 'string' ? Buffer.from(markdown) : markdown, title, options),
  ).toString('utf8');

/**
 * A page as its golden file keeps it: the inlined stylesheet (about 1,140
 * lines, the same in every page) replaced by one line naming its hash, so
 * the golden files hold the page shell and the rendered Markdown, and the
 * stylesheet is checked once, in golden/stylesheet.txt.
 */
const withoutStylesheet = (page: string): string => {
  const element = `<style>${pageStylesheet().text}</style>`;
  const parts = page.split(element);
  expect(parts.length, 'the page inlines the stylesheet exactly once').toBe(2);
  return parts.join(`<style>/* the page stylesheet, sha256-${pageStylesheet().sha256Base64} */</style>`);
};

describe('Markdown to HTML', () => {
  it.each(CASES)('renders golden/%s.md to exactly golden/%s.html, the stylesheet aside', (name, options) => {
    expectGolden(
      join(GOLDEN, `${name}.html`),
      withoutStylesheet(render(readFileSync(join(GOLDEN, `${name}.md`)), name, options)),
    );
  });

  it('inlines the stylesheet golden/stylesheet.txt names by its SHA-256 and size', () => {
    const html = render(readFileSync(join(GOLDEN, 'report.md')), 'report');
    const [text = ''] = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((match) => match[1] ?? '');
    const hash = createHash('sha256').update(text, 'utf8').digest('base64');
    expectGolden(
      join(GOLDEN, 'stylesheet.txt'),
      `sha256-${hash} ${Buffer.byteLength(text, 'utf8')} bytes, github-markdown-css ${pageStylesheet().version} (light) with sealkit's layout rules\n`,
    );
  });

  it('allows exactly its one style element by hash, and no script, remote load or inline style', () => {
    const html = render(readFileSync(join(GOLDEN, 'links.md')), 'links', LINKS_BUNDLE);
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html)?.[1];
    const styles = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((match) => match[1] ?? '');
    expect(styles).toHaveLength(1);
    const hash = createHash('sha256')
      .update(styles[0] ?? '', 'utf8')
      .digest('base64');
    expect(csp).toBe(
      `default-src 'none'; img-src 'self' data:; style-src 'sha256-${hash}'; base-uri 'none'; form-action 'none'`,
    );
    expect(html).not.toMatch(/unsafe-inline|<script|<link|style="/i);
    expect(styles[0]).toContain('MIT License');
    expect(styles[0]).toContain('github-markdown-css 5.9.0');
    expect(html).toContain('<html lang="en-GB">');
    expect(html).toContain('<article class="markdown-body">');
    expect(render('# x')).toContain('<html>\n');
  });

  it('writes table alignment as a class, which the policy allows, not as a style attribute', () => {
    const html = render('| a | b | c |\n| :- | -: | :-: |\n| 1 | 2 | 3 |\n');
    expect(html).toContain('<th class="align-left">a</th>');
    expect(html).toContain('<td class="align-right">2</td>');
    expect(html).toContain('<td class="align-center">3</td>');
  });

  it('points relative links to listed .md files at their pages and leaves every other link', () => {
    const html = render(readFileSync(join(GOLDEN, 'links.md')), 'links', LINKS_BUNDLE);
    const hrefs = [...html.matchAll(/<a href="([^"]*)"/g)].map((match) => match[1]);
    expect(hrefs).toEqual([
      '../index.html',
      'details/north.html#totals',
      'data/sales.csv',
      '#top',
      '/reports/other.md',
      'missing.md',
      'https://example.org/notes.md',
      'NOTES.MD',
      '../../outside.md',
    ]);
    expect(html).toContain('<img src="chart.png" alt="Sales chart" />');
  });

  it('resolves a link like a browser would, inside the bundle only', () => {
    const listed = new Set(['a b.md', 'café.md', 'x/y.md', 'top.md', 'x/q.md']);
    expect(pageHref('a%20b.md', 'r.md', listed)).toBe('a%20b.html');
    expect(pageHref('caf%C3%A9.md?v=1#s', 'r.md', listed)).toBe('caf%C3%A9.html?v=1#s');
    expect(pageHref('./y.md', 'x/r.md', listed)).toBe('./y.html');
    expect(pageHref('../x/./q.md', 'x/r.md', listed)).toBe('../x/./q.html');
    expect(pageHref('../top.md', 'x/r.md', listed)).toBe('../top.html');
    expect(pageHref('../top.md', 'r.md', listed)).toBeUndefined();
    expect(pageHref('x%2Fy.md', 'r.md', listed)).toBeUndefined();
    expect(pageHref('%E0%A4%A.md', 'r.md', listed)).toBeUndefined();
    expect(pageHref('mailto:top.md', 'r.md', listed)).toBeUndefined();
    expect(pageHref('//host/top.md', 'r.md', listed)).toBeUndefined();
    // Without a listing (a library caller rendering one file), nothing is rewritten.
    expect(render('[t](top.md)')).toContain('<a href="top.md">');
  });

  it('sorts listed files into the assets category: neither Markdown nor HTML', () => {
    expect(['chart.png', 'data/days.csv', 'report.pdf', 'logo.svg', 'README.MD'].every(isAsset)).toBe(true);
    expect(['report.md', 'page.html', 'old/INDEX.HTM'].some(isAsset)).toBe(false);
  });

  it('escapes raw HTML and links no dangerous scheme', () => {
    const html = Buffer.from(
      renderMarkdownPage(readFileSync(join(GOLDEN, 'hostile.md')), 'hostile'),
    ).toString();
    const body = html.slice(html.indexOf('<body>'));
    expect(body).not.toMatch(/<script|<img|<a href="(?!https:)/i);
    expect(body).not.toMatch(/href="\s*(javascript|vbscript|data|file):/i);
    expect(html).toContain('<meta http-equiv="Content-Security-Policy" content="default-src \'none\'');
  });

  it('takes the title from the first heading, else the file name', () => {
    const titled = Buffer.from(
      renderMarkdownPage(Buffer.from('text\n\n## Sub `code` *x*\n\n# Later\n'), 'f'),
    ).toString();
    expect(titled).toContain('<title>Sub code x</title>');
    const untitled = Buffer.from(renderMarkdownPage(Buffer.from('just text'), 'daily-report')).toString();
    expect(untitled).toContain('<title>daily-report</title>');
  });

  it('gives every heading the id GitHub gives it, so notes.md#method lands on the page', () => {
    const page = render('# Sales by region — week 22\n\n### Method\n\n## Method\n\n## `x` *and* Ü?\n');
    expect(page).toContain('<h1 id="sales-by-region--week-22">Sales by region — week 22</h1>');
    expect(page).toContain('<h3 id="method">Method</h3>');
    expect(page).toContain('<h2 id="method-1">Method</h2>');
    expect(page).toContain('<h2 id="x-and-ü"><code>x</code> <em>and</em> Ü?</h2>');
  });

  it('regression: a heading without text gets no empty id', () => {
    const page = render('#\n\n## Method\n');
    expect(page).toContain('<h1></h1>');
    expect(page).toContain('<h2 id="method">Method</h2>');
    // The title is the first heading that has text, not the file name.
    expect(page).toContain('<title>Method</title>');
  });

  it('regression: a page in a right-to-left language says so (dir="rtl"), any other does not', () => {
    const head = (lang: string) =>
      Buffer.from(renderMarkdownPage(Buffer.from('# x\n'), 'f', { lang }))
        .toString()
        .split('\n')[1];
    for (const lang of ['ar', 'he', 'fa', 'ur', 'ar-EG', 'az-Arab']) {
      expect(head(lang)).toBe(`<html lang="${lang}" dir="rtl">`);
    }
    for (const lang of ['en', 'de', 'ja', 'az', 'sr-Cyrl']) expect(head(lang)).toBe(`<html lang="${lang}">`);
  });

  it('is byte-identical across runs and processes', () => {
    const source = readFileSync(join(GOLDEN, 'report.md'));
    const first = renderMarkdownPage(source, 'report');
    expect(Buffer.compare(Buffer.from(first), Buffer.from(renderMarkdownPage(source, 'report')))).toBe(0);
    const script = `import('${join(REPO_ROOT, 'dist', 'src', 'distributor', 'transform', 'markdown.js')}').then((m) => process.stdout.write(m.renderMarkdownPage(require('node:fs').readFileSync(process.argv[1]), 'report')))`;
    const child = spawnSync(process.execPath, ['-e', script, join(GOLDEN, 'report.md')]);
    expect(child.status).toBe(0);
    expect(Buffer.compare(child.stdout, Buffer.from(first))).toBe(0);
  });

  it('refuses Markdown that is not UTF-8 or too large', () => {
    const codeOf = (bytes: Uint8Array): string | undefined => {
      try {
        renderMarkdownPage(bytes, 'x');
        return undefined;
      } catch (error: unknown) {
        return error instanceof Refusal ? error.code : 'other';
      }
    };
    expect(codeOf(Buffer.from([0x23, 0x20, 0xff]))).toBe('markdown_not_utf8');
    expect(codeOf(Buffer.alloc(MARKDOWN_MAX_BYTES + 1, 0x61))).toBe('markdown_too_large');
  });

  it('regression: a byte order mark is refused with its position, not stripped', () => {
    const refusalOf = (bytes: Uint8Array): Refusal => {
      try {
        renderMarkdownPage(bytes, 'x');
      } catch (error: unknown) {
        if (error instanceof Refusal) return error;
      }
      throw new Error('not refused');
    };
    const bom = refusalOf(Buffer.from('\ufeff# Title\n', 'utf8'));
    expect(bom.code).toBe('markdown_not_utf8');
    expect(bom.location).toEqual({ line: 1, column: 1 });
    const bad = refusalOf(Buffer.from([0x23, 0x20, 0x41, 0x0a, 0x62, 0xff]));
    expect(bad.location).toEqual({ line: 2, column: 2 });
  });

  it('maps only lowercase .md files to sidecars', () => {
    expect(htmlSidecarPath('report.md')).toBe('report.html');
    expect(htmlSidecarPath('a/b.md')).toBe('a/b.html');
    expect(htmlSidecarPath('README.MD')).toBeUndefined();
    expect(htmlSidecarPath('notes.markdown')).toBeUndefined();
    expect(htmlSidecarPath('a/.md')).toBeUndefined();
  });
});
