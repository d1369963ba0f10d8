import { createRequire } from 'node:module';
import { refuseContract } from '../authoring/refusals.js';

/**
 * The SQL parser adapter. Model SQL is parsed by DuckDB's own parser
 * (`json_serialize_sql`); the projection never interprets SQL text itself.
 * An adapter returns, per input text and in order, the parser's JSON
 * document as text, or `undefined` when the parser failed on that text.
 */
export interface SqlParser {
  serialize(texts: readonly string[]): Promise<readonly (string | undefined)[]>;
  close(): void;
}

/** Batches stay far below DuckDB's limits and bound the memory of one call. */
const MAX_BATCH_TEXTS = 2000;
const MAX_BATCH_CHARS = 4 * 1024 * 1024;

const BATCH_SQL =
  'SELECT json_serialize_sql(s) AS j FROM unnest($1::VARCHAR[]) WITH ORDINALITY AS t(s, i) ORDER BY i';
const SINGLE_SQL = 'SELECT json_serialize_sql($1::VARCHAR) AS j';

type DuckDbApi = typeof import('@duckdb/node-api');

/** The answer for a query whose construct DuckDB's JSON cannot carry (see `clarify`). */
export const UNSUPPORTED_QUERY = '{"error":true,"error_type":"unsupported query"}';

/**
 * Opens an in-memory DuckDB used only for parsing (it never runs model SQL).
 * The native module is loaded here, lazily: it costs 0.2–0.4 s, which
 * commands that never see SQL should not pay. It is required, not
 * imported: an ESM import of this CommonJS package makes Node scan each of
 * its 120 files for export names first, which doubled its load time
 * (docs/performance.md#a-new-embedded-ledger).
 */
export async function createDuckDbSqlParser(): Promise<SqlParser> {
  let api: DuckDbApi;
  try {
    api = createRequire(import.meta.url)('@duckdb/node-api');
  } catch {
    throw refuseContract('contract_sql_parser_unavailable', {
      role: 'sql',
      hint: `DuckDB's native binding for ${process.platform}-${process.arch} could not be loaded (package @duckdb/node-bindings-${process.platform}-${process.arch}): reinstall sealkit without --omit=optional, on a platform DuckDB publishes binaries for`,
    });
  }
  let instance: Awaited<ReturnType<typeof api.DuckDBInstance.create>>;
  let connection: Awaited<ReturnType<typeof instance.connect>>;
  try {
    instance = await api.DuckDBInstance.create(':memory:', { threads: '1' });
    connection = await instance.connect();
  } catch {
    throw refuseContract('contract_sql_parser_unavailable', { role: 'sql' });
  }

  const runSingle = async (text: string): Promise<string | undefined> => {
    try {
      const reader = await connection.runAndReadAll(SINGLE_SQL, [text]);
      const cell = reader.getRows()[0]?.[0];
      return typeof cell === 'string' ? cell : undefined;
    } catch {
      return undefined;
    }
  };

  const runBatch = async (texts: readonly string[]): Promise<(string | undefined)[]> => {
    try {
      const reader = await connection.runAndReadAll(BATCH_SQL, [api.listValue([...texts])]);
      const rows = reader.getRows();
      if (rows.length !== texts.length) throw new Error('row count');
      return rows.map((row) => (typeof row[0] === 'string' ? row[0] : undefined));
    } catch {
      // One text can fail the whole batch (e.g. a parser limit that raises
      // instead of answering with an error document): isolate it.
      const out: (string | undefined)[] = [];
      for (const text of texts) out.push(await runSingle(text));
      return out;
    }
  };

  /**
   * DuckDB answers "not implemented" both for a statement that is not a
   * query (INSERT, CREATE …) and for a query holding a construct its JSON
   * cannot carry (a dynamic PIVOT). Asked again with the text as a subquery,
   * a non-query is a syntax error while such a query is "not implemented"
   * again: then the answer says so (`unsupported_query`), so the projection
   * refuses the construct, not the statement kind.
   */
  const clarify = async (texts: readonly string[], answers: (string | undefined)[]) => {
    for (let i = 0; i < texts.length; i++) {
      if (answers[i]?.includes('"error_type":"not implemented"') !== true) continue;
      const again = await runSingle(`SELECT * FROM (\n${texts[i]}\n)`);
      if (again?.includes('"error_type":"not implemented"') === true) answers[i] = UNSUPPORTED_QUERY;
    }
    return answers;
  };

  return {
    async serialize(texts) {
      const out: (string | undefined)[] = [];
      let batch: string[] = [];
      let chars = 0;
      for (const text of texts) {
        if (batch.length > 0 && (batch.length >= MAX_BATCH_TEXTS || chars + text.length > MAX_BATCH_CHARS)) {
          out.push(...(await clarify(batch, await runBatch(batch))));
          batch = [];
          chars = 0;
        }
        batch.push(text);
        chars += text.length;
      }
      if (batch.length > 0) out.push(...(await clarify(batch, await runBatch(batch))));
      return out;
    },
    close() {
      connection.closeSync();
      instance.closeSync();
    },
  };
}
