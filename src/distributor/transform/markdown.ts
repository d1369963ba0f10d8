import GithubSlugger from 'github-slugger';
import MarkdownIt from 'markdown-it';
import footnotes from 'markdown-it-footnote';
import { decodeUtf8Strict } from '../../core/input/utf8.js';
import { refuseDistributor } from '../refusals.js';
import { alerts } from './alerts.js';
import { dropHtmlComments } from './comments.js';
import { collapsibleSections } from './details.js';
import { footnoteIds, nameFootnotes } from './footnote-ids.js';
import { takeFrontMatter } from './front-matter.js';
import { lineBreakTags } from './line-breaks.js';
import { pageHref, placeOf } from './page-links.js';
import { MARKDOWN_MAX_BYTES } from './sidecar.js';
import { pageStylesheet } from './stylesheet.js';
import { taskLists } from './task-lists.js';

export { climbsAboveRoot, pageHref } from './page-links.js';
export { htmlSidecarPath, MARKDOWN_MAX_BYTES } from './sidecar.js';

// Raw HTML is escaped (html: false) and HTML comments are left out (see
// comments.ts); markdown-it's default link validation leaves javascript:,
// vbscript:, file: and data: (except images of a few raster types) as plain
// text. Bare URLs are links as on GitHub (see `autolinks` below); no
// typographer: the output depends on the source text and the pinned library
// versions only. Task lists are drawn as GitHub draws them
// (see task-lists.ts); footnotes (`[^1]`) become numbered notes at the end of
// the page, each linked both ways (markdown-it-footnote), with the ids GitHub
// gives them (see footnote-ids.ts). A quote opening with `[!NOTE]` is
// GitHub's callout (see alerts.ts), `<br>` a line break (see
// line-breaks.ts), and `<details>` lines a collapsible section (see
// details.ts).
let built: InstanceType<typeof MarkdownIt> | undefined;

/**
 * The one parser and renderer, made at the first page: a module that only
 * imports this one (the library's entry does) builds nothing.
 */
function markdownIt(): InstanceType<typeof MarkdownIt> {
  if (built !== undefined) return built;
  built = new MarkdownIt('commonmark', { html: false, linkify: true, typographer: false })
    .enable(['table', 'strikethrough', 'linkify'])
    .use(autolinks)
    .use(dropHtmlComments)
    .use(lineBreakTags)
    .use(collapsibleSections)
    .use(alerts)
    .use(taskLists)
    .use(footnotes)
    .use(footnoteIds);
  // The notes' section draws its own rule (github-markdown-css's `.footnotes`
  // border, as on GitHub): without the plugin's `<hr>` before it, one line
  // separates the notes from the text, not two.
  built.renderer.rules.footnote_block_open = () =>
    '<section class="footnotes">\n<ol class="footnotes-list">\n';
  return built;
}

/**
 * Bare URLs as GitHub links them (docs/distributor.md#pages): `https://…`,
 * `http://…`, `ftp://…`, `mailto:…` and `www.…` (as `http://www.…`), never
 * in code, trailing punctuation left out (linkify-it, markdown-it's own).
 * Nothing without a scheme or `www.` is a link: `report.md` and
 * `data.csv` name files (`.md` is a country's domain), and
 * `export@2026-05.csv` is no address; `//server/share` stays text too.
 */
function autolinks(md: InstanceType<typeof MarkdownIt>): void {
  md.linkify.set({ fuzzyLink: false, fuzzyEmail: false, fuzzyIP: false });
  md.linkify.add('//', null);
  md.linkify.add('www.', {
    // The tail after `www.` is what an `http://www.` link would take.
    validate: (text, pos, self) => {
      const length = self.testSchemaAt(`http://www.${text.slice(pos)}`, 'http:', 'http:'.length);
      return length > '//www.'.length ? length - '//www.'.length : 0;
    },
    normalize: (match) => {
      match.url = `http://${match.url}`;
    },
  });
}

/** How one destination wants its pages (docs/distributor.md#pages). */
export interface PageOptions {
  /**
   * The `lang` of `<html>` (`html: {lang: en}`); a page whose front matter
   * has its own `lang` is in that language instead. Absent, and none in the
   * front matter: no `lang` attribute.
   */
  readonly lang?: string;
  /** The Markdown file's path in its bundle, against which relative links resolve. */
  readonly path?: string;
  /**
   * Every path the bundle lists. A relative link that resolves to one of
   * them ending in `.md` points to its page instead (`notes.md` →
   * `notes.html`); every other link is left as written.
   */
  readonly listed?: ReadonlySet<string>;
  /**
   * The bundle's folder below its source root (`sales/2026-W03`), which
   * every destination repeats below its own root. A link that climbs above
   * the bundle and comes back into it (`../2026-W03/chart.png`) is then a
   * link inside it, and a link to a `.md` file of another bundle folder of
   * the source root (`../2026-W02/report.md`) points to that bundle's page
   * (`../2026-W02/report.html`), which a destination rendering pages holds
   * beside this one; without it, every link above the bundle leaves it and
   * is kept as written.
   */
  readonly bundleDir?: string;
}

/**
 * The page shell is fixed: UTF-8, a Content-Security-Policy that allows no
 * script, object, frame or form target and loads nothing from another
 * origin (images from the page's own site and data: only; the one style
 * element by its SHA-256), `lang` from the front matter or else the
 * destination, a viewport, the title
 * (the front matter's `title`, else the first heading's text, else the file
 * name without `.md`), the readable stylesheet inlined (see `stylesheet.ts`), and the
 * rendered body. Same input and options, same bytes.
 */
export function renderMarkdownPage(
  markdown: Uint8Array,
  fallbackTitle: string,
  options: PageOptions = {},
): Uint8Array {
  return renderMarkdown(markdown, fallbackTitle, options).page;
}

/**
 * A relative link or image of a page, as the page was rendered from its
 * Markdown (docs/distributor.md#pages): where it points inside the bundle,
 * or that it leaves the bundle; also an image from another site and a path
 * from the site's root. Other absolute URLs and fragments are not
 * recorded. The plan checks these against what a
 * destination receives, to warn of a page pointing at a file that will not
 * be there.
 */
export interface PageLink {
  /** The line of the Markdown file (1-based) of the paragraph, heading or cell holding it. */
  readonly line: number;
  /** The link as written in the page (percent-encoded; a listed `.md` already its `.html` page). */
  readonly href: string;
  readonly image: boolean;
  /** The bundle path it resolves to, when it stays inside the bundle (`''`: the bundle folder itself). */
  readonly target?: string;
  /**
   * It names a folder (`guide/`, `./`, `..`, or another bundle's
   * `../2026-W02/`): a web server answers with that folder's `index.html`.
   * A folder named without its slash (`guide`) is a plain `target`, as the
   * Markdown cannot tell it from a file.
   */
  readonly folder?: true;
  /** It climbs above the bundle folder (`../2026-W02/report.md`). */
  readonly leaves?: true;
  /**
   * The `src` of an HTML `<img>` tag written in the Markdown: raw HTML is
   * escaped, so the page shows the tag as text and no picture, whatever
   * the bundle holds (docs/distributor.md#pages). `href` is the `src` as
   * written; no `target` is recorded, the warning is the same for every
   * destination.
   */
  readonly raw?: true;
  /**
   * For a link that leaves the bundle, the path below the source root it
   * resolves to when it stays below the source root, in a folder that may
   * be another bundle's (neither this bundle's nor one above it):
   * `sales/2026-W02/report.md`. A link to such a `.md` file already points
   * at its page (`href` ends in `.html`).
   */
  readonly other?: string;
  /**
   * An image from another site (`https://…`, `//…`): the page's
   * Content-Security-Policy loads images only from the site itself and
   * `data:` URLs, so it never shows (docs/distributor.md#pages).
   */
  readonly remote?: true;
  /**
   * A path from the site's root (`/sales/2026-W01/report.md`): where it
   * lands depends on where the destination sits in the site, so it is not
   * resolved; only a `.md` there is reported, where none is published.
   */
  readonly rooted?: true;
}

/** A page and the relative links it holds. */
export interface RenderedMarkdown {
  readonly page: Uint8Array;
  readonly links: readonly PageLink[];
}

/** `renderMarkdownPage`, with the page's relative links (`options.path` must be set for them). */
export function renderMarkdown(
  markdown: Uint8Array,
  fallbackTitle: string,
  options: PageOptions = {},
): RenderedMarkdown {
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
          ? 'it starts with a byte order mark (the bytes EF BB BF, which some Windows editors write), which sealkit never strips: save the file as UTF-8 without one, then write the manifest again'
          : 'save the file as UTF-8',
    });
  }
  const text = takeFrontMatter(decoded.text);
  const env = {};
  const renderer = markdownIt();
  const tokens = renderer.parse(text.body, env);
  const links: PageLink[] = [];
  adjustTokens(tokens, options, { links, line: 1, offset: text.bodyLine - 1 });
  nameFootnotes(tokens, anchorHeadings(tokens));
  const title = text.title ?? firstHeadingText(tokens) ?? fallbackTitle;
  // The author's word on one page outweighs the destination's default for all of them.
  const lang = text.lang ?? options.lang;
  const body = renderer.renderer.render(tokens, renderer.options, env);
  const escapeHtml = renderer.utils.escapeHtml;
  const style = pageStylesheet();
  // The style element is the same bytes in every page: encoded once.
  const head = [
    '<!DOCTYPE html>',
    lang === undefined
      ? '<html>'
      : `<html lang="${escapeHtml(lang)}"${writtenRightToLeft(lang) ? ' dir="rtl"' : ''}>`,
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${pageCsp(style.sha256Base64)}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="generator" content="sealkit distributor">',
    `<title>${escapeHtml(title)}</title>`,
    '',
  ].join('\n');
  const tail = [
    '',
    '</head>',
    '<body>',
    '<article class="markdown-body">',
    `${body}</article>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
  return {
    page: Buffer.concat([Buffer.from(head, 'utf8'), style.element, Buffer.from(tail, 'utf8')]),
    links,
  };
}

/**
 * The policy of every page: nothing is allowed unless listed. Images come
 * from the page's own site (the bundle's assets) or data: URLs; the one
 * `<style>` element is allowed by its hash, so no injected style element or
 * `style` attribute applies; no script, frame, object, font or fetch of any
 * kind; `<base>` and form targets are forbidden.
 */
export function pageCsp(styleSha256Base64: string): string {
  return `default-src 'none'; img-src 'self' data:; style-src 'sha256-${styleSha256Base64}'; base-uri 'none'; form-action 'none'`;
}

type Token = ReturnType<InstanceType<typeof MarkdownIt>['parse']>[number];

const ALIGN = /^text-align:(left|center|right)$/;

/**
 * Two changes to markdown-it's tokens before rendering. Table cell
 * alignment becomes a class (`align-right`): the policy allows no `style`
 * attribute. Relative links to listed `.md` files point to their pages.
 * Every relative link and image is recorded in `found.links` as the page
 * then holds it.
 */
function adjustTokens(
  tokens: readonly Token[],
  options: PageOptions,
  found: { readonly links: PageLink[]; line: number; readonly offset: number },
): void {
  for (const token of tokens) {
    // Inline children carry no line of their own: the block's first line,
    // and one more at each line break inside it.
    if (token.map !== null) found.line = token.map[0] + 1 + found.offset;
    if (token.type === 'softbreak' || token.type === 'hardbreak') found.line += 1;
    if (token.type === 'th_open' || token.type === 'td_open') {
      const align = ALIGN.exec(String(token.attrGet('style') ?? ''));
      if (align !== null) {
        token.attrs = (token.attrs ?? []).filter(([name]) => name !== 'style');
        token.attrJoin('class', `align-${align[1]}`);
      }
    }
    if (token.children !== null) adjustTokens(token.children, options, found);
    if (token.type === 'text' && options.path !== undefined)
      for (const src of rawImageSources(token.content))
        found.links.push({ line: found.line, href: src, image: true, raw: true });
    if (token.type === 'link_open' && options.listed !== undefined) {
      const href = token.attrGet('href');
      const page =
        href === null
          ? undefined
          : pageHref(String(href), options.path ?? '', options.listed, options.bundleDir);
      if (page !== undefined) token.attrSet('href', page);
    }
    const attribute = token.type === 'link_open' ? 'href' : token.type === 'image' ? 'src' : undefined;
    const written = attribute === undefined ? null : token.attrGet(attribute);
    if (written !== null && options.path !== undefined) {
      const href = String(written);
      const place = placeOf(href, options.path, options.bundleDir);
      const image = token.type === 'image';
      if (place === undefined) {
        if (image && REMOTE_URL.test(href)) found.links.push({ line: found.line, href, image, remote: true });
        else if (SITE_ROOT_PATH.test(href)) found.links.push({ line: found.line, href, image, rooted: true });
      } else
        found.links.push({
          line: found.line,
          href,
          image: token.type === 'image',
          ...(place.kind === 'outside'
            ? { leaves: true }
            : place.kind === 'other'
              ? {
                  leaves: true,
                  other: place.target,
                  ...(place.folder === true ? { folder: true as const } : {}),
                }
              : place.kind === 'folder'
                ? { target: place.target, folder: true }
                : { target: place.target }),
        });
    }
  }
}

// An image another site serves: `https://…`, `http://…`, `ftp://…` or scheme-relative `//…`.
const REMOTE_URL = /^(?:(?:https?|ftp):)?\/\//i;
// A path from the site's root (one slash, not a scheme-relative `//host`).
const SITE_ROOT_PATH = /^\/(?!\/)/;

// An `<img …>` tag with a `src` attribute, quoted or not, in any case.
const RAW_IMAGE = /<img\s(?:[^>]*?\s)?src\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))[^>]*>/gi;

/**
 * The `src` of each HTML `<img>` tag in a text of the page. Authors paste
 * them from GitHub readmes (`<img src="charts/trend.png" width="400">`);
 * the page escapes them, so the reader sees the tag and no picture, which
 * the run reports like a link that will not load.
 */
function rawImageSources(text: string): string[] {
  return [...text.matchAll(RAW_IMAGE)].map((found) => found[1] ?? found[2] ?? found[3] ?? '');
}

/**
 * Every heading gets the `id` GitHub gives it (github-slugger: lower case,
 * punctuation dropped, spaces as `-`, a repeated heading `-1`, `-2`), so a
 * link written for GitHub (`notes.md#method`) lands on the published page
 * too (docs/distributor.md#pages). Returns the ids given, which footnotes
 * then avoid.
 */
function anchorHeadings(tokens: readonly Token[]): ReadonlySet<string> {
  const slugger = new GithubSlugger();
  const ids = new Set<string>();
  tokens.forEach((token, index) => {
    if (token.type !== 'heading_open') return;
    const inline = tokens[index + 1];
    // Trimmed: a comment left out at either end (`# Title <!-- x -->`) leaves a space, not a `-`.
    const text = inline?.type === 'inline' ? collectText(inline.children ?? []).trim() : '';
    // A heading without text has no anchor: `id=""` is not valid HTML.
    const slug = slugger.slug(text);
    if (slug === '') return;
    token.attrSet('id', slug);
    ids.add(slug);
  });
  return ids;
}

/** Scripts written right to left, for a tag that names its script (`az-Arab`). */
const RIGHT_TO_LEFT_SCRIPTS = new Set([
  'Adlm',
  'Arab',
  'Hebr',
  'Mand',
  'Nkoo',
  'Rohg',
  'Samr',
  'Syrc',
  'Thaa',
]);

/**
 * Whether a page in `lang` reads right to left (Arabic, Hebrew, Persian,
 * Urdu …): ICU's text direction for the language, or its script subtag.
 * Without `dir="rtl"` such a page is laid out flush left and mixed text is
 * reordered wrongly (docs/distributor.md#pages).
 */
function writtenRightToLeft(lang: string): boolean {
  try {
    const locale = new Intl.Locale(lang) as Intl.Locale & {
      readonly textInfo?: { readonly direction?: string };
      getTextInfo?(): { readonly direction?: string };
    };
    if (locale.script !== undefined) return RIGHT_TO_LEFT_SCRIPTS.has(locale.script);
    return (locale.getTextInfo?.() ?? locale.textInfo)?.direction === 'rtl';
  } catch {
    return false;
  }
}

/** The text of the first heading that has any (a bare `#` is skipped). */
function firstHeadingText(tokens: readonly Token[]): string | undefined {
  for (const [index, token] of tokens.entries()) {
    if (token.type !== 'heading_open') continue;
    const inline = tokens[index + 1];
    if (inline === undefined || inline.type !== 'inline') continue;
    const text = collectText(inline.children ?? [], ' ')
      .replace(/\s+/g, ' ')
      .trim();
    if (text !== '') return text;
  }
  return undefined;
}

/**
 * The text of inline tokens. A `<br>` the author wrote is a space in a title
 * and nothing in an anchor, whose id GitHub takes from the heading's text
 * content (`# Week<br>22` is `id="week22"`).
 */
function collectText(tokens: readonly Token[], breakTag = ''): string {
  let out = '';
  for (const token of tokens) {
    if (token.type === 'text' || token.type === 'code_inline') out += token.content;
    else if (token.type === 'softbreak' || token.type === 'hardbreak') out += ' ';
    else if (token.type === 'br_tag') out += breakTag;
    else if (token.children !== null) out += collectText(token.children, breakTag);
  }
  return out;
}
