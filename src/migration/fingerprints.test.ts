import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../core/json/index.js';
import {
  mappingsFingerprint,
  schemaConfirmationFingerprint,
  sourceSchemaFingerprint,
  typedSchemaFingerprint,
} from './fingerprints.js';
import { fold, type SafeIdentifier, TYPE_FAMILIES, type TypeFamily } from './identifiers.js';
import { parseMapping } from './mapping.js';
import type { SnapshotTable } from './snapshot.js';
import {
  bindBundle,
  bindFiles,
  fromSpec,
  retailBundle,
  retailSpec,
  summary,
  writeBundle,
} from './testing/bundles.js';

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

const ORACLE = join(dirname(fileURLToPath(import.meta.url)), 'testdata', 'fingerprints.py');

interface Case {
  readonly mapping: JsonObject | null;
  readonly snapshot:
    | readonly { table: string; columns: readonly { name: string; type_family: string }[] }[]
    | null;
}

interface OracleResult {
  readonly mapping?: string;
  readonly source_schema?: string;
  readonly typed_schema?: string;
  readonly confirmation?: string;
}

/** One python3 process computes every case of the batch independently. */
function oracle(cases: readonly Case[]): OracleResult[] {
  const run = spawnSync('python3', [ORACLE], { input: JSON.stringify(cases), maxBuffer: 256 * 1024 * 1024 });
  if (run.error) throw run.error;
  expect(run.stderr.toString()).toBe('');
  expect(run.status).toBe(0);
  return JSON.parse(run.stdout.toString()) as OracleResult[];
}

function snapshotOf(value: NonNullable<Case['snapshot']>): SnapshotTable[] {
  return value.map((table) => ({
    table: table.table as SafeIdentifier,
    folded: fold(table.table as SafeIdentifier),
    columns: table.columns.map((column) => ({
      name: column.name,
      typeFamily: column.type_family as TypeFamily,
    })),
  }));
}

function ours(item: Case): OracleResult {
  const result: { -readonly [K in keyof OracleResult]: OracleResult[K] } = {};
  const mapping = item.mapping === null ? undefined : mappingsFingerprint(parseMapping(item.mapping));
  if (mapping !== undefined) result.mapping = mapping;
  if (item.snapshot !== null) {
    const snapshot = snapshotOf(item.snapshot);
    const sourceSchema = sourceSchemaFingerprint(snapshot);
    const typedSchema = typedSchemaFingerprint(snapshot);
    result.source_schema = sourceSchema;
    result.typed_schema = typedSchema;
    if (mapping !== undefined)
      result.confirmation = schemaConfirmationFingerprint(mapping, sourceSchema, typedSchema);
  }
  return result;
}

// Names exercise what a serializer can get wrong: quotes, backslashes, control
// characters (escaped), DEL (not escaped), U+2028, 2-, 3- and 4-byte UTF-8,
// keys that sort differently by code point and by UTF-16 unit.
const nameChar = fc.constantFrom(
  ...'abcXYZ 09_-.'.split(''),
  '"',
  '\\',
  '/',
  '\u0001',
  '\u001f',
  '\u007f',
  'é',
  'ß',
  'Ж',
  '中',
  '€',
  '\uFB06',
  '\u2028',
  '😀',
  '𝄞',
);
const rawName = fc.array(nameChar, { minLength: 1, maxLength: 12 }).map((chars) => chars.join(''));
const sourceName = rawName.filter((name) => !/[\p{Cc}\u2028\u2029]/u.test(name));
const safe = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,10}$/);
const cast = fc.constantFrom('string', 'integer', 'numeric', 'date', 'timestamp', 'boolean');

const mappingDocument = fc
  .uniqueArray(safe, { minLength: 1, maxLength: 5, selector: (name) => name.toLowerCase() })
  .chain((tables) =>
    fc.tuple(
      ...tables.map((table) =>
        fc
          .uniqueArray(fc.record({ source: sourceName, target: safe, cast }), {
            minLength: 1,
            maxLength: 6,
            selector: (rule) => rule.target.toLowerCase(),
          })
          .map((rules) => [table, rules] as const),
      ),
    ),
  )
  .map((entries): JsonObject => ({ version: 1, tables: Object.fromEntries(entries) }));

const snapshotValue = fc
  .uniqueArray(safe, { maxLength: 5, selector: (name) => name.toLowerCase() })
  .chain((tables) =>
    fc.tuple(
      ...[...tables]
        .sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : 1))
        .map((table) =>
          fc
            .array(fc.record({ name: rawName, type_family: fc.constantFrom(...TYPE_FAMILIES) }), {
              maxLength: 6,
            })
            .map((columns) => ({ table, columns })),
        ),
    ),
  );

describe('fingerprint constructions', () => {
  it('hashes the empty mapping to the documented value (and the parser refuses it)', () => {
    expect(mappingsFingerprint({ version: 1, tables: [] })).toBe(
      '44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a',
    );
    expect(() => parseMapping({ version: 1, tables: {} })).toThrow(
      expect.objectContaining({ code: 'scaffold_mapping_invalid', role: 'mapping', field: 'tables' }),
    );
  });

  it('folds table keys and keeps rule order', () => {
    const upper = parseMapping({
      version: 1,
      tables: { Orders: [{ source: 'A', target: 'a', cast: 'string' }] },
    });
    const lower = parseMapping({
      version: 1,
      tables: { orders: [{ source: 'A', target: 'a', cast: 'string' }] },
    });
    expect(mappingsFingerprint(upper)).toBe(mappingsFingerprint(lower));
    const ab = parseMapping({
      version: 1,
      tables: {
        t: [
          { source: 'A', target: 'a', cast: 'string' },
          { source: 'B', target: 'b', cast: 'string' },
        ],
      },
    });
    const ba = parseMapping({
      version: 1,
      tables: {
        t: [
          { source: 'B', target: 'b', cast: 'string' },
          { source: 'A', target: 'a', cast: 'string' },
        ],
      },
    });
    expect(mappingsFingerprint(ab)).not.toBe(mappingsFingerprint(ba));
  });

  it('agrees with python3 on every construction, for the synthetic bundles and 400 generated cases', () => {
    const synthetic: Case[] = [];
    for (const source of ['sql', 'csv'] as const) {
      for (const seed of [1, 2, 3, 4, 5]) {
        const bundle = retailBundle({ source, seed });
        expect(summary(bindBundle(bundle))).toEqual({ code: 'bound' });
        synthetic.push({
          mapping: bundle.mapping as JsonObject,
          snapshot: bundle.dryRun.source_schema_snapshot as Case['snapshot'],
        });
      }
    }
    const generated = fc.sample(
      fc.record({
        mapping: fc.option(mappingDocument, { nil: null }),
        snapshot: fc.option(snapshotValue, { nil: null }),
      }),
      { numRuns: 400, seed: 20250314 },
    ) as Case[];
    const cases = [...synthetic, ...generated, { mapping: null, snapshot: [] }];
    const expected = oracle(cases);
    expect(expected).toHaveLength(cases.length);
    cases.forEach((item, index) => {
      expect(ours(item)).toEqual(expected[index]);
    });
    // The synthetic bundles record exactly what python recomputes.
    synthetic.forEach((_item, index) => {
      const bundle = retailBundle({ source: index < 5 ? 'sql' : 'csv', seed: (index % 5) + 1 });
      expect(expected[index]).toEqual({
        mapping: bundle.dryRun.source_mapping_fingerprint,
        source_schema: bundle.dryRun.source_schema_fingerprint,
        typed_schema: bundle.dryRun.typed_schema_fingerprint,
        confirmation: bundle.dryRun.schema_confirmation_fingerprint,
      });
    });
  });
});

// Every name here is a safe identifier that is also a member of
// Object.prototype; as a key assigned on a plain object, `__proto__` sets the
// prototype instead of adding the table.
const PROTOTYPE_NAMES = [
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'valueOf',
  '__defineGetter__',
];

describe('table names that are Object.prototype members', () => {
  it('regression: a mapping table named __proto__ is a key of the mapping fingerprint, as in python3', () => {
    const rule = (source: string) => ({ source, target: 'a', cast: 'string' });
    const cases: Case[] = PROTOTYPE_NAMES.map((name) => ({
      // JSON.parse defines `__proto__` as an own key, as the strict parser does.
      mapping: JSON.parse(
        JSON.stringify({ version: 1, tables: { other: [rule('B')] } }).replace(
          '"tables":{',
          `"tables":{${JSON.stringify(name)}:${JSON.stringify([rule('A')])},`,
        ),
      ) as JsonObject,
      snapshot: null,
    }));
    expect(Object.keys(cases[0]?.mapping?.tables as object)).toEqual(['__proto__', 'other']);
    const expected = oracle(cases);
    const actual = cases.map(ours);
    expect(actual).toEqual(expected);
    // Each name is hashed as its own table: six different fingerprints, none the one of `other` alone.
    const alone = mappingsFingerprint(parseMapping({ version: 1, tables: { other: [rule('B')] } }));
    expect(new Set(actual.map((result) => result.mapping)).size).toBe(PROTOTYPE_NAMES.length);
    expect(actual.map((result) => result.mapping)).not.toContain(alone);
  });

  it('regression: evidence whose tables are named __proto__ and constructor binds from real files', () => {
    const base = retailSpec();
    const [first, second, ...rest] = base.tables;
    if (first === undefined || second === undefined) throw new Error('the retail spec has four tables');
    const bundle = fromSpec({
      ...base,
      tables: [{ ...first, table: '__proto__' }, { ...second, table: 'constructor' }, ...rest],
    });
    expect(Object.hasOwn(bundle.mapping.tables as object, '__proto__')).toBe(true);
    const dir = mkdtempSync(join(tmpdir(), 'sealkit-proto-'));
    roots.push(dir);
    const outcome = bindFiles(writeBundle(join(dir, 'ev'), bundle));
    expect(summary(outcome)).toEqual({ code: 'bound' });
    if (outcome.status !== 'bound') return;
    expect(outcome.tables.map((table) => table.table)).toContain('__proto__');
    expect(outcome.tables.map((table) => table.table)).toContain('constructor');
  });
});
