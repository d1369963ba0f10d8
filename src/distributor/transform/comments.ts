import type MarkdownIt from 'markdown-it';
import type { StateBlock, StateInline } from 'markdown-it';

type Markdown = InstanceType<typeof MarkdownIt>;

/**
 * HTML comments are left out of a page (docs/distributor.md#pages). Raw
 * HTML is escaped, so without these rules `<!-- not final, do not share -->`
 * would be shown to every reader, although every Markdown preview an author
 * checks hides it. Only comments are recognised; every other tag stays
 * escaped text. The forms are CommonMark's: a comment block starts a line
 * (indented at most three spaces) with `<!--` and runs to the line holding
 * `-->`, across blank lines; an inline comment is `<!-->`, `<!--->` or
 * `<!--` … `-->` within one paragraph.
 */
export function dropHtmlComments(md: Markdown): void {
  md.block.ruler.before('html_block', 'html_comment_block', commentBlock, {
    alt: ['paragraph', 'reference', 'blockquote'],
  });
  md.inline.ruler.before('html_inline', 'html_comment_inline', commentInline);
  md.renderer.rules.html_comment = () => '';
}

const OPEN = '<!--';
const CLOSE = '-->';

function commentBlock(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  // Line tables of markdown-it's state; every index below is a line of the block.
  const indent = (line: number): number => state.sCount[line] ?? 0;
  const lineEnd = (line: number): number => state.eMarks[line] ?? state.src.length;
  if (indent(startLine) - state.blkIndent >= 4) return false;
  const start = (state.bMarks[startLine] ?? 0) + (state.tShift[startLine] ?? 0);
  if (!state.src.startsWith(OPEN, start)) return false;
  // The comment ends on the first line holding `-->`, searched from the
  // opening's own dashes as CommonMark does (`<!-->` closes at once).
  const found = state.src.indexOf(CLOSE, start + 2);
  if (found === -1) return false;
  const closeAt = found + CLOSE.length;
  let line = startLine;
  while (lineEnd(line) < closeAt) {
    line++;
    // Not closed inside this container (a list item, a quote): shown as text.
    if (line >= endLine) return false;
    if (indent(line) < state.blkIndent && !state.isEmpty(line)) return false;
  }
  // Text after `-->` on its line is shown: the block is dropped only when
  // nothing but the comment stands on those lines.
  if (state.src.slice(closeAt, lineEnd(line)).trim() !== '') return false;
  if (silent) return true;
  state.line = line + 1;
  const token = state.push('html_comment', '', 0);
  token.map = [startLine, state.line];
  token.hidden = true;
  return true;
}

function commentInline(state: StateInline, silent: boolean): boolean {
  const { src, pos, posMax } = state;
  if (!src.startsWith(OPEN, pos)) return false;
  let end: number;
  if (src.startsWith('>', pos + 4)) end = pos + 5;
  else if (src.startsWith('->', pos + 4)) end = pos + 6;
  else {
    const found = src.indexOf(CLOSE, pos + OPEN.length);
    if (found === -1) return false;
    end = found + CLOSE.length;
  }
  if (end > posMax) return false;
  if (!silent) state.push('html_comment', '', 0).hidden = true;
  state.pos = end;
  return true;
}
