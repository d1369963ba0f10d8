/**
 * One refusal type for every domain. A refusal carries a stable lowercase code,
 * a category, the artifact role it concerns and an allowlisted field path; its
 * message is fixed text looked up from the code, so nothing a caller supplies
 * (names, paths, values, exception text) can ever reach a message.
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

export interface RefusalContext {
  /** The artifact role concerned, e.g. `mapping`, `dry_run`, `run_manifest`, `bundle`. */
  readonly role?: string;
  /** An allowlisted field path such as `tables[].cast`; never a value or a name taken from input. */
  readonly field?: string;
}

export class Refusal<Code extends string = string> extends Error {
  readonly code: Code;
  readonly category: RefusalCategory;
  readonly role: string | undefined;
  readonly field: string | undefined;

  constructor(code: Code, spec: RefusalSpec, context: RefusalContext = {}) {
    super(spec.message);
    this.name = 'Refusal';
    this.code = code;
    this.category = spec.category;
    this.role = context.role !== undefined && CODE.test(context.role) ? context.role : undefined;
    this.field = context.field !== undefined && FIELD_PATH.test(context.field) ? context.field : undefined;
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
    return record;
  }
}

export interface RefusalRecord {
  readonly reason_code: string;
  readonly category: RefusalCategory;
  readonly message: string;
  readonly role?: string;
  readonly field?: string;
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
    is: (value: unknown): value is Refusal<Code> => value instanceof Refusal && own.has(value.code),
  });
}
