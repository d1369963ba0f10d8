import {
  Composer,
  CST,
  type Document,
  isAlias,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  Parser,
  type Scalar,
  type YAMLError,
} from 'yaml';
import { Refusal, refuseAll } from '../refusal/index.js';
import { type PathSegment, pointerOf } from './pointer.js';
import { decodeUtf8Strict } from './utf8.js';
import { type IndentFinding, scanIndentation } from './yaml-indent.js';

/**
 * The one strict YAML reader (docs/refusals.md#text-inputs): YAML 1.2 core
 * schema, UTF-8 without a BOM, exactly one document, string keys only,
 * bounded depth; duplicate keys, anchors, aliases, explicit tags and
 * directives are refused. Every node keeps its line and column, so a caller
 * can say where a value is wrong. The parser's own messages quote the source
 * and are never passed on: a fault is one of `YamlFault`, which each domain
 * maps to its own reason code.
 */

export interface Position {
  /** 1-based. */
  readonly line: number;
  /** 1-based, in characters. */
  readonly column: number;
}

export type YamlNode =
  | { readonly kind: 'null'; readonly at: Position }
  | { readonly kind: 'boolean'; readonly value: boolean; readonly at: Position }
  | {
      readonly kind: 'number';
      readonly value: number;
      /** The number as written, for callers that refuse a literal a double does not hold exactly. */
      readonly source: string;
      readonly at: Position;
    }
  | {
      readonly kind: 'string';
      readonly value: string;
      readonly at: Position;
      /**
       * Where the value's characters stand in the file when they stand there
       * as they are — a literal block (`|`, `|-`, `|+`) or a plain scalar on
       * one line: the value's line k, column c is the file's line
       * `line + k - 1`, column `column + c - 1`. Absent when quotes, escapes,
       * folding or an explicit indentation change them.
       */
      readonly written?: Position;
    }
  | { readonly kind: 'seq'; readonly items: readonly YamlNode[]; readonly at: Position }
  | { readonly kind: 'map'; readonly entries: readonly YamlEntry[]; readonly at: Position };

export type YamlMapNode = Extract<YamlNode, { readonly kind: 'map' }>;

export interface YamlEntry {
  readonly key: string;
  /** Where the key is written: an unknown or misspelt key is reported here. */
  readonly keyAt: Position;
  readonly value: YamlNode;
}

export type YamlFault =
  | 'not_utf8'
  | 'malformed'
  | 'duplicate_key'
  | 'multiple_documents'
  | 'alias'
  | 'tag'
  | 'directive'
  | 'key_not_string'
  | 'too_deep';

/** Where a fault is, as far as it is known. */
export interface YamlFaultPlace {
  readonly line?: number;
  readonly column?: number;
  readonly pointer?: string;
  /** `duplicate_key`: the repeated key, and where it is first set in the same mapping. */
  readonly duplicate?: { readonly key: string; readonly first: Position };
  /** `malformed`: fixed advice for the kind of syntax error, never the parser's own words. */
  readonly advice?: string;
  /**
   * `tag`, `alias`: where the node's tag or anchor itself is written, when
   * `line` and `column` are those of the node's content.
   */
  readonly prop?: Position;
}

/**
 * Advice per syntax error of the YAML parser (its error codes), in fixed
 * words: the parser's messages quote the source and are never passed on.
 */
const SYNTAX_ADVICE: Readonly<Record<string, string>> = {
  TAB_AS_INDENT: 'a tab indents this line: YAML indents with spaces only',
  BAD_INDENT:
    'the indentation is off here: keys of one mapping start in the same column, and every line of a text block (after | or >) is indented at least as deep as its first line',
  MULTILINE_IMPLICIT_KEY:
    'a key runs over more than one line: a colon and a space are missing after a key above',
  MISSING_CHAR: 'a quote or bracket opened above is not closed before here',
  UNEXPECTED_TOKEN: 'a character YAML does not expect here: check the colon, quotes and brackets',
  BLOCK_AS_IMPLICIT_KEY: 'a key is missing its colon, or a value is indented like a key',
  BAD_SCALAR_START: 'a plain value cannot start with this character: quote the value',
};

/** The parser's errors for a key that runs over lines; any other first error has its own advice. */
const IMPLICIT_KEY_ERRORS: ReadonlySet<string> = new Set(['BLOCK_AS_IMPLICIT_KEY', 'MULTILINE_IMPLICIT_KEY']);

/** `MISSING_CHAR` when no quote or bracket is open above: the parser then means a line out of place. */
const NOTHING_OPEN_ADVICE =
  'a line here does not line up with the keys above it, or a key is missing its colon and a space';

const OVER_INDENTED_ADVICE =
  'this line is indented deeper than the key above it: line it up with that key (or quote a value that runs over lines)';

const INDENT_ADVICE: { readonly [K in IndentFinding['kind']]: string } = {
  out_of_line:
    'the indentation is off here: this line is out of line with its siblings above; start it in the column they start in',
  over_indented: OVER_INDENTED_ADVICE,
  first_line_indented:
    'the first line of the file is indented: keys at the top of the file start in column 1, like the ones below',
  item_among_keys:
    'a list item starts here in the column of the keys above it: indent it under its key, or line it up with the other items',
};

/**
 * Where a line indented too deep really is. The parser reads `name: order`
 * followed by a deeper `type: primary` as one key spanning both lines and
 * reports the start of `order`, a line early. When that multi-line key starts
 * after a `key: ` on its own line, the first line is fine and the next one is
 * the mistake: its first character is returned. A key that starts its line
 * (`name order` with the colon missing) is left to the parser's place.
 */
function overIndentedLine(
  text: string,
  errors: readonly { readonly code: string; readonly pos: readonly [number, number] }[],
): number | undefined {
  const multiline = errors.find((error) => error.code === 'MULTILINE_IMPLICIT_KEY');
  if (multiline === undefined) return undefined;
  const [start, end] = multiline.pos;
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  const before = text.slice(lineStart, start);
  if (!/^\s*(?:-\s+)*[^\s#][^#]*:\s+$/.test(before)) return undefined;
  const nextLine = text.indexOf('\n', start);
  if (nextLine === -1 || nextLine >= end) return undefined;
  const firstCharacter = text.slice(nextLine + 1, end).search(/\S/);
  return firstCharacter === -1 ? undefined : nextLine + 1 + firstCharacter;
}

export interface StrictYamlOptions {
  /** Nesting bound; a deeper document is refused with `too_deep`. */
  readonly maxDepth?: number;
  /** Builds the domain's refusal for a fault; the reader throws what it returns. */
  readonly refuse: (fault: YamlFault, place: YamlFaultPlace) => Refusal;
}

const DEFAULT_MAX_DEPTH = 64;

/**
 * Reads one strict YAML document. An empty document is a `null` node; whether
 * that is acceptable is the caller's decision.
 */
export function readStrictYaml(input: Uint8Array | string, options: StrictYamlOptions): YamlNode {
  let text: string;
  if (typeof input === 'string') {
    if (input.startsWith('\ufeff')) throw options.refuse('not_utf8', { line: 1, column: 1 });
    text = input;
  } else {
    const decoded = decodeUtf8Strict(input);
    if (!decoded.ok) throw options.refuse('not_utf8', { line: decoded.line, column: decoded.column });
    text = decoded.text;
  }
  const lines = new LineCounter();
  const position = (offset: number): Position => positionOf(text, lines, offset);
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  let documents: Document.Parsed[];
  let deep: ReturnType<typeof firstTooDeep>;
  let tokens: CST.Token[] = [];
  try {
    // Parsed to tokens first, nesting bounded on them, then composed: the
    // composer builds nodes recursively, so a document nested thousands deep
    // would exhaust the stack there and read as malformed.
    try {
      tokens = Array.from(new Parser(lines.addNewLine).parse(text));
    } catch (error: unknown) {
      // The parser itself recurses when it closes thousands of block levels
      // at once: that much nesting is far past any bound. Where the bound is
      // crossed is then read from the lines.
      if (!(error instanceof RangeError)) throw error;
      const crossing = crossingByLines(text, maxDepth);
      throw options.refuse('too_deep', crossing === undefined ? {} : position(crossing));
    }
    deep = firstTooDeep(tokens, maxDepth);
    const composer = new Composer({
      version: '1.2',
      schema: 'core',
      // Repeated keys are found while converting, where the key path and the
      // first occurrence are known (the parser's own check knows neither).
      uniqueKeys: false,
      merge: false,
      strict: true,
      intAsBigInt: false,
    });
    documents = Array.from(composer.compose(tokens));
  } catch (error: unknown) {
    if (error instanceof Refusal) throw error;
    throw options.refuse('malformed', {});
  }
  const second = documents.length > 1 ? (documents[1]?.range?.[0] ?? 0) : undefined;
  const firstProblem = documents[0]?.errors[0] ?? documents[0]?.warnings[0];
  // Too deep, unless the document is malformed (its nesting is then the
  // parser's guess, and the syntax error is what to fix) or a second
  // document comes first; the composer's own report of running out of
  // stack is the nesting itself.
  if (
    deep !== undefined &&
    (second === undefined || deep.offset < second) &&
    (firstProblem === undefined || firstProblem.code === 'RESOURCE_EXHAUSTION')
  ) {
    throw options.refuse('too_deep', {
      ...position(deep.offset),
      ...(deep.pointer === undefined ? {} : { pointer: deep.pointer }),
    });
  }
  if (second !== undefined) throw options.refuse('multiple_documents', position(second));
  const document = documents[0];
  if (document === undefined) return { kind: 'null', at: { line: 1, column: 1 } };
  const problem = reservedStart(document.errors) ?? document.errors[0] ?? document.warnings[0];
  if (problem !== undefined) {
    const place = position(problem.pos[0]);
    if (problem.code === 'TAG_RESOLVE_FAILED') throw options.refuse('tag', place);
    if (problem.code === 'BAD_ALIAS' || problem.code === 'ALIAS_PROPS') throw options.refuse('alias', place);
    if (problem.code === 'BAD_DIRECTIVE') throw options.refuse('directive', place);
    if (problem.code !== 'TAB_AS_INDENT') {
      // The parser places a key out of line with its siblings where its
      // recovery gives up — often a line early or as an unclosed quote — so
      // the block structure is read again (docs/refusals.md#text-inputs).
      const scan = scanIndentation(text);
      const quoteOpen = scan.unclosedFrom !== undefined && scan.unclosedFrom <= place.line;
      const finding = scan.finding;
      if (!quoteOpen && finding !== undefined && finding.line <= place.line + 1) {
        throw options.refuse('malformed', {
          ...position(finding.offset),
          advice: INDENT_ADVICE[finding.kind],
        });
      }
      if (!quoteOpen && problem.code === 'MISSING_CHAR') {
        throw options.refuse('malformed', { ...place, advice: NOTHING_OPEN_ADVICE });
      }
    }
    const overIndented = IMPLICIT_KEY_ERRORS.has(problem.code)
      ? overIndentedLine(text, document.errors)
      : undefined;
    if (overIndented !== undefined) {
      throw options.refuse('malformed', { ...position(overIndented), advice: OVER_INDENTED_ADVICE });
    }
    // Bad indentation inside an open bracket (`{a: [1, }`, or `[1, 2` with
    // the next key below it) is the bracket, not the columns.
    const unclosed = problem.code === 'BAD_INDENT' ? scanIndentation(text).unclosedFrom : undefined;
    const bracket = unclosed !== undefined && unclosed <= place.line;
    const advice = bracket
      ? `a quote or bracket opened on line ${unclosed} is not closed before here: close [ with ] and { with }`
      : SYNTAX_ADVICE[problem.code];
    // A line out of place is shown where its text starts, not in the
    // indentation before it.
    const at =
      problem.code === 'BAD_INDENT' && !bracket ? firstTextOfLine(text, problem.pos[0], position) : place;
    throw options.refuse('malformed', advice === undefined ? at : { ...at, advice });
  }
  if (document.directives?.docStart === true && document.directives.yaml.explicit) {
    throw options.refuse('directive', { line: 1, column: 1 });
  }
  const converter = new Converter(
    options,
    position,
    maxDepth,
    (node) => writtenAt(text, node, position),
    (kind) => propOffsets(tokens, kind),
  );
  if (document.contents === null) return { kind: 'null', at: position(document.range?.[0] ?? 0) };
  const root = converter.convert(document.contents, [], 1);
  // Every repeated key at once, in document order: each is fixed alone.
  if (converter.duplicates.length > 0) throw refuseAll(converter.duplicates);
  return root;
}

/** The first character of the line `offset` is on that is not a space, or `offset`'s own place. */
function firstTextOfLine(text: string, offset: number, position: (offset: number) => Position): Position {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  const lineEnd = text.indexOf('\n', lineStart);
  const line = text.slice(lineStart, lineEnd === -1 ? text.length : lineEnd);
  const first = line.search(/[^ ]/);
  return first === -1 || lineStart + first < offset ? position(offset) : position(lineStart + first);
}

/**
 * A value that starts with a reserved character (`` ` ``, `@`) where the
 * first fault is: the parser reads a pasted `` ```yaml `` line and the key
 * below it as one key running over two lines, but the backtick is what to
 * fix.
 */
function reservedStart(errors: readonly YAMLError[]): YAMLError | undefined {
  const first = errors[0];
  if (first === undefined) return undefined;
  return errors.find((error) => error.code === 'BAD_SCALAR_START' && error.pos[0] <= first.pos[0]);
}

/** A token on the nesting walk, with the way to it (a chain, not copied per level). */
interface Nested {
  readonly token: CST.Token;
  readonly depth: number;
  readonly parent: Nested | undefined;
  readonly segment: PathSegment | undefined;
}

/**
 * The first node, in document order, nested deeper than `maxDepth` (the
 * root is at depth 1, as the converter counts): its offset and, when every
 * key on the way is a scalar, its key path. Read from the parser's tokens
 * with a stack of our own: no recursion, whatever the nesting. Keys are not
 * counted; a key that is a collection is refused when converting.
 */
function firstTooDeep(
  tokens: readonly CST.Token[],
  maxDepth: number,
): { readonly offset: number; readonly pointer?: string } | undefined {
  const stack: Nested[] = [];
  for (const token of [...tokens].reverse()) {
    if (token.type === 'document' && token.value !== undefined)
      stack.push({ token: token.value, depth: 1, parent: undefined, segment: undefined });
  }
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { token, depth } = next;
    if (depth > maxDepth) {
      const pointer = pointerOfNested(next);
      return { offset: token.offset, ...(pointer === undefined ? {} : { pointer }) };
    }
    if (token.type !== 'block-map' && token.type !== 'block-seq' && token.type !== 'flow-collection')
      continue;
    const items: readonly { readonly key?: CST.Token | null; readonly value?: CST.Token | null }[] =
      token.items;
    for (let index = items.length - 1; index >= 0; index -= 1) {
      const item = items[index];
      const value = item?.value;
      if (value === undefined || value === null) continue;
      const key = item?.key;
      const segment =
        key === undefined || key === null ? (token.type === 'block-map' ? undefined : index) : keyText(key);
      stack.push({ token: value, depth: depth + 1, parent: next, segment });
    }
  }
  return undefined;
}

/** A key written as a scalar, as text; undefined for any other key. */
function keyText(key: CST.Token): string | undefined {
  if (key.type !== 'scalar' && key.type !== 'single-quoted-scalar' && key.type !== 'double-quoted-scalar')
    return undefined;
  // A key the parser could not read (`` ```yaml `` pasted on line 1) is
  // reported by the composer, at its place; here it only has no text.
  return CST.resolveAsScalar(key, true, () => undefined)?.value;
}

/** The key path of a nested token, when every step of it is known. */
function pointerOfNested(nested: Nested): string | undefined {
  const path: PathSegment[] = [];
  for (let at: Nested | undefined = nested; at?.parent !== undefined; at = at.parent) {
    if (at.segment === undefined) return undefined;
    path.unshift(at.segment);
  }
  return pointerOf(path);
}

/**
 * Where nesting first goes past `maxDepth`, read line by line from the
 * indentation, the `- ` of block sequences, keys and flow brackets: an
 * estimate, for a document the parser could not even tokenize (see its
 * caller); lines inside a block scalar are skipped.
 */
function crossingByLines(text: string, maxDepth: number): number | undefined {
  const open: number[] = [];
  let flow = 0;
  let scalarIndent: number | undefined;
  let start = 0;
  for (const line of text.split('\n')) {
    const lineStart = start;
    start += line.length + 1;
    const rest = line.trimStart();
    const indent = line.length - rest.length;
    if (scalarIndent !== undefined) {
      if (rest === '' || indent > scalarIndent) continue;
      scalarIndent = undefined;
    }
    if (rest === '' || rest.startsWith('#')) continue;
    if (flow === 0) while ((open.at(-1) ?? -1) >= indent) open.pop();
    let at = indent;
    const deeper = (column: number) => open.length + flow > maxDepth && lineStart + column;
    while (line.startsWith('- ', at) || line.slice(at) === '-') {
      open.push(at);
      const crossed = deeper(at);
      if (crossed !== false) return crossed;
      at += 1;
      while (line[at] === ' ') at += 1;
    }
    const key = /^[^\s#[\]{},'"][^#[\]{}]*?:(?=\s|$)/.exec(line.slice(at));
    if (key !== null && flow === 0) {
      open.push(at);
      const crossed = deeper(at);
      if (crossed !== false) return crossed;
      at += key[0].length;
    }
    const value = line.slice(at).trimStart();
    if (/^[|>]/.test(value)) scalarIndent = indent;
    for (let index = at; index < line.length; index += 1) {
      const character = line[index];
      if (character === '#' && (index === 0 || line[index - 1] === ' ')) break;
      if (character === '[' || character === '{') {
        flow += 1;
        const crossed = deeper(index);
        if (crossed !== false) return crossed;
      } else if ((character === ']' || character === '}') && flow > 0) flow -= 1;
    }
  }
  return undefined;
}

const LITERAL_HEADER = /^\|[+-]?[ \t]*(?:#.*)?$/;

/** See `written` on string nodes: the value's first character in the file, when the value is written as it is. */
function writtenAt(text: string, node: Scalar, position: (offset: number) => Position): Position | undefined {
  const [start, end] = node.range ?? [];
  if (start === undefined || end === undefined) return undefined;
  if (node.type === 'PLAIN') {
    return text.slice(start, end).includes('\n') ? undefined : position(start);
  }
  if (node.type !== 'BLOCK_LITERAL') return undefined;
  const headerEnd = text.indexOf('\n', start);
  // An explicit indentation digit sets the indentation from the parent's: not followed here.
  if (headerEnd === -1 || !LITERAL_HEADER.test(text.slice(start, headerEnd).trimEnd())) return undefined;
  const lineEnd = text.indexOf('\n', headerEnd + 1);
  const firstLine = text.slice(headerEnd + 1, lineEnd === -1 ? undefined : lineEnd);
  const indent = firstLine.length - firstLine.trimStart().length;
  // A block that opens with an empty line: its indentation is set further down.
  if (firstLine.trim() === '' || firstLine.slice(0, indent).includes('\t')) return undefined;
  return position(headerEnd + 1 + indent);
}

function positionOf(text: string, lines: LineCounter, offset: number): Position {
  const { line } = lines.linePos(offset);
  const lineNumber = Math.max(1, line);
  const start = lines.lineStarts[lineNumber - 1] ?? 0;
  return { line: lineNumber, column: [...text.slice(start, offset)].length + 1 };
}

type PropKind = 'tag' | 'anchor';

/**
 * The offsets of every tag or anchor token written in the document, in
 * order; read from the parser's tokens with a stack of our own (no
 * recursion), only when a node with one is refused.
 */
function propOffsets(tokens: readonly CST.Token[], kind: PropKind): number[] {
  const offsets: number[] = [];
  const stack: unknown[] = [...tokens];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    if (Array.isArray(next)) {
      stack.push(...next);
      continue;
    }
    if (typeof next !== 'object' || next === null) continue;
    const token = next as { readonly type?: unknown; readonly offset?: unknown };
    if (token.type === kind && typeof token.offset === 'number') offsets.push(token.offset);
    for (const value of Object.values(next))
      if (typeof value === 'object' && value !== null) stack.push(value);
  }
  return offsets.sort((a, b) => a - b);
}

class Converter {
  /** Repeated keys found so far: reported together, the first setting of each kept meanwhile. */
  readonly duplicates: Refusal[] = [];

  constructor(
    private readonly options: StrictYamlOptions,
    private readonly position: (offset: number) => Position,
    private readonly maxDepth: number,
    private readonly written: (node: Scalar) => Position | undefined,
    private readonly propsOf: (kind: PropKind) => readonly number[],
  ) {}

  private at(node: unknown): Position {
    const range = (node as { range?: readonly number[] | null }).range;
    return this.position(range?.[0] ?? 0);
  }

  /**
   * Where a node's tag or anchor is written: the node's range starts at its
   * content, and its properties come right before it, so it is the last one
   * of that kind at or before the content.
   */
  private propAt(kind: PropKind, node: unknown): { readonly prop?: Position } {
    const start = (node as { range?: readonly number[] | null }).range?.[0] ?? 0;
    const offset = this.propsOf(kind).findLast((one) => one <= start);
    return offset === undefined ? {} : { prop: this.position(offset) };
  }

  /** A fault that stops the reading, after the repeated keys found before it. */
  private fail(
    fault: YamlFault,
    node: unknown,
    path: readonly PathSegment[],
    extra: Partial<YamlFaultPlace> = {},
  ): Refusal {
    const pointer = pointerOf(path);
    const refusal = this.options.refuse(fault, {
      ...this.at(node),
      ...(pointer === '' ? {} : { pointer }),
      ...extra,
    });
    return this.duplicates.length === 0 ? refusal : refuseAll([...this.duplicates, refusal]);
  }

  convert(node: unknown, path: readonly PathSegment[], depth: number): YamlNode {
    if (depth > this.maxDepth) throw this.fail('too_deep', node, path);
    if (isAlias(node)) throw this.fail('alias', node, path);
    const props = node as Node;
    if (props.anchor !== undefined) throw this.fail('alias', node, path, this.propAt('anchor', node));
    if (props.tag !== undefined) throw this.fail('tag', node, path, this.propAt('tag', node));
    const at = this.at(node);
    if (isMap(node)) {
      const entries: YamlEntry[] = [];
      const seen = new Map<string, Position>();
      for (const pair of node.items) {
        const key = pair.key;
        if (isAlias(key)) throw this.fail('alias', key, path);
        if (!isScalar(key) || typeof key.value !== 'string')
          throw this.fail('key_not_string', key ?? node, path);
        if (key.anchor !== undefined) throw this.fail('alias', key, path, this.propAt('anchor', key));
        if (key.tag !== undefined) throw this.fail('tag', key, path, this.propAt('tag', key));
        const keyAt = this.at(key);
        const childPath = [...path, key.value];
        const first = seen.get(key.value);
        if (first !== undefined) {
          const pointer = pointerOf(childPath);
          this.duplicates.push(
            this.options.refuse('duplicate_key', { ...keyAt, pointer, duplicate: { key: key.value, first } }),
          );
          continue;
        }
        seen.set(key.value, keyAt);
        const value: YamlNode =
          pair.value === null || pair.value === undefined
            ? { kind: 'null', at: keyAt }
            : this.convert(pair.value, childPath, depth + 1);
        entries.push({ key: key.value, keyAt, value });
      }
      return { kind: 'map', entries, at };
    }
    if (isSeq(node)) {
      const items = node.items.map(
        (item, index): YamlNode =>
          item === null || item === undefined
            ? { kind: 'null', at }
            : this.convert(item, [...path, index], depth + 1),
      );
      return { kind: 'seq', items, at };
    }
    if (isScalar(node)) {
      const value: unknown = node.value;
      if (value === null) return { kind: 'null', at };
      if (typeof value === 'boolean') return { kind: 'boolean', value, at };
      if (typeof value === 'string') {
        const written = this.written(node);
        return written === undefined ? { kind: 'string', value, at } : { kind: 'string', value, at, written };
      }
      if (typeof value === 'number') {
        return {
          kind: 'number',
          value,
          source: typeof node.source === 'string' ? node.source : String(value),
          at,
        };
      }
    }
    throw this.fail('malformed', node, path);
  }
}

/** The plain value of a node (maps become null-prototype objects), for callers that check shape elsewhere. */
export type YamlPlain =
  | null
  | boolean
  | number
  | string
  | readonly YamlPlain[]
  | { readonly [key: string]: YamlPlain };

export function plainOf(node: YamlNode): YamlPlain {
  switch (node.kind) {
    case 'null':
      return null;
    case 'boolean':
    case 'number':
    case 'string':
      return node.value;
    case 'seq':
      return node.items.map(plainOf);
    case 'map': {
      const out: { [key: string]: YamlPlain } = Object.create(null);
      for (const entry of node.entries) out[entry.key] = plainOf(entry.value);
      return out;
    }
  }
}

/**
 * The advice for a `duplicate_key` fault, naming the first of the two
 * places: `'name' is first set on line 4; keep one of the two`.
 */
export function duplicateKeyHint(place: YamlFaultPlace): string | undefined {
  const duplicate = place.duplicate;
  if (duplicate === undefined) return undefined;
  const { first } = duplicate;
  const where =
    first.line === place.line ? `line ${first.line}, column ${first.column}` : `line ${first.line}`;
  return `'${duplicate.key}' is first set on ${where}; keep one of the two`;
}

/** The advice for any fault the place carries one for: a repeated key, or a kind of syntax error. */
export function faultPlaceHint(place: YamlFaultPlace): string | undefined {
  return duplicateKeyHint(place) ?? place.advice;
}

/** The entry for `key`, if the map has it. */
export function entryOf(map: YamlMapNode, key: string): YamlEntry | undefined {
  return map.entries.find((entry) => entry.key === key);
}

/** What a node is, in words a user reads: `a string`, `a list`, … */
export function describeKind(node: YamlNode): string {
  const names: { readonly [K in YamlNode['kind']]: string } = {
    null: 'an empty value',
    boolean: 'true or false',
    number: 'a number',
    string: 'a string',
    seq: 'a list',
    map: 'a mapping',
  };
  return names[node.kind];
}
