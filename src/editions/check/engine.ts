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
    this.#serialize ??= await this.#connection.prepare('select json_serialize_sql($1::varchar)');
    const prepared = this.#serialize;
    prepared.clearBindings();
    prepared.bindVarchar(1, sql);
    const rows = (await prepared.runAndReadAll()).getRows();
    const text = rows[0]?.[0];
    if (typeof text !== 'string') return { ok: false, code: 'sql_parse_error' };
    // DuckDB's own output, not user input: its shape is fixed by the engine.
    const parsed = JSON.parse(text) as {
      error?: boolean;
      error_type?: string;
      error_message?: unknown;
      position?: unknown;
      statements?: { node?: { type?: string } }[];
    };
    if (parsed.error === true) {
      if (parsed.error_type === 'not implemented') return { ok: false, code: 'sql_not_single_select' };
      const message = engineMessageLine(
        typeof parsed.error_message === 'string' ? parsed.error_message : undefined,
      );
      const offset = Number(parsed.position);
      return {
        ok: false,
        code: 'sql_parse_error',
        ...(message === undefined ? {} : { message }),
        ...(typeof parsed.position === 'string' && Number.isSafeInteger(offset) && offset >= 0
          ? { offset }
          : {}),
      };
    }
    const statements = parsed.statements ?? [];
    if (statements.length !== 1 || !QUERY_NODES.has(statements[0]?.node?.type ?? ''))
      return { ok: false, code: 'sql_not_single_select' };
    return { ok: true };
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

  close(): void {
    this.#serialize?.destroySync();
    this.#connection.closeSync();
    this.#instance.closeSync();
  }
}
