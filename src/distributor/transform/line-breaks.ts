import type MarkdownIt from 'markdown-it';
import type { StateInline } from 'markdown-it';

type Markdown = InstanceType<typeof MarkdownIt>;

/** `<br>`, `<br/>` or `<br />`, any case: nothing else. */
const BREAK = /^<br[ \t]*\/?>/i;

/**
 * A `<br>` an author writes is a line break, as on GitHub
 * (docs/distributor.md#pages): it is the only way to break a line in a
 * table cell, and readers took `<br>` shown as text for a rendering fault.
 * Raw HTML stays escaped otherwise; this tag has no attribute and no
 * content, so the page gets only `<br />`. In code it stays text.
 */
export function lineBreakTags(md: Markdown): void {
  md.inline.ruler.before('html_inline', 'br_tag', breakTag);
  md.renderer.rules.br_tag = (_tokens, _index, options) => (options.xhtmlOut ? '<br />' : '<br>');
}

function breakTag(state: StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x3c /* < */) return false;
  const found = BREAK.exec(state.src.slice(state.pos, Math.min(state.posMax, state.pos + 8)));
  if (found === null) return false;
  if (!silent) state.push('br_tag', 'br', 0);
  state.pos += found[0].length;
  return true;
}
