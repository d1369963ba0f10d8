import { IDENTIFIER } from './sql.js';

/** One Bronze table from a fixture CSV: every value is text; `null` is an unquoted empty field. */
export interface CsvTable {
  readonly columns: readonly string[];
  readonly rows: readonly (readonly (string | null)[])[];
}

const fatal = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

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
  let text: string;
  try {
    text = fatal.decode(bytes);
  } catch {
    return undefined;
  }
  if (text.startsWith('\ufeff') || text.length === 0) return undefined;
  const records: (string | null)[][] = [];
  let record: (string | null)[] = [];
  let index = 0;
  const length = text.length;
  for (;;) {
    // One field.
    let value: string | null;
    if (text[index] === '"') {
      index += 1;
      let out = '';
      for (;;) {
        if (index >= length) return undefined;
        const quote = text.indexOf('"', index);
        if (quote === -1) return undefined;
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
        if (text[end] === '"') return undefined;
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
      if (text[index + 1] !== '\n') return undefined;
      index += 1;
    }
    if (text[index] !== '\n') return undefined;
    index += 1;
    records.push(record);
    record = [];
    if (index >= length) break;
  }
  const [header, ...rows] = records;
  if (header === undefined || header.length === 0) return undefined;
  const columns: string[] = [];
  const seen = new Set<string>();
  for (const name of header) {
    if (name === null || !IDENTIFIER.test(name) || seen.has(name.toLowerCase())) return undefined;
    seen.add(name.toLowerCase());
    columns.push(name);
  }
  if (!rows.every((row) => row.length === columns.length)) return undefined;
  return { columns, rows };
}
