import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { expectGolden } from '../../test/helpers/golden.js';
import { EDITIONS, ScaffoldScratch, SOURCE_ID } from '../../test/helpers/scaffold-workspace.js';
import { sha256Hex } from '../core/digest/index.js';
import { parseStrict } from '../core/json/index.js';
import { scaffold } from './run.js';

const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as {
  version: string;
};

const GOLDEN = join(import.meta.dirname, 'testdata', 'golden');
const scratch = new ScaffoldScratch('golden');
afterAll(() => scratch.dispose());

function readTree(dir: string): Map<string, Buffer> {
  return new Map(
    readdirSync(dir)
      .sort()
      .map((name) => [name, readFileSync(join(dir, name))]),
  );
}

function mode(path: string): number {
  return lstatSync(path).mode & 0o7777;
}

// The example mapping plus a synthetic inventory give
// byte-identical files per edition, again in a fresh workspace, and every
// published file hashes as the manifest says after the modes are normalized.
describe.each(EDITIONS)('golden output of the %s edition', (edition) => {
  it('publishes exactly the golden files, owner-writable, in two fresh workspaces', async () => {
    const runs = [scratch.fixture(edition), scratch.fixture(edition)];
    for (const fixture of runs) {
      const result = await scaffold(fixture.options());
      expect(result).toMatchObject({
        status: 'published',
        reason_codes: [],
        stage: 'normalize',
        edition,
        source_id: SOURCE_ID,
        output: `models/migration/generated/${SOURCE_ID}`,
      });
      const published = readTree(fixture.output);
      // SEALKIT_UPDATE_GOLDEN=1 rewrites the golden files (review the diff).
      for (const [name, bytes] of published)
        expectGolden(join(GOLDEN, edition, name), bytes.toString('utf8'));
      expect([...published.keys()]).toEqual([...readTree(join(GOLDEN, edition)).keys()]);
      expect(mode(fixture.output)).toBe(0o700);
      for (const name of published.keys()) expect(mode(join(fixture.output, name))).toBe(0o600);
      expect(result.files?.map((file) => file.path)).toEqual(
        [...published.keys()].map((name) => `models/migration/generated/${SOURCE_ID}/${name}`),
      );
      // What may remain besides the output: the empty, owner-only staging root and lock file.
      expect(readdirSync(fixture.stagingRoot)).toEqual([`${SOURCE_ID}.lock`]);
      expect(mode(fixture.stagingRoot)).toBe(0o700);
      expect(mode(join(fixture.stagingRoot, `${SOURCE_ID}.lock`))).toBe(0o600);
      expect(lstatSync(join(fixture.stagingRoot, `${SOURCE_ID}.lock`)).size).toBe(0);
    }
  });

  it('lists every other published file in the manifest with the hash it has after normalization', async () => {
    const fixture = scratch.fixture(edition);
    await scaffold(fixture.options());
    const manifest = parseStrict(readFileSync(join(fixture.output, '.scaffold-manifest.json'))) as {
      files: { path: string; sha256: string }[];
      manifest_schema_version: number;
      generator: { name: string; version: string };
      edition: string;
      source_id: string;
      integrity_checks: Record<string, string>;
    };
    const others = readdirSync(fixture.output)
      .filter((name) => name !== '.scaffold-manifest.json')
      .sort();
    expect(manifest.files.map((file) => file.path)).toEqual(
      others.map((name) => `models/migration/generated/${SOURCE_ID}/${name}`),
    );
    for (const entry of manifest.files) {
      const bytes = readFileSync(join(fixture.project, entry.path));
      expect(sha256Hex(bytes)).toBe(entry.sha256);
    }
    expect(manifest).toMatchObject({
      manifest_schema_version: 2,
      edition,
      source_id: SOURCE_ID,
      generator: { name: 'sealkit scaffold', version: pkg.version },
    });
    expect(Object.keys(manifest.integrity_checks).sort()).toEqual([
      'note',
      'schema_confirmation_fingerprint',
      'source_mapping_fingerprint',
    ]);
  });

  it('writes LF-only UTF-8 text with no timestamp or absolute path', () => {
    for (const [name, bytes] of readTree(join(GOLDEN, edition))) {
      const text = bytes.toString('utf8');
      expect(text.includes('\r'), name).toBe(false);
      expect(text.endsWith('\n'), name).toBe(true);
      expect(/\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/.test(text), name).toBe(false);
      expect(text.includes(scratch.base), name).toBe(false);
      expect(/(^|[\s"'])\/(tmp|home|work|root|var)\//.test(text), name).toBe(false);
    }
  });
});

describe('the generated models', () => {
  const sql = (edition: string, table: string): string =>
    readFileSync(join(GOLDEN, edition, `silver_${SOURCE_ID}__${table}.sql`), 'utf8');
  const yaml = readFileSync(join(GOLDEN, 'bigquery', `_silver_${SOURCE_ID}__models.yml`), 'utf8');

  it('select the canonical columns and the two provenance columns, nothing else', () => {
    const selected = (text: string): string[] =>
      [...text.matchAll(/^ {4}(?:\{\{.*\}\} as )?([a-z_]+),?$/gm)].map((match) => match[1] ?? '');
    expect(selected(sql('bigquery', 'orders'))).toEqual([
      'order_id',
      'customer_id',
      'order_status',
      'order_date',
      'updated_at',
      '_migration_run_id',
      '_ingested_at_utc',
    ]);
    expect(selected(sql('snowflake', 'customers'))).toEqual([
      'customer_id',
      'created_at',
      'country',
      '_migration_run_id',
      '_ingested_at_utc',
    ]);
  });

  it('cast through the edition macro, keep the key policy and flag timestamp, date and numeric casts for review', () => {
    const orders = sql('bigquery', 'orders');
    expect(orders).toContain("where {{ starter_key_is_present('order_id') }}");
    expect(orders).toContain("{{ starter_foreign_key('client_id') }} as customer_id");
    expect(orders).toMatch(/REVIEW: [^\n]*\n[^\n]*\n--\s+order_date \(date\)\n--\s+updated_at \(timestamp\)/);
    expect(orders).toContain('No deduplication');
    expect(sql('bigquery', 'products')).not.toContain('warehouse behaviour of these casts');
    expect(sql('bigquery', 'order_items')).toContain('--   unit_price (numeric)');
  });

  it('are tagged scaffolded (never medallion), gated, materialized as Silver tables, tested on keys and relationships', () => {
    expect(yaml).not.toContain('medallion');
    expect(yaml.match(/tags: \["scaffolded"\]/g)?.length).toBe(4);
    expect(yaml.match(/materialized: table\n {6}tags/g)?.length).toBe(4);
    // The same placement as the shipped Silver models: the target schema, no schema of its own.
    expect(yaml).not.toMatch(/^ {6}schema:/m);
    expect(
      yaml.match(
        /enabled: "\{\{ target.name == 'migration' and var\('enable_migration_models', false\) \}\}"/g,
      )?.length,
    ).toBe(5);
    expect(yaml.match(/data_tests: \[not_null, unique\]/g)?.length).toBe(4);
    expect(yaml).toContain("to: ref('silver_shop__customers')");
    expect(yaml).toContain("to: ref('silver_shop__orders')");
    expect(yaml).toContain("to: ref('silver_shop__products')");
    expect(yaml).toContain("schema: \"{{ env_var('MIGRATION_BRONZE_NAMESPACE'");
    expect(yaml).toContain('- name: migration_bronze_shop');
  });

  it('give every key the type of the shipped Silver keys (string), whatever the mapping casts, and say so', () => {
    // Regression: keys followed the mapping (integer) while the shipped models
    // use string keys, so a relationships test could compare string with integer.
    for (const edition of EDITIONS) {
      for (const table of ['customers', 'products', 'orders', 'order_items']) {
        const text = sql(edition, table);
        const keyLines = text.split('\n').filter((line) => / as [a-z_]+_id,$/.test(line));
        expect(keyLines.length, `${edition} ${table}`).toBeGreaterThan(0);
        for (const line of keyLines) {
          expect(line, `${edition} ${table}`).toMatch(
            /^ {4}\{\{ (starter_cast\('[a-z_]+', 'string'\)|starter_foreign_key\('[a-z_]+'\)) \}\} as [a-z_]+_id,$/,
          );
        }
      }
    }
    expect(sql('bigquery', 'orders')).toContain('--   customer_id (mapping: integer)');
  });

  it('test order_status with the accepted values of the shipped silver_orders', () => {
    const shipped = readFileSync(
      join(
        import.meta.dirname,
        '..',
        '..',
        'editions',
        'Bigquery',
        'models',
        'silver',
        '_silver__models.yml',
      ),
      'utf8',
    );
    const values = /accepted_values:\n\s+values: (\[[^\]]*\])/.exec(shipped)?.[1];
    expect(values).toBe('["placed", "shipped", "delivered", "cancelled", "returned"]');
    expect(yaml).toContain(
      `      - name: order_status\n        data_tests:\n          - accepted_values:\n              values: ${values}`,
    );
  });

  it('write the manifest pretty-printed, keys sorted, with a final newline', () => {
    for (const edition of EDITIONS) {
      const text = readFileSync(join(GOLDEN, edition, '.scaffold-manifest.json'), 'utf8');
      expect(text.startsWith('{\n  "edition": ')).toBe(true);
      expect(text.endsWith('}\n')).toBe(true);
      expect(text).toBe(`${JSON.stringify(JSON.parse(text), null, 2)}\n`);
    }
  });
});
