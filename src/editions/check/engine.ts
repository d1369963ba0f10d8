import type { DuckDBConnection, DuckDBInstance, DuckDBPreparedStatement } from '@duckdb/node-api';
import { refuseEdition } from '../refusals.js';
import { quoteIdentifier } from './sql.js';

export type ParseVerdict = 'ok' | 'sql_parse_error' | 'sql_not_single_select';

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
    try {
      const { DuckDBInstance } = await import('@duckdb/node-api');
      const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
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
    if (typeof text !== 'string') return 'sql_parse_error';
    // DuckDB's own output, not user input: its shape is fixed by the engine.
    const parsed = JSON.parse(text) as {
      error?: boolean;
      error_type?: string;
      statements?: { node?: { type?: string } }[];
    };
    if (parsed.error === true)
      return parsed.error_type === 'not implemented' ? 'sql_not_single_select' : 'sql_parse_error';
    const statements = parsed.statements ?? [];
    if (statements.length !== 1 || !QUERY_NODES.has(statements[0]?.node?.type ?? ''))
      return 'sql_not_single_select';
    return 'ok';
  }

  async run(sql: string): Promise<void> {
    await this.#connection.run(sql);
  }

  async count(sql: string): Promise<number> {
    const rows = (await this.#connection.runAndReadAll(sql)).getRows();
    const value = rows[0]?.[0];
    return typeof value === 'bigint' ? Number(value) : Number(value ?? Number.NaN);
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
