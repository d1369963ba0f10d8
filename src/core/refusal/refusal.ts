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
}

/**
 * A code → fixed message table. Declaring a table as `RefusalTable<Codes>` makes
 * the compiler reject a missing code (missing property) and an unknown one
 * (excess property), so the map stays complete as codes are added.
 */
export type RefusalTable<Code extends string> = { readonly [K in Code]: RefusalSpec };

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

// A located detail is printed on one line of a terminal: control characters
// (a newline or an escape sequence in a file name) are shown escaped.
function oneLine(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    const control = code < 0x20 || (code >= 0x7f && code <= 0x9f);
    out += control ? `\\u${code.toString(16).padStart(4, '0')}` : char;
  }
  return out;
}

export class Refusal<Code extends string = string> extends Error {
  readonly code: Code;
  readonly category: RefusalCategory;
  readonly role: string | undefined;
  readonly field: string | undefined;
  readonly location: RefusalLocation | undefined;
  readonly hint: string | undefined;
  /**
   * Further independent errors found in the same input (located domains),
   * at most `MAX_REPORTED_ERRORS - 1` of them; see `refuseAll`.
   */
  readonly also: readonly Refusal[];
  /** How many more errors were found than are listed. */
  readonly omitted: number;
  /** The table entry this refusal was made from: `factory.is()` compares it, not only the code. */
  readonly #spec: RefusalSpec;

  constructor(
    code: Code,
    spec: RefusalSpec,
    context: RefusalContext = {},
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
    this.also = group.also;
    this.omitted = group.omitted;
  }

  /**
   * The same refusal with `location` merged over the one it has: an outer
   * reader adds the file name to a position found by an inner parser, which
   * keeps its line and column. Only what `location` sets is replaced.
   */
  at(location: RefusalLocation, hint?: string): Refusal<Code> {
    return this.copy({
      location: { ...this.location, ...location },
      ...(hint !== undefined ? { hint } : this.hint !== undefined ? { hint: this.hint } : {}),
    });
  }

  /** The same refusal without any located detail: what the private domains hand out. */
  redacted(): Refusal<Code> {
    if (this.location === undefined && this.hint === undefined && this.also.length === 0) return this;
    return this.copy({}, { also: [], omitted: 0 });
  }

  /** The same refusal listing `also` and `omitted` as further errors (see refuseAll). */
  withOthers(also: readonly Refusal[], omitted: number): Refusal<Code> {
    return this.copy(
      {
        ...(this.location !== undefined ? { location: this.location } : {}),
        ...(this.hint !== undefined ? { hint: this.hint } : {}),
      },
      { also, omitted },
    );
  }

  private copy(
    located: Pick<RefusalContext, 'location' | 'hint'>,
    group: { readonly also: readonly Refusal[]; readonly omitted: number } = this,
  ): Refusal<Code> {
    const context: RefusalContext = {
      ...(this.role !== undefined ? { role: this.role } : {}),
      ...(this.field !== undefined ? { field: this.field } : {}),
      ...located,
    };
    return new Refusal(this.code, this.#spec, context, group);
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
}

export interface RefusalFactory<Code extends string> {
  readonly table: RefusalTable<Code>;
  readonly codes: readonly Code[];
  /** Builds the refusal for `code`; use `throw refuse(...)` so control flow stays visible. */
  (code: Code, context?: RefusalContext): Refusal<Code>;
  is(value: unknown): value is Refusal<Code>;
}

/** Binds a domain's complete code table to a constructor for its refusals. */
export function defineRefusals<Code extends string>(table: RefusalTable<Code>): RefusalFactory<Code> {
  const codes = Object.keys(table) as Code[];
  for (const code of codes) {
    if (!CODE.test(code)) throw new Error('refusal codes are lowercase identifiers');
  }
  const own = new Set<string>(codes);
  const refuse = (code: Code, context?: RefusalContext): Refusal<Code> =>
    new Refusal(code, table[code], context ?? {});
  return Object.assign(refuse, {
    table,
    codes,
    is: (value: unknown): value is Refusal<Code> =>
      value instanceof Refusal && own.has(value.code) && value.madeFrom(table[value.code as Code]),
  });
}
