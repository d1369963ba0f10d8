import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { copyProject, writeTree } from '../../../test/helpers/edition-trees.js';
import { seedTypes } from './apply.js';
import { checkProject } from './check.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sealkit-edition-seeds-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The BigQuery edition with a seed, a snapshot and models that read them (docs/editions.md#seeds-and-snapshots). */
function projectWithSeedAndSnapshot(): string {
  const project = copyProject('bigquery', join(dir, 'project'));
  writeTree(project, {
    'seeds/status_labels.csv':
      'status_id,order_status,label,weight,is_final,valid_from\n' +
      '1,placed,Placed,0.5,false,2024-01-01\n' +
      '2,shipped,Shipped,1.5,false,2024-01-01\n' +
      '3,delivered,Delivered,2,true,2024-01-01\n' +
      '3,cancelled,Cancelled,,true,2024-01-01\n',
    'seeds/_seeds.yml':
      'version: 2\n\nseeds:\n  - name: status_labels\n    columns:\n      - name: status_id\n        data_tests: [unique]\n\nsnapshots:\n  - name: orders_snapshot\n    columns:\n      - name: order_id\n        data_tests: [not_null]\n',
    'snapshots/orders_snapshot.sql':
      "{% snapshot orders_snapshot %}\n{{ config(unique_key='order_id', strategy='check', check_cols='all') }}\nselect * from {{ ref('silver_orders') }}\n{% endsnapshot %}\n",
    'models/gold/gold_status_weights.sql':
      "select o.order_id, s.label, s.status_id + 1 as next_id, s.weight * 2 as double_weight\nfrom {{ ref('silver_orders') }} o\njoin {{ ref('status_labels') }} s on s.order_status = o.order_status\nwhere s.is_final or s.valid_from < date '2025-01-01'\n",
    'models/gold/gold_order_history.sql': "select order_id\nfrom {{ ref('orders_snapshot') }}\n",
  });
  return project;
}

describe('seeds and snapshots', () => {
  it('regression: ref() to a seed or a snapshot renders and parses (was undefined_ref with a did-you-mean to another model)', async () => {
    const project = projectWithSeedAndSnapshot();
    const { report } = await checkProject(project);
    const findings = [
      ...report.models.flatMap((model) => (model.finding === undefined ? [] : [model.finding])),
      ...report.files.flatMap((file) => (file.finding === undefined ? [] : [file.finding])),
    ];
    expect(findings).toEqual([]);
    expect(report.status).toBe('passed');
    expect(report.listed).toContain('retail_analytics.gold.gold_status_weights');
    // The seed's properties file under seeds/ is read as dbt reads it, and its tests are listed, not dropped.
    expect(report.files.map((file) => file.path)).toContain('seeds/_seeds.yml');
    expect(report.tests.map((test) => [test.name, test.status])).toEqual(
      expect.arrayContaining([
        ['unique_status_labels_status_id', 'not_run'],
        ['not_null_orders_snapshot_order_id', 'not_run'],
      ]),
    );
  });

  it('regression: with fixtures a seed is loaded from its CSV with typed columns; a model reading a snapshot is snapshot_not_built at its ref()', async () => {
    const project = projectWithSeedAndSnapshot();
    const { report } = await checkProject(project, { fixtures: join(project, 'fixtures') });
    const weights = report.models.find((model) => model.name === 'gold_status_weights');
    // status_id + 1, weight * 2 and the date comparison only bind once the seed's columns are typed.
    expect(weights).toMatchObject({ status: 'passed', built: true });
    expect(weights?.rows).toBeGreaterThan(0);
    const history = report.models.find((model) => model.name === 'gold_order_history');
    expect(history?.finding).toMatchObject({
      reason_code: 'snapshot_not_built',
      location: { path: join(project, 'models', 'gold', 'gold_order_history.sql'), line: 2, column: 9 },
    });
    expect(history?.finding?.hint).toMatch(/^ref\('orders_snapshot'\) reads a snapshot/);
    const unique = report.tests.find((test) => test.name === 'unique_status_labels_status_id');
    expect(unique).toMatchObject({ status: 'failed', failures: 1 });
    expect(unique?.finding).toMatchObject({
      reason_code: 'test_failed',
      failing_rows: [{ status_id: 3, n_records: 2 }],
    });
    const onSnapshot = report.tests.find((test) => test.name === 'not_null_orders_snapshot_order_id');
    expect(onSnapshot?.finding).toMatchObject({
      reason_code: 'dependency_failed',
      hint: 'not built: orders_snapshot (a snapshot: the offline check builds none)',
    });
  });

  it('regression: a misspelt seed in ref() is undefined_ref with the seed as the did-you-mean', async () => {
    const project = projectWithSeedAndSnapshot();
    writeTree(project, {
      'models/gold/gold_status_weights.sql': "select * from {{ ref('status_label') }}\n",
    });
    const { report } = await checkProject(project);
    expect(report.models.find((model) => model.name === 'gold_status_weights')?.finding).toMatchObject({
      reason_code: 'undefined_ref',
      hint: "ref('status_label'): did you mean 'status_labels'?",
    });
  });

  it('regression: a seed CSV over 4 MiB does not refuse the project; a model reading it says the seed was not loaded, and why', async () => {
    const project = projectWithSeedAndSnapshot();
    const row = '9,placed,Placed,0.5,false,2024-01-01\n';
    const big = `status_id,order_status,label,weight,is_final,valid_from\n${row.repeat(Math.ceil((4 * 1024 * 1024) / row.length) + 1)}`;
    writeTree(project, { 'seeds/status_labels.csv': big });
    const { report } = await checkProject(project, { fixtures: join(project, 'fixtures') });
    expect(report.models.find((model) => model.name === 'silver_orders')?.status).toBe('passed');
    expect(report.models.find((model) => model.name === 'gold_status_weights')?.finding).toMatchObject({
      reason_code: 'dependency_failed',
      hint: 'not built: the seed status_labels (seeds/status_labels.csv is larger than the 4 MiB the check loads of a seed)',
    });
  });

  it('regression: seeds that hold more than 64 MiB together do not refuse the project (was project_too_large); the ones past the bound are not loaded, and say so', async () => {
    const project = projectWithSeedAndSnapshot();
    const row = '9,placed,Placed,0.5,false,2024-01-01\n';
    // Each under the 4 MiB a seed may have; 17 of them pass the 64 MiB of all seeds.
    const body = `status_id,order_status,label,weight,is_final,valid_from\n${row.repeat(Math.floor((3.9 * 1024 * 1024) / row.length))}`;
    const many = Object.fromEntries(
      Array.from({ length: 17 }, (_, index) => [
        `seeds/bulk/bulk_${String(index).padStart(2, '0')}.csv`,
        body,
      ]),
    );
    writeTree(project, {
      ...many,
      'models/gold/gold_bulk_first.sql': "select count(*) as n from {{ ref('bulk_00') }}\n",
      'models/gold/gold_bulk_last.sql': "select count(*) as n from {{ ref('bulk_16') }}\n",
    });
    const { report } = await checkProject(project, { fixtures: join(project, 'fixtures') });
    expect(report.status).toBe('failed');
    // The seeds read first, in name order, load; the one past the bound is named with why.
    expect(report.models.find((model) => model.name === 'gold_bulk_first')).toMatchObject({
      status: 'passed',
      built: true,
    });
    expect(report.models.find((model) => model.name === 'gold_bulk_last')?.finding).toMatchObject({
      reason_code: 'dependency_failed',
      hint: 'not built: the seed bulk_16 (seeds/bulk/bulk_16.csv was not read: the seeds before it in name order already hold the 64 MiB the check loads of seeds in all)',
    });
    expect(report.models.find((model) => model.name === 'gold_status_weights')?.status).toBe('passed');
  }, 60_000);

  it('regression: a seeds: or snapshots: path of dbt_project.yml that applies to nothing is config_path_unused with the name meant; the right paths pass', async () => {
    const project = projectWithSeedAndSnapshot();
    const file = join(project, 'dbt_project.yml');
    const base = readFileSync(file, 'utf8');
    const right =
      'seeds:\n  retail_analytics:\n    +schema: seeds\n    status_labels:\n      +column_types: {status_id: integer}\n' +
      'snapshots:\n  retail_analytics:\n    orders_snapshot:\n      orders_snapshot:\n        +enabled: true\n';
    writeFileSync(file, `${base}\n${right}`);
    expect((await checkProject(project)).report.status).toBe('passed');
    writeFileSync(
      file,
      `${base}\n${right.replace('    status_labels:', '    status_label:').replace('      orders_snapshot:\n        +enabled', '      order_snapshot:\n        +enabled')}`,
    );
    const { report } = await checkProject(project);
    const entry = report.files.find((item) => item.path === 'dbt_project.yml');
    expect(
      [entry?.finding, ...(entry?.also ?? [])].map((found) => [
        found?.reason_code,
        found?.location?.pointer,
        found?.hint,
      ]),
    ).toEqual([
      [
        'config_path_unused',
        'seeds.retail_analytics.status_label',
        "seeds.retail_analytics.status_label applies to no seed (dbt warns that the configuration path applies to no resource), so its configs are not applied; did you mean 'status_labels'?",
      ],
      [
        'config_path_unused',
        'snapshots.retail_analytics.orders_snapshot.order_snapshot',
        "snapshots.retail_analytics.orders_snapshot.order_snapshot applies to no snapshot (dbt warns that the configuration path applies to no resource), so its configs are not applied; did you mean 'orders_snapshot'?",
      ],
    ]);
  });

  it('regression: a seed saved with a BOM, headers with spaces, and quoted-empty or null values loads as dbt seed loads it (was dependency_failed)', async () => {
    const project = copyProject('bigquery', join(dir, 'project'));
    writeTree(project, {
      // Excel's "CSV UTF-8" starts with a BOM, which dbt skips; dbt quotes a seed's column names.
      'seeds/status_notes.csv':
        '\uFEFFOrder Status,note,status weight\n' +
        'placed,"",1\n' +
        'shipped,NULL,2\n' +
        'delivered, null ,\n' +
        'cancelled,"kept, quoted",4\n',
      'seeds/_notes.yml':
        'version: 2\n\nseeds:\n  - name: status_notes\n    columns:\n      - name: note\n        data_tests: [not_null]\n',
      'models/gold/gold_status_notes.sql':
        'select "Order Status" as order_status, note, "status weight" + 1 as next_weight\nfrom {{ ref(\'status_notes\') }}\n',
    });
    const { report } = await checkProject(project, { fixtures: join(project, 'fixtures') });
    const notes = report.models.find((model) => model.name === 'gold_status_notes');
    // "status weight" + 1 binds only once the column is typed: its empty value is NULL, not text.
    expect(notes?.finding).toBeUndefined();
    expect(notes).toMatchObject({ status: 'passed', built: true, rows: 4 });
    // '', NULL and ' null ' are NULL in dbt's seed: the not_null test fails on those three rows.
    const notNull = report.tests.find((test) => test.name === 'not_null_status_notes_note');
    expect(notNull).toMatchObject({ status: 'failed', failures: 3 });
  });

  it("regression: ref() to a seed whose file name holds a dot says the check cannot name it (was did you mean 'status.labels'? of itself)", async () => {
    const project = projectWithSeedAndSnapshot();
    writeTree(project, {
      'seeds/status.labels.csv': 'status_id\n1\n',
      'models/gold/gold_dotted.sql': "select status_id\nfrom {{ ref('status.labels') }}\n",
    });
    const { report } = await checkProject(project);
    expect(report.models.find((model) => model.name === 'gold_dotted')?.finding).toEqual({
      reason_code: 'undefined_ref',
      message: 'ref() names a model the project does not have',
      location: { path: join(project, 'models', 'gold', 'gold_dotted.sql'), line: 2, column: 9 },
      hint: "ref('status.labels') names a model, seed or snapshot of this project whose name is not letters, digits and _ alone: the offline check builds no relation under such a name; rename its file (docs/editions.md#limits-and-choices)",
    });
  });

  it('reads seed columns as dbt does: whole numbers, numbers, dates, timestamps, true/false, else text', () => {
    const types = seedTypes({
      columns: ['i', 'n', 'd', 't', 'b', 's', 'empty', 'mixed'],
      rows: [
        ['1', '1.5', '2024-01-31', '2024-01-31 10:00:00', 'true', 'x', null, '1'],
        ['-20', '2', '2024-02-01', '2024-01-31T10:00:00.5', 'False', 'y', null, 'a'],
        [null, null, null, null, null, null, null, null],
      ],
    });
    expect(Object.fromEntries(types)).toEqual({
      i: 'bigint',
      n: 'double',
      d: 'date',
      t: 'timestamp',
      b: 'boolean',
    });
  });
});

describe('macros called through a namespace', () => {
  it("regression: a package's macro is undefined_macro at its call, naming the package (was no place and no hint)", async () => {
    const project = copyProject('bigquery', join(dir, 'project'));
    writeTree(project, {
      'models/gold/gold_keys.sql':
        "select\n    {{ dbt_utils.generate_surrogate_key(['order_id']) }} as order_key\nfrom {{ ref('silver_orders') }}\n",
    });
    const { report } = await checkProject(project);
    expect(report.models.find((model) => model.name === 'gold_keys')?.finding).toMatchObject({
      reason_code: 'undefined_macro',
      location: { path: join(project, 'models', 'gold', 'gold_keys.sql'), line: 2, column: 8 },
      hint: "'dbt_utils.generate_surrogate_key' is a macro of the package 'dbt_utils', and the offline check installs no packages (packages.yml, dbt_packages/): it renders only this project's macros, so this file cannot be checked offline",
    });
  });

  it("regression: a project macro called through the project's name renders, and a misspelt one gets a did-you-mean", async () => {
    const project = copyProject('bigquery', join(dir, 'project'));
    writeTree(project, {
      'models/gold/gold_cast.sql':
        "select {{ retail_analytics.starter_cast('order_id', 'string') }} as order_key\nfrom {{ ref('silver_orders') }}\n",
      'models/gold/gold_cats.sql':
        "select {{ retail_analytics.starter_cats('order_id', 'string') }} as order_key\nfrom {{ ref('silver_orders') }}\n",
    });
    const { report } = await checkProject(project);
    expect(report.models.find((model) => model.name === 'gold_cast')?.finding).toBeUndefined();
    expect(report.models.find((model) => model.name === 'gold_cats')?.finding).toMatchObject({
      reason_code: 'undefined_macro',
      location: { line: 1, column: 11 },
      hint: "'retail_analytics.starter_cats' is not a macro of this project: did you mean 'starter_cast'?",
    });
  });

  it("regression: a call into dbt's own context the check does not stub (dbt.date_spine) says so, at its call", async () => {
    const project = copyProject('bigquery', join(dir, 'project'));
    writeTree(project, {
      'models/gold/gold_months.sql':
        "select {{ dbt.date_spine('day', 'order_date', 'order_date') }} as order_day\nfrom {{ ref('silver_orders') }}\n",
    });
    const { report } = await checkProject(project);
    const finding = report.models.find((model) => model.name === 'gold_months')?.finding;
    expect(finding).toMatchObject({ reason_code: 'undefined_macro', location: { line: 1, column: 11 } });
    expect(finding?.hint).toMatch(/^'dbt\.date_spine' is part of dbt's own context/);
  });
});
