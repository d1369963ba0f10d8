import type MarkdownIt from 'markdown-it';
import type { StateCore } from 'markdown-it';

type Markdown = InstanceType<typeof MarkdownIt>;
type Token = StateCore['tokens'][number];

/** The five kinds GitHub draws, with the title it shows. */
const KINDS: { readonly [kind: string]: string } = {
  note: 'Note',
  tip: 'Tip',
  important: 'Important',
  warning: 'Warning',
  caution: 'Caution',
};

/** `[!NOTE]` (any case) alone on the first line of a quote's first paragraph. */
const MARKER = /^\[!([A-Za-z]+)\][ \t]*(?:\n|$)/;

/**
 * Alerts as GitHub renders them (docs/distributor.md#pages): a quote at the
 * top level of the page whose first line is `[!NOTE]`, `[!TIP]`,
 * `[!IMPORTANT]`, `[!WARNING]` or `[!CAUTION]` is a callout with a coloured
 * bar and a title (`Note`) in place of the marker, which readers would
 * otherwise see as `[!NOTE]` text in a grey quote. The markup and classes are
 * GitHub's (`markdown-alert markdown-alert-note`, styled by the inlined
 * github-markdown-css), without the icon. A quote nested in a list or
 * another quote, an unknown kind or a marker with text after it on its line
 * stays a quote, as on GitHub.
 */
export function alerts(md: Markdown): void {
  // Before `inline`: the marker is cut from the paragraph's text before it is parsed.
  md.core.ruler.before('inline', 'alerts', (state) => {
    markAlerts(state.tokens, state.Token);
  });
}

function markAlerts(tokens: Token[], TokenClass: StateCore['Token']): void {
  for (let index = 0; index < tokens.length; index += 1) {
    const quote = tokens[index];
    if (quote?.type !== 'blockquote_open' || quote.level !== 0) continue;
    const paragraph = tokens[index + 1];
    const inline = tokens[index + 2];
    if (paragraph?.type !== 'paragraph_open' || inline?.type !== 'inline') continue;
    const marker = MARKER.exec(inline.content);
    const kind = marker?.[1]?.toLowerCase();
    const title = kind === undefined ? undefined : KINDS[kind];
    if (marker === null || kind === undefined || title === undefined) continue;
    const close = closingQuote(tokens, index);
    if (close === undefined) continue;
    quote.tag = 'div';
    quote.attrSet('class', `markdown-alert markdown-alert-${kind}`);
    close.tag = 'div';
    const heading = [
      new TokenClass('paragraph_open', 'p', 1),
      new TokenClass('inline', '', 0),
      new TokenClass('paragraph_close', 'p', -1),
    ] as const;
    heading[0].attrSet('class', 'markdown-alert-title');
    heading[1].content = title;
    heading[1].children = [];
    for (const token of heading) {
      token.block = true;
      token.level = paragraph.level + (token.type === 'inline' ? 1 : 0);
    }
    const rest = inline.content.slice(marker[0].length);
    if (rest.trim() === '') {
      // The marker was the paragraph's only line: the title takes its place.
      tokens.splice(index + 1, 3, ...heading);
    } else {
      // The paragraph goes on from the line after the marker; its links keep their lines.
      inline.content = rest;
      for (const token of [paragraph, inline])
        if (token.map !== null) token.map = [token.map[0] + 1, token.map[1]];
      tokens.splice(index + 1, 0, ...heading);
    }
  }
}

/** The `blockquote_close` that ends the quote opened at `openAt`. */
function closingQuote(tokens: readonly Token[], openAt: number): Token | undefined {
  let depth = 0;
  for (let index = openAt; index < tokens.length; index += 1) {
    const token = tokens[index];
    if (token?.type === 'blockquote_open') depth += 1;
    else if (token?.type === 'blockquote_close') {
      depth -= 1;
      if (depth === 0) return token;
    }
  }
  return undefined;
}
