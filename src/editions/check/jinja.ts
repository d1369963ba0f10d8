import nunjucks from 'nunjucks';
import type { FindingCode } from './findings.js';
import { pyFloatRepr } from './test-names.js';
import type { YamlMapping, YamlValue } from './yaml.js';

/**
 * The render harness: dbt's Jinja rendered with nunjucks and stubs for the
 * parts of dbt's context the editions use. Nunjucks is not Jinja; the
 * editions keep to the subset both render alike (see docs/editions.md):
 * macros with positional arguments, if/for/set, filters such as join and
 * upper, `in`/`not in`, dict and list literals, and
 * `adapter.dispatch('name', 'project')(args)`. A project's own macros may
 * also use dbt's `return(...)`, `{% do %}` and `is none` (see ReturnSlot).
 *
 * Every failure is classified into a finding code; engine error text is
 * dropped, never reported.
 */
export interface RenderContext {
  readonly projectName: string;
  readonly target: string;
  /** --vars, highest precedence. */
  readonly cliVars: YamlMapping;
  /** `vars:` from dbt_project.yml; not visible while rendering dbt_project.yml itself. */
  readonly projectVars: YamlMapping;
  /** The environment env_var() reads. */
  readonly env: Readonly<Record<string, string>>;
}

/** Answers ref() and source() while rendering; returns undefined for a name the project lacks. */
export interface RelationResolver {
  /**
   * `ref(name)`, or `ref(name, v=…)` with the version as dbt writes it
   * (`str()` of the value): the relation, and the model it names (a
   * versioned model's `<name>.v<version>`, its latest when unpinned).
   */
  model(name: string, version?: string): ResolvedRef | undefined;
  source(source: string, table: string): string | undefined;
}

export interface ResolvedRef {
  readonly relation: string;
  /** The model: its name, or `<name>.v<version>` for a version of a versioned model. */
  readonly node: string;
}

export interface RenderRecord {
  readonly refs: readonly string[];
  readonly sources: readonly (readonly [string, string])[];
  readonly configs: readonly YamlMapping[];
}

export type RenderOutcome =
  | { readonly ok: true; readonly text: string; readonly record: RenderRecord }
  | {
      readonly ok: false;
      readonly code: FindingCode;
      readonly record: RenderRecord;
      /**
       * The name the failure is about, from the user's own template: a ref,
       * `source.table`, var, macro, printed variable or filter.
       */
      readonly subject?: string;
      /** undefined_ref: the version the ref() pinned (`v=` or `version=`), as dbt writes it. */
      readonly version?: string;
      /** Where in the template (1-based): as nunjucks reports it, or where the subject is written. */
      readonly line?: number;
      readonly column?: number;
      /** jinja_syntax at the end of the file: the block tag left open, or the delimiter never closed. */
      readonly unclosed?: Unclosed;
      /** jinja_syntax at a place: what is wrong there, in our words (see `syntaxFault`). */
      readonly syntax?: string;
      /** undefined_macro from adapter.dispatch: no implementation, or a namespace that is not this project. */
      readonly dispatch?: true;
      /** The namespace adapter.dispatch named, when that is not this project. */
      readonly namespace?: string;
      /** compiler_error: the message the project's own macro raised (one line, var values masked). */
      readonly raised?: string;
      /** The project macro the template called that failed inside, with its literal arguments. */
      readonly call?: MacroCall;
    };

/** A call of a project macro, as the template made it: its name and its short literal arguments. */
export interface MacroCall {
  readonly name: string;
  /** `'country', 'text'`; undefined when an argument is not a short string or number. */
  readonly args: string | undefined;
}

/** What is left open at the end of a template. */
export type Unclosed =
  | { readonly kind: 'block'; readonly tag: string; readonly line: number; readonly column: number }
  | { readonly kind: 'delimiter'; readonly open: string; readonly line: number; readonly column: number };

/** nunjucks' own way to collect a template's top-level macros (used by `{% import %}`); untyped upstream. */
interface ExportingTemplate {
  getExported(
    context: object,
    callback: (error: Error | null, macros: Record<string, unknown>) => void,
  ): void;
}

/** Raised by a stub; nunjucks rewraps errors, so the code travels through `failure` instead. */
class StubFailure extends Error {}

/**
 * dbt's `return(value)`: a macro that calls it evaluates to that value,
 * not to its text (docs/editions.md#jinja-the-subset-both-dbt-and-the-check-render).
 * Jinja stops the macro there; nunjucks cannot be stopped without leaving
 * its frames half-restored, so the first return() of a call is recorded
 * on the slot of the macro call it is in, and the macro's value is that
 * value once the call ends; what the macro prints after it is dropped, and
 * a compiler error it raises after it is not raised.
 */
interface ReturnSlot {
  returned: boolean;
  value: unknown;
}
const returnSlots: ReturnSlot[] = [];

type MacroBody = (this: unknown, ...args: unknown[]) => unknown;
type MakeMacro = (argNames: unknown, kwargNames: unknown, body: MacroBody) => unknown;

/**
 * Wraps every nunjucks macro body in a return slot, once per process.
 * Sound: nunjucks' runtime has makeMacro at run time (its compiled
 * templates call it), but its type declarations leave it out. A macro
 * that never calls return() keeps its value unchanged, so no other
 * template rendered in the process sees a difference.
 */
function installMacroReturn(): void {
  const runtime = nunjucks.runtime as unknown as { makeMacro: MakeMacro; __sealkitReturn?: true };
  if (runtime.__sealkitReturn === true) return;
  const make = runtime.makeMacro;
  runtime.makeMacro = (argNames, kwargNames, body) =>
    make(argNames, kwargNames, function (this: unknown, ...args: unknown[]): unknown {
      const slot: ReturnSlot = { returned: false, value: undefined };
      returnSlots.push(slot);
      try {
        const printed = body.apply(this, args);
        return slot.returned ? slot.value : printed;
      } finally {
        returnSlots.pop();
      }
    });
  runtime.__sealkitReturn = true;
}
installMacroReturn();

/**
 * nunjucks' own Jinja compatibility, once per process: the Python methods
 * dbt macros call on lists and dicts (`{% do cols.append(c) %}`,
 * `.items()`, `.keys()`, `.get()`, `.update()`), `True`/`False`/`None`,
 * and slices (`cols[1:]`). Without it `{% do %}` could only return(), and
 * `out.append` read as a macro of a package named `out`
 * (docs/editions.md#jinja-the-subset-both-dbt-and-the-check-render).
 */
nunjucks.installJinjaCompat();

/** The innermost macro call has returned: Jinja would run nothing more of it. */
function returned(): boolean {
  return returnSlots.at(-1)?.returned === true;
}

/**
 * `{% do expression %}`: evaluates the expression for its effect and prints
 * nothing, as Jinja's `do` extension (which dbt enables) does; dbt macros
 * write `{% do return(value) %}`.
 */
const DO_TAG: nunjucks.Extension & { run: () => string } = {
  tags: ['do'],
  // The parser API is nunjucks' own (untyped in its declarations).
  parse(
    parser: {
      nextToken(): { value: string; lineno: number; colno: number };
      parseExpression(): unknown;
      advanceAfterBlockEnd(name: string): void;
    },
    nodes: {
      NodeList: new (lineno: number, colno: number, children: unknown[]) => unknown;
      CallExtension: new (ext: unknown, prop: string, args: unknown) => unknown;
    },
  ): unknown {
    const token = parser.nextToken();
    const expression = parser.parseExpression();
    parser.advanceAfterBlockEnd(token.value);
    return new nodes.CallExtension(
      DO_TAG,
      'run',
      new nodes.NodeList(token.lineno, token.colno, [expression]),
    );
  },
  run: (): string => '',
};

interface MacroFile {
  readonly path: string;
  readonly text: string;
}

export interface MacroProblem {
  readonly path: string;
  readonly code: FindingCode;
  readonly line?: number;
  readonly column?: number;
  /** duplicate_macro: the macro name that is defined twice. */
  readonly subject?: string;
  /** duplicate_macro: where the macro is defined first. */
  readonly other?: MacroPlace;
  /** jinja_syntax at the end of the file: what is left open. */
  readonly unclosed?: Unclosed;
  /** jinja_syntax at a place: what is wrong there (see `syntaxFault`). */
  readonly syntax?: string;
}

/**
 * Line and column of a nunjucks compile error. nunjucks rewraps the error and
 * keeps the position only in its message, as `[Line 2, Column 10]` (1-based);
 * only those two numbers are read, never the rest of the message, which
 * quotes the template. An error at the end of the file has no position.
 */
function compilePlace(error: unknown, template?: string): { line?: number; column?: number } {
  const message = error instanceof Error ? error.message : '';
  // A runtime error names the template it was raised in: a place in another (the macros) is not this file's.
  if (template !== undefined && !message.startsWith(`(${template})`)) return {};
  const match = /\[Line ([0-9]{1,9}), Column ([0-9]{1,9})\]/.exec(message);
  if (match === null) return {};
  const line = Number(match[1]);
  const column = Number(match[2]);
  if (line < 1) return {};
  return column >= 1 ? { line, column } : { line };
}

/**
 * A template that does not compile, at its place and in our words: what
 * nunjucks says there (`unknown block tag: endif`, `expected variable
 * end`) said as a dbt user reads it, never nunjucks' own text. A `{{` or
 * `{%` left open is reported where nunjucks gives up (the next line, or
 * later), so it is placed at the opening itself, the last one before that
 * place that is not closed before it.
 */
export function syntaxFault(
  error: unknown,
  text: string,
): { line?: number; column?: number; syntax?: string } {
  const place = compilePlace(error);
  if (place.line === undefined) return place;
  const message = error instanceof Error ? error.message : '';
  const tag = /unknown block tag: ([A-Za-z_][A-Za-z0-9_]*)/.exec(message)?.[1];
  if (tag !== undefined) {
    const opener = tag.startsWith('end') ? tag.slice(3) : undefined;
    return {
      ...place,
      syntax:
        opener !== undefined && BLOCK_ENDS.get(opener) === tag
          ? `this {% ${tag} %} closes no open {% ${opener} %}: remove it, or add the {% ${opener} … %} it ends before it`
          : `'${tag}' is not a tag dbt's Jinja knows here (a misspelt or misplaced block tag)`,
    };
  }
  if (/expected comma after expression/.test(message))
    return {
      ...place,
      syntax: "a call's arguments are not closed here: a ')' (or a ',' between two arguments) is missing",
    };
  for (const [expected, open, close] of [
    ['expected variable end', '{{', '}}'],
    ['expected block end', '{%', '%}'],
  ] as const) {
    if (!message.includes(expected)) continue;
    // Closed further on (`{{ ref('x') as o }}`): what stands here is the fault, not the delimiter.
    if (closedAfter(text, place, open, close))
      return {
        ...place,
        syntax: `Jinja expected ${close} here: a ${open} … ${close} holds one ${open === '{{' ? 'expression' : 'tag'}, and what follows it here is not part of it`,
      };
    const opening = openingBefore(text, place, open, close);
    return {
      ...(opening ?? place),
      syntax: `this ${open} is not closed: end it with ${close}${opening === undefined ? '' : ' (Jinja reads on until it finds something else)'}`,
    };
  }
  const token = /unexpected token: (\S+)/.exec(message)?.[1];
  if (token !== undefined)
    return {
      ...place,
      syntax: `the expression is not complete before '${token}': a value or a name is missing`,
    };
  return place;
}

/** The offset in `text` of a 1-based line and column (in UTF-16 units, as nunjucks counts). */
function offsetOf(text: string, line: number, column: number | undefined): number {
  const lines = text.split('\n');
  return lines.slice(0, line - 1).join('\n').length + (line > 1 ? 1 : 0) + (column ?? 1) - 1;
}

/** Whether a `close` follows `place` before any further `open`: the delimiter around it is closed. */
function closedAfter(
  text: string,
  place: { line?: number; column?: number },
  open: string,
  close: string,
): boolean {
  if (place.line === undefined) return false;
  const after = text.slice(offsetOf(text, place.line, place.column));
  const closing = after.indexOf(close);
  const opening = after.indexOf(open);
  return closing !== -1 && (opening === -1 || closing < opening);
}

/** The last `open` before `place` with no `close` after it up to `place`: where a delimiter was left open. */
function openingBefore(
  text: string,
  place: { line?: number; column?: number },
  open: string,
  close: string,
): { line: number; column: number } | undefined {
  if (place.line === undefined) return undefined;
  const before = text.slice(0, offsetOf(text, place.line, place.column));
  const at = before.lastIndexOf(open);
  if (at === -1 || before.indexOf(close, at) !== -1) return undefined;
  return lineColumn(text, at);
}

/** Where a macro is defined: its file (project-relative) and the line and column of its `{% macro`. */
export interface MacroPlace {
  readonly path: string;
  readonly line: number;
  readonly column: number;
}

function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  return {
    line: before.split('\n').length,
    column: [...before.slice(before.lastIndexOf('\n') + 1)].length + 1,
  };
}

const MACRO_NAME = /\{%-?\s*macro\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(/g;

/** Block tags and the tag that closes each (a `set` closes only when it has no `=`). */
const BLOCK_ENDS: ReadonlyMap<string, string> = new Map([
  ['if', 'endif'],
  ['for', 'endfor'],
  ['macro', 'endmacro'],
  ['call', 'endcall'],
  ['filter', 'endfilter'],
  ['block', 'endblock'],
  ['set', 'endset'],
]);

const CLOSERS: Readonly<Record<string, string>> = { '{{': '}}', '{%': '%}', '{#': '#}' };

/**
 * What a template leaves open at its end, read from its tags (nunjucks names
 * no line then): a `{{`, `{%` or `{#` never closed, else the innermost
 * block tag without its end tag. Undefined when neither is found.
 */
export function unclosedIn(text: string): Unclosed | undefined {
  const open: { tag: string; line: number; column: number }[] = [];
  const place = (offset: number): { line: number; column: number } => {
    const before = text.slice(0, offset);
    return {
      line: before.split('\n').length,
      column: [...before.slice(before.lastIndexOf('\n') + 1)].length + 1,
    };
  };
  let at = 0;
  for (;;) {
    const start = text.slice(at).search(/\{[{%#]/);
    if (start < 0) break;
    const offset = at + start;
    const opener = text.slice(offset, offset + 2);
    const closer = CLOSERS[opener] ?? '}}';
    const end = text.indexOf(closer, offset + 2);
    if (end < 0) return { kind: 'delimiter', open: opener, ...place(offset) };
    at = end + 2;
    if (opener !== '{%') continue;
    const body = text
      .slice(offset + 2, end)
      .replace(/^-/, '')
      .replace(/-$/, '')
      .trim();
    const tag = /^[A-Za-z_]+/.exec(body)?.[0] ?? '';
    if (tag === 'raw') {
      const close = /\{%-?\s*endraw\s*-?%\}/.exec(text.slice(at));
      if (close === null) return { kind: 'block', tag, ...place(offset) };
      at += close.index + close[0].length;
      continue;
    }
    if (BLOCK_ENDS.has(tag) && !(tag === 'set' && body.includes('='))) open.push({ tag, ...place(offset) });
    else if (tag.startsWith('end')) {
      const index = open.map((entry) => BLOCK_ENDS.get(entry.tag)).lastIndexOf(tag);
      if (index >= 0) open.splice(index);
    }
  }
  const last = open[open.length - 1];
  return last === undefined ? undefined : { kind: 'block', ...last };
}

/** A short literal argument as the template wrote it, or undefined. */
function literal(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'string' && value.length <= 40 && /^[\x20-\x7e]*$/.test(value) && !value.includes("'"))
    return `'${value}'`;
  return undefined;
}

/** A macro argument as SQL text: what dbt pastes into the SQL it renders. */
function sqlText(value: unknown): string {
  return value === undefined || value === null ? '' : String(value);
}

/**
 * dbt's cross-database macros (`{{ dbt.date_trunc('month', 'ordered_at') }}`),
 * as DuckDB renders them (dbt-duckdb's or dbt's default implementation):
 * the SQL the check parses and builds. Only the `dbt.` namespace: a
 * project macro of the same name stays the project's own
 * (docs/editions.md#dbts-cross-database-macros).
 */
type CrossDatabaseMacro = readonly [readonly string[], (...sql: string[]) => string];

const CROSS_DATABASE_SQL: Readonly<Record<string, CrossDatabaseMacro>> = {
  type_string: [[], () => 'varchar'],
  type_int: [[], () => 'integer'],
  type_bigint: [[], () => 'bigint'],
  type_float: [[], () => 'float'],
  type_numeric: [[], () => 'numeric(28,6)'],
  type_timestamp: [[], () => 'timestamp'],
  type_boolean: [[], () => 'boolean'],
  current_timestamp: [[], () => 'now()'],
  date_trunc: [['datepart', 'date'], (part, date) => `date_trunc('${part}', ${date})`],
  dateadd: [
    ['datepart', 'interval', 'from_date_or_timestamp'],
    (part, interval, from) => `date_add(${from}, interval (${interval}) ${part})`,
  ],
  datediff: [
    ['first_date', 'second_date', 'datepart'],
    (first, second, part) => `date_diff('${part}', ${first}::timestamp, ${second}::timestamp)`,
  ],
  safe_cast: [['field', 'type'], (field, type) => `try_cast(${field} as ${type})`],
  cast: [['field', 'type'], (field, type) => `cast(${field} as ${type})`],
  concat: [['fields'], (fields) => fields],
  hash: [['field'], (field) => `md5(cast(${field} as varchar))`],
  split_part: [
    ['string_text', 'delimiter_text', 'part_number'],
    (text, delimiter, part) => `split_part(${text}, ${delimiter}, ${part})`,
  ],
  string_literal: [['value'], (value) => `'${value}'`],
  escape_single_quotes: [['expression'], (value) => value.replaceAll("'", "''")],
  any_value: [['expression'], (expression) => `any_value(${expression})`],
  bool_or: [['expression'], (expression) => `bool_or(${expression})`],
  cast_bool_to_text: [['field'], (field) => `cast(${field} as varchar)`],
  replace: [
    ['field', 'old_chars', 'new_chars'],
    (field, old, replacement) => `replace(${field}, ${old}, ${replacement})`,
  ],
  length: [['expression'], (expression) => `length(${expression})`],
  position: [['substring_text', 'string_text'], (sub, text) => `position(${sub} in ${text})`],
  right: [['string_text', 'length_expression'], (text, length) => `right(${text}, ${length})`],
  // dbt's listagg(measure, delimiter_text="','", order_by_clause=none, limit_num=none): the
  // order and the limit change the value, so they are rendered, as dbt-duckdb renders them.
  listagg: [
    ['measure', 'delimiter_text', 'order_by_clause', 'limit_num'],
    (measure, delimiter, orderBy, limit) => {
      const separator = delimiter === '' ? "','" : delimiter;
      const ordered = orderBy === '' ? '' : ` ${orderBy}`;
      return limit === ''
        ? `string_agg(${measure}, ${separator}${ordered})`
        : `array_to_string((array_agg(${measure}${ordered}))[1:${limit}], ${separator})`;
    },
  ],
};

const DBT_CROSS_DATABASE: Readonly<Record<string, (...args: unknown[]) => string>> = Object.fromEntries(
  Object.entries(CROSS_DATABASE_SQL).map(([name, [params, render]]) => [
    name,
    (...args: unknown[]) => render(...crossDatabaseArgs(params, args)),
  ]),
);

/** A cross-database macro's arguments by position, or by dbt's keyword names; a list (concat's fields) joined with ||. */
function crossDatabaseArgs(params: readonly string[], args: readonly unknown[]): string[] {
  const keywords = args.find(isKeywords) as Record<string, unknown> | undefined;
  const positional = args.filter((arg) => !isKeywords(arg));
  return params.map((param, index) => {
    const value = index < positional.length ? positional[index] : keywords?.[param];
    return Array.isArray(value) ? value.map(sqlText).join(' || ') : sqlText(value);
  });
}

/** One line of a message the project raised, at most 200 characters. */
function oneLineOf(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

export class JinjaHarness {
  readonly #env: nunjucks.Environment;
  readonly #context: RenderContext;
  readonly #macros: nunjucks.Template | undefined;
  readonly macroProblems: readonly MacroProblem[];
  readonly #secrets = new Set<string>();
  readonly #macroNames: string[] = [];
  readonly #macroFiles: MacroFile[] = [];

  /**
   * Every text value handed out by var() and env_var() so far: they may end
   * up in rendered SQL and so in DuckDB's messages, which are shown only
   * with these values masked (docs/editions.md#reading-an-error).
   */
  get secrets(): readonly string[] {
    return [...this.#secrets];
  }

  #reveal(value: unknown): unknown {
    // Shorter values are not worth masking and would garble the message.
    if (typeof value === 'string' && value.length >= 3) this.#secrets.add(value);
    return value;
  }

  constructor(macroFiles: readonly MacroFile[], context: RenderContext) {
    this.#env = new nunjucks.Environment(null, { autoescape: false, throwOnUndefined: true });
    this.#env.addExtension('do', DO_TAG);
    // Jinja's `is none` (dbt's own generate_schema_name uses it); nunjucks names it `null`.
    (this.#env as unknown as { addTest(name: string, test: (value: unknown) => boolean): void }).addTest(
      'none',
      (value) => value === null || value === undefined,
    );
    this.#context = context;
    const problems: MacroProblem[] = [];
    const usable: MacroFile[] = [];
    const owners = new Map<string, MacroPlace>();
    for (const file of macroFiles) {
      const failed = this.#compileError(file.text);
      if (failed !== undefined) {
        problems.push({ path: file.path, code: 'jinja_syntax', ...failed });
        continue;
      }
      let duplicate: MacroProblem | undefined;
      const here = new Map<string, MacroPlace>();
      for (const match of file.text.matchAll(MACRO_NAME)) {
        const name = match[1] ?? '';
        const at = { path: file.path, ...lineColumn(file.text, match.index) };
        const first = owners.get(name) ?? here.get(name);
        if (first !== undefined)
          duplicate ??= {
            path: file.path,
            code: 'duplicate_macro',
            subject: name,
            line: at.line,
            column: at.column,
            other: first,
          };
        else here.set(name, at);
      }
      if (duplicate !== undefined) problems.push(duplicate);
      else {
        for (const [name, at] of here) {
          owners.set(name, at);
          this.#macroNames.push(name);
        }
        usable.push(file);
      }
    }
    this.macroProblems = problems;
    this.#macroFiles = usable;
    const joined = usable.map((file) => file.text).join('\n');
    this.#macros = joined.length === 0 ? undefined : new nunjucks.Template(joined, this.#env, 'macros', true);
  }

  #compileError(
    text: string,
  ): { line?: number; column?: number; unclosed?: Unclosed; syntax?: string } | undefined {
    try {
      new nunjucks.Template(text, this.#env, 'template', true);
      return undefined;
    } catch (error: unknown) {
      const place = syntaxFault(error, text);
      const unclosed = place.line === undefined ? unclosedIn(text) : undefined;
      return unclosed === undefined ? place : { ...place, unclosed };
    }
  }

  /** The names of the project's macros (to suggest one instead of a misspelt call). */
  get macroNames(): readonly string[] {
    return this.#macroNames;
  }

  /** Where a macro file calls `adapter.dispatch('name', 'namespace')`: its path and line. */
  dispatchPlace(
    name: string,
    namespace: string,
  ): { readonly path: string; readonly line: number } | undefined {
    const quoted = (value: string): string => `['"]${value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}['"]`;
    const pattern = new RegExp(`adapter\\.dispatch\\(\\s*${quoted(name)}\\s*,\\s*${quoted(namespace)}`);
    for (const file of this.#macroFiles) {
      const match = pattern.exec(file.text);
      if (match !== null)
        return { path: file.path, line: file.text.slice(0, match.index).split('\n').length };
    }
    return undefined;
  }

  /** The names nunjucks knows as filters (to suggest one instead of a misspelt filter). */
  get filterNames(): readonly string[] {
    return Object.keys((this.#env as unknown as { filters: Record<string, unknown> }).filters);
  }

  /** Text with every var()/env_var() value handed out so far shown as `…`, longest first. */
  #masked(text: string): string {
    let out = text;
    for (const secret of [...this.#secrets].sort((a, b) => b.length - a.length))
      out = out.replaceAll(secret, '…');
    return out;
  }

  /**
   * Renders a template. `withMacros` makes the project's macros callable;
   * `withProjectVars` is false only for dbt_project.yml, as in dbt.
   */
  render(
    text: string,
    resolver: RelationResolver,
    options: { readonly withMacros: boolean; readonly withProjectVars: boolean; readonly self?: string },
  ): RenderOutcome {
    const refs: string[] = [];
    const sources: (readonly [string, string])[] = [];
    const configs: YamlMapping[] = [];
    const record: RenderRecord = { refs, sources, configs };
    let failure: FindingCode | undefined;
    let subject: string | undefined;
    let namespace: string | undefined;
    let dispatch = false;
    let raised: string | undefined;
    let refVersion: string | undefined;
    // The project macros the template is inside, outermost first; the one it called when a failure happened.
    const calling: MacroCall[] = [];
    let failedCall: MacroCall | undefined;
    const fail = (
      code: FindingCode,
      about?: unknown,
      more: { namespace?: string; raised?: string; dispatch?: boolean } = {},
    ): never => {
      if (failure === undefined) {
        failure = code;
        if (typeof about === 'string') subject = about;
        namespace = more.namespace;
        dispatch = more.dispatch === true;
        raised = more.raised;
        failedCall = calling[0];
      }
      throw new StubFailure(code);
    };
    const { projectName, target, cliVars, projectVars, env } = this.#context;
    let exported: Record<string, unknown> = {};

    const context: Record<string, unknown> = {
      target: { name: target, type: 'duckdb', schema: 'main', database: 'memory', profile_name: projectName },
      project_name: projectName,
      this: options.self ?? '',
      ref: (...args: unknown[]): string => {
        const positional = args.filter((arg) => !isKeywords(arg));
        const [first, second] = positional;
        const name = positional.length === 2 ? second : first;
        if (positional.length === 2 && first !== projectName) fail('undefined_ref', name);
        if (typeof name !== 'string' || positional.length > 2) return fail('undefined_ref');
        const version = refVersionOf(args.find(isKeywords));
        const resolved = resolver.model(name, version);
        if (resolved === undefined) {
          if (failure === undefined) refVersion = version;
          return fail('undefined_ref', name);
        }
        refs.push(resolved.node);
        return resolved.relation;
      },
      source: (source: unknown, table: unknown): string => {
        if (typeof source !== 'string' || typeof table !== 'string') return fail('undefined_source');
        const relation = resolver.source(source, table);
        if (relation === undefined) return fail('undefined_source', `${source}.${table}`);
        sources.push([source, table]);
        return relation;
      },
      config: (...args: unknown[]): string => {
        for (const arg of args) {
          const value = toYaml(arg);
          if (value !== undefined && typeof value === 'object' && value !== null && !Array.isArray(value))
            configs.push(value as YamlMapping);
        }
        return '';
      },
      var: (...args: unknown[]): unknown => {
        const name = args[0];
        if (typeof name !== 'string') return fail('undefined_var');
        if (Object.hasOwn(cliVars, name)) return this.#reveal(cliVars[name]);
        if (options.withProjectVars && Object.hasOwn(projectVars, name))
          return this.#reveal(projectVars[name]);
        if (args.length >= 2 && !isKeywords(args[1])) return args[1];
        return fail('undefined_var', name);
      },
      env_var: (...args: unknown[]): unknown => {
        const name = args[0];
        if (typeof name !== 'string') return fail('undefined_env_var');
        if (Object.hasOwn(env, name)) return this.#reveal(env[name]);
        if (args.length >= 2 && !isKeywords(args[1])) return args[1];
        return fail('undefined_env_var');
      },
      is_incremental: (): boolean => false,
      // As `dbt parse` renders: nothing runs against the warehouse, so
      // `{% if execute %}` is false and run_query() answers nothing.
      execute: false,
      run_query: (): null => null,
      // dbt's return(): the macro call it is in evaluates to the value (see ReturnSlot).
      return: (value?: unknown): string => {
        const slot = returnSlots.at(-1);
        if (slot !== undefined && !slot.returned) {
          slot.returned = true;
          slot.value = value ?? null;
        }
        return '';
      },
      log: (): string => '',
      exceptions: {
        // The message is the project's own text: shown, with var()/env_var() values masked.
        raise_compiler_error: (message?: unknown): string =>
          // After return() Jinja runs nothing more of the macro (see ReturnSlot).
          returned()
            ? ''
            : fail(
                'compiler_error',
                undefined,
                typeof message === 'string' && message.trim() !== ''
                  ? { raised: oneLineOf(this.#masked(message)) }
                  : {},
              ),
        warn: (): string => '',
      },
      // dbt's own macros are global too (`{{ date_trunc('month', 'd') }}`); a project macro of the name wins, as in dbt.
      ...Object.fromEntries(
        Object.entries(DBT_CROSS_DATABASE).filter(([name]) => !this.#macroNames.includes(name)),
      ),
      dbt: DBT_CROSS_DATABASE,
      adapter: {
        dispatch: (name: unknown, namespace?: unknown): unknown => {
          if (typeof name !== 'string') return fail('undefined_macro');
          // As dbt without a `dispatch:` config: a namespace is searched alone, and only this project's is here.
          if (namespace !== undefined && namespace !== null && namespace !== projectName)
            return fail('undefined_macro', name, { namespace: String(namespace), dispatch: true });
          const macro = exported[`duckdb__${name}`] ?? exported[`default__${name}`];
          if (typeof macro !== 'function') return fail('undefined_macro', name, { dispatch: true });
          return macro;
        },
      },
    };

    try {
      if (options.withMacros && this.#macros !== undefined) {
        // Sound: nunjucks' Template has getExported at run time, but its type
        // declarations leave it out; ExportingTemplate names just that method.
        (this.#macros as unknown as ExportingTemplate).getExported(context, (error, macros) => {
          if (error !== null) throw error;
          exported = macros;
        });
      }
      let template: nunjucks.Template;
      try {
        template = new nunjucks.Template(text, this.#env, 'template', true);
      } catch (error: unknown) {
        const place = syntaxFault(error, text);
        const unclosed = place.line === undefined ? unclosedIn(text) : undefined;
        return {
          ok: false,
          code: 'jinja_syntax',
          record,
          ...place,
          ...(unclosed === undefined ? {} : { unclosed }),
        };
      }
      // Each project macro the template calls is watched, so a failure inside one names the call.
      const watched: Record<string, unknown> = {};
      for (const [name, macro] of Object.entries(exported)) {
        if (typeof macro !== 'function') continue;
        watched[name] = function (this: unknown, ...args: unknown[]): unknown {
          const shown = args.filter((arg) => !isKeywords(arg)).map(literal);
          const call: MacroCall = {
            name,
            args: shown.every((arg) => arg !== undefined) ? shown.join(', ') : undefined,
          };
          calling.push(call);
          try {
            return (macro as (...inner: unknown[]) => unknown).apply(this, args);
          } catch (error: unknown) {
            failedCall = call;
            throw error;
          } finally {
            calling.pop();
          }
        };
      }
      // dbt also reaches a project macro through the project's name (`{{ my_project.cents(…) }}`).
      const namespaced =
        options.withMacros && !Object.hasOwn(context, projectName) ? { [projectName]: watched } : {};
      const rendered = template.render({ ...watched, ...namespaced, ...context });
      return { ok: true, text: rendered, record };
    } catch (error: unknown) {
      const code = failure ?? classify(error);
      const found = failure === undefined ? engineSubject(error, code, text) : {};
      const named = subject ?? found.subject;
      return {
        ok: false,
        code,
        record,
        ...(named === undefined ? {} : { subject: named }),
        ...(code === 'undefined_ref' && refVersion !== undefined ? { version: refVersion } : {}),
        ...(found.line === undefined ? {} : { line: found.line }),
        ...(found.column === undefined ? {} : { column: found.column }),
        ...(namespace === undefined ? {} : { namespace }),
        ...(dispatch ? { dispatch: true as const } : {}),
        ...(raised === undefined ? {} : { raised }),
        ...(failedCall === undefined ? {} : { call: failedCall }),
      };
    }
  }
}

/**
 * The name a nunjucks failure is about, read from its message only where
 * the message names it as an identifier (a call, a filter), or from the
 * template at the place it names (a printed variable); never other text.
 */
function engineSubject(
  error: unknown,
  code: FindingCode,
  text: string,
): { subject?: string; line?: number; column?: number } {
  const message = error instanceof Error ? error.message : '';
  if (code === 'undefined_macro') {
    // nunjucks writes a dotted call `dbt_utils.star(…)` as `dbt_utils["star"]`: named with its dots.
    const called = /Unable to call `([A-Za-z_][A-Za-z0-9_]*((?:\["[A-Za-z_][A-Za-z0-9_]*"\])*))`/.exec(
      message,
    );
    const name = called?.[1]?.replace(/\["([A-Za-z0-9_]+)"\]/g, '.$1');
    return name === undefined ? {} : { subject: name };
  }
  if (code === 'undefined_filter') {
    const name = /filter not found: ([A-Za-z_][A-Za-z0-9_]*)/.exec(message)?.[1];
    return name === undefined ? {} : { subject: name };
  }
  if (code === 'undefined_variable') {
    const place = compilePlace(error);
    if (place.line === undefined || place.column === undefined) return {};
    const line = text.split('\n')[place.line - 1] ?? '';
    const from = [...line].slice(place.column - 1).join('');
    const name = /^\{\{-?\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)/.exec(from)?.[1];
    // Only a place that is a `{{ name` of this template is named; anything else (a macro's) is not.
    return name === undefined ? {} : { subject: name, line: place.line, column: place.column };
  }
  return {};
}

function classify(error: unknown): FindingCode {
  const message = error instanceof Error ? error.message : '';
  if (message.includes('Unable to call')) return 'undefined_macro';
  if (message.includes('filter not found')) return 'undefined_filter';
  if (message.includes('attempted to output null or undefined value')) return 'undefined_variable';
  if (
    message.includes('Cannot read properties of undefined') ||
    message.includes('Cannot read properties of null')
  )
    return 'undefined_variable';
  return 'render_error';
}

/**
 * The version a ref() pins, as dbt reads its keywords (`version`, else `v`)
 * and writes it into the name it looks up (`<name>.v<version>`): a number
 * as Python prints it, text as it is. A value Python holds false (0, '')
 * pins nothing, so the ref is to the latest version, as in dbt.
 */
function refVersionOf(keywords: unknown): string | undefined {
  if (typeof keywords !== 'object' || keywords === null) return undefined;
  const given = keywords as { readonly version?: unknown; readonly v?: unknown };
  const value = given.version || given.v;
  if (typeof value === 'string') return value === '' ? undefined : value;
  if (typeof value === 'number' && value !== 0)
    return Number.isInteger(value) ? String(value) : pyFloatRepr(value);
  return undefined;
}

function isKeywords(value: unknown): boolean {
  return (
    typeof value === 'object' && value !== null && (value as { __keywords?: unknown }).__keywords === true
  );
}

/** Values handed to config() become plain YAML-shaped data; anything else is dropped. */
function toYaml(value: unknown): YamlValue | undefined {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (Array.isArray(value)) {
    const items = value.map(toYaml);
    return items.every((item) => item !== undefined) ? (items as YamlValue[]) : undefined;
  }
  if (typeof value === 'object') {
    const out: { [key: string]: YamlValue } = {};
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
      if (key === '__keywords') continue;
      const converted = toYaml(item);
      if (converted !== undefined) Object.defineProperty(out, key, { value: converted, enumerable: true });
    }
    return out;
  }
  return undefined;
}

/** dbt renders `True`/`False` (Python); nunjucks `true`/`false`: both read as booleans. */
export function renderedBoolean(
  value: YamlValue | undefined,
  render: (text: string) => RenderOutcome,
): boolean | FindingCode | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'boolean') return value;
  if (typeof value !== 'string') return 'config_not_boolean';
  const outcome = render(value);
  if (!outcome.ok) return outcome.code;
  const text = outcome.text.trim().toLowerCase();
  if (text === 'true') return true;
  if (text === 'false') return false;
  return 'config_not_boolean';
}
