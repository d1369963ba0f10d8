import { decodeUtf8Strict } from '../../core/input/index.js';
import { IDENTIFIER } from './sql.js';

/** One Bronze table from a fixture CSV: every value is text; `null` is an unquoted empty field. */
export interface CsvTable {
  readonly columns: readonly string[];
  readonly rows: readonly (readonly (string | null)[])[];
}

/** Why a CSV was refused and where (1-based; the column counts characters). */
export interface CsvFault {
  readonly line: number;
  readonly column?: number;
  readonly hint: string;
}

export type CsvRead = { readonly ok: true; readonly table: CsvTable } | ({ readonly ok: false } & CsvFault);

/**
 * A strict RFC 4180 reader for fixtures: UTF-8 without BOM, comma
 * separated, `"` quoting with `""` as the escaped quote, LF or CRLF record
 * ends (inside quotes both are data). The header is a row of unique plain
 * identifiers; every record has as many fields as the header. An unquoted
 * empty field is NULL and a quoted one the empty string, so fixtures can
 * tell the two apart (the blank-key policy treats them differently in SQL
 * only through trim, but NULL and '' must both be expressible).
 * Returns undefined for anything else: the caller refuses with a fixed code.
 */
export function parseCsv(bytes: Uint8Array): CsvTable | undefined {
  const read = readCsv(bytes);
  return read.ok ? read.table : undefined;
}

/**
 * How a CSV is read: a fixture strictly (the default), or a project's CSV
 * data file as dbt loads it.
 */
export interface CsvReadOptions {
  /**
   * Read as dbt's CSV reader (agate) reads a project's CSV data file
   * (docs/editions.md#seeds-and-snapshots): a leading byte order mark is
   * skipped, a header field may be any text but empty (dbt quotes such a
   * file's columns), and a value that is empty or `null` once trimmed, in
   * any case and quoted or not, is NULL.
   */
  readonly seed?: boolean;
}

const BOM = [0xef, 0xbb, 0xbf] as const;

/** parseCsv, saying where and why a file is refused (never quoting its text). */
export function readCsv(bytes: Uint8Array, options: CsvReadOptions = {}): CsvRead {
  const seed = options.seed === true;
  const bom = seed && BOM.every((byte, index) => bytes[index] === byte);
  const read = readRecords(bom ? bytes.subarray(BOM.length) : bytes, seed);
  if (!read.ok || !seed) return read;
  const isNull = (value: string | null): boolean => value === null || /^(null)?$/i.test(value.trim());
  const rows = read.table.rows.map((row) => row.map((value) => (isNull(value) ? null : value)));
  return { ok: true, table: { columns: read.table.columns, rows } };
}

function readRecords(bytes: Uint8Array, seed: boolean): CsvRead {
  const decoded = decodeUtf8Strict(bytes);
  if (!decoded.ok)
    return {
      ok: false,
      line: decoded.line,
      column: decoded.column,
      hint:
        decoded.reason === 'bom'
          ? 'the file starts with a byte order mark; save it as UTF-8 without BOM'
          : 'the bytes here are not UTF-8; save the file as UTF-8',
    };
  const text = decoded.text;
  if (text.length === 0) return { ok: false, line: 1, hint: 'the file is empty; it needs a header row' };
  const at = (offset: number, hint: string): CsvRead => {
    const before = text.slice(0, offset);
    const line = before.split('\n').length;
    return { ok: false, line, column: [...before.slice(before.lastIndexOf('\n') + 1)].length + 1, hint };
  };
  const records: (string | null)[][] = [];
  const starts: number[] = [0];
  let record: (string | null)[] = [];
  let index = 0;
  const length = text.length;
  for (;;) {
    // One field.
    let value: string | null;
    if (text[index] === '"') {
      index += 1;
      let out = '';
      const opened = index - 1;
      for (;;) {
        if (index >= length) return at(opened, 'this quoted field is never closed');
        const quote = text.indexOf('"', index);
        if (quote === -1) return at(opened, 'this quoted field is never closed');
        out += text.slice(index, quote);
        if (text[quote + 1] === '"') {
          out += '"';
          index = quote + 2;
          continue;
        }
        index = quote + 1;
        break;
      }
      value = out;
    } else {
      let end = index;
      while (end < length && text[end] !== ',' && text[end] !== '\n' && text[end] !== '\r') {
        if (text[end] === '"') return at(end, 'a quote inside an unquoted field; quote the whole field');
        end += 1;
      }
      value = end === index ? null : text.slice(index, end);
      index = end;
    }
    record.push(value);
    // What ends it.
    if (index >= length) {
      records.push(record);
      break;
    }
    const ch = text[index];
    if (ch === ',') {
      index += 1;
      continue;
    }
    if (ch === '\r') {
      if (text[index + 1] !== '\n') return at(index, 'a carriage return without a line feed');
      index += 1;
    }
    if (text[index] !== '\n') return at(index, 'text after a closing quote; a field ends at , or a line end');
    index += 1;
    records.push(record);
    record = [];
    if (index >= length) break;
    starts.push(index);
  }
  const [header, ...rows] = records;
  if (header === undefined || header.length === 0) return { ok: false, line: 1, hint: 'no header row' };
  const columns: string[] = [];
  const seen = new Set<string>();
  for (const [index, name] of header.entries()) {
    if (seed && (name === null || name.trim() === ''))
      return { ok: false, line: 1, hint: `header field ${index + 1} is empty; every column needs a name` };
    if (name === null || (!seed && !IDENTIFIER.test(name)))
      return {
        ok: false,
        line: 1,
        hint: `header field ${index + 1} is not a plain identifier (letters, digits, _)`,
      };
    if (seen.has(name.toLowerCase()))
      return { ok: false, line: 1, hint: `the column '${name}' is named twice in the header` };
    seen.add(name.toLowerCase());
    columns.push(name);
  }
  const ragged = rows.findIndex((row) => row.length !== columns.length);
  if (ragged !== -1) {
    const row = rows[ragged] ?? [];
    const start = starts[ragged + 1] ?? 0;
    const line = text.slice(0, start).split('\n').length;
    return {
      ok: false,
      line,
      hint: `this record has ${row.length} ${row.length === 1 ? 'field' : 'fields'}; the header has ${columns.length}`,
    };
  }
  return { ok: true, table: { columns, rows } };
}
