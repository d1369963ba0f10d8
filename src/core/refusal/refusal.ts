/**
 * One refusal type for every domain. A refusal carries a stable lowercase code,
 * a category, the artifact role it concerns and an allowlisted field path; its
 * message is fixed text looked up from the code, so nothing a caller supplies
 * (names, paths, values, exception text) can ever reach a message.
 *
 * On the operator's own files a refusal may also say where (`location`) and
 * what to try (`hint`): the disclosure policy of docs/refusals.md. The private
 * domains (migration evidence, scaffolder, owner codec) hand out only
 * `redacted()` refusals, which carry neither.
 */

export type RefusalCategory =
  | 'missing'
  | 'malformed'
  | 'oversized'
  | 'mismatched'
  | 'stale'
  | 'conflict'
  | 'unavailable'
  | 'unsupported'
  | 'internal';

export interface RefusalSpec {
  readonly category: RefusalCategory;
  readonly message: string;
  /**
   * Whether `toJSON()` prints this code's details. Only a code that has
   * details may set it, and only in a located domain (docs/refusals.md#details).
   */
  readonly printDetails?: boolean;
}

/**
 * Typed data a refusal may carry for a library caller, beside its fixed
 * message: plain readonly data (no functions, no class instances), frozen
 * when the refusal is made. See docs/refusals.md#details.
 */
export type RefusalDetails = object;

/**
 * A complete code → details-type map, as a table is a complete code → message
 * map: `undefined` for a code that carries no details, a type for one that
 * always does, `T | undefined` for one whose details are optional. A missing
 * code fails the `defineRefusals` constraint; build the map with `WithDetails`
 * so that a key that is no code does not compile either.
 */
export type RefusalDetailsMap<Code extends string> = { readonly [K in Code]: RefusalDetails | undefined };

/** The details map of a table whose codes carry none: the default. */
export type NoDetails<Code extends string> = { readonly [K in Code]: undefined };

/**
 * The complete map for `Code` from the few codes that carry details; every
 * other code carries none. A key that is not a code does not compile.
 */
export type WithDetails<
  Code extends string,
  Some extends { readonly [K in keyof Some]: K extends Code ? RefusalDetails | undefined : never },
> = { readonly [K in Code]: K extends keyof Some ? Some[K] : undefined };

/** Details as a caller reads them: readonly all the way down. */
export type ReadonlyDetails<T> = T extends (infer E)[]
  ? readonly ReadonlyDetails<E>[]
  : T extends readonly (infer E)[]
    ? readonly ReadonlyDetails<E>[]
    : T extends object
      ? { readonly [K in keyof T]: ReadonlyDetails<T[K]> }
      : T;

/** A table entry: `printDetails` may be set only on a code that has details. */
type TableEntry<D> = [D] extends [undefined] ? RefusalSpec & { readonly printDetails?: never } : RefusalSpec;

/**
 * A code → fixed message table. Declaring a table as `RefusalTable<Codes>` makes
 * the compiler reject a missing code (missing property) and an unknown one
 * (excess property), so the map stays complete as codes are added.
 */
export type RefusalTable<Code extends string, Details extends RefusalDetailsMap<Code> = NoDetails<Code>> = {
  readonly [K in Code]: TableEntry<Details[K]>;
};

/** Field paths are written by sealkit, never taken from input: only this shape is accepted. */
const FIELD_PATH = /^[A-Za-z_][A-Za-z0-9_]*(?:\[\]|\.[A-Za-z_][A-Za-z0-9_]*)*$/;
const CODE = /^[a-z][a-z0-9_]*$/;

/**
 * Where a refusal's cause is, in the operator's own input. Every part is
 * optional; a part that is not known is absent, never guessed.
 */
export type RefusalLocation = {
  /** The input as the user named it (a relative path stays relative), or a path inside a bundle. */
  readonly path?: string;
  /** 1-based line of the fault in `path`. */
  readonly line?: number;
  /** 1-based column (in characters) of the fault in `path`. */
  readonly column?: number;
  /** The key path inside the document, e.g. `pipelines[0].destinations[1].outputs.htm`. */
  readonly pointer?: string;
};

export interface RefusalContext {
  /** The artifact role concerned, e.g. `mapping`, `dry_run`, `run_manifest`, `bundle`. */
  readonly role?: string;
  /** An allowlisted field path such as `tables[].cast`; never a value or a name taken from input. */
  readonly field?: string;
  /** Located domains only: where the fault is. */
  readonly location?: RefusalLocation;
  /** Located domains only: one line of advice, e.g. `did you mean 'nullable'?`. */
  readonly hint?: string;
  /**
   * Located domains only: where the fault is inside the value at `field`,
   * counted from the value's own first character (line 1, column 1), such
   * as a place in a model's SQL. Never printed: a reader that knows how the
   * value is written in its file turns it into the file's line and column
   * (docs/contracts.md#reading-an-error).
   */
  readonly within?: ValuePosition;
}

/** A 1-based line and column inside one value (see `RefusalContext.within`). */
export interface ValuePosition {
  readonly line: number;
  readonly column: number;
}

function cleanLocation(location: RefusalLocation | undefined): RefusalLocation | undefined {
  if (location === undefined) return undefined;
  const out: { -readonly [K in keyof RefusalLocation]: RefusalLocation[K] } = {};
  if (typeof location.path === 'string' && location.path !== '') out.path = oneLine(location.path);
  if (isPosition(location.line)) out.line = location.line;
  if (isPosition(location.column) && out.line !== undefined) out.column = location.column;
  if (typeof location.pointer === 'string' && location.pointer !== '')
    out.pointer = oneLine(location.pointer);
  return Object.keys(out).length === 0 ? undefined : out;
}

function isPosition(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 1;
}

/**
 * Text shown on one line of a terminal: control characters (a newline or an
 * escape sequence in a file name or a field) are shown escaped as `\uXXXX`.
 */
export function oneLine(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    const control = code < 0x20 || (code >= 0x7f && code <= 0x9f);
    out += control ? `\\u${code.toString(16).padStart(4, '0')}` : char;
  }
  return out;
}

export class Refusal<
  Code extends string = string,
  Details extends RefusalDetails | undefined = RefusalDetails | undefined,
> extends Error {
  readonly code: Code;
  readonly category: RefusalCategory;
  readonly role: string | undefined;
  readonly field: string | undefined;
  readonly location: RefusalLocation | undefined;
  readonly hint: string | undefined;
  /** See `RefusalContext.within`. */
  readonly within: ValuePosition | undefined;
  /**
   * Further independent errors found in the same input (located domains),
   * at most `MAX_REPORTED_ERRORS - 1` of them; see `refuseAll`.
   */
  readonly also: readonly Refusal[];
  /** How many more errors were found than are listed. */
  readonly omitted: number;
  /**
   * The code's typed details (see RefusalDetailsMap), frozen; read them after
   * `factory.is(refusal, code)`. Printed only where the table says so.
   */
  readonly details: ReadonlyDetails<Details>;
  /** The table entry this refusal was made from: `factory.is()` compares it, not only the code. */
  readonly #spec: RefusalSpec;
  /** Set by `redacted()`: even printable details are not printed. */
  #quiet = false;

  constructor(
    code: Code,
    spec: RefusalSpec,
    context: RefusalContext & { readonly details?: Details | undefined } = {},
    group: { readonly also: readonly Refusal[]; readonly omitted: number } = { also: [], omitted: 0 },
  ) {
    super(spec.message);
    this.#spec = spec;
    this.name = 'Refusal';
    this.code = code;
    this.category = spec.category;
    this.role = context.role !== undefined && CODE.test(context.role) ? context.role : undefined;
    this.field = context.field !== undefined && FIELD_PATH.test(context.field) ? context.field : undefined;
    this.location = cleanLocation(context.location);
    this.hint = typeof context.hint === 'string' && context.hint !== '' ? oneLine(context.hint) : undefined;
    const within = context.within;
    this.within =
      within !== undefined && isPosition(within.line) && isPosition(within.column)
        ? { line: within.line, column: within.column }
        : undefined;
    this.also = group.also;
    this.omitted = group.omitted;
    this.details = frozenDetails(context.details) as ReadonlyDetails<Details>;
  }

  /**
   * The same refusal with `location` merged over the one it has: an outer
   * reader adds the file name to a position found by an inner parser, which
   * keeps its line and column. Only what `location` sets is replaced.
   */
  at(location: RefusalLocation, hint?: string): Refusal<Code, Details> {
    return this.copy({
      location: { ...this.location, ...location },
      ...(hint !== undefined ? { hint } : this.hint !== undefined ? { hint: this.hint } : {}),
      ...(this.within !== undefined ? { within: this.within } : {}),
    });
  }

  /** The same refusal without any located detail: what the private domains hand out. */
  redacted(): Refusal<Code, Details> {
    const printsDetails = !this.#quiet && this.details !== undefined && this.#spec.printDetails === true;
    if (!printsDetails && this.location === undefined && this.hint === undefined && this.also.length === 0)
      return this;
    const copy = this.copy({}, { also: [], omitted: 0 });
    // Details stay readable by a library caller but are never printed.
    copy.#quiet = true;
    return copy;
  }

  /** The same refusal listing `also` and `omitted` as further errors (see refuseAll). */
  withOthers(also: readonly Refusal[], omitted: number): Refusal<Code, Details> {
    return this.copy(
      {
        ...(this.location !== undefined ? { location: this.location } : {}),
        ...(this.hint !== undefined ? { hint: this.hint } : {}),
        ...(this.within !== undefined ? { within: this.within } : {}),
      },
      { also, omitted },
    );
  }

  private copy(
    located: Pick<RefusalContext, 'location' | 'hint' | 'within'>,
    group: { readonly also: readonly Refusal[]; readonly omitted: number } = this,
  ): Refusal<Code, Details> {
    const context: RefusalContext = {
      ...(this.role !== undefined ? { role: this.role } : {}),
      ...(this.field !== undefined ? { field: this.field } : {}),
      ...located,
    };
    const copy = new Refusal<Code, Details>(this.code, this.#spec, context, group);
    // Already frozen: shared, not cloned again.
    Object.defineProperty(copy, 'details', { value: this.details, enumerable: true });
    copy.#quiet = this.#quiet;
    return copy;
  }

  /** Whether this refusal was made from exactly `spec` (a table entry), not merely a code of that name. */
  madeFrom(spec: RefusalSpec | undefined): boolean {
    return spec !== undefined && this.#spec === spec;
  }

  /** The serializable form printed under `--json`; it holds only fixed text and allowlisted fields. */
  toJSON(): RefusalRecord {
    const record: { -readonly [K in keyof RefusalRecord]: RefusalRecord[K] } = {
      reason_code: this.code,
      category: this.category,
      message: this.message,
    };
    if (this.role !== undefined) record.role = this.role;
    if (this.field !== undefined) record.field = this.field;
    if (this.location !== undefined) record.location = this.location;
    if (this.hint !== undefined) record.hint = this.hint;
    if (this.also.length > 0) record.also = this.also.map((other) => other.toJSON());
    if (this.omitted > 0) record.omitted = this.omitted;
    if (this.#spec.printDetails === true && !this.#quiet && this.details !== undefined) {
      record.details = this.details as PrintedDetails;
    }
    return record;
  }
}

/** A located input reports at most this many errors at once, then a count. */
export const MAX_REPORTED_ERRORS = 50;

/**
 * Every independent error of one input as one refusal: the first, with the
 * others in `also` (up to MAX_REPORTED_ERRORS in all) and the rest counted in
 * `omitted`. The exit code and `reason_code` are the first error's.
 * See docs/refusals.md#every-error-at-once.
 */
export function refuseAll<Code extends string>(refusals: readonly Refusal<Code>[]): Refusal<Code> {
  const [first, ...rest] = refusals;
  if (first === undefined) throw new Error('refuseAll needs at least one refusal');
  const flat = rest.flatMap((other) => [other, ...other.also]);
  const listed = flat.slice(0, MAX_REPORTED_ERRORS - 1 - first.also.length);
  const combined = first.at({});
  const also = [...first.also, ...listed];
  const omitted =
    first.omitted + rest.reduce((sum, other) => sum + other.omitted, 0) + (flat.length - listed.length);
  Object.defineProperty(combined, 'also', { value: also, enumerable: true });
  Object.defineProperty(combined, 'omitted', { value: omitted, enumerable: true });
  return combined;
}

export interface RefusalRecord {
  readonly reason_code: string;
  readonly category: RefusalCategory;
  readonly message: string;
  readonly role?: string;
  readonly field?: string;
  readonly location?: RefusalLocation;
  readonly hint?: string;
  readonly also?: readonly RefusalRecord[];
  readonly omitted?: number;
  /** Only for a code whose table entry sets `printDetails`. */
  readonly details?: PrintedDetails;
}

/** Printable details are JSON data. */
export interface PrintedDetails {
  readonly [key: string]: string | number | boolean | null | readonly unknown[] | PrintedDetails | undefined;
}

/** The refusal a factory makes for `K`: one member per code, so `code` narrows `details`. */
export type RefusalOf<
  Details extends RefusalDetailsMap<Code>,
  Code extends string,
  K extends Code = Code,
> = K extends Code ? Refusal<K, Details[K]> : never;

/**
 * The arguments after the code: no `details` for a code that has none, a
 * required `details` (and so a required context) for a code that has them.
 */
export type RefusalArgs<D> = [D] extends [undefined]
  ? [context?: RefusalContext & { readonly details?: undefined }]
  : undefined extends D
    ? [context?: RefusalContext & { readonly details?: Exclude<D, undefined> }]
    : [context: RefusalContext & { readonly details: D }];

export interface RefusalFactory<
  Code extends string,
  Details extends RefusalDetailsMap<Code> = NoDetails<Code>,
> {
  readonly table: RefusalTable<Code, Details>;
  readonly codes: readonly Code[];
  /** Builds the refusal for `code`; use `throw refuse(...)` so control flow stays visible. */
  <K extends Code>(code: K, ...args: RefusalArgs<Details[K]>): RefusalOf<Details, Code, K>;
  /** True only for a refusal made from this table (and, given `code`, with that code). */
  is(value: unknown): value is RefusalOf<Details, Code>;
  is<K extends Code>(value: unknown, code: K): value is RefusalOf<Details, Code, K>;
}

/**
 * Binds a domain's complete code table to a constructor for its refusals.
 * `Details` is the complete code → details-type map (default: no code has
 * details); see docs/refusals.md#details.
 */
export function defineRefusals<
  Code extends string,
  Details extends RefusalDetailsMap<Code> = NoDetails<Code>,
>(table: RefusalTable<Code, Details>): RefusalFactory<Code, Details> {
  const codes = Object.keys(table) as Code[];
  for (const code of codes) {
    if (!CODE.test(code)) throw new Error('refusal codes are lowercase identifiers');
  }
  const own = new Set<string>(codes);
  const specs: { readonly [K in Code]: RefusalSpec } = table;
  const refuse = <K extends Code>(code: K, ...args: RefusalArgs<Details[K]>): RefusalOf<Details, Code, K> =>
    new Refusal<K, Details[K]>(code, specs[code], args[0] ?? {}) as RefusalOf<Details, Code, K>;
  function is(value: unknown): value is RefusalOf<Details, Code>;
  function is<K extends Code>(value: unknown, code: K): value is RefusalOf<Details, Code, K>;
  function is(value: unknown, code?: Code): boolean {
    return (
      value instanceof Refusal &&
      own.has(value.code) &&
      (code === undefined || value.code === code) &&
      value.madeFrom(specs[value.code as Code])
    );
  }
  return Object.assign(refuse, { table, codes, is });
}

/** Plain data, copied and frozen so a caller can neither change nor be changed by it. */
function frozenDetails(details: unknown): unknown {
  if (details === undefined) return undefined;
  return deepFreeze(structuredClone(details));
}

function deepFreeze(value: unknown): unknown {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
