import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { copyProject, writeSmallProject } from '../../../test/helpers/edition-trees.js';
import { checkProject } from './check.js';
import type { Finding } from './report.js';

/**
 * Versioned models (dbt 1.5): each version is a model of its own, from its
 * own file, named and tested as dbt names them (docs/editions.md,
 * "Versioned models"). Every project here is a real tree in a temp folder.
 */

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sealkit-edition-versions-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const GOLD_PROPERTIES = 'models/gold/_gold__models.yml';

/** The small project with `gold_order_sizes` in two versions and a model reading both. */
const VERSIONED: Readonly<Record<string, string | null>> = {
  'models/gold/gold_order_sizes.sql': null,
  // Version 1 is not grouped: an order with two items is two rows, which its unique test finds.
  'models/gold/gold_order_sizes_old.sql': "select order_id from {{ ref('silver_order_items') }}\n",
  'models/gold/gold_order_sizes_v2.sql': [
    'select order_id, sum(quantity) as quantity',
    "from {{ ref('silver_order_items') }}",
    'group by order_id',
    '',
  ].join('\n'),
  'models/gold/gold_big_orders.sql': [
    'select latest.order_id, latest.quantity',
    "from {{ ref('gold_order_sizes') }} as latest",
    "join (select distinct order_id from {{ ref('gold_order_sizes', version=1) }}) as first on first.order_id = latest.order_id",
    'where latest.quantity > 1',
    '',
  ].join('\n'),
  [GOLD_PROPERTIES]: [
    'version: 2',
    '',
    'models:',
    '  - name: gold_order_sizes',
    '    latest_version: 2',
    '    config:',
    '      materialized: table',
    '    columns:',
    '      - name: order_id',
    '        data_tests: [not_null, unique]',
    '      - name: quantity',
    '        data_tests: [not_null]',
    '    versions:',
    '      - v: 1',
    '        defined_in: gold_order_sizes_old',
    '        columns:',
    "          - include: '*'",
    '            exclude: [quantity]',
    '      - v: 2',
    '        config:',
    '          materialized: view',
    '  - name: gold_big_orders',
    '    columns:',
    '      - name: order_id',
    '        data_tests:',
    '          - relationships:',
    "              to: ref('gold_order_sizes', v=1)",
    '              field: order_id',
    '',
  ].join('\n'),
};

function project(overrides: Readonly<Record<string, string | null>> = {}): string {
  return writeSmallProject(join(dir, 'shop'), { ...VERSIONED, ...overrides });
}

/** The properties file of the versioned project with one text replaced. */
function properties(from: string, to: string): Readonly<Record<string, string>> {
  const text = VERSIONED[GOLD_PROPERTIES] ?? '';
  if (!text.includes(from)) throw new Error(`no '${from}' in ${GOLD_PROPERTIES}`);
  return { [GOLD_PROPERTIES]: text.replace(from, to) };
}

const lineOf = (text: string, line: string): number => text.split('\n').indexOf(line) + 1;

/** Every finding of the report's files, in file order. */
function fileFindings(report: {
  readonly files: readonly { readonly finding?: Finding; readonly also?: readonly Finding[] }[];
}): Finding[] {
  return report.files.flatMap((file) => [
    ...(file.finding === undefined ? [] : [file.finding]),
    ...(file.also ?? []),
  ]);
}

describe('versioned models', () => {
  it('each version is its own model, listed and configured as dbt lists it, and ref() reads the latest or the pinned one', async () => {
    const shop = project();
    const { report } = await checkProject(shop, { fixtures: join(shop, 'fixtures') });
    expect(report.listed).toEqual([
      'shop.gold.gold_big_orders',
      'shop.gold.gold_order_sizes.v1',
      'shop.gold.gold_order_sizes.v2',
      'shop.silver.silver_order_items',
      'shop.silver.silver_orders',
    ]);
    const gold = report.models
      .filter((model) => model.name.startsWith('gold_'))
      .map(({ name, version, path, materialized, rows }) => ({ name, version, path, materialized, rows }));
    expect(gold).toEqual([
      {
        name: 'gold_big_orders',
        version: undefined,
        path: 'models/gold/gold_big_orders.sql',
        materialized: 'view',
        rows: 2,
      },
      {
        name: 'gold_order_sizes.v1',
        version: '1',
        path: 'models/gold/gold_order_sizes_old.sql',
        materialized: 'table',
        rows: 4,
      },
      {
        name: 'gold_order_sizes.v2',
        version: '2',
        path: 'models/gold/gold_order_sizes_v2.sql',
        materialized: 'view',
        rows: 3,
      },
    ]);
  });

  it('generic tests are named as dbt test names them (<name>_v<version>) and run on each version’s rows', async () => {
    const shop = project();
    const { report } = await checkProject(shop, { fixtures: join(shop, 'fixtures') });
    const tests = report.tests
      .filter((test) => test.attached_to.startsWith('gold_'))
      .map(({ name, attached_to, status, failures }) => ({ name, attached_to, status, failures }));
    expect(tests).toEqual([
      {
        name: 'relationships_gold_big_orders_order_id__order_id__ref_gold_order_sizes_v_1_',
        attached_to: 'gold_big_orders',
        status: 'passed',
        failures: 0,
      },
      {
        name: 'not_null_gold_order_sizes_v1_order_id',
        attached_to: 'gold_order_sizes.v1',
        status: 'passed',
        failures: 0,
      },
      {
        name: 'unique_gold_order_sizes_v1_order_id',
        attached_to: 'gold_order_sizes.v1',
        status: 'failed',
        failures: 1,
      },
      {
        name: 'not_null_gold_order_sizes_v2_order_id',
        attached_to: 'gold_order_sizes.v2',
        status: 'passed',
        failures: 0,
      },
      {
        name: 'unique_gold_order_sizes_v2_order_id',
        attached_to: 'gold_order_sizes.v2',
        status: 'passed',
        failures: 0,
      },
      {
        name: 'not_null_gold_order_sizes_v2_quantity',
        attached_to: 'gold_order_sizes.v2',
        status: 'passed',
        failures: 0,
      },
    ]);
    const failed = report.tests.find((test) => test.name === 'unique_gold_order_sizes_v1_order_id');
    expect(failed?.finding).toMatchObject({
      reason_code: 'test_failed',
      hint: 'unique on gold_order_sizes.v1.order_id: 1 failing row',
      failing_rows: [{ order_id: 'o1', n_records: 2 }],
    });
  });

  it('a version with data_tests of its own (even none) runs those, not the model’s', async () => {
    const shop = project(
      properties(
        '    versions:\n',
        '    data_tests:\n      - dbt_utils.expression_is_true:\n          arguments: {expression: order_id is not null}\n    versions:\n',
      ),
    );
    const written = readFileSync(join(shop, GOLD_PROPERTIES), 'utf8');
    writeFileSync(
      join(shop, GOLD_PROPERTIES),
      written.replace('      - v: 2\n', '      - v: 2\n        data_tests: []\n'),
    );
    const { report } = await checkProject(shop);
    const names = (node: string) =>
      report.tests.filter((test) => test.attached_to === node).map((test) => test.name);
    expect(names('gold_order_sizes.v1')).toEqual([
      'not_null_gold_order_sizes_v1_order_id',
      'unique_gold_order_sizes_v1_order_id',
      'dbt_utils_expression_is_true_gold_order_sizes_v1_order_id_is_not_null',
    ]);
    expect(names('gold_order_sizes.v2')).toEqual([
      'not_null_gold_order_sizes_v2_order_id',
      'unique_gold_order_sizes_v2_order_id',
      'not_null_gold_order_sizes_v2_quantity',
    ]);
  });

  it('without latest_version the greatest version is the latest, and the latest may live in the file named like the model', async () => {
    const shop = project({
      ...properties('    latest_version: 2\n', ''),
      'models/gold/gold_order_sizes_v2.sql': null,
      'models/gold/gold_order_sizes.sql': VERSIONED['models/gold/gold_order_sizes_v2.sql'] ?? '',
    });
    const { report } = await checkProject(shop, { fixtures: join(shop, 'fixtures') });
    const v2 = report.models.find((model) => model.name === 'gold_order_sizes.v2');
    expect(v2).toMatchObject({ path: 'models/gold/gold_order_sizes.sql', status: 'passed', rows: 3 });
    expect(report.models.find((model) => model.name === 'gold_big_orders')).toMatchObject({
      status: 'passed',
      rows: 2,
    });
  });

  it('a ref() to a version the model does not have fails at the ref, naming its versions', async () => {
    const shop = project({
      'models/gold/gold_big_orders.sql': "select * from {{ ref('gold_order_sizes', v=3) }}\n",
    });
    const { report } = await checkProject(shop);
    expect(report.models.find((model) => model.name === 'gold_big_orders')?.finding).toEqual({
      reason_code: 'undefined_ref',
      message: 'ref() names a model the project does not have',
      location: { path: join(shop, 'models/gold/gold_big_orders.sql'), line: 1, column: 18 },
      hint: "ref('gold_order_sizes', v=3): 'gold_order_sizes' has no version 3 (its versions: 1, 2); did you mean 2?",
    });
  });

  it('a ref() to a version’s file by its own name says how dbt names it', async () => {
    const shop = project({
      'models/gold/gold_big_orders.sql': "select * from {{ ref('gold_order_sizes_v2') }}\n",
    });
    const { report } = await checkProject(shop);
    expect(report.models.find((model) => model.name === 'gold_big_orders')?.finding?.hint).toBe(
      "ref('gold_order_sizes_v2'): gold_order_sizes_v2.sql is version 2 of 'gold_order_sizes', which dbt names gold_order_sizes.v2: write ref('gold_order_sizes', v=2)",
    );
  });

  it('refuses a version whose file is missing, at the version entry, naming the file it is close to', async () => {
    const shop = project(properties('        defined_in: gold_order_sizes_old\n', ''));
    const { report } = await checkProject(shop);
    expect(report.status).toBe('failed');
    const text = readFileSync(join(shop, GOLD_PROPERTIES), 'utf8');
    expect(fileFindings(report)).toEqual([
      {
        reason_code: 'version_file_missing',
        message: 'a version of a model has no SQL file',
        location: {
          path: join(shop, GOLD_PROPERTIES),
          line: lineOf(text, '      - v: 1'),
          column: 9,
          pointer: 'models[0].versions[0]',
        },
        hint: "version 1 of 'gold_order_sizes': dbt reads it from gold_order_sizes_v1.sql (or the file defined_in: names), and the project has no such model file: did you mean 'gold_order_sizes_old'?",
      },
    ]);
  });

  it('refuses a version listed twice, at the second v:', async () => {
    const shop = project(properties('      - v: 2\n', '      - v: 2\n      - v: 2.0\n      - v: 2\n'));
    const { report } = await checkProject(shop);
    const text = readFileSync(join(shop, GOLD_PROPERTIES), 'utf8');
    const second = text.split('\n').lastIndexOf('      - v: 2') + 1;
    const findings = fileFindings(report);
    // In file order: the 2.0 entry comes before the second 2.
    expect(findings.map((finding) => finding.reason_code)).toEqual([
      'version_file_missing',
      'duplicate_version',
    ]);
    expect(findings[1]).toEqual({
      reason_code: 'duplicate_version',
      message: 'a model lists the same version more than once',
      location: {
        path: join(shop, GOLD_PROPERTIES),
        line: second,
        column: 9,
        pointer: 'models[0].versions[3].v',
      },
      hint: `version 2 of 'gold_order_sizes' is listed already at line ${lineOf(text, '      - v: 2')}, and dbt refuses a version twice: remove one`,
    });
    // 2.0 is another version to dbt (its text differs), in a file of its own name.
    expect(findings[0]?.hint).toBe(
      "version 2.0 of 'gold_order_sizes': dbt reads it from gold_order_sizes_v2.0.sql (or the file defined_in: names), and the project has no such model file",
    );
  });

  it('refuses a latest_version that names no version, with the versions it has', async () => {
    const shop = project(properties('    latest_version: 2\n', '    latest_version: 3\n'));
    const { report } = await checkProject(shop);
    const text = readFileSync(join(shop, GOLD_PROPERTIES), 'utf8');
    expect(fileFindings(report)).toEqual([
      {
        reason_code: 'latest_version_unknown',
        message: 'latest_version names no version of the model',
        location: {
          path: join(shop, GOLD_PROPERTIES),
          line: lineOf(text, '    latest_version: 3'),
          column: 5,
          pointer: 'models[0].latest_version',
        },
        hint: "latest_version 3 is not one of the versions of 'gold_order_sizes' (1, 2): did you mean 2?",
      },
    ]);
  });

  it('regression: the findings of versions are listed in file order, the first at the top of the file', async () => {
    // They came in the order they were looked for: a duplicate v: at the
    // bottom was the file's finding, ahead of a latest_version above it.
    const shop = project(properties('    latest_version: 2\n', '    latest_version: 3\n'));
    const text = readFileSync(join(shop, GOLD_PROPERTIES), 'utf8');
    writeFileSync(
      join(shop, GOLD_PROPERTIES),
      text.replace('      - v: 2\n', '      - v: 2\n      - v: 1\n'),
    );
    const { report } = await checkProject(shop);
    const written = readFileSync(join(shop, GOLD_PROPERTIES), 'utf8');
    const file = report.files.find((result) => result.path === GOLD_PROPERTIES);
    expect(file?.finding?.reason_code).toBe('latest_version_unknown');
    expect(
      fileFindings(report).map((finding) => [
        finding.reason_code,
        finding.location?.line,
        finding.location?.column,
      ]),
    ).toEqual([
      ['latest_version_unknown', lineOf(written, '    latest_version: 3'), 5],
      ['duplicate_version', written.split('\n').lastIndexOf('      - v: 1') + 1, 9],
    ]);
  });

  it('regression: a version tests: [] leaves the model’s tests, as dbt renames only a tests: that holds one', async () => {
    // It was read as data_tests: [], which runs none; dbt renames tests: to
    // data_tests: only when it lists a test.
    const shop = project(
      properties(
        '    versions:\n',
        '    data_tests:\n      - dbt_utils.expression_is_true:\n          arguments: {expression: order_id is not null}\n    versions:\n',
      ),
    );
    const written = readFileSync(join(shop, GOLD_PROPERTIES), 'utf8');
    writeFileSync(
      join(shop, GOLD_PROPERTIES),
      written.replace('      - v: 2\n', '      - v: 2\n        tests: []\n'),
    );
    const { report } = await checkProject(shop);
    expect(
      report.tests.filter((test) => test.attached_to === 'gold_order_sizes.v2').map((test) => test.name),
    ).toEqual([
      'not_null_gold_order_sizes_v2_order_id',
      'unique_gold_order_sizes_v2_order_id',
      'not_null_gold_order_sizes_v2_quantity',
      'dbt_utils_expression_is_true_gold_order_sizes_v2_order_id_is_not_null',
    ]);
  });

  it('regression: a ref() to a version the model lacks is placed at that ref, not at an earlier one of the model', async () => {
    const shop = project({
      'models/gold/gold_big_orders.sql': [
        "select * from {{ ref('gold_order_sizes', v=1) }}",
        'union all',
        "select * from {{ ref('gold_order_sizes', v=3) }}",
        '',
      ].join('\n'),
    });
    const { report } = await checkProject(shop);
    expect(report.models.find((model) => model.name === 'gold_big_orders')?.finding?.location).toEqual({
      path: join(shop, 'models/gold/gold_big_orders.sql'),
      line: 3,
      column: 18,
    });
  });

  it('regression: an unpinned ref() to a disabled latest version is placed at that ref and names the enabled versions', async () => {
    // It was placed at the first ref() of the model (a pinned one that is
    // enabled), saying only that 'gold_order_sizes.v2' is disabled.
    const shop = project({
      ...properties(
        '          materialized: view\n',
        '          materialized: view\n          enabled: false\n',
      ),
      'models/gold/gold_big_orders.sql': [
        "select order_id from {{ ref('gold_order_sizes', v=1) }}",
        'union all',
        "select order_id from {{ ref('gold_order_sizes') }}",
        '',
      ].join('\n'),
    });
    const { report } = await checkProject(shop);
    expect(report.models.find((model) => model.name === 'gold_big_orders')?.finding).toEqual({
      reason_code: 'ref_to_disabled_model',
      message: 'an enabled model refers to a disabled model',
      location: { path: join(shop, 'models/gold/gold_big_orders.sql'), line: 3, column: 25 },
      hint: "ref('gold_order_sizes') reads its latest version, 'gold_order_sizes.v2', which is disabled for this target and vars: enable it, or pin one that is enabled (v=1)",
    });
  });

  it('regression: a relationships test to a disabled version says which', async () => {
    const shop = project(
      properties(
        '        defined_in: gold_order_sizes_old\n',
        '        defined_in: gold_order_sizes_old\n        config:\n          enabled: false\n',
      ),
    );
    const { report } = await checkProject(shop);
    const text = readFileSync(join(shop, GOLD_PROPERTIES), 'utf8');
    const test = report.tests.find((planned) => planned.attached_to === 'gold_big_orders');
    expect(test?.finding).toEqual({
      reason_code: 'ref_to_disabled_model',
      message: 'an enabled model refers to a disabled model',
      location: {
        path: join(shop, GOLD_PROPERTIES),
        line: lineOf(text, '          - relationships:'),
        column: 13,
        pointer: 'models[1].columns[0].data_tests[0]',
      },
      hint: "ref('gold_order_sizes', v=1) reads 'gold_order_sizes.v1', which is disabled for this target and vars",
    });
  });

  it('refuses properties of a version’s file written as a model of its own', async () => {
    const text = VERSIONED[GOLD_PROPERTIES] ?? '';
    const shop = project({
      [GOLD_PROPERTIES]: `${text}  - name: gold_order_sizes_v2\n    columns:\n      - name: order_id\n        data_tests: [not_null]\n`,
    });
    const { report } = await checkProject(shop);
    const written = readFileSync(join(shop, GOLD_PROPERTIES), 'utf8');
    expect(fileFindings(report)).toEqual([
      {
        reason_code: 'version_file_properties',
        message: "a version's SQL file is also described as a model of its own",
        location: {
          path: join(shop, GOLD_PROPERTIES),
          line: lineOf(written, '  - name: gold_order_sizes_v2'),
          column: 5,
          pointer: 'models[2].name',
        },
        hint: `gold_order_sizes_v2.sql is version 2 of 'gold_order_sizes' (${GOLD_PROPERTIES}:4), which dbt names gold_order_sizes.v2: these properties describe no model; move them under that version in versions:`,
      },
    ]);
  });

  it('refuses a second include/exclude element in a version’s columns', async () => {
    const shop = project(
      properties(
        '            exclude: [quantity]\n',
        '            exclude: [quantity]\n          - include: all\n',
      ),
    );
    const { report } = await checkProject(shop);
    const text = readFileSync(join(shop, GOLD_PROPERTIES), 'utf8');
    expect(fileFindings(report)).toEqual([
      {
        reason_code: 'version_columns_invalid',
        message: "a version's include/exclude of the model's columns is not one dbt reads",
        location: {
          path: join(shop, GOLD_PROPERTIES),
          line: lineOf(text, '          - include: all'),
          column: 13,
          pointer: 'models[0].versions[0].columns[1]',
        },
        hint: "version 1 of 'gold_order_sizes': a version takes at most one include/exclude element in its columns; merge them into one",
      },
    ]);
  });

  it('refuses an unversioned model file of a versioned model’s name (dbt refuses both)', async () => {
    const shop = project({ 'models/gold/gold_order_sizes.sql': 'select 1 as order_id\n' });
    const { report } = await checkProject(shop);
    expect(report.models.find((model) => model.name === 'gold_order_sizes')?.finding).toEqual({
      reason_code: 'duplicate_model',
      message: 'two model files have the same name',
      location: { path: join(shop, 'models/gold/gold_order_sizes.sql') },
      hint: "'gold_order_sizes' is a versioned model (its versions are in gold_order_sizes_old.sql, gold_order_sizes_v2.sql), and dbt refuses an unversioned model of the same name: rename this file to the version it holds (gold_order_sizes_v<version>.sql) or remove it",
    });
  });

  it('the example of docs/editions.md passes on the edition: two versions, one in the model’s own file', async () => {
    const acme = copyProject('bigquery', join(dir, 'acme'));
    const file = join(acme, GOLD_PROPERTIES);
    const text = readFileSync(file, 'utf8');
    const from = [
      '  - name: gold_daily_revenue',
      '    description: Revenue per order date.',
      '    columns:',
      '      - name: order_date',
      '        data_tests: [not_null, unique]',
      '      - name: order_count',
      '        data_tests: [not_null]',
      '      - name: revenue',
      '',
    ].join('\n');
    const to = [
      '  - name: gold_daily_revenue',
      '    latest_version: 1',
      '    config:',
      '      materialized: table',
      '    columns:',
      '      - name: order_date',
      '        data_tests: [not_null, unique]',
      '      - name: order_count',
      '        data_tests: [not_null]',
      '      - name: revenue',
      '    versions:',
      '      - v: 1',
      '        defined_in: gold_daily_revenue',
      '      - v: 2',
      '        config:',
      '          materialized: view',
      '        columns:',
      "          - include: '*'",
      '            exclude: [revenue]',
      '          - name: revenue_cents',
      '',
    ].join('\n');
    expect(text).toContain(from);
    writeFileSync(file, text.replace(from, to));
    const v1 = readFileSync(join(acme, 'models/gold/gold_daily_revenue.sql'), 'utf8');
    writeFileSync(
      join(acme, 'models/gold/gold_daily_revenue_v2.sql'),
      v1.replace(
        'sum(items.quantity * items.unit_price) as revenue',
        'sum(items.quantity * items.unit_price) * 100 as revenue_cents',
      ),
    );
    writeFileSync(
      join(acme, 'models/gold/gold_revenue_readers.sql'),
      "select * from {{ ref('gold_daily_revenue') }} join {{ ref('gold_daily_revenue', v=2) }} using (order_date)\n",
    );
    const { report } = await checkProject(acme, { fixtures: join(acme, 'fixtures') });
    expect(fileFindings(report)).toEqual([]);
    expect(report.status).toBe('passed');
    expect(
      report.models
        .filter((model) => model.name.startsWith('gold_daily_revenue'))
        .map(({ name, path, materialized }) => ({ name, path, materialized })),
    ).toEqual([
      { name: 'gold_daily_revenue.v1', path: 'models/gold/gold_daily_revenue.sql', materialized: 'table' },
      { name: 'gold_daily_revenue.v2', path: 'models/gold/gold_daily_revenue_v2.sql', materialized: 'view' },
    ]);
    expect(
      report.tests
        .filter((test) => test.attached_to.startsWith('gold_daily_revenue'))
        .map((test) => test.name),
    ).toEqual([
      'not_null_gold_daily_revenue_v1_order_date',
      'unique_gold_daily_revenue_v1_order_date',
      'not_null_gold_daily_revenue_v1_order_count',
      'not_null_gold_daily_revenue_v2_order_date',
      'unique_gold_daily_revenue_v2_order_date',
      'not_null_gold_daily_revenue_v2_order_count',
    ]);
  });

  it('regression: an edition model given latest_version 1 and versions [{v: 1}] in gold_daily_revenue_v1.sql passes', async () => {
    const acme = copyProject('bigquery', join(dir, 'acme'));
    const file = join(acme, GOLD_PROPERTIES);
    const text = readFileSync(file, 'utf8');
    const versioned = text.replace(
      '    description: Revenue per order date.\n',
      '    description: Revenue per order date.\n    latest_version: 1\n    versions: [{v: 1}]\n',
    );
    expect(versioned).not.toBe(text);
    writeFileSync(file, versioned);
    renameSync(
      join(acme, 'models/gold/gold_daily_revenue.sql'),
      join(acme, 'models/gold/gold_daily_revenue_v1.sql'),
    );
    const { report } = await checkProject(acme, { fixtures: join(acme, 'fixtures') });
    expect(fileFindings(report)).toEqual([]);
    expect(report.status).toBe('passed');
    expect(report.listed).toContain('retail_analytics.gold.gold_daily_revenue.v1');
    expect(
      report.tests.filter((test) => test.attached_to === 'gold_daily_revenue.v1').map((test) => test.name),
    ).toEqual([
      'not_null_gold_daily_revenue_v1_order_date',
      'unique_gold_daily_revenue_v1_order_date',
      'not_null_gold_daily_revenue_v1_order_count',
    ]);
  });
});
