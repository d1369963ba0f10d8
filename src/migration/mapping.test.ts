import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../core/json/index.js';
import { JsonFloat } from '../core/json/index.js';
import { parseMapping } from './mapping.js';

const rule = (overrides: Record<string, JsonValue> = {}): JsonObject => ({
  source: 'Customer ID',
  target: 'customer_id',
  cast: 'integer',
  ...overrides,
});

function refusalOf(document: JsonObject): { code: string; role?: string; field?: string } {
  try {
    parseMapping(document);
  } catch (error: unknown) {
    const { code, role, field } = error as { code: string; role?: string; field?: string };
    return { code, ...(role === undefined ? {} : { role }), ...(field === undefined ? {} : { field }) };
  }
  return { code: 'parsed' };
}

const invalid = (field?: string) => ({
  code: 'scaffold_mapping_invalid',
  role: 'mapping',
  ...(field === undefined ? {} : { field }),
});
const missing = (field: string) => ({ code: 'scaffold_field_missing', role: 'mapping', field });
const version = { code: 'scaffold_input_unsupported_version', role: 'mapping', field: 'version' };

describe('parseMapping: the mapping v1 field table', () => {
  it('parses a mapping, keeping file order of tables and rules', () => {
    const mapping = parseMapping({
      version: 1,
      tables: {
        Orders: [
          rule({ source: 'Order ID', target: 'order_id' }),
          rule({ source: 'Status', target: 'status', cast: 'string' }),
        ],
        customers: [rule()],
      },
    });
    expect(mapping.tables.map((table) => [table.table, table.folded])).toEqual([
      ['Orders', 'orders'],
      ['customers', 'customers'],
    ]);
    expect(mapping.tables[0]?.rules.map((r) => r.target)).toEqual(['order_id', 'status']);
  });

  it.each<readonly [string, JsonObject, object]>([
    ['an absent version', { tables: { t: [rule()] } }, missing('version')],
    ['version 2', { version: 2, tables: { t: [rule()] } }, version],
    ['version "1"', { version: '1', tables: { t: [rule()] } }, version],
    ['version true', { version: true, tables: { t: [rule()] } }, version],
    ['version 1.0', { version: new JsonFloat('1.0'), tables: { t: [rule()] } }, version],
    ['absent tables', { version: 1 }, missing('tables')],
    ['null tables', { version: 1, tables: null }, missing('tables')],
    [
      'regression: a third top-level key, placed at top_level_keys',
      { version: 1, tables: { t: [rule()] }, review: 'ok' },
      invalid('top_level_keys'),
    ],
    ['tables as an array', { version: 1, tables: [rule()] }, invalid('tables')],
    ['the empty mapping', { version: 1, tables: {} }, invalid('tables')],
    ['an unsafe table name', { version: 1, tables: { 'order items': [rule()] } }, invalid('tables')],
    [
      'a table name of 64 characters',
      { version: 1, tables: { [`t${'x'.repeat(63)}`]: [rule()] } },
      invalid('tables'),
    ],
    [
      'two tables equal ignoring case',
      { version: 1, tables: { Orders: [rule()], orders: [rule()] } },
      invalid('tables'),
    ],
    ['rules as an object', { version: 1, tables: { t: rule() } }, invalid('tables[]')],
    ['a table without rules', { version: 1, tables: { t: [] } }, invalid('tables[]')],
    ['a rule that is a string', { version: 1, tables: { t: ['Customer ID'] } }, invalid('tables[]')],
    [
      'a rule without cast',
      { version: 1, tables: { t: [{ source: 'a', target: 'a' }] } },
      missing('tables[].cast'),
    ],
    [
      'a rule with a null source',
      { version: 1, tables: { t: [rule({ source: null })] } },
      missing('tables[].source'),
    ],
    [
      'a rule with a fourth key',
      { version: 1, tables: { t: [rule({ nullable: true })] } },
      invalid('tables[]'),
    ],
    ['a numeric source', { version: 1, tables: { t: [rule({ source: 7 })] } }, invalid('tables[].source')],
    ['an empty source', { version: 1, tables: { t: [rule({ source: '' })] } }, invalid('tables[].source')],
    [
      'a source with a newline',
      { version: 1, tables: { t: [rule({ source: 'Customer\nID' })] } },
      invalid('tables[].source'),
    ],
    [
      'a source with a tab',
      { version: 1, tables: { t: [rule({ source: 'Customer\tID' })] } },
      invalid('tables[].source'),
    ],
    [
      'a source with U+2028',
      { version: 1, tables: { t: [rule({ source: 'Customer\u2028ID' })] } },
      invalid('tables[].source'),
    ],
    [
      'a source with DEL',
      { version: 1, tables: { t: [rule({ source: 'Customer\u007fID' })] } },
      invalid('tables[].source'),
    ],
    [
      'a source of 256 characters',
      { version: 1, tables: { t: [rule({ source: 'x'.repeat(256) })] } },
      { code: 'scaffold_input_oversized', role: 'mapping', field: 'tables[].source' },
    ],
    [
      'an unsafe target',
      { version: 1, tables: { t: [rule({ target: 'customer id' })] } },
      invalid('tables[].target'),
    ],
    [
      'a target starting with a digit',
      { version: 1, tables: { t: [rule({ target: '1st' })] } },
      invalid('tables[].target'),
    ],
    [
      'two targets equal ignoring case',
      { version: 1, tables: { t: [rule(), rule({ source: 'B', target: 'Customer_ID' })] } },
      invalid('tables[].target'),
    ],
    ['an unknown cast', { version: 1, tables: { t: [rule({ cast: 'float' })] } }, invalid('tables[].cast')],
    [
      'a cast in upper case',
      { version: 1, tables: { t: [rule({ cast: 'INTEGER' })] } },
      invalid('tables[].cast'),
    ],
  ])('refuses %s', (_label, document, expected) => {
    expect(refusalOf(document)).toEqual(expected);
  });

  it('accepts every cast, sources with spaces and non-ASCII, and the same target in two tables', () => {
    const casts = ['string', 'integer', 'numeric', 'date', 'timestamp', 'boolean'];
    const mapping = parseMapping({
      version: 1,
      tables: {
        a: casts.map((cast, i) => rule({ source: `Größe ${i} 😀`, target: `c${i}`, cast })),
        b: [rule({ target: 'c0' })],
      },
    });
    expect(mapping.tables[0]?.rules.map((r) => r.cast)).toEqual(casts);
  });
});
