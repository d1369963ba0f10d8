import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../test/helpers/cli.js';
import { Refusal } from '../../core/refusal/index.js';
import { htmlSidecarPath, MARKDOWN_MAX_BYTES, renderMarkdownPage } from './markdown.js';

const GOLDEN = join(REPO_ROOT, 'src', 'distributor', 'transform', 'golden');
const NAMES = ['report', 'hostile', 'plain'] as const;

describe('Markdown to HTML', () => {
  it.each(NAMES)('renders golden/%s.md to exactly golden/%s.html', (name) => {
    const page = renderMarkdownPage(readFileSync(join(GOLDEN, `${name}.md`)), name);
    expect(Buffer.from(page).toString('utf8')).toBe(readFileSync(join(GOLDEN, `${name}.html`), 'utf8'));
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
