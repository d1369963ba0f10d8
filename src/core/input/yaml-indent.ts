/**
 * A second look at a YAML document the parser refused, for the indentation
 * mistakes a hand-written file makes most (docs/refusals.md#text-inputs). The
 * parser reports a key one space short of its siblings as an unclosed quote,
 * a line early, or at column 1; this scan follows the block structure line by
 * line and finds the first line whose indentation fits none of the mappings
 * and lists open above it. It reads lines only: it never builds values and
 * never quotes the text. Where it cannot tell (a tab, a complex key, a quote
 * or bracket still open), it says nothing and the parser's own place stands.
 */

export type IndentFinding =
  /** The line starts in a column between two open levels: one of its siblings is one space off. */
  | { readonly kind: 'out_of_line'; readonly offset: number; readonly line: number }
  /** The line is deeper than the key above it, which already has its value on its own line. */
  | { readonly kind: 'over_indented'; readonly offset: number; readonly line: number }
  /** A list item starts where keys of a mapping do. */
  | { readonly kind: 'item_among_keys'; readonly offset: number; readonly line: number }
  /** The document's first line is indented, and a later top-level line is not. */
  | { readonly kind: 'first_line_indented'; readonly offset: number; readonly line: number };

export interface IndentScan {
  readonly finding?: IndentFinding;
  /** The 1-based line of the first quote or bracket that the text never closes. */
  readonly unclosedFrom?: number;
}

type Level = { readonly column: number; readonly kind: 'map' | 'seq' };

interface Open {
  /** A key or `-` that ended its line: the next line may go deeper than this column. */
  readonly column: number;
  readonly kind: 'map' | 'seq';
}

interface FlowState {
  quote: '"' | "'" | null;
  depth: number;
}

/** Where a quote or flow collection that starts at `start` ends on this line, updating `state`. */
function scanFlow(line: string, start: number, state: FlowState): void {
  let i = start;
  let valueStart = state.quote === null && state.depth === 0;
  while (i < line.length) {
    const ch = line[i];
    if (state.quote === "'") {
      if (ch === "'") {
        if (line[i + 1] === "'") i += 1;
        else state.quote = null;
      }
    } else if (state.quote === '"') {
      if (ch === '\\') i += 1;
      else if (ch === '"') state.quote = null;
    } else if (ch === '#' && (i === 0 || /\s/.test(line[i - 1] ?? ''))) {
      return;
    } else if (ch === '"' || ch === "'") {
      if (valueStart) state.quote = ch;
    } else if (ch === '[' || ch === '{') {
      if (valueStart || state.depth > 0) state.depth += 1;
    } else if (ch === ']' || ch === '}') {
      if (state.depth > 0) state.depth -= 1;
    }
    if (state.quote === null && state.depth === 0 && !valueStart && ch !== undefined && !/\s/.test(ch)) {
      // A plain value outside any collection: nothing on the rest of the line opens one.
      return;
    }
    valueStart = state.depth > 0 ? ch === '[' || ch === '{' || ch === ',' || ch === ':' || ch === ' ' : false;
    i += 1;
  }
}

/** Where the value of a `key:` starts (after the colon and spaces), or undefined when the text is no key. */
function keyValueStart(line: string, start: number): number | undefined {
  const first = line[start];
  let i = start;
  if (first === '"' || first === "'") {
    i += 1;
    while (i < line.length) {
      const ch = line[i];
      if (first === '"' && ch === '\\') i += 2;
      else if (ch === first) {
        if (first === "'" && line[i + 1] === "'") i += 2;
        else break;
      } else i += 1;
    }
    i += 1;
    return line[i] === ':' && (i + 1 === line.length || line[i + 1] === ' ') ? i + 1 : undefined;
  }
  if (first === '[' || first === '{' || first === '|' || first === '>' || first === '#') return undefined;
  for (; i < line.length; i += 1) {
    const ch = line[i];
    if (ch === '#' && line[i - 1] === ' ') return undefined;
    if (ch === ':' && (i + 1 === line.length || line[i + 1] === ' ')) return i + 1;
  }
  return undefined;
}

const BLOCK_SCALAR_HEADER = /^[|>][1-9+-]*\s*(?:#.*)?$/;

export function scanIndentation(text: string): IndentScan {
  const lines = text.split('\n');
  const stack: Level[] = [];
  let open: Open | undefined;
  /** Set after `key: value` (a value on the key's own line): a deeper key line below is over-indented. */
  let inlineValueAt: number | undefined;
  let blockScalarParent: number | undefined;
  const flow: FlowState = { quote: null, depth: 0 };
  let flowFrom: number | undefined;
  let offset = 0;
  let finding: IndentFinding | undefined;
  let firstLine: { readonly offset: number; readonly line: number } | undefined;
  for (const [index, raw] of lines.entries()) {
    const lineOffset = offset;
    offset += raw.length + 1;
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const lineNumber = index + 1;
    if (flow.quote !== null || flow.depth > 0) {
      scanFlow(line, 0, flow);
      if (flow.quote === null && flow.depth === 0) flowFrom = undefined;
      continue;
    }
    const indentMatch = /^[ \t]*/.exec(line);
    const leading = indentMatch === null ? '' : indentMatch[0];
    const rest = line.slice(leading.length);
    if (rest === '' || rest.startsWith('#')) continue;
    if (blockScalarParent !== undefined) {
      if (!leading.includes('\t') && leading.length > blockScalarParent) continue;
      blockScalarParent = undefined;
    }
    if (finding !== undefined) continue;
    if (leading.includes('\t') || rest.startsWith('? ') || rest === '?') return {};
    if (leading.length === 0 && (rest.startsWith('---') || rest.startsWith('...') || rest.startsWith('%'))) {
      stack.length = 0;
      open = undefined;
      inlineValueAt = undefined;
      continue;
    }
    const column = leading.length;
    const at = lineOffset + column;
    firstLine ??= { offset: at, line: lineNumber };
    // The columns this line opens: one per `- ` marker, then its content.
    const markers: number[] = [];
    let content = column;
    while (line[content] === '-' && (content + 1 === line.length || line[content + 1] === ' ')) {
      markers.push(content);
      content += 1;
      while (line[content] === ' ') content += 1;
    }
    const hasContent = content < line.length && line[content] !== '#';
    const valueStart = hasContent ? keyValueStart(line, content) : undefined;
    const isKey = valueStart !== undefined;
    const firstKind: 'map' | 'seq' | 'scalar' = markers.length > 0 ? 'seq' : isKey ? 'map' : 'scalar';

    // Place the line's first column among the open levels.
    let accepted = false;
    if (open !== undefined && column > open.column) {
      accepted = true;
    } else if (open?.kind === 'map' && column === open.column && firstKind === 'seq') {
      accepted = true;
    }
    if (!accepted) {
      let popped = false;
      while (stack.length > 0 && (stack.at(-1)?.column ?? 0) > column) {
        stack.pop();
        popped = true;
      }
      const top = stack.at(-1);
      if (top === undefined) {
        if (popped && firstLine !== undefined) {
          // Below every open level: the level the document started with is the odd one.
          finding = { kind: 'first_line_indented', ...firstLine };
          continue;
        }
      } else if (top.column === column) {
        if (top.kind === 'seq' && firstKind !== 'seq') {
          stack.pop();
          const below = stack.at(-1);
          if (below === undefined || below.column !== column || below.kind !== 'map') {
            finding = { kind: 'out_of_line', offset: at, line: lineNumber };
            continue;
          }
        } else if (top.kind === 'map' && firstKind === 'seq') {
          finding = { kind: 'item_among_keys', offset: at, line: lineNumber };
          continue;
        }
      } else if (popped) {
        finding = { kind: 'out_of_line', offset: at, line: lineNumber };
        continue;
      } else if (isKey && inlineValueAt !== undefined && column > inlineValueAt) {
        finding = { kind: 'over_indented', offset: at, line: lineNumber };
        continue;
      } else {
        // A deeper line after a plain value: a value running over lines, or a
        // key that lost its colon; the parser's place stands for either.
        open = undefined;
        inlineValueAt = undefined;
        continue;
      }
    }
    while (stack.length > 0 && (stack.at(-1)?.column ?? 0) > column) stack.pop();
    for (const marker of markers) {
      if (stack.at(-1)?.column !== marker || stack.at(-1)?.kind !== 'seq')
        stack.push({ column: marker, kind: 'seq' });
    }
    open = undefined;
    inlineValueAt = undefined;
    if (!hasContent) {
      const last = markers.at(-1);
      if (last !== undefined) open = { column: last, kind: 'seq' };
      continue;
    }
    if (isKey) {
      if (stack.at(-1)?.column !== content || stack.at(-1)?.kind !== 'map')
        stack.push({ column: content, kind: 'map' });
      const value = line.slice(valueStart).trimStart();
      const start = line.length - value.length;
      if (value === '' || value.startsWith('#')) open = { column: content, kind: 'map' };
      else if (BLOCK_SCALAR_HEADER.test(value)) blockScalarParent = content;
      else {
        inlineValueAt = content;
        scanFlow(line, start, flow);
      }
    } else if (BLOCK_SCALAR_HEADER.test(line.slice(content))) {
      blockScalarParent = markers.at(-1) ?? column;
    } else {
      scanFlow(line, content, flow);
    }
    if (flow.quote !== null || flow.depth > 0) flowFrom = lineNumber;
  }
  return {
    ...(finding === undefined ? {} : { finding }),
    ...(flowFrom === undefined ? {} : { unclosedFrom: flowFrom }),
  };
}
