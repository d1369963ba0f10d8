import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli } from '../../../test/helpers/cli.js';
import { makeBundle, writeConfig } from '../../../test/helpers/distributor-fixtures.js';
import { expectGolden } from '../../../test/helpers/golden.js';
import { Refusal } from '../../core/refusal/index.js';
import {
  htmlSidecarPath,
  MARKDOWN_MAX_BYTES,
  type PageOptions,
  pageHref,
  renderMarkdown,
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
  ['authored', {}],
  // What a team writes for GitHub: an alert, <br> in a cell, a folded query, bare URLs, other bundles' pages.
  [
    'github',
    {
      path: 'README.md',
      listed: new Set(['README.md', 'notes.md']),
      bundleDir: 'finance/2026-05',
    },
  ],
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

  it('leaves HTML comments out of the page, in blocks, inline and in table cells, and keeps code as written', () => {
    const page = render(readFileSync(join(GOLDEN, 'authored.md')), 'authored');
    const body = page.slice(page.indexOf('<body>'));
    expect(body).not.toMatch(
      /internal: numbers|check with finance|TODO before|replace the chart|corrected|hidden/,
    );
    expect(body).toContain('<p>Revenue rose 4 %, led by the north.</p>');
    expect(body).toContain('<p> this sentence stays.</p>');
    expect(body).toContain('<code>&lt;!-- in code --&gt;</code>');
    expect(body).toContain('so does &lt;!-- this --&gt;');
    expect(body).toContain('&lt;details&gt;not a comment&lt;/details&gt;');
  });

  it('regression: an HTML comment an author left in is not published as text', () => {
    const body = (markdown: string): string => {
      const page = render(markdown);
      return page.slice(page.indexOf('<article'), page.indexOf('</article>'));
    };
    expect(body('<!-- do not share -->\n\ntext\n')).toBe('<article class="markdown-body">\n<p>text</p>\n');
    expect(body('a <!-->b<!--->c\n')).toContain('<p>a bc</p>');
    expect(body('- item <!-- note -->\n  <!-- more\n  notes -->\n- next\n')).not.toContain('note');
    expect(body('> <!--\n> quoted\n> -->\n> kept\n')).toBe(
      '<article class="markdown-body">\n<blockquote>\n<p>kept</p>\n</blockquote>\n',
    );
    // Never closed: shown, rather than hiding the rest of the page.
    expect(body('<!-- open\n\nrest\n')).toContain('&lt;!-- open');
    expect(body('<!-- open\n\nrest\n')).toContain('<p>rest</p>');
    // Indented four spaces it is code, and code is shown as written.
    expect(body('    <!-- code -->\n')).toContain('<pre><code>&lt;!-- code --&gt;');
  });

  it('regression: front matter is not shown, and its title names the page', () => {
    const page = render(readFileSync(join(GOLDEN, 'authored.md')), 'authored');
    expect(page).toContain('<title>Sales weekly report — W02</title>');
    expect(page).not.toMatch(/data-platform@example\.com|toc: true|<hr/);
    expect(page).toContain('<h1 id="sales-week-02">Sales, week 02</h1>');
    // Regression: saved with CRLF, a quoted last value was refused (its line kept the carriage return).
    for (const last of ['title: "Report"', 'tags: [a, b]', 'params: {a: 1}'])
      expect(render(`---\r\nauthor: a\r\n${last}\r\n---\r\n# H\r\n`)).not.toContain('author');
    expect(render('---\r\ntitle: "Report"\r\n---\r\n')).toContain('<title>Report</title>');
    // Closed by `...`, with CRLF line ends, a number as title.
    expect(render('---\r\ntitle: 2026\r\n...\r\n\ntext\r\n')).toContain('<title>2026</title>');
    // No title in it: the first heading names the page, as before.
    const untitled = render('---\nauthor: a\n---\n# Heading\n');
    expect(untitled).toContain('<title>Heading</title>');
    expect(untitled).not.toContain('author');
  });

  it("regression: a page is in the language its front matter names (lang: de), not the destination's", () => {
    const head = (markdown: string, options: PageOptions = { lang: 'en' }) =>
      render(markdown, 't', options).split('\n')[1];
    expect(head('---\ntitle: Umsatz\nlang: de\n---\n# Umsatz\n')).toBe('<html lang="de">');
    // A destination without a language (html: true) takes the page's.
    expect(head('---\nlang: de-CH\n---\n', {})).toBe('<html lang="de-CH">');
    expect(head('---\r\nlang: "ar"\r\n---\r\n')).toBe('<html lang="ar" dir="rtl">');
    // No value, or no front matter: the destination's.
    expect(head('---\nlang:\n---\n')).toBe('<html lang="en">');
    expect(head('---\nlang: ""\n---\n')).toBe('<html lang="en">');
    expect(head('# x\n')).toBe('<html lang="en">');
    // Only the front matter says it: text on the page does not.
    expect(head('lang: de\n')).toBe('<html lang="en">');
  });

  it('refuses a front matter lang that is not a language tag at the value, naming the tag meant', () => {
    const refusalOf = (markdown: string) => {
      try {
        render(markdown);
      } catch (error: unknown) {
        if (error instanceof Refusal) return { code: error.code, location: error.location, hint: error.hint };
      }
      throw new Error('not refused');
    };
    const lang = (value: string) => refusalOf(`---\ntitle: Umsatz\nlang: ${value}\n---\n# x\n`);
    expect(lang('german')).toEqual({
      code: 'markdown_front_matter_lang_invalid',
      location: { line: 3, column: 7 },
      hint: "a language tag such as en, en-GB or de-CH (BCP 47): did you mean 'de'?",
    });
    expect(lang('deutsch').hint).toBe(
      "a language tag such as en, en-GB or de-CH (BCP 47): did you mean 'de'?",
    );
    expect(lang('en_GB').hint).toBe("write 'en-GB': language tags join their parts with a hyphen");
    // Nothing close to a language: no guess.
    for (const value of ['xx', 'q7', '[de]', '{tag: de}', '42', 'true'])
      expect(lang(value)).toEqual({
        code: 'markdown_front_matter_lang_invalid',
        location: { line: 3, column: 7 },
        hint: 'a language tag such as en, en-GB or de-CH (BCP 47)',
      });
  });

  it('a run refuses a page whose front matter lang is not a tag at file:line:column, and publishes lang: de as German', () => {
    const work = mkdtempSync(join(tmpdir(), 'sealkit-page-lang-'));
    try {
      const page = (lang: string) => ({
        path: 'report.md',
        content: `---\ntitle: Umsatz\nlang: ${lang}\n---\n# Umsatz\n`,
      });
      const other = { path: 'notes.md', content: '# Notes\n' };
      const bundle = { id: 'sales.w22', created: '2026-05-30T11:10:00Z' };
      makeBundle(work, 'src/sales/w22', [page('german'), other], bundle);
      writeConfig(work, [
        {
          id: 'p',
          source: 'src',
          destinations: [
            // The first holds the run's copies, and moves them into place: it publishes no page.
            { id: 'raw', root: 'site-raw', html: false },
            { id: 'en', root: 'site-en', source: false, html: { lang: 'en' } },
            { id: 'any', root: 'site-any', source: false },
          ],
        },
      ]);
      for (const site of ['site-raw', 'site-en', 'site-any']) mkdirSync(join(work, site));
      const refused = runCli(['distribute', 'run'], { cwd: work });
      expect(refused.status).toBe(2);
      expect(refused.stderr.toString()).toContain(
        [
          "error[markdown_front_matter_lang_invalid]: a Markdown file to render as HTML gives its page a language (front matter 'lang') that is not a language tag",
          '  --> src/sales/w22/report.md:3:7',
          "  = help: a language tag such as en, en-GB or de-CH (BCP 47): did you mean 'de'?",
          '',
        ].join('\n'),
      );
      makeBundle(work, 'src/sales/w22', [page('de'), other], bundle);
      const published = runCli(['distribute', 'run'], { cwd: work });
      expect(published.stderr.toString()).toBe('');
      expect(published.status).toBe(0);
      const head = (site: string, name: string) =>
        readFileSync(join(work, site, 'sales', 'w22', name), 'utf8').split('\n')[1];
      expect([
        head('site-en', 'report.html'),
        head('site-any', 'report.html'),
        head('site-en', 'notes.html'),
        head('site-any', 'notes.html'),
      ]).toEqual(['<html lang="de">', '<html lang="de">', '<html lang="en">', '<html>']);
      expect(readdirSync(join(work, 'site-raw', 'sales', 'w22')).sort()).toEqual([
        '.distributor.json',
        'notes.md',
        'report.md',
      ]);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  it('regression: a leading --- that is not front matter stays Markdown', () => {
    // Never closed: a thematic break, then the page.
    expect(render('---\n# Title\n\ntext\n')).toContain('<hr />\n<h1 id="title">Title</h1>');
    // Closed, but holding no mapping (a paragraph, a list): Markdown as CommonMark reads it.
    expect(render('---\nJust a line\n---\n')).toContain('<h2 id="just-a-line">Just a line</h2>');
    expect(render('---\n- one\n- two\n---\n')).toContain('<li>one</li>');
    // Regression: a heading between two rules is a comment to YAML, and stayed hidden as front matter.
    expect(render('---\n# Weekly report\n---\n\ntext\n')).toContain(
      '<h1 id="weekly-report">Weekly report</h1>',
    );
    // Not on the first line: a rule and a heading.
    expect(render('\n---\ntitle: x\n---\n')).toContain('<hr />');
  });

  it('refuses front matter written as keys that is not valid YAML, at the fault', () => {
    const refusalOf = (markdown: string): Refusal => {
      try {
        render(markdown);
      } catch (error: unknown) {
        if (error instanceof Refusal) return error;
      }
      throw new Error('not refused');
    };
    const broken = refusalOf('---\ntitle: Weekly\nauthor: [a, b\n---\n# x\n');
    expect(broken.code).toBe('markdown_front_matter_invalid');
    expect(broken.location?.line).toBeGreaterThanOrEqual(3);
    const twice = refusalOf('---\ntitle: a\ntitle: b\n---\n');
    expect(twice.code).toBe('markdown_front_matter_invalid');
    expect(twice.location).toEqual({ line: 3, column: 1 });
    // Regression: a colon and a space in a plain value got the general advice; it now says to quote it.
    const colon = refusalOf('---\ntitle: Q1: results\n---\n# x\n');
    expect(colon.location).toEqual({ line: 2, column: 8 });
    expect(colon.hint).toBe(
      'the value of \'title\' holds a colon and a space, which YAML reads as another key: write the value in quotes, title: "Q1: results"',
    );
    expect(render('---\ntitle: "Q1: results"\n---\n# x\n')).toContain('<title>Q1: results</title>');
  });

  it('regression: a quote opening with [!NOTE] is a callout as on GitHub, not [!NOTE] shown as text', () => {
    const { page, links } = renderMarkdown(
      Buffer.from(
        [
          '> [!NOTE]',
          '> Figures are preliminary; see [the notes](notes.md).',
          '',
          '> [!warning]',
          '> The EMEA feed was late.',
          '>',
          '> Second paragraph.',
          '',
          '> [!CAUTION]',
          '',
          '> [!NOTE] text on the marker line',
          '',
          '> [!UNKNOWN]',
          '> kind',
          '',
          '- > [!TIP]',
          '  > in a list',
          '',
          '> plain quote',
        ].join('\n'),
      ),
      't',
      { path: 'r.md', listed: new Set(['r.md', 'notes.md']) },
    );
    const body = Buffer.from(page).toString().split('<article class="markdown-body">\n')[1];
    expect(body).toBe(
      [
        '<div class="markdown-alert markdown-alert-note">',
        '<p class="markdown-alert-title">Note</p>',
        '<p>Figures are preliminary; see <a href="notes.html">the notes</a>.</p>',
        '</div>',
        '<div class="markdown-alert markdown-alert-warning">',
        '<p class="markdown-alert-title">Warning</p>',
        '<p>The EMEA feed was late.</p>',
        '<p>Second paragraph.</p>',
        '</div>',
        '<div class="markdown-alert markdown-alert-caution">',
        '<p class="markdown-alert-title">Caution</p>',
        '</div>',
        // As on GitHub: text after the marker, an unknown kind, a quote in a list stay quotes.
        '<blockquote>',
        '<p>[!NOTE] text on the marker line</p>',
        '</blockquote>',
        '<blockquote>',
        '<p>[!UNKNOWN]',
        'kind</p>',
        '</blockquote>',
        '<ul>',
        '<li>',
        '<blockquote>',
        '<p>[!TIP]',
        'in a list</p>',
        '</blockquote>',
        '</li>',
        '</ul>',
        '<blockquote>',
        '<p>plain quote</p>',
        '</blockquote>',
        '</article>',
        '</body>',
        '</html>',
        '',
      ].join('\n'),
    );
    // The link keeps the line it is written on, below the marker.
    expect(links).toEqual([{ line: 2, href: 'notes.html', image: false, target: 'notes.html' }]);
    // The classes are the inlined stylesheet's: the callout is drawn with its bar and colour.
    expect(pageStylesheet().text).toContain('.markdown-body .markdown-alert.markdown-alert-warning {');
  });

  it('regression: a bare URL is a link as on GitHub, a file name or a path is not', () => {
    const { page, links } = renderMarkdown(
      Buffer.from(
        [
          'Dashboard: https://bi.example.com/d/finance?region=emea&week=22.',
          'Wiki at www.example.com/close, (https://example.org/a_(b)), mailto:data-team@example.com',
          '',
          '| source | link |',
          '| --- | --- |',
          '| ledger | http://ledger.internal:8080/x |',
          '',
          'Not links: report.md, data.csv, export@2026-05.csv, //server/share, awww.x.com,',
          'javascript:alert(1), file:///etc/passwd, `https://in.code`, [text](https://kept.org).',
          '',
          '```',
          'https://in.fence',
          '```',
        ].join('\n'),
      ),
      't',
      { path: 'r.md', listed: new Set(['r.md', 'report.md']) },
    );
    const body = Buffer.from(page).toString().split('<body>')[1] ?? '';
    expect(
      [...body.matchAll(/<a href="([^"]*)">([^<]*)<\/a>/g)].map((match) => [match[1], match[2]]),
    ).toEqual([
      [
        'https://bi.example.com/d/finance?region=emea&amp;week=22',
        'https://bi.example.com/d/finance?region=emea&amp;week=22',
      ],
      ['http://www.example.com/close', 'www.example.com/close'],
      ['https://example.org/a_(b)', 'https://example.org/a_(b)'],
      ['mailto:data-team@example.com', 'mailto:data-team@example.com'],
      ['http://ledger.internal:8080/x', 'http://ledger.internal:8080/x'],
      ['https://kept.org', 'text'],
    ]);
    expect(body).toContain(
      '<p>Not links: report.md, data.csv, export@2026-05.csv, //server/share, awww.x.com,',
    );
    expect(body).toContain('javascript:alert(1), file:///etc/passwd, <code>https://in.code</code>');
    expect(body).toContain('<pre><code>https://in.fence\n</code></pre>');
    // Absolute links are no file of the bundle: nothing to check.
    expect(links).toEqual([]);
  });

  it('regression: <details> and <summary> lines fold a section as on GitHub, not shown as tags', () => {
    const { page, links } = renderMarkdown(
      Buffer.from(
        [
          '# Week 22',
          '',
          '<details>',
          '<summary>Query used for **revenue**</summary>',
          '',
          '```sql',
          'select region, sum(amount) from sales group by region;',
          '-- </details> in code stays code',
          '```',
          '',
          'See the [notes](notes.md).',
          '</details>',
          '',
          '<details open><summary>Checks</summary>',
          '',
          '- [x] reconciled',
          '</details>',
          '</details>',
          '',
          '<details class="x">',
          '<summary onclick="alert(1)">x</summary>',
        ].join('\n'),
      ),
      't',
      { path: 'r.md', listed: new Set(['r.md', 'notes.md']) },
    );
    const body = Buffer.from(page).toString().split('<article class="markdown-body">\n')[1];
    expect(body).toBe(
      [
        '<h1 id="week-22">Week 22</h1>',
        '<details>',
        '<summary>Query used for <strong>revenue</strong></summary>',
        '<pre><code class="language-sql">select region, sum(amount) from sales group by region;',
        '-- &lt;/details&gt; in code stays code',
        '</code></pre>',
        '<p>See the <a href="notes.html">notes</a>.</p>',
        '</details>',
        '<details open>',
        '<summary>Checks</summary>',
        '<ul class="contains-task-list">',
        '<li class="task-list-item"><input type="checkbox" class="task-list-item-checkbox" disabled="" checked="" /> reconciled</li>',
        '</ul>',
        '</details>',
        // A close with none open, and tags with attributes, stay text.
        '<p>&lt;/details&gt;</p>',
        '<p>&lt;details class=&quot;x&quot;&gt;',
        '&lt;summary onclick=&quot;alert(1)&quot;&gt;x&lt;/summary&gt;</p>',
        '</article>',
        '</body>',
        '</html>',
        '',
      ].join('\n'),
    );
    expect(links).toEqual([{ line: 11, href: 'notes.html', image: false, target: 'notes.html' }]);
    // A section never closed ends with the text, so the footnotes are not folded into it.
    const unclosed = render('Late[^1].\n\n<details>\n<summary>More</summary>\n\ntext\n\n[^1]: Two stores.\n');
    expect(unclosed).toContain('<p>text</p>\n</details>\n<section class="footnotes">');
  });

  it('regression: <br> in a table cell breaks the line as on GitHub, not shown as text', () => {
    const body = render(
      [
        '# Week<br>22',
        '',
        '| region | note |',
        '| --- | --- |',
        '| DACH | late feed<br>rerun 02:00<BR/>ok<br /> |',
        '| code | `<br>` <br class="x"> <brx> <br / > |',
        '',
        '```',
        '<br>',
        '```',
      ].join('\n'),
    ).split('<body>')[1];
    expect(body).toContain('<td>late feed<br />rerun 02:00<br />ok<br /></td>');
    // Only the bare tag: in code, with an attribute or another name it stays escaped text.
    expect(body).toContain(
      '<td><code>&lt;br&gt;</code> &lt;br class=&quot;x&quot;&gt; &lt;brx&gt; &lt;br / &gt;</td>',
    );
    expect(body).toContain('<pre><code>&lt;br&gt;\n</code></pre>');
    expect(body).toContain('<h1 id="week22">Week<br />22</h1>');
    expect(render('# Week<br>22')).toContain('<title>Week 22</title>');
  });

  it('regression: a task list shows checkboxes, not the brackets an author typed', () => {
    const html = render(
      [
        '- [x] reconcile Zürich',
        '- [ ] reconcile São Paulo',
        '  1. [X] nested, ordered',
        '- [ ]no blank after: text',
        '- plain item',
        '',
        '```',
        '- [ ] in code stays as written',
        '```',
      ].join('\n'),
    );
    const body = html.slice(html.indexOf('<article'));
    expect(body).toContain(
      '<ul class="contains-task-list">\n<li class="task-list-item"><input type="checkbox" class="task-list-item-checkbox" disabled="" checked="" /> reconcile Zürich</li>',
    );
    expect(body).toContain(
      '<li class="task-list-item"><input type="checkbox" class="task-list-item-checkbox" disabled="" /> reconcile São Paulo',
    );
    expect(body).toContain(
      '<ol class="contains-task-list">\n<li class="task-list-item"><input type="checkbox" class="task-list-item-checkbox" disabled="" checked="" /> nested, ordered</li>',
    );
    expect(body).toContain('<li>[ ]no blank after: text</li>');
    expect(body).toContain('<li>plain item</li>');
    expect(body).toContain('<code>- [ ] in code stays as written\n</code>');
    expect(body.match(/<input /g)).toHaveLength(3);
  });

  it('regression: footnotes are numbered notes linked both ways, not [^1] shown as text', () => {
    const { page, links } = renderMarkdown(
      Buffer.from(
        [
          '# Revenue',
          '',
          'Up 3.1 %[^late], at constant rates.[^fx] An [^unknown] stays text.',
          '',
          '| region | k€[^k] |',
          '| --- | ---: |',
          '| north | 1,204 |',
          '',
          '[^late]: Two stores reported late; see [the notes](notes.md).',
          '[^fx]: Rates of 30 May.',
          '[^k]: Thousands of euros.',
          '[^unused]: Never cited, so never shown.',
        ].join('\n'),
      ),
      't',
      { path: 'report.md', listed: new Set(['report.md', 'notes.md']) },
    );
    const body = Buffer.from(page).toString('utf8');
    expect(body).toContain(
      '<p>Up 3.1 %<sup class="footnote-ref"><a href="#user-content-fn-late" id="user-content-fnref-late">[1]</a></sup>, at constant rates.<sup class="footnote-ref"><a href="#user-content-fn-fx" id="user-content-fnref-fx">[2]</a></sup> An [^unknown] stays text.</p>',
    );
    expect(body).toContain(
      '<th class="align-right">k€<sup class="footnote-ref"><a href="#user-content-fn-k" id="user-content-fnref-k">[3]</a></sup></th>',
    );
    expect(body).toContain(
      '<section class="footnotes">\n<ol class="footnotes-list">\n<li id="user-content-fn-late" class="footnote-item"><p>Two stores reported late; see <a href="notes.html">the notes</a>. <a href="#user-content-fnref-late" class="footnote-backref">',
    );
    expect(body).toContain('<li id="user-content-fn-k" class="footnote-item"><p>Thousands of euros.');
    // One rule between text and notes: the section's own border, no <hr> before it.
    expect(body).not.toContain('<hr');
    expect(body).not.toContain('Never cited');
    expect(body).not.toContain('[^late]');
    // A link inside a note is checked like any other, at the note's own line.
    expect(links).toEqual([{ line: 9, href: 'notes.html', image: false, target: 'notes.html' }]);
  });

  it('regression: a heading named like a footnote (## fn1) and the note [^1] never share an id', () => {
    const page = render(
      '## fn1\n\nUp[^1], see [the heading](#fn1).\n\n## FN 1\n\n# fnref1\n\n[^1]: Two stores late.\n',
    );
    expect(page.slice(page.indexOf('<article'), page.indexOf('</article>'))).toBe(
      [
        '<article class="markdown-body">',
        '<h2 id="fn1">fn1</h2>',
        '<p>Up<sup class="footnote-ref"><a href="#user-content-fn-1" id="user-content-fnref-1">[1]</a></sup>, see <a href="#fn1">the heading</a>.</p>',
        '<h2 id="fn-1">FN 1</h2>',
        '<h1 id="fnref1">fnref1</h1>',
        '<section class="footnotes">',
        '<ol class="footnotes-list">',
        '<li id="user-content-fn-1" class="footnote-item"><p>Two stores late. <a href="#user-content-fnref-1" class="footnote-backref">↩︎</a></p>',
        '</li>',
        '</ol>',
        '</section>',
        '',
      ].join('\n'),
    );
  });

  it('gives every id of a page once: a heading keeps its id, a note that would repeat one is renamed', () => {
    const page = render(
      [
        '# User content fn 1',
        '',
        'A[^1] b[^1] c[^1-2] d^[inline] e[^2] f[^ü] g[^A] h[^a].',
        '',
        '[^1]: One.',
        '[^1-2]: One-two.',
        '[^2]: Two.',
        '[^ü]: Umlaut.',
        '[^A]: Upper.',
        '[^a]: Lower.',
      ].join('\n'),
    );
    const ids = [...page.matchAll(/ id="([^"]*)"/g)].map((match) => match[1]);
    expect(ids).toEqual([
      'user-content-fn-1',
      // [^1]: its note's id is the heading's, so the note is 1-1; cited twice.
      'user-content-fnref-1-1',
      'user-content-fnref-1-1-2',
      // [^1-2] would be 1-2, free: its ids do not meet those of 1-1.
      'user-content-fnref-1-2',
      // The inline note is the third, named by its number; [^2] keeps its label.
      'user-content-fnref-3',
      'user-content-fnref-2',
      'user-content-fnref-%C3%BC',
      'user-content-fnref-A',
      'user-content-fnref-a',
      'user-content-fn-1-1',
      'user-content-fn-1-2',
      'user-content-fn-3',
      'user-content-fn-2',
      'user-content-fn-%C3%BC',
      'user-content-fn-A',
      'user-content-fn-a',
    ]);
    expect(new Set(ids).size).toBe(ids.length);
    // Every link to a note or a citation names an id of the page.
    const targets = [...page.matchAll(/ href="#([^"]*)"/g)].map((match) => match[1]);
    expect(targets.filter((target) => !ids.includes(target))).toEqual([]);
    expect(targets).toHaveLength(16);
  });

  it('regression: a second citation of one note does not take the id of a note labelled like it', () => {
    const page = render('A[^1] b[^1-2] c[^1].\n\n[^1]: One.\n[^1-2]: Other.\n');
    const ids = [...page.matchAll(/ id="([^"]*)"/g)].map((match) => match[1]);
    expect(ids).toEqual([
      'user-content-fnref-1',
      'user-content-fnref-1-2-1',
      'user-content-fnref-1-2',
      'user-content-fn-1',
      'user-content-fn-1-2-1',
    ]);
  });

  it('gives every heading the id GitHub gives it, so notes.md#method lands on the page', () => {
    const page = render('# Sales by region — week 22\n\n### Method\n\n## Method\n\n## `x` *and* Ü?\n');
    expect(page).toContain('<h1 id="sales-by-region--week-22">Sales by region — week 22</h1>');
    expect(page).toContain('<h3 id="method">Method</h3>');
    expect(page).toContain('<h2 id="method-1">Method</h2>');
    expect(page).toContain('<h2 id="x-and-ü"><code>x</code> <em>and</em> Ü?</h2>');
  });

  it('regression: a comment at either end of a heading leaves no dash in its id', () => {
    const page = render('# Title <!-- x -->\n\n## <!-- c --> Visible\n');
    expect(page).toContain('id="title"');
    expect(page).toContain('id="visible"');
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
    // A BOM is valid UTF-8: the message and hint say it is the mark that is refused.
    expect(bom.message).toContain('without a byte order mark');
    expect(bom.hint).toContain('it starts with a byte order mark (the bytes EF BB BF');
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

  it('records each relative link and image with its line, where it points in the bundle, or that it leaves it; an image from another site; a path from the site root', () => {
    const markdown = [
      '---',
      'title: W03',
      '---',
      '# W03',
      '',
      'See [last week](../W02/report.md), [notes](notes.md#top) and [site](https://example.org/x.md).',
      '',
      '![late](charts/late.png)',
      '',
      '| a |',
      '| - |',
      '| [d](data/x%20y.csv) |',
      '',
      '[anchor](#w03) [root](/index.html) ![remote](https://example.org/a.png) ![data](data:image/png;base64,AA==)',
    ].join('\n');
    const { links } = renderMarkdown(Buffer.from(markdown), 'report', {
      path: 'report.md',
      listed: new Set(['report.md', 'notes.md']),
    });
    expect(links).toEqual([
      { line: 6, href: '../W02/report.md', image: false, leaves: true },
      { line: 6, href: 'notes.html#top', image: false, target: 'notes.html' },
      { line: 8, href: 'charts/late.png', image: true, target: 'charts/late.png' },
      { line: 12, href: 'data/x%20y.csv', image: false, target: 'data/x y.csv' },
      { line: 14, href: '/index.html', image: false, rooted: true },
      { line: 14, href: 'https://example.org/a.png', image: true, remote: true },
    ]);
    // Regression: a link on the second line of a paragraph or list item was placed on its first.
    const wrapped = renderMarkdown(
      Buffer.from('Some text\nthen ![a](a.png)\n\n- item\n  and [b](b.csv)\n\n> quote\n> [c](c.md)\n'),
      'r',
      { path: 'r.md', listed: new Set() },
    ).links.map((link) => [link.href, link.line]);
    expect(wrapped).toEqual([
      ['a.png', 2],
      ['b.csv', 5],
      ['c.md', 8],
    ]);
    // Without the page's path (a library caller rendering one file) nothing is recorded.
    expect(renderMarkdown(Buffer.from(markdown), 'report').links).toEqual([]);
  });

  it('regression: a link to a folder is recorded as one, so the plan can look for its index.html', () => {
    const markdown = '[a](guide/) [b](./guide/) [c](guide) [d](./) [e](..) [f](sub/../)\n';
    const { links } = renderMarkdown(Buffer.from(markdown), 'r', {
      path: 'sub/r.md',
      listed: new Set(['sub/r.md']),
    });
    expect(links.map(({ href, target, folder }) => [href, target, folder])).toEqual([
      ['guide/', 'sub/guide', true],
      ['./guide/', 'sub/guide', true],
      // Without its slash the Markdown cannot tell a folder from a file: the plan tells.
      ['guide', 'sub/guide', undefined],
      ['./', 'sub', true],
      ['..', '', true],
      ['sub/../', 'sub', true],
    ]);
  });

  it('regression: a link climbing out of its bundle folder and back in stays inside the bundle', () => {
    const markdown = [
      '![chart](../W03/chart.png) [notes](../W03/notes.md#top) [deep](../../W03/notes.md)',
      '',
      '[last week](../W02/report.md) [from the top](../../sales/W03/notes.md) [too far](../../../x.png)',
      '',
      '[home](../W03/)',
    ].join('\n');
    const listed = new Set(['report.md', 'notes.md', 'chart.png', 'sub/page.md']);
    const atRoot = renderMarkdown(Buffer.from(markdown), 'r', {
      path: 'report.md',
      listed,
      bundleDir: 'sales/W03',
    });
    expect(atRoot.links.map(({ href, target, leaves, folder }) => [href, target ?? leaves, folder])).toEqual([
      ['../W03/chart.png', 'chart.png', undefined],
      // A listed .md reached this way points at its page, like any link inside the bundle.
      ['../W03/notes.html#top', 'notes.html', undefined],
      // Another bundle folder of the source root: its page (see the next test).
      ['../../W03/notes.html', true, undefined],
      ['../W02/report.html', true, undefined],
      ['../../sales/W03/notes.html', 'notes.html', undefined],
      ['../../../x.png', true, undefined],
      ['../W03/', '', true],
    ]);
    const deeper = renderMarkdown(Buffer.from('![c](../../W03/chart.png) ![d](../../W03/sub/x.png)\n'), 'p', {
      path: 'sub/page.md',
      listed,
      bundleDir: 'W03',
    });
    expect(deeper.links.map((link) => link.target)).toEqual(['chart.png', 'sub/x.png']);
    // Without the bundle's folder (a library caller) a link above it leaves it, as before.
    const alone = renderMarkdown(Buffer.from(markdown), 'r', { path: 'report.md', listed });
    expect(alone.links[0]).toEqual({ line: 1, href: '../W03/chart.png', image: true, leaves: true });
  });

  it('regression: a link to another bundle’s .md points at that bundle’s page, which the site holds', () => {
    // A site (source: false) holds no .md at all, and a Markdown archive of
    // the same bundles needs the .md link: the author writes it once, for
    // GitHub and the archive, and the page links to the page.
    const markdown = [
      '[last week](../2026-W02/report.md#totals) [notes](../2026-W02/sub/notes.md?plain=1)',
      '[other team](../../ops/nightly/summary.md) [chart](../2026-W02/chart.png)',
      '[overview](../index.md) [top](../../README.md) [too far](../../../x.md) [folder](../2026-W02/)',
      '[upper](../2026-W02/README.MD)',
    ].join('\n');
    const { page, links } = renderMarkdown(Buffer.from(markdown), 'r', {
      path: 'report.md',
      listed: new Set(['report.md']),
      bundleDir: 'sales/2026-W03',
    });
    const hrefs = [
      ...Buffer.from(page)
        .toString()
        .matchAll(/<a href="([^"]*)"/g),
    ].map((match) => match[1]);
    expect(hrefs).toEqual([
      '../2026-W02/report.html#totals',
      '../2026-W02/sub/notes.html?plain=1',
      '../../ops/nightly/summary.html',
      '../2026-W02/chart.png',
      // A file in a folder above the bundle lies in no bundle (bundles never
      // nest), one above the source root in none of this run: as written.
      '../index.md',
      '../../README.md',
      '../../../x.md',
      '../2026-W02/',
      '../2026-W02/README.MD',
    ]);
    expect(links.map(({ href, other }) => [href, other])).toEqual([
      ['../2026-W02/report.html#totals', 'sales/2026-W02/report.html'],
      ['../2026-W02/sub/notes.html?plain=1', 'sales/2026-W02/sub/notes.html'],
      ['../../ops/nightly/summary.html', 'ops/nightly/summary.html'],
      ['../2026-W02/chart.png', 'sales/2026-W02/chart.png'],
      ['../index.md', undefined],
      ['../../README.md', undefined],
      ['../../../x.md', undefined],
      // A folder of another bundle: the plan looks for its index.html there.
      ['../2026-W02/', 'sales/2026-W02'],
      ['../2026-W02/README.MD', 'sales/2026-W02/README.MD'],
    ]);
    // Without the bundle's folder, where the source root lies is unknown: as written.
    const alone = renderMarkdown(Buffer.from(markdown), 'r', { path: 'report.md', listed: new Set() });
    expect(Buffer.from(alone.page).toString()).toContain('<a href="../2026-W02/report.md#totals">');
  });
});
