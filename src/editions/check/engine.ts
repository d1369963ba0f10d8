import type { DuckDBConnection, DuckDBInstance, DuckDBPreparedStatement } from '@duckdb/node-api';
import { refuseEdition } from '../refusals.js';
import { quoteIdentifier } from './sql.js';

export type ParseVerdict =
  | { readonly ok: true }
  | {
      readonly ok: false;
      readonly code: 'sql_parse_error' | 'sql_not_single_select';
      /** The first line of DuckDB's parser message, e.g. `syntax error at end of input`. */
      readonly message?: string;
      /** 0-based character offset into the rendered SQL, when DuckDB gives one. */
      readonly offset?: number;
    };

const MAX_ENGINE_MESSAGE = 300;

/**
 * The first line of an engine message, at most MAX_ENGINE_MESSAGE
 * characters: DuckDB's one-line error. Further lines (`LINE 1: select …`
 * with a caret) quote the SQL and are dropped. Undefined when nothing is left.
 */
export function engineMessageLine(error: unknown): string | undefined {
  const raw = typeof error === 'string' ? error : error instanceof Error ? error.message : undefined;
  if (raw === undefined) return undefined;
  const first = (raw.split(/\r?\n/)[0] ?? '').trim();
  if (first === '') return undefined;
  return first.length > MAX_ENGINE_MESSAGE ? `${first.slice(0, MAX_ENGINE_MESSAGE - 1)}…` : first;
}

/** How a test's `column_name:` reads to DuckDB's parser, on its own after a `select`. */
export type ExpressionVerdict =
  | { readonly ok: true }
  | {
      readonly ok: false;
      /** The first line of DuckDB's parser message, when it refused the text. */
      readonly message?: string;
      /** 0-based character offset into the expression, when DuckDB gives one. */
      readonly offset?: number;
      /** It parses, but as more or other than one value: a second value, an alias, `*`, a clause. */
      readonly notOneValue?: true;
    };

/** What `select\n` puts before the expression it parses. */
const EXPRESSION_PREFIX = 'select\n';

/** The parts of a select that one value leaves empty. */
interface SelectShape {
  readonly type?: string;
  readonly select_list?: readonly { readonly class?: string; readonly alias?: string }[];
  readonly from_table?: { readonly type?: string };
  readonly where_clause?: unknown;
  readonly group_expressions?: readonly unknown[];
  readonly having?: unknown;
  readonly qualify?: unknown;
  readonly sample?: unknown;
  readonly modifiers?: readonly unknown[];
  readonly cte_map?: { readonly map?: readonly unknown[] };
}

function isOneValue(node: SelectShape | undefined): boolean {
  const [item, ...rest] = node?.select_list ?? [];
  return (
    node?.type === 'SELECT_NODE' &&
    item !== undefined &&
    rest.length === 0 &&
    item.class !== 'STAR' &&
    (item.alias ?? '') === '' &&
    node.from_table?.type === 'EMPTY' &&
    node.where_clause == null &&
    (node.group_expressions ?? []).length === 0 &&
    node.having == null &&
    node.qualify == null &&
    node.sample == null &&
    (node.modifiers ?? []).length === 0 &&
    (node.cte_map?.map ?? []).length === 0
  );
}

/** What DuckDB's parser made of a text. */
type SerializedSql =
  | { readonly kind: 'statements'; readonly statements: readonly { readonly node?: SelectShape }[] }
  | { readonly kind: 'not_one_statement' }
  | { readonly kind: 'error'; readonly message?: string; readonly offset?: number };

const QUERY_NODES = new Set(['SELECT_NODE', 'SET_OPERATION_NODE', 'CTE_NODE', 'RECURSIVE_CTE_NODE']);

/**
 * An in-memory DuckDB for one check run. @duckdb/node-api costs 0.2-0.4 s
 * to load, so it is imported here, on first use, and only by the check.
 */
export class CheckEngine {
  readonly #instance: DuckDBInstance;
  readonly #connection: DuckDBConnection;
  #serialize: DuckDBPreparedStatement | undefined;

  private constructor(instance: DuckDBInstance, connection: DuckDBConnection) {
    this.#instance = instance;
    this.#connection = connection;
  }

  static async open(): Promise<CheckEngine> {
    let api: typeof import('@duckdb/node-api');
    try {
      api = await import('@duckdb/node-api');
    } catch {
      throw refuseEdition('check_engine_unavailable', {
        hint: `DuckDB's native binding for ${process.platform}-${process.arch} could not be loaded (package @duckdb/node-bindings-${process.platform}-${process.arch}): reinstall sealkit without --omit=optional, on a platform DuckDB publishes binaries for`,
      });
    }
    try {
      const instance = await api.DuckDBInstance.create(':memory:', { threads: '1' });
      return new CheckEngine(instance, await instance.connect());
    } catch {
      throw refuseEdition('check_engine_unavailable');
    }
  }

  /** DuckDB's parser alone (json_serialize_sql): no table needs to exist. */
  async parse(sql: string): Promise<ParseVerdict> {
    const parsed = await this.#serializeSql(sql);
    if (parsed === undefined) return { ok: false, code: 'sql_parse_error' };
    if (parsed.kind === 'not_one_statement') return { ok: false, code: 'sql_not_single_select' };
    if (parsed.kind === 'error')
      return {
        ok: false,
        code: 'sql_parse_error',
        ...(parsed.message === undefined ? {} : { message: parsed.message }),
        ...(parsed.offset === undefined ? {} : { offset: parsed.offset }),
      };
    if (parsed.statements.length !== 1 || !QUERY_NODES.has(parsed.statements[0]?.node?.type ?? ''))
      return { ok: false, code: 'sql_not_single_select' };
    return { ok: true };
  }

  /**
   * A `column_name:` through DuckDB's parser as the one value of a select:
   * dbt pastes it where a test selects, groups and filters by a value, so
   * anything else there (a second value, an alias, a FROM or a clause) would
   * change the test's query rather than name what it tests.
   */
  async parseExpression(text: string): Promise<ExpressionVerdict> {
    const parsed = await this.#serializeSql(`${EXPRESSION_PREFIX}${text}\n`);
    if (parsed === undefined) return { ok: false };
    // More than one statement (`a; drop …`): no one value either.
    if (parsed.kind === 'not_one_statement') return { ok: false, notOneValue: true };
    if (parsed.kind === 'error') {
      const offset = parsed.offset === undefined ? undefined : parsed.offset - EXPRESSION_PREFIX.length;
      return {
        ok: false,
        ...(parsed.message === undefined ? {} : { message: parsed.message }),
        ...(offset === undefined || offset < 0 ? {} : { offset: Math.min(offset, text.length) }),
      };
    }
    return parsed.statements.length === 1 && isOneValue(parsed.statements[0]?.node)
      ? { ok: true }
      : { ok: false, notOneValue: true };
  }

  /**
   * `sql` as DuckDB's parser reads it (json_serialize_sql), one prepared
   * statement for the run: its statements, its parse error (the first line
   * of the message, the character offset when given), or that it holds
   * several statements, which DuckDB answers "not implemented". Undefined
   * when DuckDB answers nothing readable.
   */
  async #serializeSql(sql: string): Promise<SerializedSql | undefined> {
    this.#serialize ??= await this.#connection.prepare('select json_serialize_sql($1::varchar)');
    const prepared = this.#serialize;
    prepared.clearBindings();
    prepared.bindVarchar(1, sql);
    const rows = (await prepared.runAndReadAll()).getRows();
    const text = rows[0]?.[0];
    if (typeof text !== 'string') return undefined;
    // DuckDB's own output, not user input: its shape is fixed by the engine.
    const parsed = JSON.parse(text) as {
      error?: boolean;
      error_type?: string;
      error_message?: unknown;
      position?: unknown;
      statements?: readonly { readonly node?: SelectShape }[];
    };
    if (parsed.error !== true) return { kind: 'statements', statements: parsed.statements ?? [] };
    if (parsed.error_type === 'not implemented') return { kind: 'not_one_statement' };
    const message = engineMessageLine(
      typeof parsed.error_message === 'string' ? parsed.error_message : undefined,
    );
    const offset = Number(parsed.position);
    return {
      kind: 'error',
      ...(message === undefined ? {} : { message }),
      ...(typeof parsed.position === 'string' && Number.isSafeInteger(offset) && offset >= 0
        ? { offset }
        : {}),
    };
  }

  async run(sql: string): Promise<void> {
    await this.#connection.run(sql);
  }

  async count(sql: string): Promise<number> {
    const rows = (await this.#connection.runAndReadAll(sql)).getRows();
    const value = rows[0]?.[0];
    return typeof value === 'bigint' ? Number(value) : Number(value ?? Number.NaN);
  }

  /** Rows of a query as JSON-shaped values (text, numbers, booleans, NULL). */
  async values(sql: string): Promise<readonly Readonly<Record<string, string | number | boolean | null>>[]> {
    const reader = await this.#connection.runAndReadAll(sql);
    const columns = reader.columnNames();
    return reader.getRows().map((row) => {
      const out: Record<string, string | number | boolean | null> = {};
      for (const [index, value] of row.entries()) {
        const name = columns[index] ?? `column${index}`;
        let shown: string | number | boolean | null;
        if (value === null || typeof value === 'boolean' || typeof value === 'string') shown = value;
        else if (typeof value === 'number') shown = Number.isFinite(value) ? value : String(value);
        else if (typeof value === 'bigint')
          shown =
            value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
              ? Number(value)
              : value.toString();
        else shown = String(value);
        Object.defineProperty(out, name, { value: shown, enumerable: true, writable: true });
      }
      return out;
    });
  }

  /** Rows of a relation as text (NULL stays null), for inspecting what a model built. */
  async rows(relation: string): Promise<{
    readonly columns: readonly string[];
    readonly rows: readonly (readonly (string | null)[])[];
  }> {
    const reader = await this.#connection.runAndReadAll(`select * from ${relation}`);
    const columns = reader.columnNames();
    const rows = reader.getRows().map((row) => row.map((value) => (value === null ? null : String(value))));
    return { columns, rows };
  }

  async loadTable(
    schema: string,
    table: string,
    columns: readonly string[],
    rows: readonly (readonly (string | null)[])[],
  ): Promise<void> {
    await this.run(`create schema if not exists ${quoteIdentifier(schema)}`);
    const list = columns.map((column) => `${quoteIdentifier(column)} varchar`).join(', ');
    await this.run(`create table ${quoteIdentifier(schema)}.${quoteIdentifier(table)} (${list})`);
    const appender = await this.#connection.createAppender(table, schema);
    try {
      for (const row of rows) {
        for (const value of row) {
          if (value === null) appender.appendNull();
          else appender.appendVarchar(value);
        }
        appender.endRow();
      }
      appender.flushSync();
    } finally {
      appender.closeSync();
    }
  }

  /**
   * Gives a loaded table's columns the types asked for, one at a time; a
   * column whose values do not all convert keeps varchar (the values were
   * read as that type, so this is rare: a date such as 2024-02-30).
   */
  async retype(schema: string, table: string, types: ReadonlyMap<string, string>): Promise<void> {
    const relation = `${quoteIdentifier(schema)}.${quoteIdentifier(table)}`;
    for (const [column, type] of types) {
      try {
        await this.run(`alter table ${relation} alter ${quoteIdentifier(column)} type ${type}`);
      } catch {
        // Keeps varchar: the model's own casts then decide, as they would on text.
      }
    }
  }

  close(): void {
    this.#serialize?.destroySync();
    this.#connection.closeSync();
    this.#instance.closeSync();
  }
}
