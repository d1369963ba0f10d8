import { isMap, isScalar, LineCounter, type Node, parseDocument } from 'yaml';
import { languageTagProblem } from '../config/language.js';
import { LANG_PATTERN } from '../config/schema.js';
import { refuseDistributor } from '../refusals.js';

/** A Markdown text with its front matter, if any, taken off. */
export interface PageText {
  /** What is rendered: the text after the front matter's closing line. */
  readonly body: string;
  /** The file's line (1-based) the body starts on. */
  readonly bodyLine: number;
  /** The front matter's `title`, when it has one that is text or a number. */
  readonly title?: string;
  /** The front matter's `lang`, a language tag checked as the configuration's `html: {lang}` is. */
  readonly lang?: string;
}

const OPENING = /^---[ \t]*\r?\n/;
const CLOSING = /^(?:---|\.\.\.)[ \t]*$/;
/** The first line of a block written as YAML keys (`title: …`, `author:`). */
const KEY_LINE = /^[A-Za-z_][A-Za-z0-9_ -]*:(?:[ \t]|$)/;

/**
 * Front matter, as report tools write it (Quarto, R Markdown, Jekyll, Hugo,
 * notebook exports): the file's first line is `---`, a later line `---` or
 * `...` closes it, and what stands between is a YAML mapping. It is
 * metadata, never shown; its `title` names the page and its `lang` gives the
 * page's language (docs/distributor.md#pages).
 * A leading `---` that is not closed, or that holds no mapping (a rule
 * above a paragraph, a list), stays Markdown as CommonMark reads it. A
 * block written as keys that is not valid YAML is refused at the fault, so
 * a typo never shows the author's metadata on a published page.
 */
export function takeFrontMatter(text: string): PageText {
  const opening = OPENING.exec(text);
  if (opening === null) return { body: text, bodyLine: 1 };
  const lines = text.slice(opening[0].length).split('\n');
  const closing = lines.findIndex((line) => CLOSING.test(line.replace(/\r$/, '')));
  if (closing === -1) return { body: text, bodyLine: 1 };
  // A file saved with CRLF: the YAML is read without the carriage returns,
  // which would otherwise end a quoted value's line (`title: "Report"\r`).
  const yamlText = lines
    .slice(0, closing)
    .map((line) => line.replace(/\r$/, ''))
    .join('\n');
  const body = lines.slice(closing + 1).join('\n');
  const lineCounter = new LineCounter();
  const document = parseDocument(yamlText, { uniqueKeys: true, lineCounter });
  const contents = document.contents;
  // Empty, or a mapping: `# Weekly report` alone between two rules is a
  // heading to CommonMark and only a comment to YAML, so it stays Markdown.
  const empty = contents === null && yamlText.trim() === '';
  if (document.errors.length === 0 && (empty || isMap(contents))) {
    const title = isMap(contents) ? contents.get('title', true) : undefined;
    const text =
      isScalar(title) && (typeof title.value === 'string' || typeof title.value === 'number')
        ? String(title.value).replace(/\s+/g, ' ').trim()
        : '';
    // The opening line, the block and the closing line come before the body.
    const bodyLine = closing + 3;
    const lang = isMap(contents) ? pageLang(contents.get('lang', true), lineCounter) : undefined;
    return {
      body,
      bodyLine,
      ...(text === '' ? {} : { title: text }),
      ...(lang === undefined ? {} : { lang }),
    };
  }
  const firstWritten = lines
    .slice(0, closing)
    .find((line) => line.trim() !== '' && !line.trimStart().startsWith('#'));
  if (firstWritten === undefined || !KEY_LINE.test(firstWritten.replace(/\r$/, '')))
    return { body: text, bodyLine: 1 };
  // The parser's position, one line down for the opening `---`; its message
  // is not passed on (it quotes the text).
  const at = document.errors[0]?.linePos?.[0];
  const colon = COLON_IN_VALUE.exec(lines[(at?.line ?? 1) - 1]?.replace(/\r$/, '') ?? '');
  throw refuseDistributor('markdown_front_matter_invalid', {
    role: 'bundle',
    location: { line: (at?.line ?? 1) + 1, column: at?.col ?? 1 },
    hint:
      colon === null
        ? 'fix the YAML between its first two --- lines (metadata, never shown on the page), or begin the file with something other than a --- line'
        : `the value of '${colon[1]}' holds a colon and a space, which YAML reads as another key: write the value in quotes, ${colon[1]}: ${JSON.stringify(colon[2])}`,
  });
}

// `title: Q1: results`: a plain value holding `: `, which YAML takes for a nested key.
const COLON_IN_VALUE = /^([A-Za-z_][\w-]*):[ \t]+([^'"\s[{#|>&*!%@`][^#]*?: .*?)[ \t]*$/;

/**
 * The page's language from the front matter's `lang` (`lang: de`), checked
 * as the configuration's `html: {lang}` is: a tag a browser reads wrongly
 * or not at all (`german`, `en_GB`, a list) is refused at the value, with
 * the tag it most likely means, rather than published as the page's
 * language. No value (`lang:`, `lang: ""`) says nothing about the page.
 */
function pageLang(node: unknown, lineCounter: LineCounter): string | undefined {
  if (node === undefined || node === null) return undefined;
  if (isScalar(node) && (node.value === null || node.value === '')) return undefined;
  const text = isScalar(node) && typeof node.value === 'string' ? node.value : undefined;
  const problem =
    text === undefined
      ? LANG_HINT
      : (languageTagProblem(text) ?? (LANG_PATTERN.test(text) ? undefined : LANG_HINT));
  if (problem === undefined) return text;
  // The value's place in the block, one line down for the opening `---`.
  const at = lineCounter.linePos((node as Node).range?.[0] ?? 0);
  throw refuseDistributor('markdown_front_matter_lang_invalid', {
    role: 'bundle',
    location: { line: at.line + 1, column: at.col },
    hint: problem,
  });
}

const LANG_HINT = 'a language tag such as en, en-GB or de-CH (BCP 47)';
