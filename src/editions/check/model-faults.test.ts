import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { copyProject, writeTree } from '../../../test/helpers/edition-trees.js';
import { checkProject } from './check.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sealkit-edition-model-faults-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function modelFinding(project: string, name: string) {
  const { report } = await checkProject(project);
  return report.models.find((model) => model.name === name)?.finding;
}

describe('a misspelt config key (docs/editions.md#misspelt-configs)', () => {
  it('regression: materialised in a properties config: is config_key_unknown at the key, with the config meant (was silently a custom config)', async () => {
    const project = copyProject('bigquery', join(dir, 'project'));
    const file = join(project, 'models', 'gold', '_gold__models.yml');
    const text = readFileSync(file, 'utf8');
    const edited = text.replace(
      '  - name: gold_daily_revenue\n',
      '  - name: gold_daily_revenue\n    config:\n      materialised: table\n      partition_by: {field: order_date}\n',
    );
    expect(edited).not.toBe(text);
    writeFileSync(file, edited);
    const line = edited.split('\n').findIndex((row) => row.includes('materialised')) + 1;
    const { report } = await checkProject(project);
    expect(report.status).toBe('failed');
    const entry = report.files.find((item) => item.path === 'models/gold/_gold__models.yml');
    const findings = [entry?.finding, ...(entry?.also ?? [])];
    // partition_by is an adapter's config, not in dbt's schema: never taken for a typo.
    expect(findings).toEqual([
      {
        reason_code: 'config_key_unknown',
        message: 'a config key is not one dbt knows, so it sets nothing',
        location: { path: file, line, column: 7, pointer: expect.stringMatching(/\.config\.materialised$/) },
        hint: "dbt knows no config 'materialised' in a model: it keeps it as a custom config and sets nothing with it; did you mean 'materialized'? (a setting of your own goes under meta)",
      },
    ]);
  });

  it('regression: a misspelt key in config() is config_key_unknown at the key; hooks and incremental configs are not', async () => {
    const project = copyProject('bigquery', join(dir, 'project'));
    writeTree(project, {
      'models/gold/gold_typo.sql':
        "{{ config(unique_key='order_id', pre_hook='select 1', materialised='table') }}\nselect order_id from {{ ref('silver_orders') }}\n",
      'models/gold/gold_fine.sql':
        "{{ config(materialized='incremental', unique_key='order_id', post_hook='select 1', incremental_strategy='merge') }}\nselect order_id from {{ ref('silver_orders') }}\n",
    });
    const { report } = await checkProject(project);
    expect(report.models.find((model) => model.name === 'gold_fine')?.finding).toBeUndefined();
    expect(report.models.find((model) => model.name === 'gold_typo')?.finding).toMatchObject({
      reason_code: 'config_key_unknown',
      location: { path: join(project, 'models', 'gold', 'gold_typo.sql'), line: 1, column: 55 },
      hint: "dbt knows no config 'materialised' in config(): it keeps it as a custom config and sets nothing with it; did you mean 'materialized'? (a setting of your own goes under meta)",
    });
  });

  it('regression: Snowflake Iceberg and tag configs near another config (table_format, base_location_root, table_tag) are not taken for typos', async () => {
    const project = copyProject('snowflake', join(dir, 'project'));
    writeTree(project, {
      'models/gold/gold_iceberg.sql':
        "{{ config(materialized='table', table_format='iceberg', external_volume='vol', base_location_root='lake', base_location_subpath='gold', table_tag='pii', batch_id='b1', table_properties={}) }}\nselect order_id from {{ ref('silver_orders') }}\n",
      'models/gold/gold_iceberg_typo.sql':
        "{{ config(materialized='table', table_formt='iceberg') }}\nselect order_id from {{ ref('silver_orders') }}\n",
    });
    const { report } = await checkProject(project);
    const iceberg = report.models.find((model) => model.name === 'gold_iceberg');
    expect(iceberg?.status).toBe('passed');
    expect(iceberg?.finding).toBeUndefined();
    // A misspelling of one of them is still named, with the config meant.
    expect(report.models.find((model) => model.name === 'gold_iceberg_typo')?.finding).toMatchObject({
      reason_code: 'config_key_unknown',
      hint: expect.stringContaining("did you mean 'table_format'?"),
    });
  });
});

describe('a misspelt config that holds a mapping, in dbt_project.yml', () => {
  it('regression: +column_typs: {…} under seeds: is the unknown key with the config meant, once (was "expected a mapping" at each column inside)', async () => {
    const project = copyProject('bigquery', join(dir, 'project'));
    const file = join(project, 'dbt_project.yml');
    const text = readFileSync(file, 'utf8');
    const edited = `${text}\nseeds:\n  retail_analytics:\n    +column_typs:\n      status_id: integer\n      weight: double\n`;
    writeFileSync(file, edited);
    const line = edited.split('\n').findIndex((row) => row.includes('+column_typs')) + 1;
    const { report } = await checkProject(project);
    const entry = report.files.find((item) => item.path === 'dbt_project.yml');
    expect([entry?.finding, ...(entry?.also ?? [])]).toEqual([
      expect.objectContaining({
        reason_code: 'yaml_schema',
        location: { path: file, line, column: 5, pointer: 'seeds.retail_analytics["+column_typs"]' },
        hint: "dbt does not know the key '+column_typs' here; did you mean '+column_types'?",
      }),
    ]);
  });
});

describe('docs blocks', () => {
  const describeWith = (project: string, description: string): string => {
    const file = join(project, 'models', 'silver', '_silver__models.yml');
    const text = readFileSync(file, 'utf8');
    const edited = text.replace(
      '    description: One row per customer with a present key; exactly the canonical columns.\n',
      `    description: '${description}'\n`,
    );
    expect(edited).not.toBe(text);
    writeFileSync(file, edited);
    return file;
  };

  it('regression: doc() naming a docs block the project lacks is undefined_doc at the description, as dbt parse fails (was passed)', async () => {
    const project = copyProject('bigquery', join(dir, 'project'));
    writeTree(project, {
      'models/silver/docs.md': '{% docs silver_customers %}\nOne row per customer.\n{% enddocs %}\n',
    });
    const file = describeWith(project, '{{ doc("silver_customer") }}');
    const { report } = await checkProject(project);
    expect(report.status).toBe('failed');
    expect(report.files.find((item) => item.path === 'models/silver/_silver__models.yml')?.finding).toEqual({
      reason_code: 'undefined_doc',
      message: 'a description calls doc() for a docs block the project does not have',
      location: { path: file, line: 5, column: 5, pointer: 'models[0].description' },
      hint: "doc('silver_customer') names no docs block of this project (a {% docs silver_customer %} … {% enddocs %} in a .md file): did you mean 'silver_customers'?",
    });
  });

  it('a doc() of a block in a resource path, or in docs-paths when set, passes; one of another package is left alone', async () => {
    const project = copyProject('bigquery', join(dir, 'project'));
    writeTree(project, {
      'models/silver/docs.md': '{% docs silver_customers %}\nOne row per customer.\n{% enddocs %}\n',
    });
    describeWith(project, '{{ doc("silver_customers") }} {{ doc("other_pkg", "shared") }}');
    expect((await checkProject(project)).report.status).toBe('passed');
    // With docs-paths, only those folders hold docs blocks, as in dbt.
    const projectFile = join(project, 'dbt_project.yml');
    writeFileSync(projectFile, `${readFileSync(projectFile, 'utf8')}\ndocs-paths: ["docs"]\n`);
    expect((await checkProject(project)).report.status).toBe('failed');
    writeTree(project, { 'docs/blocks.md': '{% docs silver_customers %}\nOne row.\n{% enddocs %}\n' });
    expect((await checkProject(project)).report.status).toBe('passed');
  });
  it("regression: doc('…') written as text outside {{ }} is no call, as dbt renders it (was undefined_doc)", async () => {
    const text = copyProject('bigquery', join(dir, 'text'));
    describeWith(text, 'Written with doc("customers_intro") once the block exists; see {{ "the glossary" }}');
    expect((await checkProject(text)).report.status).toBe('passed');
    // The same doc() inside {{ }}, after other Jinja, is a call.
    const called = copyProject('bigquery', join(dir, 'called'));
    describeWith(called, '{{ "x" ~ doc("customers_intro") }}');
    const { report } = await checkProject(called);
    expect(report.files.map((file) => file.finding?.reason_code)).toContain('undefined_doc');
  });
});

describe('unit tests', () => {
  it('regression: a unit test on a model, or given a ref() or source(), the project lacks is placed at that key with a did-you-mean (was passed)', async () => {
    const project = copyProject('bigquery', join(dir, 'project'));
    writeTree(project, {
      'models/gold/_unit.yml':
        "version: 2\n\nunit_tests:\n  - name: revenue_sums\n    model: gold_daily_revenu\n    given:\n      - input: ref('silver_order')\n        rows: []\n      - input: source('bronze', 'order')\n        rows: []\n    expect: {rows: []}\n  - name: fine\n    model: gold_daily_revenue\n    given:\n      - input: ref('silver_orders')\n        rows: []\n      - input: source('bronze', 'orders')\n        rows: []\n      - input: this\n        rows: []\n    expect: {rows: []}\n",
    });
    const { report } = await checkProject(project);
    const entry = report.files.find((item) => item.path === 'models/gold/_unit.yml');
    const findings = [entry?.finding, ...(entry?.also ?? [])].map((found) => [
      found?.reason_code,
      found?.location?.line,
      found?.location?.pointer,
      found?.hint,
    ]);
    expect(findings).toEqual([
      [
        'undefined_ref',
        5,
        'unit_tests[0].model',
        "the unit test revenue_sums is on the model 'gold_daily_revenu', which the project does not have: did you mean 'gold_daily_revenue'?",
      ],
      [
        'undefined_ref',
        7,
        'unit_tests[0].given[0].input',
        "ref('silver_order') in the unit test revenue_sums names no model of this project: did you mean 'silver_orders'?",
      ],
      [
        'undefined_source',
        9,
        'unit_tests[0].given[1].input',
        "source('bronze', 'order') in the unit test revenue_sums is not defined in a properties file: did you mean 'bronze.orders'?",
      ],
    ]);
  });
});

describe('Jinja as dbt parse renders it', () => {
  it("regression: run_query() under {% if execute %} renders as in dbt parse (was undefined_macro 'run_query')", async () => {
    const project = copyProject('bigquery', join(dir, 'project'));
    writeTree(project, {
      'models/gold/gold_status_pivot.sql':
        "{% set statuses_query %}\nselect distinct order_status from {{ ref('silver_orders') }}\n{% endset %}\n{% set results = run_query(statuses_query) %}\n{% if execute %}\n{% set statuses = results.columns[0].values() %}\n{% else %}\n{% set statuses = [] %}\n{% endif %}\nselect\n    order_date,\n    {% for s in statuses %}count(case when order_status = '{{ s }}' then 1 end) as {{ s }}_orders,\n    {% endfor %}count(*) as orders\nfrom {{ ref('silver_orders') }}\ngroup by 1\n",
    });
    const { report } = await checkProject(project, { fixtures: join(project, 'fixtures') });
    expect(report.models.find((model) => model.name === 'gold_status_pivot')).toMatchObject({
      status: 'passed',
      built: true,
    });
  });
});

describe("dbt's cross-database macros", () => {
  it('regression: dbt.date_trunc, dbt.dateadd (keywords), dbt.datediff, dbt.safe_cast, dbt.type_string, dbt.concat and dbt.hash render for DuckDB and build (were undefined_macro)', async () => {
    const project = copyProject('bigquery', join(dir, 'project'));
    writeTree(project, {
      'models/gold/gold_cross_db.sql':
        "select\n    order_id,\n    {{ dbt.date_trunc('month', 'order_date') }} as order_month,\n    {{ dbt.dateadd(datepart='day', interval=7, from_date_or_timestamp='order_date') }} as due_date,\n    {{ dbt.datediff('order_date', 'order_date', 'day') }} as zero_days,\n    {{ dbt.safe_cast('customer_id', dbt.type_string()) }} as customer_key,\n    {{ dbt.concat(['order_status', \"'-'\", 'customer_id']) }} as label,\n    {{ dbt.hash('order_id') }} as order_hash\nfrom {{ ref('silver_orders') }}\n",
    });
    const { report, captured } = await checkProject(project, {
      fixtures: join(project, 'fixtures'),
      captureRows: ['gold_cross_db'],
    });
    expect(report.models.find((model) => model.name === 'gold_cross_db')).toMatchObject({
      status: 'passed',
      built: true,
    });
    const rows = captured.gold_cross_db;
    expect(rows?.columns).toEqual([
      'order_id',
      'order_month',
      'due_date',
      'zero_days',
      'customer_key',
      'label',
      'order_hash',
    ]);
    const zero = rows?.columns.indexOf('zero_days') ?? -1;
    expect(rows?.rows.every((row) => row[zero] === '0')).toBe(true);
  });

  it("regression: a cross-database macro called without dbt. renders, as dbt's global macros do; a project macro of that name stays the project's (was undefined_macro)", async () => {
    const project = copyProject('bigquery', join(dir, 'project'));
    writeTree(project, {
      'macros/right.sql': "{% macro right(text, n) %}'mine'{% endmacro %}\n",
      'models/gold/gold_global_macros.sql':
        "select {{ date_trunc('month', 'order_date') }} as order_month, {{ right('order_id', 2) }} as own,\n    {{ dbt.right('order_id', 2) }} as tail\nfrom {{ ref('silver_orders') }}\n",
    });
    const { report, captured } = await checkProject(project, {
      fixtures: join(project, 'fixtures'),
      captureRows: ['gold_global_macros'],
    });
    expect(report.models.find((model) => model.name === 'gold_global_macros')).toMatchObject({
      status: 'passed',
      built: true,
    });
    const [row] = captured.gold_global_macros?.rows ?? [];
    expect(row?.[1]).toBe('mine');
    expect(String(row?.[2])).toHaveLength(2);
  });

  it("regression: dbt.listagg renders its order_by_clause and limit_num, and ',' when no delimiter is given (the order was dropped)", async () => {
    const project = copyProject('bigquery', join(dir, 'project'));
    writeTree(project, {
      'models/gold/gold_listagg.sql':
        "select\n    {{ dbt.listagg('x', \"'|'\", 'order by x desc') }} as newest_first,\n    {{ dbt.listagg('x', order_by_clause='order by x', limit_num=2) }} as first_two,\n    {{ dbt.listagg('x') }} as every_one\nfrom (values ('b'), ('c'), ('a')) as t(x)\n",
    });
    const { report, captured } = await checkProject(project, {
      fixtures: join(project, 'fixtures'),
      captureRows: ['gold_listagg'],
    });
    expect(report.models.find((model) => model.name === 'gold_listagg')).toMatchObject({
      status: 'passed',
      built: true,
    });
    const [row] = captured.gold_listagg?.rows ?? [];
    expect(row?.slice(0, 2)).toEqual(['c|b|a', 'a,b']);
    expect(String(row?.[2]).split(',').sort()).toEqual(['a', 'b', 'c']);
  });
});

describe("dbt's return() and do in a project's macros", () => {
  const MACROS =
    '{% macro status_columns(prefix) %}\n' +
    "  {% if prefix is none %}\n    {% do return(['order_status']) %}\n  {% endif %}\n" +
    "  {{ return([prefix ~ '_status', 'order_status']) }}\n" +
    "  {{ exceptions.raise_compiler_error('unreachable after return') }}\n" +
    '{% endmacro %}\n\n' +
    '{% macro positive(col) %}\n' +
    "  {% if col == 'bad' %}{{ exceptions.raise_compiler_error('not a column: ' ~ col) }}{% endif %}\n" +
    "  {{ return(col ~ ' is not null') }}\n" +
    '{% endmacro %}\n';

  it('regression: a macro that returns a list, through {{ return() }} or {% do return() %}, gives the list (was undefined_macro return)', async () => {
    const project = copyProject('bigquery', join(dir, 'project'));
    writeTree(project, {
      'macros/status_columns.sql': MACROS,
      'models/gold/gold_statuses.sql':
        "{%- set cols = status_columns(none) -%}\n{%- set both = status_columns('raw') -%}\nselect {{ cols | join(', ') }}, '{{ both | join('|') }}' as written\nfrom {{ ref('silver_orders') }}\nwhere {{ positive('order_id') }}\n",
      'models/gold/gold_bad.sql': "select 1 as a where {{ positive('bad') }}\n",
    });
    const { report, captured } = await checkProject(project, {
      fixtures: join(project, 'fixtures'),
      captureRows: ['gold_statuses'],
    });
    expect(report.models.find((model) => model.name === 'gold_statuses')).toMatchObject({
      status: 'passed',
      built: true,
    });
    expect(captured.gold_statuses?.columns).toEqual(['order_status', 'written']);
    expect(captured.gold_statuses?.rows[0]?.[1]).toBe('raw_status|order_status');
    // A compiler error raised before return() still fails, at the call.
    expect(report.models.find((model) => model.name === 'gold_bad')?.finding).toMatchObject({
      reason_code: 'compiler_error',
      location: { line: 1, column: 24 },
      hint: "positive('bad') raised: not a column: bad",
    });
  });
  it("regression: {% do cols.append(…) %}, .items(), .update(), slices and True render as in dbt (was undefined_macro naming a package 'cols')", async () => {
    const project = copyProject('bigquery', join(dir, 'project'));
    writeTree(project, {
      'macros/built_columns.sql':
        '{% macro built_columns(names) %}\n' +
        '  {% set cols = [] %}\n' +
        "  {% for name in names %}{% do cols.append(name ~ '_id') %}{% endfor %}\n" +
        "  {% set renames = {'order_status': 'status'} %}\n" +
        "  {% do renames.update({'order_date': 'ordered_on'}) %}\n" +
        "  {% for old, new in renames.items() %}{% do cols.append(old ~ ' as ' ~ new) %}{% endfor %}\n" +
        '  {% if True %}{{ return(cols[1:]) }}{% endif %}\n' +
        '{% endmacro %}\n',
      'models/gold/gold_built_columns.sql':
        "select {{ built_columns(['skipped', 'order', 'customer']) | join(', ') }}\nfrom {{ ref('silver_orders') }}\n",
    });
    const { report, captured } = await checkProject(project, {
      fixtures: join(project, 'fixtures'),
      captureRows: ['gold_built_columns'],
    });
    expect(report.models.find((model) => model.name === 'gold_built_columns')).toMatchObject({
      status: 'passed',
      built: true,
    });
    expect(captured.gold_built_columns?.columns).toEqual(['order_id', 'customer_id', 'status', 'ordered_on']);
  });
});

describe('test configs', () => {
  it('regression: a test with tags, meta, store_failures or severity: error runs on the fixtures (was unsupported_test); severity: warn stays unsupported at its key', async () => {
    const project = copyProject('bigquery', join(dir, 'project'));
    const file = join(project, 'models', 'silver', '_silver__models.yml');
    const text = readFileSync(file, 'utf8');
    // silver_customers.customer_id, the first column of the file.
    const edited = text.replace(
      '      - name: customer_id\n        data_tests: [not_null, unique]\n',
      '      - name: customer_id\n        data_tests:\n          - not_null:\n              config: {tags: [critical], meta: {owner: data}, store_failures: true, severity: error}\n              name: customer_id_present\n          - unique:\n              config: {severity: warn}\n              name: customer_id_once\n',
    );
    expect(edited).not.toBe(text);
    writeFileSync(file, edited);
    const { report } = await checkProject(project, { fixtures: join(project, 'fixtures') });
    const byName = (name: string) => report.tests.find((test) => test.name === name);
    expect(byName('customer_id_present')).toMatchObject({ status: 'passed', failures: 0 });
    expect(byName('customer_id_once')?.finding).toMatchObject({
      reason_code: 'unsupported_test',
      location: { pointer: expect.stringMatching(/\.unique\.config\.severity$/) },
    });
  });
  it("regression: +severity: warn or +enabled: false in dbt_project.yml's data_tests: is unsupported_test at that key (was ignored, a test dbt only warns about failed here unexplained)", async () => {
    const project = copyProject('bigquery', join(dir, 'project'));
    const file = join(project, 'dbt_project.yml');
    const edited = `${readFileSync(file, 'utf8')}\ndata_tests:\n  retail_analytics:\n    +severity: warn\n    +tags: ['quality']\n    silver:\n      +enabled: false\n`;
    writeFileSync(file, edited);
    const lineOf = (text: string) => edited.split('\n').findIndex((row) => row.includes(text)) + 1;
    const { report } = await checkProject(project);
    expect(report.status).toBe('failed');
    const entry = report.files.find((item) => item.path === 'dbt_project.yml');
    // +tags changes no outcome: only the two that do are named, each at its key.
    expect([entry?.finding, ...(entry?.also ?? [])]).toEqual([
      expect.objectContaining({
        reason_code: 'unsupported_test',
        location: expect.objectContaining({ path: file, line: lineOf('+severity'), column: 5 }),
        hint: "dbt_project.yml sets severity: warn for the tests under data_tests.retail_analytics, which the offline check does not apply from here: those tests run and fail as if it were not set; set it in each test's own config: to have it named there",
      }),
      expect.objectContaining({
        reason_code: 'unsupported_test',
        location: expect.objectContaining({ path: file, line: lineOf('+enabled: false'), column: 7 }),
        hint: expect.stringContaining(
          'sets enabled: false for the tests under data_tests.retail_analytics.silver',
        ),
      }),
    ]);
  });
});

describe("a test's where config", () => {
  it("regression: where: filters the rows the test reads, as dbt's dbt_subquery does (was unsupported_test)", async () => {
    const project = copyProject('bigquery', join(dir, 'project'));
    const file = join(project, 'models', 'silver', '_silver__models.yml');
    const text = readFileSync(file, 'utf8');
    const edited = text.replace(
      '              values: ["placed", "shipped", "delivered", "cancelled", "returned"]\n',
      '              values: ["placed", "shipped", "delivered", "cancelled", "returned"]\n' +
        '          - accepted_values:\n              name: status_not_cancelled\n              values: ["placed", "shipped", "delivered", "returned"]\n' +
        '          - accepted_values:\n              name: status_kept\n              values: ["placed", "shipped", "delivered", "returned"]\n' +
        "              config: {where: \"order_status <> '{{ var('dropped_status', 'cancelled') }}'\"}\n" +
        '          - not_null:\n              name: status_bad_where\n              config: {where: "no_such_column = 1"}\n',
    );
    expect(edited).not.toBe(text);
    writeFileSync(file, edited);
    const { report } = await checkProject(project, { fixtures: join(project, 'fixtures') });
    const byName = (name: string) => report.tests.find((test) => test.name === name);
    // The fixtures hold a cancelled order: without the where it fails, with it it passes.
    expect(byName('status_not_cancelled')).toMatchObject({ status: 'failed', failures: 1 });
    expect(byName('status_kept')).toMatchObject({ status: 'passed', failures: 0 });
    expect(byName('status_bad_where')?.finding).toMatchObject({ reason_code: 'test_error' });
  });
});

describe('model SQL dbt cannot build', () => {
  it("regression: a model ending in ';' is sql_parse_error at the ';' (DuckDB alone accepts it; dbt's create table as ( … ) does not)", async () => {
    const project = copyProject('bigquery', join(dir, 'project'));
    writeTree(project, {
      'models/gold/gold_semi.sql': "select order_id\nfrom {{ ref('silver_orders') }};\n",
    });
    expect(await modelFinding(project, 'gold_semi')).toMatchObject({
      reason_code: 'sql_parse_error',
      location: { path: join(project, 'models', 'gold', 'gold_semi.sql'), line: 2, column: 32 },
      hint: "a model is one query, which dbt puts inside create table … as ( … ) or create view: drop the ';' at its end",
    });
  });

  it('regression: two statements, or a statement that is not a query, say which, at the first ; (was no place, no hint)', async () => {
    const project = copyProject('bigquery', join(dir, 'project'));
    writeTree(project, {
      'models/gold/gold_two.sql': 'select 1 as a;\nselect 2 as b\n',
      'models/gold/gold_update.sql': 'update t set a = 1\n',
    });
    const { report } = await checkProject(project);
    expect(report.models.find((model) => model.name === 'gold_two')?.finding).toMatchObject({
      reason_code: 'sql_not_single_select',
      location: { line: 1, column: 14 },
      hint: "the SQL holds more than one statement (a ';' ends one here): a model or a singular test is one query; make each other query one of its own",
    });
    expect(report.models.find((model) => model.name === 'gold_update')?.finding).toMatchObject({
      reason_code: 'sql_not_single_select',
      hint: 'this statement is not a query: a model or a singular test is one select (or with … select)',
    });
  });

  it('regression: dependency_cycle is placed at the ref() that leads into the cycle', async () => {
    const project = copyProject('bigquery', join(dir, 'project'));
    writeTree(project, {
      'models/gold/gold_a.sql': "-- a\nselect * from {{ ref('gold_b') }}\n",
      'models/gold/gold_b.sql': "select * from {{ ref('gold_a') }}\n",
    });
    const { report } = await checkProject(project);
    expect(report.models.find((model) => model.name === 'gold_a')?.finding).toMatchObject({
      reason_code: 'dependency_cycle',
      location: { path: join(project, 'models', 'gold', 'gold_a.sql'), line: 2, column: 18 },
    });
    expect(report.models.find((model) => model.name === 'gold_b')?.finding).toMatchObject({
      reason_code: 'dependency_cycle',
      location: { line: 1, column: 18 },
    });
  });
});
