import MarkdownIt from 'markdown-it';
import { decodeUtf8Strict } from '../../core/input/utf8.js';
import { refuseDistributor } from '../refusals.js';

/** A Markdown source larger than this is not rendered (markdown-it holds the whole text and its tokens). */
export const MARKDOWN_MAX_BYTES = 8 * 1024 * 1024;

// Raw HTML is escaped (html: false); markdown-it's default link validation
// leaves javascript:, vbscript:, file: and data: (except images of a few
// raster types) as plain text. No linkify or typographer: the output depends
// on the source text and the pinned library version only.
const renderer = new MarkdownIt('commonmark', { html: false, linkify: false, typographer: false }).enable([
  'table',
  'strikethrough',
]);

/**
 * The page shell is fixed: UTF-8, a restrictive Content-Security-Policy (no
 * script, object, frame or form target, even if a future library bug let
 * markup through), the first heading's text as the title (the file name
 * without `.md` when there is none), and the rendered body. Same input, same
 * bytes.
 */
export function renderMarkdownPage(markdown: Uint8Array, fallbackTitle: string): Uint8Array {
  if (markdown.byteLength > MARKDOWN_MAX_BYTES)
    throw refuseDistributor('markdown_too_large', { role: 'bundle' });
  // One text policy for every input (docs/refusals.md#text-inputs): a byte
  // order mark is refused like any other byte that is not UTF-8 text, with
  // its position, never stripped.
  const decoded = decodeUtf8Strict(markdown);
  if (!decoded.ok) {
    throw refuseDistributor('markdown_not_utf8', {
      role: 'bundle',
      location: { line: decoded.line, column: decoded.column },
      hint:
        decoded.reason === 'bom'
          ? 'save the file as UTF-8 without a byte order mark'
          : 'save the file as UTF-8',
    });
  }
  const text = decoded.text;
  const env = {};
  const tokens = renderer.parse(text, env);
  const title = firstHeadingText(tokens) ?? fallbackTitle;
  const body = renderer.renderer.render(tokens, renderer.options, env);
  const escapeHtml = renderer.utils.escapeHtml;
  return Buffer.from(
    [
      '<!DOCTYPE html>',
      '<html>',
      '<head>',
      '<meta charset="utf-8">',
      `<meta http-equiv="Content-Security-Policy" content="${CSP}">`,
      '<meta name="viewport" content="width=device-width, initial-scale=1">',
      '<meta name="generator" content="sealkit distributor">',
      `<title>${escapeHtml(title)}</title>`,
      '</head>',
      '<body>',
      `${body}</body>`,
      '</html>',
      '',
    ].join('\n'),
    'utf8',
  );
}

const CSP =
  "default-src 'none'; img-src * data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'";

type Token = ReturnType<InstanceType<typeof MarkdownIt>['parse']>[number];

function firstHeadingText(tokens: readonly Token[]): string | undefined {
  const index = tokens.findIndex((token) => token.type === 'heading_open');
  const inline = index === -1 ? undefined : tokens[index + 1];
  if (inline === undefined || inline.type !== 'inline') return undefined;
  const text = collectText(inline.children ?? [])
    .replace(/\s+/g, ' ')
    .trim();
  return text === '' ? undefined : text;
}

function collectText(tokens: readonly Token[]): string {
  let out = '';
  for (const token of tokens) {
    if (token.type === 'text' || token.type === 'code_inline') out += token.content;
    else if (token.type === 'softbreak' || token.type === 'hardbreak') out += ' ';
    else if (token.children !== null) out += collectText(token.children);
  }
  return out;
}

/** `report.md` → `report.html`; only a lowercase `.md` extension is Markdown (seed). */
export function htmlSidecarPath(path: string): string | undefined {
  return path.endsWith('.md') && !path.endsWith('/.md') && path.length > 3
    ? `${path.slice(0, -3)}.html`
    : undefined;
}
