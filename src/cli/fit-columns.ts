/**
 * Help text fitted to an 80-column terminal (docs/cli.md#help). The texts
 * are written by hand; a line that runs over is broken here, at print time,
 * in the way its kind reads best:
 *
 * - a synopsis (`Usage: sealkit …`) between its bracketed groups, continued
 *   under the first argument;
 * - an example (`  sealkit …`) between shell words, a flag kept with its
 *   value, each broken line ending in ` \` so that it still pastes as one
 *   command; a shell comment after a command carries on under itself,
 *   each line starting with `#`;
 * - a flag or term with a description, continued under the description;
 * - prose, continued under its first word (after a list marker).
 *
 * A block whose lines all fit is left exactly as written; one that does not
 * is reflowed with the lines that continue it. A word longer than the line
 * (an absolute path) is never broken.
 */
export const HELP_COLUMNS = 80;

export function fitColumns(text: string, width: number = HELP_COLUMNS): string {
  const lines = text.split('\n');
  const columns = termColumns(lines);
  const out: string[] = [];
  for (let at = 0; at < lines.length; ) {
    const line = lines[at] ?? '';
    const shape = shapeOf(line, columns);
    let end = at + 1;
    // A blank line is a block of its own: it parts paragraphs, reflowed or not.
    if (line.trim() !== '')
      while (end < lines.length && continues(lines[end] ?? '', shape, columns)) end += 1;
    const block = lines.slice(at, end);
    if (block.every((each) => each.length <= width)) out.push(...block);
    else out.push(...reflow(block, shape, width));
    at = end;
  }
  return out.join('\n');
}

type Shape =
  | { readonly kind: 'synopsis'; readonly indent: number }
  | { readonly kind: 'example'; readonly indent: number }
  | { readonly kind: 'commented'; readonly indent: number }
  | { readonly kind: 'term'; readonly head: string; readonly indent: number }
  | { readonly kind: 'prose'; readonly head: string; readonly indent: number };

const TERM = /^( +\S(?:\S| (?! ))*? {2,})\S/;

/** The columns descriptions start at in the text's flag lists. */
function termColumns(lines: readonly string[]): readonly number[] {
  const columns = new Set<number>();
  for (const line of lines) {
    const term = /^ +-/.test(line) ? TERM.exec(line)?.[1] : undefined;
    if (term !== undefined) columns.add(term.length);
  }
  return [...columns].sort((a, b) => a - b);
}

function shapeOf(line: string, columns: readonly number[]): Shape {
  const synopsis = /^Usage: sealkit(?: [a-z][a-z-]*(?![a-z|-]))* /.exec(line);
  if (synopsis !== null) return { kind: 'synopsis', indent: synopsis[0].length };
  // A command with a shell comment after it (`eval "$(sealkit completion bash)"   # …`).
  const comment = /^ +\S.*? {2,}(?=# )/.exec(line);
  if (comment !== null) return { kind: 'commented', indent: comment[0].length };
  // A term before its description (`  sealkit json digest   print …`, in the
  // lists of commands) is told from an example by the gap of two spaces.
  const term = TERM.exec(line);
  if (term?.[1] !== undefined) return { kind: 'term', head: term[1], indent: term[1].length };
  const example = /^( +)sealkit /.exec(line);
  if (example?.[1] !== undefined) return { kind: 'example', indent: example[1].length };
  // A flag as long as its column (`--max-evidence-age DURATION maximum …`):
  // one space before the description, which still starts at the column.
  const filled = /^ +-/.test(line)
    ? columns.find((column) => line[column - 1] === ' ' && line[column] !== ' ' && line.length > column)
    : undefined;
  if (filled !== undefined) return { kind: 'term', head: line.slice(0, filled), indent: filled };
  const marker = /^( *(?:\d+\.|[-*]) +| *)/.exec(line)?.[1] ?? '';
  return { kind: 'prose', head: marker, indent: marker.length };
}

/** A line that carries on the block above it: indented exactly under its text, and not a block of its own. */
function continues(line: string, shape: Shape, columns: readonly number[]): boolean {
  if (shape.kind === 'example' || shape.kind === 'commented' || line.trim() === '') return false;
  const indent = /^ */.exec(line)?.[0].length ?? 0;
  // A synopsis runs on to the blank line, under whichever column its author chose.
  if (shape.kind === 'synopsis') return indent > 0;
  return indent === shape.indent && shapeOf(line, columns).kind === 'prose';
}

function reflow(block: readonly string[], shape: Shape, width: number): string[] {
  const [first = ''] = block;
  switch (shape.kind) {
    case 'synopsis': {
      const head = first.slice(0, shape.indent);
      const under =
        block[1] === undefined ? shape.indent : (/^ */.exec(block[1])?.[0].length ?? shape.indent);
      const groups = pairFlags(
        block.flatMap((line, index) => bracketGroups(index === 0 ? line.slice(shape.indent) : line)),
      );
      const lead = ' '.repeat(under);
      return pack(groups, head, lead, width).flatMap((line) => openGroup(line, lead, width));
    }
    case 'example': {
      const lead = ' '.repeat(shape.indent);
      const words = pairFlags(shellWords(first.slice(shape.indent)));
      return pack(words, lead, `${lead}    `, width - 2).map((line, index, all) =>
        index < all.length - 1 ? `${line} \\` : line,
      );
    }
    case 'commented': {
      // The comment carries on under itself, each line a comment of its own:
      // a backslash inside a comment continues nothing, and a comment's
      // words on a line of their own would run as a command.
      const command = first.slice(0, shape.indent).trimEnd();
      const note = first.slice(shape.indent + 2).split(/ +/);
      if (command.length + 4 > width - 20) {
        const lead = /^ */.exec(first)?.[0] ?? '';
        const fitted = fitColumns(command, width);
        return [...fitted.split('\n'), ...pack(note, `${lead}    # `, `${lead}    # `, width)];
      }
      const column = ' '.repeat(shape.indent);
      return pack(note, `${first.slice(0, shape.indent)}# `, `${column}# `, width);
    }
    case 'term':
    case 'prose': {
      const words = commandsWhole(
        [first.slice(shape.head.length), ...block.slice(1)].flatMap((line) => line.trim().split(/ +/)),
      );
      // A term so wide that its description would run down a narrow column:
      // the description goes under the term instead.
      if (shape.kind === 'term' && width - shape.indent < NARROWEST_DESCRIPTION) {
        const lead = `${/^ */.exec(first)?.[0] ?? ''}    `;
        return [shape.head.trimEnd(), ...pack(words, lead, lead, width)];
      }
      return pack(words, shape.head, ' '.repeat(shape.indent), width);
    }
  }
}

const NARROWEST_DESCRIPTION = 30;

/**
 * `sealkit json digest` as one piece of prose: a command named in a
 * sentence is never broken between its words.
 */
function commandsWhole(words: readonly string[]): string[] {
  const pieces: string[] = [];
  for (let at = 0; at < words.length; at += 1) {
    let piece = words[at] ?? '';
    if (piece === 'sealkit' || piece === '`sealkit')
      for (let more = 0; more < 2 && /^[a-z][a-z-]*[.,;:)`]?$/.test(words[at + 1] ?? ''); more += 1) {
        piece += ` ${words[at + 1]}`;
        at += 1;
        if (/[.,;:)`]$/.test(piece)) break;
      }
    pieces.push(piece);
  }
  return pieces;
}

/** Greedy packing: as many pieces per line as fit, a piece too long for any line on a line of its own. */
function pack(pieces: readonly string[], head: string, indent: string, width: number): string[] {
  const lines: string[] = [];
  let line = head;
  let empty = true;
  for (const piece of pieces) {
    if (piece === '') continue;
    if (!empty && line.length + 1 + piece.length > width) {
      lines.push(line);
      line = indent + piece;
    } else line = empty ? line + piece : `${line} ${piece}`;
    empty = false;
  }
  lines.push(line);
  return lines;
}

/**
 * A bracketed group longer than a line on its own, broken inside: its words
 * continue one column in, under the group's first word.
 */
function openGroup(line: string, lead: string, width: number): string[] {
  const group = line.slice(lead.length);
  if (line.length <= width || !line.startsWith(lead) || !/^\[.*\]$/.test(group)) return [line];
  const inner = pairFlags(bracketGroups(group.slice(1, -1)));
  const lines = pack(inner, `${lead}[`, `${lead} `, width - 1);
  lines[lines.length - 1] += ']';
  return lines;
}

/** Words of a synopsis, a bracketed or parenthesised group kept whole (`[--config FILE]`). */
function bracketGroups(text: string): string[] {
  const groups: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of text.trim()) {
    if (char === '[' || char === '(') depth += 1;
    if (char === ']' || char === ')') depth = Math.max(0, depth - 1);
    if (char === ' ' && depth === 0) {
      groups.push(current);
      current = '';
    } else current += char;
  }
  groups.push(current);
  return groups;
}

/** Shell words, a quoted string with its spaces kept in one word. */
function shellWords(text: string): string[] {
  return text.trim().match(/(?:'[^']*'|"[^"]*"|[^\s'"]+)+/g) ?? [];
}

/** `--flag value` as one piece, so a break never parts a flag from its value. */
function pairFlags(words: readonly string[]): string[] {
  const pieces: string[] = [];
  for (let at = 0; at < words.length; at += 1) {
    const word = words[at] ?? '';
    const next = words[at + 1];
    if (/^--?[a-z][a-z0-9-]*$/i.test(word) && next !== undefined && !next.startsWith('-') && next !== '|') {
      pieces.push(`${word} ${next}`);
      at += 1;
    } else pieces.push(word);
  }
  return pieces;
}
