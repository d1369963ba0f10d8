import type MarkdownIt from 'markdown-it';
import type { StateBlock } from 'markdown-it';

type Markdown = InstanceType<typeof MarkdownIt>;

/** `<details>` or `<details open>`, alone on its line, optionally followed by its `<summary>…</summary>`. */
const OPEN = /^<details( open)?>[ \t]*(?:<summary>(.*)<\/summary>)?[ \t]*$/i;
/** `<summary>…</summary>` alone on its line. */
const SUMMARY = /^<summary>(.*)<\/summary>[ \t]*$/i;
/** `</details>` alone on its line. */
const CLOSE = /^<\/details>[ \t]*$/i;

/**
 * A collapsible section as GitHub shows it (docs/distributor.md#pages): a
 * line `<details>` (or `<details open>`), a line `<summary>Query used</summary>`
 * (or on the same line), the Markdown inside, and a line `</details>`. Raw
 * HTML stays escaped otherwise, and these are written by sealkit itself:
 * no attribute but `open`, the summary's text rendered as Markdown. Each
 * tag must stand on a line of its own, outside code, as authors write it
 * for GitHub; an unclosed `<details>` is closed where the text ends
 * (before the footnotes), and a `</details>` with none open stays text. The
 * section opens and closes without script (the browser's own element).
 */
export function collapsibleSections(md: Markdown): void {
  md.block.ruler.before('html_block', 'details_tags', detailsTag, {
    alt: ['paragraph', 'reference', 'blockquote'],
  });
  // A section never closed ends where the text does: before the footnotes,
  // which would otherwise be folded into it.
  md.core.ruler.after('block', 'details_unclosed', (state) => {
    const env = state.env as { detailsOpen?: number };
    for (let open = env.detailsOpen ?? 0; open > 0; open -= 1)
      state.tokens.push(new state.Token('details_close', 'details', 0));
    env.detailsOpen = 0;
  });
  md.renderer.rules.details_open = (tokens, index) =>
    tokens[index]?.meta?.open === true ? '<details open>\n' : '<details>\n';
  md.renderer.rules.details_close = () => '</details>\n';
  md.renderer.rules.summary_open = () => '<summary>';
  md.renderer.rules.summary_close = () => '</summary>\n';
}

function detailsTag(state: StateBlock, startLine: number, _endLine: number, silent: boolean): boolean {
  if ((state.sCount[startLine] ?? 0) - state.blkIndent >= 4) return false;
  const start = (state.bMarks[startLine] ?? 0) + (state.tShift[startLine] ?? 0);
  if (state.src.charCodeAt(start) !== 0x3c /* < */) return false;
  const line = state.src.slice(start, state.eMarks[startLine] ?? state.src.length);
  const open = OPEN.exec(line);
  const summary = open === null ? SUMMARY.exec(line) : null;
  const close = open === null && summary === null ? CLOSE.exec(line) : null;
  if (open === null && summary === null && close === null) return false;
  // A `</details>` with no section open is text, as the author wrote it.
  const env = state.env as { detailsOpen?: number };
  if (close !== null && (env.detailsOpen ?? 0) === 0) return false;
  if (silent) return true;
  const map: [number, number] = [startLine, startLine + 1];
  if (open !== null) {
    // Nesting 0: a tag the author left unbalanced shifts no level of what follows.
    const token = state.push('details_open', 'details', 0);
    token.map = map;
    token.meta = { open: open[1] !== undefined };
    env.detailsOpen = (env.detailsOpen ?? 0) + 1;
    if (open[2] !== undefined) pushSummary(state, open[2], map);
  } else if (summary !== null) pushSummary(state, summary[1] ?? '', map);
  else {
    state.push('details_close', 'details', 0).map = map;
    env.detailsOpen = (env.detailsOpen ?? 1) - 1;
  }
  state.line = startLine + 1;
  return true;
}

function pushSummary(state: StateBlock, text: string, map: [number, number]): void {
  state.push('summary_open', 'summary', 1).map = map;
  const inline = state.push('inline', '', 0);
  inline.content = text.trim();
  inline.map = map;
  inline.children = [];
  state.push('summary_close', 'summary', -1);
}
