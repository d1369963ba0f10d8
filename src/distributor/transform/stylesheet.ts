import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/**
 * The stylesheet every generated page carries inline: github-markdown-css
 * (the light theme, pinned in package.json) with its MIT licence as the
 * first comment, then the few layout rules its readme asks the page to add
 * (a centred column of at most 980 px, less padding on narrow screens), the
 * table alignment classes the renderer writes instead of `style`
 * attributes, and print rules that wrap what scrolls on screen. The page's Content-Security-Policy allows exactly this text by
 * its SHA-256 (docs/distributor.md#pages).
 */
export interface PageStylesheet {
  readonly text: string;
  /** Base64 SHA-256 of the UTF-8 bytes of `text`, as `style-src 'sha256-…'` names it. */
  readonly sha256Base64: string;
  /** The github-markdown-css version inlined. */
  readonly version: string;
  /** `<style>` + `text` + `</style>`, UTF-8. */
  readonly element: Buffer;
}

const LAYOUT = [
  '.markdown-body{box-sizing:border-box;min-width:200px;max-width:980px;margin:0 auto;padding:45px}',
  '@media (max-width:767px){.markdown-body{padding:15px}}',
  '.markdown-body .align-left{text-align:left}',
  '.markdown-body .align-center{text-align:center}',
  '.markdown-body .align-right{text-align:right}',
  // Paper cannot scroll: a printed page shows every column and every line of code, wrapped.
  '@media print{.markdown-body{max-width:none;padding:0}' +
    '.markdown-body table{display:table;width:100%;max-width:100%;overflow:visible}' +
    '.markdown-body table td,.markdown-body table th{overflow-wrap:anywhere}' +
    '.markdown-body pre,.markdown-body pre code{overflow:visible;white-space:pre-wrap;overflow-wrap:anywhere}}',
].join('\n');

let cached: PageStylesheet | undefined;

/** Read once from the installed package; the same bytes for every page of a sealkit version. */
export function pageStylesheet(): PageStylesheet {
  if (cached !== undefined) return cached;
  const require = createRequire(import.meta.url);
  const css = readFileSync(require.resolve('github-markdown-css/github-markdown-light.css'), 'utf8');
  const licence = readFileSync(require.resolve('github-markdown-css/license'), 'utf8').trim();
  const { version } = require('github-markdown-css/package.json') as { version: string };
  const text = `\n/*! github-markdown-css ${version} (github-markdown-light.css)\n${licence.replaceAll('*/', '* /')}\n*/\n${css.trim().replaceAll('\r\n', '\n')}\n${LAYOUT}\n`;
  // Raw text of a <style> element ends at the first `</style`: a package
  // update that put one in would break every page, so it stops here.
  if (/<\/style/i.test(text)) throw new Error('the stylesheet holds </style');
  cached = {
    text,
    sha256Base64: createHash('sha256').update(text, 'utf8').digest('base64'),
    version,
    element: Buffer.from(`<style>${text}</style>`, 'utf8'),
  };
  return cached;
}
