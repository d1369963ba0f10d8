import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { at } from '../core/list/index.js';
import { EVIDENCE_LIMITS } from './limits.js';
import {
  bindBundle,
  bindFiles,
  finishedAtMicros,
  fromSpec,
  generatedSpec,
  MAX_AGE,
  type MutableBundle,
  NOW,
  retailBundle,
  retailSpec,
  summary,
  writeBundle,
} from './testing/bundles.js';
import { formatUtcTimestamp } from './timestamps.js';

type Doc = Record<string, unknown>;
const BOUND = { code: 'bound' };

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});
function freshDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sealkit-evidence-limits-'));
  roots.push(dir);
  return join(dir, 'bundle');
}

/** The JSON text of a document padded with trailing spaces to exactly `size` bytes. */
function padded(document: Doc, size: number): string {
  const text = JSON.stringify(document);
  expect(Buffer.byteLength(text)).toBeLessThan(size);
  return text + ' '.repeat(size - Buffer.byteLength(text));
}

describe('admission limits: file sizes', () => {
  it('accepts a mapping file of exactly 1 MiB and refuses 1 MiB + 1 byte', () => {
    const bundle = retailBundle();
    const n = EVIDENCE_LIMITS.mappingFileBytes;
    expect(n).toBe(1_048_576);
    expect(
      summary(bindFiles(writeBundle(freshDir(), bundle, { mapping: padded(bundle.mapping, n) }))),
    ).toEqual(BOUND);
    expect(
      summary(bindFiles(writeBundle(freshDir(), bundle, { mapping: padded(bundle.mapping, n + 1) }))),
    ).toEqual({
      code: 'scaffold_input_oversized',
      role: 'mapping',
    });
  });

  it('accepts a dry run and a run manifest of exactly 10 MiB and refuses one byte more', () => {
    const bundle = retailBundle();
    const n = EVIDENCE_LIMITS.privateJsonBytes;
    expect(n).toBe(10_485_760);
    const atLimit = writeBundle(freshDir(), bundle, {
      dryRun: padded(bundle.dryRun, n),
      runManifest: padded(bundle.runManifest, n),
    });
    expect(summary(bindFiles(atLimit))).toEqual(BOUND);
    expect(
      summary(bindFiles(writeBundle(freshDir(), bundle, { dryRun: padded(bundle.dryRun, n + 1) }))),
    ).toEqual({
      code: 'scaffold_input_oversized',
      role: 'dry_run',
    });
    expect(
      summary(bindFiles(writeBundle(freshDir(), bundle, { runManifest: padded(bundle.runManifest, n + 1) }))),
    ).toEqual({ code: 'scaffold_input_oversized', role: 'run_manifest' });
  });
});

describe('admission limits: snapshot, entities and names', () => {
  it('binds 1,000 tables and refuses a snapshot of 1,001', () => {
    expect(summary(bindBundle(fromSpec(generatedSpec(1000, 1))))).toEqual(BOUND);
    expect(summary(bindBundle(fromSpec(generatedSpec(1001, 1))))).toEqual({
      code: 'scaffold_input_oversized',
      role: 'dry_run',
      field: 'source_schema_snapshot',
    });
  });

  it('binds 1,000 manifest entities, refuses 1,001, and refuses an empty entity list', () => {
    const bundle = fromSpec(generatedSpec(1000, 1));
    expect(summary(bindBundle(bundle))).toEqual(BOUND);
    (bundle.runManifest.entities as string[]).push('t9999');
    expect(summary(bindBundle(bundle))).toEqual({
      code: 'scaffold_input_oversized',
      role: 'run_manifest',
      field: 'entities',
    });
    const single = fromSpec(generatedSpec(1, 1));
    expect(summary(bindBundle(single))).toEqual(BOUND);
    single.runManifest.entities = [];
    single.runManifest.destination_tables = [];
    expect(summary(bindBundle(single))).toEqual({
      code: 'scaffold_field_malformed',
      role: 'run_manifest',
      field: 'entities',
    });
  });

  it('regression: binds 1,000 inventory entries and refuses 1,001 before reading any of them', () => {
    const bundle = fromSpec(generatedSpec(1000, 1));
    expect((bundle.dryRun.inventory as Doc[]).length).toBe(EVIDENCE_LIMITS.inventoryEntries);
    expect(summary(bindBundle(bundle))).toEqual(BOUND);
    // The 1,001st entry is not even an object: the bound comes before the field table.
    (bundle.dryRun.inventory as unknown[]).push('zqx');
    expect(summary(bindBundle(bundle))).toEqual({
      code: 'scaffold_input_oversized',
      role: 'dry_run',
      field: 'inventory',
    });
  });

  it('binds 4,096 columns in a table and refuses 4,097', () => {
    expect(summary(bindBundle(fromSpec(generatedSpec(2, 4096))))).toEqual(BOUND);
    expect(summary(bindBundle(fromSpec(generatedSpec(2, 4097))))).toEqual({
      code: 'scaffold_input_oversized',
      role: 'dry_run',
      field: 'source_schema_snapshot[].columns',
    });
  });

  it('binds column names of 1,024 code points (astral characters count once) and refuses 1,025', () => {
    for (const char of ['x', '😀']) {
      const at = fromSpec(generatedSpec(1, 2, { columnName: (i) => (i === 0 ? 'Id' : char.repeat(1024)) }));
      expect(summary(bindBundle(at))).toEqual(BOUND);
      const over = fromSpec(generatedSpec(1, 2, { columnName: (i) => (i === 0 ? 'Id' : char.repeat(1025)) }));
      expect(summary(bindBundle(over))).toEqual({
        code: 'scaffold_input_oversized',
        role: 'dry_run',
        field: 'source_schema_snapshot[].columns[].name',
      });
    }
  });

  it('applies the 1,024 bound to table names and type families before their field checks', () => {
    const table = (length: number): MutableBundle => {
      const bundle = retailBundle();
      const snapshot = bundle.runManifest.source_schema_snapshot as Doc[];
      at(snapshot, 0).table = 'T'.repeat(length);
      return bundle;
    };
    // 1,024 passes admission and fails the safe-identifier pattern; 1,025 is oversized.
    expect(summary(bindBundle(table(1024)))).toEqual({
      code: 'scaffold_field_malformed',
      role: 'run_manifest',
      field: 'source_schema_snapshot[].table',
    });
    expect(summary(bindBundle(table(1025)))).toEqual({
      code: 'scaffold_input_oversized',
      role: 'run_manifest',
      field: 'source_schema_snapshot[].table',
    });
    const family = (length: number): MutableBundle => {
      const bundle = retailBundle();
      const snapshot = bundle.dryRun.source_schema_snapshot as Doc[];
      (at(snapshot, 1).columns as Doc[])[0] = { name: 'x', type_family: 'f'.repeat(length) };
      return bundle;
    };
    expect(summary(bindBundle(family(1024)))).toEqual({
      code: 'scaffold_field_malformed',
      role: 'dry_run',
      field: 'source_schema_snapshot[].columns[].type_family',
    });
    expect(summary(bindBundle(family(1025)))).toEqual({
      code: 'scaffold_input_oversized',
      role: 'dry_run',
      field: 'source_schema_snapshot[].columns[].type_family',
    });
  });

  it('binds mapping source names of 1 and 255 code points and refuses 0 and 256', () => {
    const withSource = (name: string): MutableBundle => {
      const base = retailSpec();
      return fromSpec({
        ...base,
        tables: base.tables.map((table, index) =>
          index === 0
            ? {
                ...table,
                columns: table.columns.map((column, c) => (c === 0 ? { ...column, raw: name } : column)),
              }
            : table,
        ),
      });
    };
    for (const char of ['s', '𝄞']) {
      expect(summary(bindBundle(withSource(char)))).toEqual(BOUND);
      expect(summary(bindBundle(withSource(char.repeat(255))))).toEqual(BOUND);
      const over = withSource('s');
      const rules = (over.mapping.tables as Record<string, Doc[]>).customers as Doc[];
      at(rules, 0).source = char.repeat(256);
      expect(summary(bindBundle(over))).toEqual({
        code: 'scaffold_input_oversized',
        role: 'mapping',
        field: 'tables[].source',
      });
      at(rules, 0).source = '';
      expect(summary(bindBundle(over))).toEqual({
        code: 'scaffold_mapping_invalid',
        role: 'mapping',
        field: 'tables[].source',
      });
    }
  });
});

describe('freshness limits', () => {
  const at = (finishedMicros: number): MutableBundle => {
    const bundle = retailBundle();
    bundle.runManifest.started_at_utc = formatUtcTimestamp((finishedMicros - 60_000_000) as never);
    bundle.runManifest.finished_at_utc = formatUtcTimestamp(finishedMicros as never);
    return bundle;
  };
  const now = NOW.getTime() * 1000;

  it('binds a run exactly the maximum age old and refuses one a microsecond older', () => {
    expect(summary(bindBundle(at(now - MAX_AGE * 1_000_000)))).toEqual(BOUND);
    expect(summary(bindBundle(at(now - MAX_AGE * 1_000_000 - 1)))).toEqual({
      code: 'scaffold_evidence_stale',
      role: 'run_manifest',
      field: 'finished_at_utc',
    });
  });

  it('binds a run that finished exactly now and refuses one a microsecond in the future', () => {
    expect(summary(bindBundle(at(now)))).toEqual(BOUND);
    expect(summary(bindBundle(at(now + 1)))).toEqual({
      code: 'scaffold_evidence_stale',
      role: 'run_manifest',
      field: 'finished_at_utc',
    });
  });

  it('binds with a maximum age of one second at the bound and refuses a second later', () => {
    const finished = finishedAtMicros();
    expect(summary(bindBundle(retailBundle(), { maxAge: 1, now: new Date(finished / 1000 + 1000) }))).toEqual(
      BOUND,
    );
    expect(summary(bindBundle(retailBundle(), { maxAge: 1, now: new Date(finished / 1000 + 2000) }))).toEqual(
      {
        code: 'scaffold_evidence_stale',
        role: 'run_manifest',
        field: 'finished_at_utc',
      },
    );
  });

  it('has no default: an absent, zero, negative or fractional maximum age is unavailable freshness', () => {
    for (const maxAge of [undefined, 0, -1, 1.5, Number.NaN]) {
      expect(summary(bindBundle(retailBundle(), { maxAge }))).toEqual({
        code: 'scaffold_evidence_freshness_unavailable',
        field: 'max_evidence_age',
      });
    }
  });
});
