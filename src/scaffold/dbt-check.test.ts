import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../test/helpers/cli.js';
import {
  EDITIONS,
  type ScaffoldFixture,
  ScaffoldScratch,
  SOURCE_ID,
} from '../../test/helpers/scaffold-workspace.js';
import { checkProject } from '../editions/index.js';
import { retailBundle } from '../migration/testing/bundles.js';
import { parseFaultRules } from './faults.js';
import { scaffold } from './run.js';

const scratch = new ScaffoldScratch('dbt-check');
afterAll(() => scratch.dispose());

const MIGRATION = { target: 'migration', vars: '{enable_migration_models: true}' } as const;
const MODELS = ['customers', 'order_items', 'orders', 'products'].map(
  (table) => `silver_${SOURCE_ID}__${table}`,
);
const PROVENANCE = ['_migration_run_id', '_ingested_at_utc'];

type Row = readonly (string | null)[];

/**
 * Bronze rows per canonical table, by canonical column, including keys the
 * blank-key policy must drop (NULL, '', ASCII spaces) and blank foreign keys
 * it must turn into NULL. Written under the Bronze column names the dry run
 * records for each mapping rule's source, plus one extra non-canonical column.
 */
const ROWS: Readonly<Record<string, { readonly columns: readonly string[]; readonly rows: readonly Row[] }>> =
  {
    customers: {
      columns: ['customer_id', 'created_at', 'country'],
      rows: [
        ['1', '2024-01-03 09:15:00', 'NL'],
        ['2', '2024-01-05 14:02:11', 'DE'],
        ['  ', '2024-01-06 10:00:00', 'FR'],
        ['', '2024-01-07 10:00:00', 'BE'],
        [null, '2024-01-08 10:00:00', 'LU'],
      ],
    },
    products: {
      columns: ['product_id', 'product_name', 'category'],
      rows: [
        ['10', 'Beans', 'coffee'],
        ['11', 'Mug', 'kitchen'],
        [' ', 'Nothing', 'coffee'],
      ],
    },
    orders: {
      columns: ['order_id', 'customer_id', 'order_status', 'order_date', 'updated_at'],
      rows: [
        ['100', '1', 'placed', '2024-03-01', '2024-03-04 08:00:00'],
        ['101', '   ', 'shipped', '2024-03-01', '2024-03-02 16:30:00'],
        ['102', '2', 'delivered', '2024-03-02', '2024-03-05 09:00:00'],
        ['', '1', 'placed', '2024-03-03', '2024-03-03 09:00:00'],
      ],
    },
    order_items: {
      columns: ['order_item_id', 'order_id', 'product_id', 'quantity', 'unit_price'],
      rows: [
        ['1000', '100', '10', '2', '18.50'],
        ['1001', '101', '', '1', '9.95'],
        ['1002', '102', '11', '3', '34.00'],
        ['  ', '102', '10', '1', '1.00'],
      ],
    },
  };

function csvField(value: string | null): string {
  if (value === null) return '';
  return `"${value.replaceAll('"', '""')}"`;
}

/** The Bronze column each canonical column is read from, per the dry run's normalized names of the rule sources. */
function bronzeNames(fixture: ScaffoldFixture): Map<string, Map<string, string>> {
  const bundle = retailBundle({ destination: fixture.edition });
  const rules = bundle.mapping.tables as Record<string, { source: string; target: string }[]>;
  const safety = bundle.dryRun.normalized_identifier_safety as {
    tables: { table: string; normalized_columns: { name: string; normalized_name: string }[] }[];
  };
  const out = new Map<string, Map<string, string>>();
  for (const [table, tableRules] of Object.entries(rules)) {
    const normalized = safety.tables.find((entry) => entry.table === table)?.normalized_columns ?? [];
    out.set(
      table,
      new Map(
        tableRules.map((rule) => [
          rule.target,
          normalized.find((entry) => entry.name === rule.source)?.normalized_name ?? '',
        ]),
      ),
    );
  }
  return out;
}

/** Fixtures: the shipped Bronze CSVs for the ordinary models, and the scaffolded source's tables. */
function writeFixtures(fixture: ScaffoldFixture): string {
  const dir = scratch.dir('fixtures');
  cpSync(join(fixture.project, 'fixtures', 'bronze'), join(dir, 'bronze'), { recursive: true });
  const source = join(dir, `migration_bronze_${SOURCE_ID}`);
  mkdirSync(source);
  const names = bronzeNames(fixture);
  for (const [table, { columns, rows }] of Object.entries(ROWS)) {
    // As the loader writes Bronze: the normalized source columns, then the
    // mapped targets it adds (when their name differs), then provenance.
    const bronze = columns.map((column) => names.get(table)?.get(column) ?? '');
    const added = columns.filter((column) => !bronze.includes(column));
    const header = [...bronze, ...added, ...PROVENANCE, 'zqx_extra'];
    const lines = rows.map((row) =>
      [
        ...row,
        ...added.map((column) => row[columns.indexOf(column)] ?? null),
        'run_0001',
        '2024-04-01T00:00:00Z',
        'zqx',
      ]
        .map(csvField)
        .join(','),
    );
    writeFileSync(join(source, `${table}.csv`), `${[header.join(','), ...lines].join('\n')}\n`);
  }
  return dir;
}

describe.each(EDITIONS)('the offline check of a scaffolded %s workspace', (edition) => {
  let fixture: ScaffoldFixture;
  beforeAll(async () => {
    fixture = scratch.fixture(edition);
    expect((await scaffold(fixture.options())).status).toBe('published');
    // A leftover staging directory of another source id, sealed: dbt must not parse it.
    const leftover = await scaffold({
      ...fixture.options({ sourceId: 'leftover' }),
      faults: { rules: parseFaultRules('fail@after_seal') },
    });
    expect(leftover.staging_state).toBe('sealed');
  });

  it('passes under the migration target: every file valid against dbt’s schemas, every model rendered and parsed', async () => {
    const { report } = await checkProject(fixture.project, MIGRATION);
    expect(report.status).toBe('passed');
    expect(report.files.every((file) => file.status === 'valid')).toBe(true);
    expect(report.files.map((file) => file.path)).toContain(
      `models/migration/generated/${SOURCE_ID}/_silver_${SOURCE_ID}__models.yml`,
    );
    for (const name of MODELS) {
      const model = report.models.find((item) => item.name === name);
      expect(model, name).toMatchObject({
        enabled: true,
        status: 'passed',
        materialized: 'table',
        tags: ['scaffolded'],
      });
    }
    // Nothing from the leftover staging directory is parsed.
    expect(
      report.models.some(
        (model) => model.name.includes('leftover') || model.path.includes('.scaffold-staging'),
      ),
    ).toBe(false);
    expect(report.listed.filter((name) => name.includes('.generated.')).length).toBe(4);
  });

  it('lists no scaffolded model under the default target, nor with half of the gate', async () => {
    for (const options of [{}, { target: 'migration' }, { vars: '{enable_migration_models: true}' }]) {
      const { report } = await checkProject(fixture.project, options);
      expect(report.status).toBe('passed');
      expect(report.listed.some((name) => name.includes(SOURCE_ID))).toBe(false);
      expect(
        report.sources
          .filter((source) => source.name.startsWith(`migration_bronze_${SOURCE_ID}.`))
          .every((s) => !s.enabled),
      ).toBe(true);
    }
  });

  it('builds on DuckDB fixtures: canonical columns only, the key policy applied, every scaffolded test passing', async () => {
    const fixtures = writeFixtures(fixture);
    const { report, captured } = await checkProject(fixture.project, {
      ...MIGRATION,
      fixtures,
      env: { MIGRATION_BRONZE_NAMESPACE: 'starterkit_migration_check' },
      captureRows: MODELS,
    });
    for (const name of MODELS) {
      expect(
        report.models.find((model) => model.name === name),
        name,
      ).toMatchObject({ status: 'passed', built: true });
    }
    const scaffoldedTests = report.tests.filter((test) => MODELS.includes(test.attached_to));
    expect(scaffoldedTests.map((test) => test.kind).sort()).toEqual([
      'accepted_values',
      ...Array(4).fill('not_null'),
      ...Array(3).fill('relationships'),
      ...Array(4).fill('unique'),
    ]);
    expect(scaffoldedTests.every((test) => test.status === 'passed' && test.failures === 0)).toBe(true);
    // The two sources share one Bronze relation: the fixture of the scaffolded source
    // loads it for the shipped migration models too, which read the mapped targets.
    expect(report.models.filter((model) => model.status !== 'passed').map((model) => model.name)).toEqual([]);
    expect(report.status).toBe('passed');

    const customers = captured[MODELS[0] ?? ''];
    expect(customers?.columns).toEqual(['customer_id', 'created_at', 'country', ...PROVENANCE]);
    expect(customers?.rows.map((row) => row[0]).sort()).toEqual(['1', '2']);
    const orders = captured[`silver_${SOURCE_ID}__orders`];
    expect(orders?.columns).toEqual([
      'order_id',
      'customer_id',
      'order_status',
      'order_date',
      'updated_at',
      ...PROVENANCE,
    ]);
    expect(orders?.rows.map((row) => [row[0], row[1]]).sort()).toEqual([
      ['100', '1'],
      ['101', null],
      ['102', '2'],
    ]);
    const items = captured[`silver_${SOURCE_ID}__order_items`];
    expect(items?.rows.map((row) => [row[0], row[2], row[4]]).sort()).toEqual([
      ['1000', '10', '18.500000000'],
      ['1001', null, '9.950000000'],
      ['1002', '11', '34.000000000'],
    ]);
    expect(captured[`silver_${SOURCE_ID}__products`]?.rows.length).toBe(2);
  });
});

describe('the offline check through the built CLI', () => {
  it('passes on a scaffolded workspace under the migration target', async () => {
    const fixture = scratch.fixture('bigquery');
    expect((await scaffold(fixture.options())).status).toBe('published');
    const run = runCli([
      'edition',
      'check',
      fixture.project,
      '--target',
      'migration',
      '--vars',
      '{enable_migration_models: true}',
      '--json',
    ]);
    expect(run.status).toBe(0);
    const report = JSON.parse(run.stdout.toString()) as { status: string; listed: string[] };
    expect(report.status).toBe('passed');
    expect(report.listed).toContain(
      `retail_analytics.migration.generated.${SOURCE_ID}.silver_${SOURCE_ID}__orders`,
    );
  });
});
