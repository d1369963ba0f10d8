import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  copyProject,
  EDITION_PROJECTS,
  writeFixtures,
  writeTree,
} from '../../../test/helpers/edition-trees.js';
import { scanForSentinels } from '../../../test/helpers/sentinels.js';
import { Refusal } from '../../core/refusal/index.js';
import { checkProject } from './check.js';
import { orderedFindings } from './report.js';

const MIGRATION = { target: 'migration', vars: '{enable_migration_models: true}' } as const;
const EDITIONS = ['bigquery', 'snowflake'] as const;
const PROJECT_NAMES = { bigquery: 'retail_analytics', snowflake: 'reliable_pipeline' } as const;

const CANONICAL = {
  customers: ['customer_id', 'created_at', 'country'],
  products: ['product_id', 'product_name', 'category'],
  orders: ['order_id', 'customer_id', 'order_status', 'order_date', 'updated_at'],
  order_items: ['order_item_id', 'order_id', 'product_id', 'quantity', 'unit_price'],
} as const;
const SILVER = ['silver_customers', 'silver_products', 'silver_orders', 'silver_order_items'];
const MIGRATION_SILVER = SILVER.map((name) => `migration_${name}`);

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sealkit-edition-check-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe.each(EDITIONS)('the %s edition', (edition) => {
  const project = EDITION_PROJECTS[edition];
  const fixtures = join(project, 'fixtures');

  it('passes the default target with its Bronze fixtures: Silver and Gold build and every schema test passes', async () => {
    const { report, captured } = await checkProject(project, { fixtures, captureRows: SILVER });
    expect(report.status).toBe('passed');
    expect(report.project).toBe(PROJECT_NAMES[edition]);
    const enabled = report.models.filter((model) => model.enabled);
    expect(enabled.map((model) => model.name).sort()).toEqual(
      ['gold_customer_orders', 'gold_daily_revenue', ...SILVER].sort(),
    );
    for (const model of enabled) {
      expect(model.status).toBe('passed');
      expect(model.built).toBe(true);
      expect(model.rows).toBeGreaterThan(0);
    }
    expect(report.tests.length).toBeGreaterThanOrEqual(19);
    expect(report.tests.every((test) => test.status === 'passed' && test.failures === 0)).toBe(true);
    const kinds = new Set(report.tests.map((test) => test.kind));
    expect([...kinds].sort()).toEqual(['accepted_values', 'not_null', 'relationships', 'unique']);
    // Exactly the canonical columns, in canonical order.
    for (const [table, columns] of Object.entries(CANONICAL)) {
      expect(captured[`silver_${table}`]?.columns).toEqual(columns);
    }
  });

  it('passes the migration target with the gate open: migration Silver models build, tagged medallion', async () => {
    const { report, captured } = await checkProject(project, {
      ...MIGRATION,
      fixtures,
      captureRows: MIGRATION_SILVER,
    });
    expect(report.status).toBe('passed');
    for (const name of MIGRATION_SILVER) {
      const model = report.models.find((item) => item.name === name);
      expect(model).toMatchObject({ enabled: true, status: 'passed', built: true, tags: ['medallion'] });
    }
    for (const [table, columns] of Object.entries(CANONICAL)) {
      expect(captured[`migration_silver_${table}`]?.columns).toEqual([
        ...columns,
        '_migration_run_id',
        '_ingested_at_utc',
      ]);
    }
    expect(report.tests.every((test) => test.status === 'passed')).toBe(true);
  });

  it('lists no migration model under the default target, nor with only one half of the gate', async () => {
    const runs = [
      await checkProject(project),
      await checkProject(project, { target: 'migration' }),
      await checkProject(project, { vars: '{enable_migration_models: true}' }),
      await checkProject(project, { target: 'migration', vars: '{enable_migration_models: false}' }),
    ];
    for (const { report } of runs) {
      expect(report.status).toBe('passed');
      expect(report.listed.length).toBe(6);
      expect(report.listed.some((name) => name.includes('.migration.'))).toBe(false);
      expect(
        report.sources.filter((source) => source.name.startsWith('migration_bronze.')).map((s) => s.enabled),
      ).toEqual([false, false, false, false]);
    }
    const open = await checkProject(project, MIGRATION);
    expect(open.report.listed.filter((name) => name.includes('.migration.')).sort()).toEqual(
      MIGRATION_SILVER.map((name) => `${PROJECT_NAMES[edition]}.migration.silver.${name}`).sort(),
    );
    // An ordinary build is unchanged: the same non-migration models either way.
    expect(open.report.listed.filter((name) => !name.includes('.migration.'))).toEqual(
      runs[0]?.report.listed,
    );
  });

  it('without fixtures renders and parses every model and leaves the tests not run', async () => {
    const { report } = await checkProject(project, MIGRATION);
    expect(report.status).toBe('passed');
    expect(report.fixtures).toBe(false);
    expect(report.models.every((model) => model.status === 'passed' && !model.built)).toBe(true);
    expect(report.tests.every((test) => test.status === 'not_run')).toBe(true);
    expect(report.files.every((file) => file.status === 'valid')).toBe(true);
  });
});

describe('the migration Bronze namespace', () => {
  it('comes from MIGRATION_BRONZE_NAMESPACE (env var before var) and never appears in the report', async () => {
    const project = EDITION_PROJECTS.bigquery;
    const fixtures = join(project, 'fixtures');
    const namespace = 'starterkit_migration_zq_sentinel_ns';
    const withEnv = await checkProject(project, {
      ...MIGRATION,
      fixtures,
      env: { MIGRATION_BRONZE_NAMESPACE: namespace },
    });
    expect(withEnv.report.status).toBe('passed');
    const report = JSON.stringify(withEnv.report);
    expect(scanForSentinels({ stdout: report, stderr: '' }, [], [namespace, 'zq_sentinel'])).toEqual([]);

    // The var is the fallback when the environment variable is unset.
    const withVar = await checkProject(project, {
      target: 'migration',
      vars: `{enable_migration_models: true, migration_bronze_namespace: ${namespace}}`,
      fixtures,
    });
    expect(withVar.report.status).toBe('passed');
  });
});

describe('the blank-key policy (item 136)', () => {
  it('drops NULL, empty and ASCII-space-only primary keys, keeps a tab, and maps blank foreign keys to NULL', async () => {
    const project = copyProject('bigquery', join(dir, 'project'));
    const fixtures = writeFixtures(join(dir, 'fixtures'), {
      'bronze.customers': [
        'customer_id,created_at,country',
        'c1,2024-01-01 00:00:00,NL',
        ',2024-01-02 00:00:00,NULL_KEY',
        '"",2024-01-03 00:00:00,EMPTY_KEY',
        '"   ",2024-01-04 00:00:00,SPACES_KEY',
        '"\t",2024-01-05 00:00:00,TAB_KEY',
        '" c2 ",2024-01-06 00:00:00,PADDED_KEY',
        '',
      ].join('\n'),
      'bronze.products': [
        'product_id,product_name,category',
        'p1,Beans,coffee',
        '"  ",Blank,coffee',
        '',
      ].join('\n'),
      'bronze.orders': [
        'order_id,customer_id,order_status,order_date,updated_at',
        'o1,c1,placed,2024-02-01,2024-02-01 10:00:00',
        'o2,,placed,2024-02-01,2024-02-01 10:00:00',
        'o3,"",shipped,2024-02-02,2024-02-02 10:00:00',
        'o4,"    ",delivered,2024-02-02,2024-02-02 10:00:00',
        'o5,"\t",returned,2024-02-03,2024-02-03 10:00:00',
        '"",c1,placed,2024-02-03,2024-02-03 10:00:00',
        '',
      ].join('\n'),
      'bronze.order_items': [
        'order_item_id,order_id,product_id,quantity,unit_price',
        'i1,o1,p1,2,1.50',
        'i2," ","",1,2.00',
        'i3,,p1,1,3.25',
        '" ",o1,p1,9,9.99',
        '',
      ].join('\n'),
    });
    const { report, captured } = await checkProject(project, { fixtures, captureRows: SILVER });
    expect(captured.silver_customers?.rows).toEqual([
      ['c1', '2024-01-01 00:00:00', 'NL'],
      ['\t', '2024-01-05 00:00:00', 'TAB_KEY'],
      [' c2 ', '2024-01-06 00:00:00', 'PADDED_KEY'],
    ]);
    expect(captured.silver_products?.rows).toEqual([['p1', 'Beans', 'coffee']]);
    expect(captured.silver_orders?.rows).toEqual([
      ['o1', 'c1', 'placed', '2024-02-01', '2024-02-01 10:00:00'],
      ['o2', null, 'placed', '2024-02-01', '2024-02-01 10:00:00'],
      ['o3', null, 'shipped', '2024-02-02', '2024-02-02 10:00:00'],
      ['o4', null, 'delivered', '2024-02-02', '2024-02-02 10:00:00'],
      ['o5', '\t', 'returned', '2024-02-03', '2024-02-03 10:00:00'],
    ]);
    expect(captured.silver_order_items?.rows).toEqual([
      ['i1', 'o1', 'p1', '2', '1.500000000'],
      ['i2', null, null, '1', '2.000000000'],
      ['i3', null, 'p1', '1', '3.250000000'],
    ]);
    // A tab key is a value: the tab customer exists, so the tab order passes relationships.
    expect(report.status).toBe('passed');
  });
});

describe('planted faults in a broken copy', () => {
  const fixturesOf = (project: string) => join(project, 'fixtures');

  it('catches an unknown YAML key (yaml_schema, naming the file, line, key path and the rule)', async () => {
    const project = copyProject('bigquery', join(dir, 'project'));
    const file = join(project, 'models', 'silver', '_silver__models.yml');
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace(
        '  - name: silver_products\n',
        '  - name: silver_products\n    colums_zqkey: []\n',
      ),
    );
    const { report } = await checkProject(project);
    expect(report.status).toBe('failed');
    const entry = report.files.find((item) => item.path === 'models/silver/_silver__models.yml');
    expect(entry).toMatchObject({ status: 'invalid', finding: { reason_code: 'yaml_schema' } });
    expect(entry?.violations).toContainEqual({
      keyword: 'additionalProperties',
      schema_path: '#/properties/models/items/additionalProperties',
    });
    // The operator's own file: the key is named where it is (docs/editions.md#reading-an-error).
    const lines = readFileSync(file, 'utf8').split('\n');
    const line = lines.findIndex((text) => text.includes('colums_zqkey')) + 1;
    expect(entry?.finding).toMatchObject({
      location: { path: file, line, column: 5, pointer: 'models[1].colums_zqkey' },
      hint: "dbt does not know the key 'colums_zqkey' here",
    });
  });

  it('regression: a schema error in a properties file says how many of its tests were not read', async () => {
    const project = copyProject('bigquery', join(dir, 'project'));
    const before = (await checkProject(project)).report.summary.tests;
    const file = join(project, 'models', 'silver', '_silver__models.yml');
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.replace('description:', 'descripton:'));
    const { report } = await checkProject(project);
    const entry = report.files.find((item) => item.path === 'models/silver/_silver__models.yml');
    expect(entry?.finding?.reason_code).toBe('yaml_schema');
    // Every test the file holds is either counted in the summary or named as not read.
    expect(entry?.tests_not_read).toBe(before - report.summary.tests);
    expect(entry?.tests_not_read).toBeGreaterThan(0);
    expect(report.files.filter((item) => item.tests_not_read !== undefined)).toHaveLength(1);
  });

  it('regression: an empty or comment-only properties file is skipped, as dbt skips it (it failed yaml_schema)', async () => {
    const project = copyProject('bigquery', join(dir, 'project'));
    const before = (await checkProject(project)).report;
    for (const text of ['', '# the models of this folder are described later\n', '---\n']) {
      writeFileSync(join(project, 'models', 'silver', '_later.yml'), text);
      const { report } = await checkProject(project);
      expect(report.status).toBe(before.status);
      expect(report.summary.tests).toBe(before.summary.tests);
      expect(report.files.find((item) => item.path === 'models/silver/_later.yml')).toMatchObject({
        status: 'valid',
      });
    }
  });

  it('regression: a model described twice fails (duplicate_properties) at each entry, as dbt refuses it', async () => {
    const project = copyProject('bigquery', join(dir, 'project'));
    const gold = join(project, 'models', 'gold', '_gold__models.yml');
    writeFileSync(
      gold,
      `${readFileSync(gold, 'utf8')}  - name: silver_customers\n    description: described a second time\n`,
    );
    const { report } = await checkProject(project);
    expect(report.status).toBe('failed');
    const silver = 'models/silver/_silver__models.yml';
    const silverLine =
      readFileSync(join(project, silver), 'utf8').split('\n').indexOf('  - name: silver_customers') + 1;
    const goldLine = readFileSync(gold, 'utf8').split('\n').indexOf('  - name: silver_customers') + 1;
    expect(report.files.find((item) => item.path === 'models/gold/_gold__models.yml')?.finding).toMatchObject(
      {
        reason_code: 'duplicate_properties',
        location: { path: gold, line: goldLine, column: 5 },
        hint: `model 'silver_customers' is also described at ${silver}:${silverLine}: dbt allows one entry per model; merge them`,
      },
    );
    expect(report.files.find((item) => item.path === silver)?.finding).toMatchObject({
      reason_code: 'duplicate_properties',
      location: { line: silverLine },
    });
  });

  it('regression: a sources file that does not parse is reported with --fixtures, not hidden behind fixture_unknown_table', async () => {
    const project = copyProject('bigquery', join(dir, 'project'));
    const file = join(project, 'models', 'bronze', '_bronze__sources.yml');
    const text = readFileSync(file, 'utf8');
    const broken = text.replace(
      '      - name: order_items\n        columns:\n',
      '      - name: order_items\n        columns:\n         - name: note\n',
    );
    expect(broken).not.toBe(text);
    writeFileSync(file, broken);
    // The line after the stray one is where its siblings stop lining up.
    const line = broken.split('\n').indexOf('         - name: note') + 2;
    const { report } = await checkProject(project, { fixtures: fixturesOf(project) });
    expect(report.status).toBe('failed');
    expect(
      report.files.find((item) => item.path === 'models/bronze/_bronze__sources.yml')?.finding,
    ).toMatchObject({ reason_code: 'yaml_syntax', location: { path: file, line } });
    // Its tables' fixtures are set aside, every one named, none refused.
    expect(report.fixtures_not_loaded).toEqual(
      ['customers', 'order_items', 'orders', 'products'].map((table) =>
        join(fixturesOf(project), 'bronze', `${table}.csv`),
      ),
    );
    // A source() of a table defined there says why it is unknown.
    expect(report.models.find((model) => model.name === 'silver_orders')?.finding).toMatchObject({
      reason_code: 'undefined_source',
      hint: `source('bronze', 'orders') is not defined in a properties file that was read: 'bronze' is written in models/bronze/_bronze__sources.yml, which does not parse (yaml_syntax at line ${line}) and so was not read`,
    });
    // A fixture of a table no source defines is still refused once every file is read.
    writeFileSync(file, text);
    writeFixtures(fixturesOf(project), { 'bronze.suppliers': 'supplier_id\ns1\n' });
    await expect(checkProject(project, { fixtures: fixturesOf(project) })).rejects.toMatchObject({
      code: 'fixture_unknown_table',
    });
  });

  it('catches a ref to a missing model (undefined_ref)', async () => {
    const project = copyProject('snowflake', join(dir, 'project'));
    const file = join(project, 'models', 'gold', 'gold_daily_revenue.sql');
    writeFileSync(file, readFileSync(file, 'utf8').replace("ref('silver_orders')", "ref('silver_orderz')"));
    const { report } = await checkProject(project);
    expect(report.status).toBe('failed');
    expect(report.models.find((model) => model.name === 'gold_daily_revenue')).toMatchObject({
      status: 'failed',
      finding: { reason_code: 'undefined_ref' },
    });
    expect(report.models.filter((model) => model.status === 'failed').length).toBe(1);
    expect(report.models.find((model) => model.name === 'gold_daily_revenue')?.finding).toMatchObject({
      location: { path: file },
      hint: "ref('silver_orderz'): did you mean 'silver_orders'?",
    });
  });

  it('catches a SQL syntax error (sql_parse_error)', async () => {
    const project = copyProject('bigquery', join(dir, 'project'));
    const file = join(project, 'models', 'silver', 'silver_products.sql');
    writeFileSync(file, readFileSync(file, 'utf8').replace(' as category\n', ' as category,\nfrom from\n'));
    const { report } = await checkProject(project);
    expect(report.status).toBe('failed');
    expect(report.models.find((model) => model.name === 'silver_products')).toMatchObject({
      status: 'failed',
      finding: { reason_code: 'sql_parse_error' },
    });
  });

  it('catches a failing unique test (test_failed, with its failing-row count)', async () => {
    const project = copyProject('snowflake', join(dir, 'project'));
    const fixtures = fixturesOf(project);
    const file = join(fixtures, 'bronze', 'products.csv');
    writeFileSync(file, `${readFileSync(file, 'utf8')}p001,Duplicate beans,coffee\n`);
    const { report } = await checkProject(project, { fixtures });
    expect(report.status).toBe('failed');
    const failed = report.tests.filter((test) => test.status === 'failed');
    expect(failed.map((test) => test.name)).toEqual(['unique_silver_products_product_id']);
    expect(failed[0]).toMatchObject({
      failures: 1,
      finding: { reason_code: 'test_failed', failing_rows: [{ product_id: 'p001', n_records: 2 }] },
    });
  });

  it('catches an undefined macro, a ref to a disabled model and a dependency cycle', async () => {
    const project = copyProject('bigquery', join(dir, 'project'));
    const silver = join(project, 'models', 'silver');
    writeFileSync(join(silver, 'silver_customers.sql'), "select {{ starter_kast('a', 'string') }} as a");
    writeFileSync(
      join(project, 'models', 'gold', 'gold_x.sql'),
      "select * from {{ ref('migration_silver_orders') }}",
    );
    writeFileSync(join(project, 'models', 'gold', 'gold_a.sql'), "select * from {{ ref('gold_b') }}");
    writeFileSync(join(project, 'models', 'gold', 'gold_b.sql'), "select * from {{ ref('gold_a') }}");
    const { report } = await checkProject(project);
    const code = (name: string) => report.models.find((model) => model.name === name)?.finding?.reason_code;
    expect(code('silver_customers')).toBe('undefined_macro');
    expect(code('gold_x')).toBe('ref_to_disabled_model');
    expect(code('gold_a')).toBe('dependency_cycle');
    expect(code('gold_b')).toBe('dependency_cycle');
  });

  it("masks env_var() and var() values in DuckDB's message (sql_parse_error detail)", async () => {
    const project = copyProject('bigquery', join(dir, 'project'));
    writeFileSync(
      join(project, 'models', 'gold', 'gold_env.sql'),
      "select 1 as a from {{ ref('silver_orders') }} as t {{ env_var('ZQ_SECRET') }}\n",
    );
    const { report } = await checkProject(project, { env: { ZQ_SECRET: 'zq_secret_value' } });
    const found = report.models.find((model) => model.name === 'gold_env')?.finding;
    // DuckDB names the token it stopped at, which is the env_var() value.
    expect(found).toMatchObject({
      reason_code: 'sql_parse_error',
      location: { line: 1 },
      detail: 'syntax error at or near "…"',
    });
    expect(scanForSentinels({ stdout: JSON.stringify(report), stderr: '' }, [], ['zq_secret_value'])).toEqual(
      [],
    );
  });

  it('ignores a leftover .scaffold-staging folder (only model and macro paths are read)', async () => {
    const project = copyProject('bigquery', join(dir, 'project'));
    writeFixtures(join(project, '.scaffold-staging'), { 'x.broken': 'not sql {{' });
    writeFileSync(join(project, '.scaffold-staging', 'broken.sql'), 'selct {{ nope(');
    const { report } = await checkProject(project);
    expect(report.status).toBe('passed');
  });
});

describe('a renamed project', () => {
  it('regression: a models:/sources: path that applies to no resource is config_path_unused, at its key', async () => {
    const project = copyProject('bigquery', join(dir, 'project'));
    const file = join(project, 'dbt_project.yml');
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.replace('name: retail_analytics', 'name: acme_analytics'));
    const { report } = await checkProject(project, { fixtures: join(project, 'fixtures') });
    expect(report.status).toBe('failed');
    const entry = report.files.find((item) => item.path === 'dbt_project.yml');
    const lines = text.split('\n');
    const modelsLine = lines.indexOf('models:') + 2;
    const sourcesLine = lines.indexOf('sources:') + 2;
    expect([entry?.finding, ...(entry?.also ?? [])]).toEqual([
      {
        reason_code: 'config_path_unused',
        message: 'a models:, sources:, seeds: or snapshots: path in dbt_project.yml applies to no resource',
        location: { path: file, line: modelsLine, column: 3, pointer: 'models.retail_analytics' },
        hint: "'retail_analytics' is not this project's name ('acme_analytics'): dbt files every model under its project's name, so none of the configs here apply; rename the key to acme_analytics",
      },
      {
        reason_code: 'config_path_unused',
        message: 'a models:, sources:, seeds: or snapshots: path in dbt_project.yml applies to no resource',
        location: { path: file, line: sourcesLine, column: 3, pointer: 'sources.retail_analytics' },
        hint: "'retail_analytics' is not this project's name ('acme_analytics'): dbt files every source table under its project's name, so none of the configs here apply; rename the key to acme_analytics",
      },
    ]);
  });

  it('regression: a misspelt folder under models: names the folder it is close to', async () => {
    const project = copyProject('snowflake', join(dir, 'project'));
    const file = join(project, 'dbt_project.yml');
    writeFileSync(file, readFileSync(file, 'utf8').replace('    silver:\n', '    silvr:\n'));
    const { report } = await checkProject(project);
    expect(report.files.find((item) => item.path === 'dbt_project.yml')?.finding).toMatchObject({
      reason_code: 'config_path_unused',
      location: { pointer: 'models.reliable_pipeline.silvr' },
      hint: "models.reliable_pipeline.silvr applies to no model (dbt warns that the configuration path applies to no resource), so its configs are not applied; did you mean 'silver'?",
    });
  });

  it('regression: a sources: key that misses its folder level names the path it is close to, like every other level', async () => {
    const project = copyProject('bigquery', join(dir, 'project'));
    const file = join(project, 'dbt_project.yml');
    const text = readFileSync(file, 'utf8');
    const before = 'sources:\n  retail_analytics:\n';
    expect(text).toContain(before);
    writeFileSync(
      file,
      text.replace(
        before,
        `${before}    migration_bronze_typo:\n      +enabled: false\n    silver_customerz:\n      +enabled: false\n`,
      ),
    );
    // A models: key of a model's name, its folder left out, the same way.
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace(
        'models:\n  retail_analytics:\n',
        'models:\n  retail_analytics:\n    silver_customerz:\n      +enabled: false\n',
      ),
    );
    const { report } = await checkProject(project);
    const entry = report.files.find((item) => item.path === 'dbt_project.yml');
    const unused = [entry?.finding, ...(entry?.also ?? [])].filter(
      (found) => found?.reason_code === 'config_path_unused',
    );
    expect(
      unused.map((found) => [found?.location?.pointer, found?.hint?.replace(/^.*not applied/, '')]),
    ).toEqual([
      [
        'models.retail_analytics.silver_customerz',
        "; did you mean 'silver.silver_customers'? 'silver_customers' is under 'silver' in dbt's path",
      ],
      [
        'sources.retail_analytics.migration_bronze_typo',
        "; did you mean 'migration.migration_bronze'? 'migration_bronze' is under 'migration' in dbt's path",
      ],
      // A name no source, table or folder is near gets no guess.
      ['sources.retail_analytics.silver_customerz', ''],
    ]);
  });

  it.each(EDITIONS)(
    'regression: the %s edition passes under another project name once the config keys follow it (its macros name no dispatch namespace)',
    async (edition) => {
      const project = copyProject(edition, join(dir, 'project'));
      const file = join(project, 'dbt_project.yml');
      const name = PROJECT_NAMES[edition];
      writeFileSync(file, readFileSync(file, 'utf8').replaceAll(name, 'acme_analytics'));
      const { report } = await checkProject(project, { ...MIGRATION, fixtures: join(project, 'fixtures') });
      expect(report.project).toBe('acme_analytics');
      expect(report.status).toBe('passed');
      expect(report.models.filter((model) => model.tags.includes('medallion'))).toHaveLength(4);
    },
  );
});

describe('Jinja render failures say what and where', () => {
  const findingOf = async (project: string, name: string) =>
    (await checkProject(project)).report.models.find((model) => model.name === name)?.finding;

  it('regression: an {% if %} without {% endif %} is placed at the if, and says which end tag is missing', async () => {
    const project = copyProject('bigquery', join(dir, 'project'));
    const file = join(project, 'models', 'gold', 'gold_j1.sql');
    writeFileSync(
      file,
      "select 1 as a\nfrom {{ ref('silver_orders') }}\n{% if var('x', true) %}\nwhere 1 = 1\n",
    );
    expect(await findingOf(project, 'gold_j1')).toMatchObject({
      reason_code: 'jinja_syntax',
      location: { path: file, line: 3, column: 1 },
      hint: 'this {% if %} is never closed: add {% endif %} where it should end',
    });
    // A {{ never closed is named as such, at the {{.
    writeFileSync(file, "select 1 as a\nfrom {{ ref('silver_orders')\n");
    expect(await findingOf(project, 'gold_j1')).toMatchObject({
      location: { line: 2, column: 6 },
      hint: 'this {{ is never closed: add }}',
    });
  });

  it('regression: an undefined printed variable and an unknown filter are named, at their line', async () => {
    const project = copyProject('bigquery', join(dir, 'project'));
    const gold = join(project, 'models', 'gold');
    writeFileSync(
      join(gold, 'gold_j2.sql'),
      "select order_id,\n       {{ undefined_thing }} as y\nfrom {{ ref('silver_orders') }}\n",
    );
    writeFileSync(
      join(gold, 'gold_j3.sql'),
      "select order_id,\n '{{ 'a' | uper }}' as z\nfrom {{ ref('silver_orders') }}\n",
    );
    const { report } = await checkProject(project);
    const finding = (name: string) => report.models.find((model) => model.name === name)?.finding;
    expect(finding('gold_j2')).toMatchObject({
      reason_code: 'undefined_variable',
      location: { line: 2, column: 8 },
      hint: "'undefined_thing' is not defined here: set it with {% set undefined_thing = … %}, or read a project variable with var('undefined_thing')",
    });
    expect(finding('gold_j3')).toMatchObject({
      reason_code: 'undefined_filter',
      location: { line: 2, column: 10 },
      hint: "no filter 'uper': did you mean 'upper'?",
    });
  });

  it("regression: a macro's compiler error carries its own message and the call that raised it", async () => {
    const project = copyProject('bigquery', join(dir, 'project'));
    const file = join(project, 'models', 'silver', 'silver_customers.sql');
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.replace("starter_cast('country', 'string')", "starter_cast('country', 'text')"));
    const line = text.split('\n').findIndex((row) => row.includes("starter_cast('country'")) + 1;
    expect(line).toBeGreaterThan(0);
    expect(await findingOf(project, 'silver_customers')).toMatchObject({
      reason_code: 'compiler_error',
      location: { path: file, line },
      hint: "starter_cast('country', 'text') raised: starter_cast: unsupported type name",
    });
  });

  it('regression: a misspelt macro is named at its call, with the macro it is close to', async () => {
    const project = copyProject('bigquery', join(dir, 'project'));
    const file = join(project, 'models', 'silver', 'silver_orders.sql');
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.replace("starter_cast('order_status'", "starter_cats('order_status'"));
    const line = text.split('\n').findIndex((row) => row.includes("starter_cast('order_status'")) + 1;
    expect(await findingOf(project, 'silver_orders')).toMatchObject({
      reason_code: 'undefined_macro',
      location: { path: file, line },
      hint: "'starter_cats' is not a macro of this project: did you mean 'starter_cast'?",
    });
  });

  it('regression: a dispatch to another namespace names it, the project and where the dispatch is written', async () => {
    const project = copyProject('bigquery', join(dir, 'project'));
    const macro = join(project, 'macros', 'starter_cast.sql');
    const text = readFileSync(macro, 'utf8');
    const written = text.replace(
      /adapter\.dispatch\('starter_cast'(?:, '[a-z_]+')?\)/,
      "adapter.dispatch('starter_cast', 'old_name')",
    );
    expect(written).not.toBe(text);
    writeFileSync(macro, written);
    const dispatchLine = written.split('\n').findIndex((row) => row.includes("'old_name'")) + 1;
    const { report } = await checkProject(project);
    const found = report.models.find((model) => model.name === 'silver_products')?.finding;
    expect(found).toMatchObject({
      reason_code: 'undefined_macro',
      hint: `adapter.dispatch('starter_cast', 'old_name') in macros/starter_cast.sql:${dispatchLine} looks for starter_cast in the namespace 'old_name' alone, and this project is 'retail_analytics': write adapter.dispatch('starter_cast') (dbt then searches this project), or name 'retail_analytics'`,
    });
    expect(found?.location?.line).toBeGreaterThan(0);
  });
});

describe('duplicates and parse lines', () => {
  it('regression: each copy of a duplicate model is reported at its own file, naming the other', async () => {
    const project = copyProject('bigquery', join(dir, 'project'));
    const silver = join(project, 'models', 'silver', 'silver_orders.sql');
    const gold = join(project, 'models', 'gold', 'silver_orders.sql');
    writeFileSync(gold, readFileSync(silver));
    const { report } = await checkProject(project);
    const copies = report.models.filter((model) => model.name === 'silver_orders');
    expect(copies.map((model) => [model.path, model.finding?.location?.path, model.finding?.hint])).toEqual([
      [
        'models/gold/silver_orders.sql',
        gold,
        'another model file has the same name: models/silver/silver_orders.sql',
      ],
      [
        'models/silver/silver_orders.sql',
        silver,
        'another model file has the same name: models/gold/silver_orders.sql',
      ],
    ]);
  });

  it('regression: duplicate_macro names the line of the second definition and where the first is', async () => {
    const project = copyProject('bigquery', join(dir, 'project'));
    const macro = '{% macro to_cents(c) -%}cast(round({{ c }} * 100, 0) as bigint){%- endmacro %}\n';
    writeFixtures(join(project, 'macros'), {});
    writeFileSync(join(project, 'macros', 'money.sql'), macro);
    writeFileSync(join(project, 'macros', 'zz_money2.sql'), `-- copy\n\n${macro}`);
    const { report } = await checkProject(project);
    expect(report.files.find((file) => file.path === 'macros/zz_money2.sql')?.finding).toMatchObject({
      reason_code: 'duplicate_macro',
      location: { line: 3, column: 1 },
      hint: "the macro 'to_cents' is also defined at macros/money.sql:1; dbt allows one macro per name: rename or remove one",
    });
  });

  it('regression: a parse error after a for loop is placed on its line when the file has that line once', async () => {
    const project = copyProject('bigquery', join(dir, 'project'));
    const file = join(project, 'models', 'gold', 'gold_flags.sql');
    writeFileSync(
      file,
      [
        "{% set cats = ['books', 'games'] %}",
        'select',
        '    p.product_id,,',
        '    {% for c in cats %}',
        "    case when p.category = '{{ c }}' then 1 else 0 end as is_{{ c }},",
        '    {% endfor %}',
        '    1 as one',
        "from {{ ref('silver_products') }} as p",
        '',
      ].join('\n'),
    );
    const { report } = await checkProject(project);
    expect(report.models.find((model) => model.name === 'gold_flags')?.finding).toMatchObject({
      reason_code: 'sql_parse_error',
      location: { path: file, line: 3, column: 18 },
    });
    // A line the loop writes many times cannot be placed: the rendered line is named instead.
    writeFileSync(
      file,
      [
        "{% set cats = ['books', 'games'] %}",
        'select',
        '    {% for c in cats %}',
        "    case when p.category = '{{ c }}' then 1 else 0 end as is_{{ c }},,",
        '    {% endfor %}',
        '    1 as one',
        "from {{ ref('silver_products') }} as p",
        '',
      ].join('\n'),
    );
    const again = (await checkProject(project)).report.models.find(
      (model) => model.name === 'gold_flags',
    )?.finding;
    expect(again).toMatchObject({ reason_code: 'sql_parse_error' });
    expect(again?.location?.line).toBeUndefined();
    expect(again?.hint).toMatch(
      /^DuckDB stops at line [0-9]+, column [0-9]+ of the rendered SQL; Jinja changed the file's lines/,
    );
  });
});

describe('tests the check cannot run', () => {
  it('regression: a package test keeps its dotted name as its kind, and each unsupported form says why', async () => {
    const project = copyProject('bigquery', join(dir, 'project'));
    const file = join(project, 'models', 'gold', '_gold__models.yml');
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('      - name: revenue\n');
    writeFileSync(
      file,
      text.replace(
        '      - name: revenue\n',
        '      - name: revenue\n        data_tests:\n          - dbt_utils.accepted_range:\n              min_value: 0\n          - accepted_values:\n              value: [a]\n',
      ),
    );
    const { report } = await checkProject(project, { fixtures: join(project, 'fixtures') });
    const failed = report.tests.filter((test) => test.status === 'failed');
    expect(failed.map((test) => [test.name, test.kind, test.finding?.reason_code])).toEqual([
      // dbt's names: the argument values follow the column (min_value 0; value [a]).
      [
        'dbt_utils_accepted_range_gold_daily_revenue_revenue__0',
        'dbt_utils.accepted_range',
        'unsupported_test',
      ],
      ['accepted_values_gold_daily_revenue_revenue__a', 'accepted_values', 'unsupported_test'],
    ]);
    expect(failed[0]?.finding?.hint).toContain("a test of the package 'dbt_utils'");
    expect(failed[1]?.finding?.hint).toBe("accepted_values has no argument 'value': did you mean 'values'?");
  });
});

describe('test names, as dbt gives them (docs/editions.md, "Test names")', () => {
  it('regression: the edition lists its tests by the names dbt test prints, source tests and argument values included', async () => {
    const project = copyProject('bigquery', join(dir, 'project'));
    const file = join(project, 'models', 'bronze', '_bronze__sources.yml');
    const text = readFileSync(file, 'utf8');
    const orders =
      '          - name: order_id\n          - name: customer_id\n          - name: order_status\n';
    expect(text.split(orders)).toHaveLength(2);
    writeFileSync(
      file,
      text.replace(
        orders,
        [
          '          - name: order_id',
          '            data_tests: [not_null]',
          '          - name: customer_id',
          '            data_tests:',
          '              - relationships:',
          "                  arguments: {to: \"source('bronze', 'customers')\", field: customer_id}",
          '          - name: order_status',
          '            data_tests:',
          '              - accepted_values:',
          '                  values: [placed, shipped, delivered, cancelled, returned]',
          '                  quote: true',
          '',
        ].join('\n'),
      ),
    );
    const { report } = await checkProject(project, { fixtures: join(project, 'fixtures') });
    // Every test ran; Bronze holds a blank customer_id, which its relationships test finds.
    expect(
      report.tests
        .filter((test) => test.status !== 'passed')
        .map((test) => [test.name, test.finding?.reason_code]),
    ).toEqual([
      [
        'source_relationships_bronze_orders_customer_id__customer_id__source_bronze_customers_',
        'test_failed',
      ],
    ]);
    const names = report.tests.map((test) => test.name);
    // Each name follows dbt's rule (test-names.test.ts spells out its steps):
    expect(names).toEqual(
      expect.arrayContaining([
        // on a source: source_<test>_<source>_<table>_<column>.
        'source_not_null_bronze_orders_order_id',
        // column_name, field, to: the source() call as written, each run of other characters one _.
        'source_relationships_bronze_orders_customer_id__customer_id__source_bronze_customers_',
        // column_name, quote (True), values.
        'source_accepted_values_bronze_orders_order_status__True__placed__shipped__delivered__cancelled__returned',
        // The edition's own tests: ref('…') as written, the values after the column.
        'relationships_silver_orders_customer_id__customer_id__ref_silver_customers_',
        'accepted_values_silver_orders_order_status__placed__shipped__delivered__cancelled__returned',
        'not_null_silver_orders_order_id',
      ]),
    );
    // The names dbt shortens for its files (64 characters or more) are listed in full, as dbt test prints them.
    expect(names.filter((name) => name.length >= 64).length).toBeGreaterThan(0);
    expect(names.some((name) => /_[0-9a-f]{32}$/.test(name))).toBe(false);
  });
});

describe("generic test arguments under arguments: (dbt 1.10's form)", () => {
  const STATUS_TESTS = [
    '      - name: customer_id',
    '        data_tests:',
    '          - relationships:',
    "              to: ref('silver_customers')",
    '              field: customer_id',
    '      - name: order_status',
    '        data_tests:',
    '          - accepted_values:',
    '              values: ["placed", "shipped", "delivered", "cancelled", "returned"]',
    '',
  ].join('\n');
  /** The bigquery edition with silver_orders' customer_id and order_status tests replaced by `tests` (YAML lines). */
  const nestedTests = (tests: string): { project: string; file: string } => {
    const project = copyProject('bigquery', join(dir, 'project'));
    const file = join(project, 'models', 'silver', '_silver__models.yml');
    const text = readFileSync(file, 'utf8');
    expect(text.split(STATUS_TESTS)).toHaveLength(2);
    writeFileSync(file, text.replace(STATUS_TESTS, tests));
    return { project, file };
  };
  const ordersTests = <T extends { readonly attached_to: string; readonly column: string }>(
    tests: readonly T[],
  ): T[] =>
    tests.filter(
      (test) => test.attached_to === 'silver_orders' && ['customer_id', 'order_status'].includes(test.column),
    );
  const NESTED = [
    '      - name: customer_id',
    '        data_tests:',
    '          - relationships:',
    "              arguments: {to: ref('silver_customers'), field: customer_id}",
    '      - name: order_status',
    '        data_tests:',
    '          - accepted_values:',
    '              arguments:',
    '                values: ["placed", "shipped", "delivered", "cancelled", "returned"]',
    '              description: "status is one of the known values"',
    '          - test_name: not_null',
    '            name: status_nn',
    '            arguments: {}',
    '',
  ].join('\n');

  it('regression: arguments: and description: pass the schema step and the tests run on the fixtures', async () => {
    const { project } = nestedTests(NESTED);
    const { report } = await checkProject(project, { fixtures: join(project, 'fixtures') });
    expect(report.files.every((file) => file.status === 'valid')).toBe(true);
    expect(ordersTests(report.tests).map((test) => [test.name, test.kind, test.status])).toEqual([
      // Named from the arguments under arguments: as from those beside (docs/editions.md, "Test names").
      [
        'relationships_silver_orders_customer_id__customer_id__ref_silver_customers_',
        'relationships',
        'passed',
      ],
      [
        'accepted_values_silver_orders_order_status__placed__shipped__delivered__cancelled__returned',
        'accepted_values',
        'passed',
      ],
      ['status_nn', 'not_null', 'passed'],
    ]);
    expect(report.status).toBe('passed');
  });

  it('regression: an accepted_values test with its values under arguments: fails on a fixture row of another value', async () => {
    const { project } = nestedTests(NESTED);
    const fixtures = join(dir, 'fixtures');
    cpSync(join(project, 'fixtures'), fixtures, { recursive: true });
    const orders = join(fixtures, 'bronze', 'orders.csv');
    const text = readFileSync(orders, 'utf8');
    expect(text).toContain('o1001,c001,delivered,');
    writeFileSync(orders, text.replace('o1001,c001,delivered,', 'o1001,c001,lost,'));
    const { report } = await checkProject(project, { fixtures });
    const status = ordersTests(report.tests).find((test) => test.kind === 'accepted_values');
    expect(status).toMatchObject({ status: 'failed', failures: 1 });
    expect(status?.finding).toMatchObject({
      reason_code: 'test_failed',
      failing_rows: [{ order_status: 'lost', n_records: 1 }],
    });
    expect(report.status).toBe('failed');
  });

  it('regression: an argument given both in arguments: and beside it is unsupported_test at that key', async () => {
    const { project, file } = nestedTests(
      NESTED.replace(
        '          - accepted_values:\n              arguments:\n',
        '          - accepted_values:\n              values: ["placed"]\n              arguments:\n',
      ).replace(
        "              arguments: {to: ref('silver_customers'), field: customer_id}\n",
        "              arguments: {to: ref('silver_customers')}\n              field: customer_id\n",
      ),
    );
    const lines = readFileSync(file, 'utf8').split('\n');
    const lineOf = (text: string): number => lines.indexOf(text) + 1;
    expect(lineOf('              values: ["placed"]')).toBeGreaterThan(0);
    expect(lineOf('              field: customer_id')).toBeGreaterThan(0);
    const { report } = await checkProject(project, { fixtures: join(project, 'fixtures') });
    const [related, status, notNull] = ordersTests(report.tests);
    expect(related?.finding).toEqual(
      expect.objectContaining({
        reason_code: 'unsupported_test',
        location: {
          path: file,
          line: lineOf('              field: customer_id'),
          column: 15,
          pointer: 'models[2].columns[1].data_tests[0].relationships.field',
        },
        hint: "relationships gives 'field' beside 'arguments': dbt merges the two, but since dbt 1.10 an argument belongs in 'arguments'; put every argument there",
      }),
    );
    expect(status?.finding).toEqual(
      expect.objectContaining({
        reason_code: 'unsupported_test',
        location: {
          path: file,
          line: lineOf('              values: ["placed"]'),
          column: 15,
          pointer: 'models[2].columns[2].data_tests[0].accepted_values.values',
        },
        hint: "accepted_values gives 'values' both in 'arguments' and beside it: dbt takes the one in 'arguments' and drops the other without a word; put every argument in 'arguments'",
      }),
    );
    expect(notNull).toMatchObject({ name: 'status_nn', status: 'passed' });
  });

  it('regression: a misspelt argument under arguments: gets a did-you-mean, as beside it', async () => {
    const { project } = nestedTests(NESTED.replace('                values: [', '                value: ['));
    const { report } = await checkProject(project, { fixtures: join(project, 'fixtures') });
    const status = ordersTests(report.tests).find((test) => test.kind === 'accepted_values');
    expect(status?.finding).toMatchObject({
      reason_code: 'unsupported_test',
      hint: "accepted_values has no argument 'value': did you mean 'values'?",
    });
  });
});

describe("a model's or source table's own test on its column_name (a column or an SQL expression)", () => {
  const ORDERS = '    description: One row per order with a present key; blank customer keys are NULL.\n';
  const BRONZE_ORDERS = '      - name: orders\n        columns:\n';
  /** The bigquery edition with silver_orders' own data_tests (YAML lines), and bronze.orders' if given. */
  const withTests = (
    modelTests: string,
    sourceTests?: string,
  ): { project: string; file: string; lineOf: (text: string) => number } => {
    const project = copyProject('bigquery', join(dir, 'project'));
    const file = join(project, 'models', 'silver', '_silver__models.yml');
    const text = readFileSync(file, 'utf8');
    expect(text.split(ORDERS)).toHaveLength(2);
    writeFileSync(file, text.replace(ORDERS, `${ORDERS}    data_tests:\n${modelTests}`));
    if (sourceTests !== undefined) {
      const sources = join(project, 'models', 'bronze', '_bronze__sources.yml');
      const before = readFileSync(sources, 'utf8');
      expect(before.split(BRONZE_ORDERS)).toHaveLength(2);
      writeFileSync(
        sources,
        before.replace(
          BRONZE_ORDERS,
          `      - name: orders\n        data_tests:\n${sourceTests}        columns:\n`,
        ),
      );
    }
    const lines = readFileSync(file, 'utf8').split('\n');
    return { project, file, lineOf: (line) => lines.indexOf(line) + 1 };
  };
  /** The tests of silver_orders' own data_tests (its column tests test these columns). */
  const ownTests = <T extends { readonly attached_to: string; readonly column: string }>(
    tests: readonly T[],
  ) =>
    tests.filter(
      (test) =>
        test.attached_to === 'silver_orders' &&
        !['order_id', 'customer_id', 'order_status'].includes(test.column),
    );
  const COMPOUND = `      - unique:\n          column_name: "order_id || '-' || customer_id"\n`;

  it("regression: the compound-unique pattern and not_null, accepted_values, relationships on a column_name run on the fixtures under dbt's names (were unsupported_test: no argument 'column_name')", async () => {
    const { project } = withTests(
      [
        COMPOUND,
        '      - not_null:\n          arguments:\n            column_name: order_date\n',
        '      - test_name: accepted_values\n        column_name: upper(order_status)\n',
        '        arguments:\n          values: [PLACED, SHIPPED, DELIVERED, CANCELLED, RETURNED]\n',
        '      - relationships:\n          column_name: "coalesce(customer_id, \'c001\')"\n',
        "          arguments: {to: ref('silver_customers'), field: customer_id}\n",
      ].join(''),
      '          - unique:\n              column_name: order_id\n',
    );
    const { report } = await checkProject(project, { fixtures: join(project, 'fixtures') });
    expect(report.files.every((file) => file.status === 'valid')).toBe(true);
    // dbt's names: the column_name's value first (its other characters one _ each), then the other arguments.
    expect(ownTests(report.tests).map((test) => [test.name, test.kind, test.column, test.status])).toEqual([
      ['unique_silver_orders_order_id_customer_id', 'unique', "order_id || '-' || customer_id", 'passed'],
      ['not_null_silver_orders_order_date', 'not_null', 'order_date', 'passed'],
      [
        'accepted_values_silver_orders_upper_order_status___PLACED__SHIPPED__DELIVERED__CANCELLED__RETURNED',
        'accepted_values',
        'upper(order_status)',
        'passed',
      ],
      [
        'relationships_silver_orders_coalesce_customer_id_c001___customer_id__ref_silver_customers_',
        'relationships',
        "coalesce(customer_id, 'c001')",
        'passed',
      ],
    ]);
    // A source table's own test, named source_<test>_<source>_<table>_<column_name>.
    expect(
      report.tests
        .filter((test) => test.attached_to === 'bronze.orders')
        .map((test) => [test.name, test.column, test.status]),
    ).toEqual([['source_unique_bronze_orders_order_id', 'order_id', 'passed']]);
    expect(report.status).toBe('passed');
  });

  it('regression: a compound unique fails on duplicated fixture rows, showing the expression and its count', async () => {
    const { project, file, lineOf } = withTests(COMPOUND);
    const fixtures = join(dir, 'fixtures');
    cpSync(join(project, 'fixtures'), fixtures, { recursive: true });
    const orders = join(fixtures, 'bronze', 'orders.csv');
    const text = readFileSync(orders, 'utf8');
    const row = 'o1002,c002,shipped,2024-03-01,2024-03-02 16:30:00\n';
    expect(text).toContain(row);
    // The same order and customer twice; o1003 again with another customer is no repeat of the pair.
    writeFileSync(
      orders,
      text.replace(row, `${row}${row}o1003,c002,placed,2024-03-02,2024-03-02 09:12:00\n`),
    );
    const { report } = await checkProject(project, { fixtures });
    const [compound] = ownTests(report.tests);
    expect(compound).toMatchObject({
      name: 'unique_silver_orders_order_id_customer_id',
      status: 'failed',
      failures: 1,
    });
    expect(compound?.finding).toEqual(
      expect.objectContaining({
        reason_code: 'test_failed',
        location: {
          path: file,
          line: lineOf('      - unique:'),
          column: 9,
          pointer: 'models[2].data_tests[0]',
        },
        hint: "unique on silver_orders (order_id || '-' || customer_id): 1 failing row",
        failing_rows: [{ "order_id || '-' || customer_id": 'o1002-c002', n_records: 2 }],
      }),
    );
  });

  it('regression: a column_name DuckDB cannot parse, or not one value, is sql_parse_error at its key, fixtures or not; one it cannot bind is test_error there', async () => {
    const { project, file, lineOf } = withTests(
      [
        '      - not_null:\n          column_name: "(order_id"\n',
        '      - unique:\n          column_name: "order_id, customer_id"\n',
        '      - not_null:\n          arguments:\n            column_name: order_idd\n',
        '      - not_null:\n          column_name: order_id = = 1\n',
      ].join(''),
    );
    for (const fixtures of [undefined, join(project, 'fixtures')]) {
      const { report } = await checkProject(project, fixtures === undefined ? {} : { fixtures });
      const [paren, pair, unknown, twice] = ownTests(report.tests);
      expect(paren?.finding).toEqual(
        expect.objectContaining({
          reason_code: 'sql_parse_error',
          location: {
            path: file,
            line: lineOf('          column_name: "(order_id"'),
            column: 11,
            pointer: 'models[2].data_tests[0].not_null.column_name',
          },
          hint: "column_name is SQL that dbt pastes into the test's query, and DuckDB's parser refuses it (DuckDB stops at its end)",
          detail: 'syntax error at end of input',
        }),
      );
      expect(pair?.finding).toEqual(
        expect.objectContaining({
          reason_code: 'sql_parse_error',
          location: expect.objectContaining({
            line: lineOf('          column_name: "order_id, customer_id"'),
            pointer: 'models[2].data_tests[1].unique.column_name',
          }),
          hint: "dbt pastes column_name into the test's query as the one value it selects, groups and filters by, so a second value, an alias, * or a clause there breaks that query or changes what it tests: give a column or one SQL expression",
        }),
      );
      expect(twice?.finding).toMatchObject({
        reason_code: 'sql_parse_error',
        location: { pointer: 'models[2].data_tests[3].not_null.column_name' },
        hint: "column_name is SQL that dbt pastes into the test's query, and DuckDB's parser refuses it (DuckDB stops at character 12 of it)",
        detail: 'syntax error at or near "="',
      });
      if (fixtures === undefined) expect(unknown?.status).toBe('not_run');
      else
        expect(unknown?.finding).toEqual(
          expect.objectContaining({
            reason_code: 'test_error',
            location: {
              path: file,
              line: lineOf('            column_name: order_idd'),
              column: 13,
              pointer: 'models[2].data_tests[2].not_null.arguments.column_name',
            },
            detail: expect.stringMatching(/^Binder Error: Referenced column "order_idd" not found/),
          }),
        );
      expect(report.status).toBe('failed');
    }
  });

  it("regression: a column's test given a column_name too is unsupported_test at that key, saying what dbt tests; a model's test without one says it needs it", async () => {
    const { project, file, lineOf } = withTests('      - not_null\n');
    const text = readFileSync(file, 'utf8');
    const date = '      - name: order_date\n';
    expect(text.split(date)).toHaveLength(2);
    writeFileSync(
      file,
      text.replace(
        date,
        `${date}        data_tests:\n          - not_null:\n              column_name: updated_at\n          - unique:\n              arguments: {column_name: updated_at}\n`,
      ),
    );
    const lines = readFileSync(file, 'utf8').split('\n');
    const { report } = await checkProject(project, { fixtures: join(project, 'fixtures') });
    const byName = (name: string) => report.tests.find((test) => test.name === name);
    expect(byName('not_null_silver_orders_')?.finding).toMatchObject({
      reason_code: 'unsupported_test',
      location: { line: lineOf('      - not_null'), column: 9, pointer: 'models[2].data_tests[0]' },
      hint: "not_null in the data_tests of a model or source table needs 'column_name', the column or SQL expression it tests: only a column's tests get it from their column",
    });
    // Named as dbt names them: the column over a column_name beside the arguments, one under them over the column.
    expect(byName('not_null_silver_orders_order_date')?.finding).toMatchObject({
      reason_code: 'unsupported_test',
      location: {
        line: lines.indexOf('              column_name: updated_at') + 1,
        column: 15,
        pointer: 'models[2].columns[3].data_tests[0].not_null.column_name',
      },
      hint: "not_null is declared on the column 'order_date' and gives 'column_name' too: dbt tests the column and drops 'updated_at' without a word; move the test to the data_tests of the model or source table, or drop 'column_name'",
    });
    expect(byName('unique_silver_orders_updated_at')?.finding).toMatchObject({
      reason_code: 'unsupported_test',
      location: { pointer: 'models[2].columns[3].data_tests[1].unique.arguments.column_name' },
      hint: "unique is declared on the column 'order_date' and gives 'column_name' in 'arguments' too: dbt tests 'updated_at' instead of the column without a word; move the test to the data_tests of the model or source table, or drop 'column_name'",
    });
  });

  it("regression: a model's test on the column a column's test already tests is duplicate_test, as dbt's id compares column_name", async () => {
    const { project, file, lineOf } = withTests(
      '      - not_null:\n          column_name: order_id\n      - not_null:\n          column_name: customer_id\n',
    );
    const lines = readFileSync(file, 'utf8').split('\n');
    // silver_orders.order_id's `data_tests: [not_null, unique]`, the line after its name.
    const columnTests = lines.indexOf('      - name: order_id', lines.indexOf('  - name: silver_orders')) + 2;
    const { report } = await checkProject(project, { fixtures: join(project, 'fixtures') });
    const rows = report.tests
      .filter((test) => test.name === 'not_null_silver_orders_order_id' || test.column === 'customer_id')
      .filter((test) => test.attached_to === 'silver_orders' && test.kind === 'not_null')
      .map((test) => [test.name, test.status, test.finding?.reason_code]);
    expect(rows).toEqual([
      // dbt reads a model's columns before its own tests: the column's test is the first.
      ['not_null_silver_orders_order_id', 'passed', undefined],
      ['not_null_silver_orders_order_id', 'failed', 'duplicate_test'],
      // Blank customer keys are NULL in silver_orders: this one runs, and finds it.
      ['not_null_silver_orders_customer_id', 'failed', 'test_failed'],
    ]);
    const repeat = report.tests.find((test) => test.finding?.reason_code === 'duplicate_test');
    expect(repeat?.finding).toMatchObject({
      location: { line: lineOf('      - not_null:'), column: 9, pointer: 'models[2].data_tests[0]' },
      hint: `models/silver/_silver__models.yml:${columnTests} is a test of the name 'not_null_silver_orders_order_id' too, with the same arguments, and dbt refuses two tests of one name: remove one, or give one a name: of its own`,
    });
  });
});

describe('a test given its own name', () => {
  /** The bigquery edition with silver_customers.customer_id's tests replaced by `tests` (YAML lines). */
  const namedTests = (tests: string): string => {
    const project = copyProject('bigquery', join(dir, 'project'));
    const file = join(project, 'models', 'silver', '_silver__models.yml');
    const text = readFileSync(file, 'utf8');
    const before = '      - name: customer_id\n        data_tests: [not_null, unique]\n';
    expect(text).toContain(before);
    writeFileSync(file, text.replace(before, `      - name: customer_id\n        data_tests:\n${tests}`));
    return project;
  };
  const testsOf = async (project: string) =>
    (await checkProject(project, { fixtures: join(project, 'fixtures') })).report.tests.filter(
      (test) => test.attached_to === 'silver_customers',
    );

  it('regression: the test_name: form and the one-key form are named by their name:, as dbt names them', async () => {
    const project = namedTests(
      '          - name: my_nn\n            test_name: not_null\n          - unique:\n              name: customer_key_unique\n          - test_name: not_null\n',
    );
    expect((await testsOf(project)).map((test) => [test.name, test.kind, test.status])).toEqual([
      ['my_nn', 'not_null', 'passed'],
      ['customer_key_unique', 'unique', 'passed'],
      // test_name: alone is the same form with no arguments, named as dbt forms a name.
      ['not_null_silver_customers_customer_id', 'not_null', 'passed'],
    ]);
  });

  it('regression: a finding about a named test names it, and a misspelt test_name: is placed at that key', async () => {
    const project = namedTests('          - name: my_nn\n            test_name: not_nul\n');
    const file = join(project, 'models', 'silver', '_silver__models.yml');
    const line = readFileSync(file, 'utf8').split('\n').indexOf('            test_name: not_nul') + 1;
    expect(line).toBeGreaterThan(0);
    expect(await testsOf(project)).toEqual([
      expect.objectContaining({
        name: 'my_nn',
        kind: 'not_nul',
        status: 'failed',
        finding: expect.objectContaining({
          reason_code: 'unsupported_test',
          location: {
            path: file,
            line,
            column: 13,
            pointer: 'models[0].columns[0].data_tests[0].test_name',
          },
          hint: "the test my_nn: did you mean 'not_null'?",
        }),
      }),
    ]);
  });

  it('regression: a named test that fails on the fixtures is named in its finding', async () => {
    const project = namedTests('          - not_null\n');
    // Two customers of the fixtures are in NL: a unique test on country fails on them.
    const file = join(project, 'models', 'silver', '_silver__models.yml');
    const text = readFileSync(file, 'utf8');
    expect(text.split('      - name: country\n')).toHaveLength(2);
    writeFileSync(
      file,
      text.replace(
        '      - name: country\n',
        '      - name: country\n        data_tests:\n          - name: one_customer_per_country\n            test_name: unique\n',
      ),
    );
    const tests = await testsOf(project);
    expect(tests.map((test) => [test.name, test.status])).toEqual([
      ['not_null_silver_customers_customer_id', 'passed'],
      ['one_customer_per_country', 'failed'],
    ]);
    expect(tests[1]?.finding).toMatchObject({
      reason_code: 'test_failed',
      hint: 'one_customer_per_country (unique on silver_customers.country): 1 failing row',
      failing_rows: [{ country: 'NL', n_records: 2 }],
    });
  });

  it('regression: a name: that is not a plain identifier is unsupported_test, saying so', async () => {
    const project = namedTests('          - not_null:\n              name: "my nn"\n');
    const [test] = await testsOf(project);
    expect(test).toMatchObject({ name: 'not_null_silver_customers_customer_id', status: 'failed' });
    expect(test?.finding).toMatchObject({
      reason_code: 'unsupported_test',
      hint: "the name 'my nn' is not a plain identifier (letters, digits and _), the only test names the offline check reports",
    });
  });
});

describe('a generic test repeated', () => {
  /** The bigquery edition with each `[before, after]` applied to models/silver/_silver__models.yml. */
  const editedModels = (...edits: (readonly [string, string])[]): string => {
    const project = copyProject('bigquery', join(dir, 'project'));
    const file = join(project, 'models', 'silver', '_silver__models.yml');
    let text = readFileSync(file, 'utf8');
    for (const [before, after] of edits) {
      expect(text).toContain(before);
      text = text.replace(before, after);
    }
    writeFileSync(file, text);
    return project;
  };
  const row = (test: CheckedTest) => [test.name, test.status, test.finding?.reason_code];
  type CheckedTest = Awaited<ReturnType<typeof checkProject>>['report']['tests'][number];

  it('regression: the same not_null twice on a column is duplicate_test at the second, naming the first (was run twice, the second as <name>_2)', async () => {
    const project = editedModels([
      '      - name: customer_id\n        data_tests: [not_null, unique]\n',
      '      - name: customer_id\n        data_tests:\n          - not_null\n          - unique\n          - not_null\n',
    ]);
    for (const fixtures of [undefined, join(project, 'fixtures')]) {
      const { report } = await checkProject(project, fixtures === undefined ? {} : { fixtures });
      const tests = report.tests.filter((test) => test.attached_to === 'silver_customers');
      const ran = fixtures === undefined ? 'not_run' : 'passed';
      expect(tests.map(row)).toEqual([
        ['not_null_silver_customers_customer_id', ran, undefined],
        ['unique_silver_customers_customer_id', ran, undefined],
        ['not_null_silver_customers_customer_id', 'failed', 'duplicate_test'],
      ]);
      expect(tests[2]?.finding).toMatchObject({
        message: 'two tests have the same name',
        location: {
          path: join(project, 'models', 'silver', '_silver__models.yml'),
          line: 11,
          column: 13,
          pointer: 'models[0].columns[0].data_tests[2]',
        },
        hint: "models/silver/_silver__models.yml:9 is a test of the name 'not_null_silver_customers_customer_id' too, with the same arguments, and dbt refuses two tests of one name: remove one, or give one a name: of its own",
      });
      expect(report.tests.some((test) => /_\d+$/.test(test.name))).toBe(false);
      expect(report.status).toBe('failed');
    }
  });

  it('regression: accepted_values with the same values again is duplicate_test, under arguments: or with a config too; other values are another test', async () => {
    const project = editedModels([
      '              values: ["placed", "shipped", "delivered", "cancelled", "returned"]\n',
      `              values: ["placed", "shipped", "delivered", "cancelled", "returned"]
          - accepted_values:
              arguments:
                values: ["placed", "shipped", "delivered", "cancelled", "returned"]
              config: {severity: warn}
          - accepted_values:
              values: ["placed", "shipped"]
          - accepted_values:
              values: ["placed", "shipped", "delivered", "cancelled", "returned"]
              config: {enabled: false}
`,
    ]);
    const { report } = await checkProject(project, { fixtures: join(project, 'fixtures') });
    const status = report.tests.filter((test) => test.column === 'order_status');
    const name =
      'accepted_values_silver_orders_order_status__placed__shipped__delivered__cancelled__returned';
    expect(status.map(row)).toEqual([
      [name, 'passed', undefined],
      // dbt refuses the repeat whatever its configs; the check says so before it names the config.
      [name, 'failed', 'duplicate_test'],
      ['accepted_values_silver_orders_order_status__placed__shipped', 'failed', 'test_failed'],
      // Set enabled: false, dbt sets it aside without comparing it, and neither lists nor runs it
      // (regression: it was listed as a failed unsupported_test).
    ]);
    expect(status[1]?.finding).toMatchObject({
      location: { line: 34, column: 13, pointer: 'models[2].columns[2].data_tests[1]' },
      hint: `models/silver/_silver__models.yml:32 is a test of the name '${name}' too, with the same arguments, and dbt refuses two tests of one name: remove one, or give one a name: of its own`,
    });
  });

  it('regression: one name: twice on the same test is duplicate_test; on another column, or a singular test of that name, runs under it, as in dbt', async () => {
    const project = editedModels(
      [
        '      - name: customer_id\n        data_tests: [not_null, unique]\n',
        '      - name: customer_id\n        data_tests:\n          - not_null: {name: key_present}\n          - unique\n          - name: key_present\n            test_name: not_null\n',
      ],
      [
        '      - name: product_id\n        data_tests: [not_null, unique]\n',
        '      - name: product_id\n        data_tests:\n          - not_null: {name: key_present}\n          - unique\n',
      ],
    );
    writeTree(project, { 'tests/key_present.sql': "select * from {{ ref('silver_orders') }} where 1 = 0\n" });
    const { report } = await checkProject(project, { fixtures: join(project, 'fixtures') });
    const named = report.tests.filter((test) => test.name === 'key_present');
    expect(
      named.map((test) => [test.attached_to, test.kind, test.status, test.finding?.reason_code]),
    ).toEqual([
      ['silver_customers', 'not_null', 'passed', undefined],
      ['silver_customers', 'not_null', 'failed', 'duplicate_test'],
      ['silver_products', 'not_null', 'passed', undefined],
      ['silver_orders', 'singular', 'passed', undefined],
    ]);
    expect(named[1]?.finding).toMatchObject({
      location: { line: 11, column: 13, pointer: 'models[0].columns[0].data_tests[2]' },
      hint: "models/silver/_silver__models.yml:9 is a test of the name 'key_present' too, with the same arguments, and dbt refuses two tests of one name: remove one, or give one a name: of its own",
    });
  });
});

describe('singular tests', () => {
  const singular = <T extends { readonly kind: string }>(tests: readonly T[]): T[] =>
    tests.filter((test) => test.kind === 'singular');

  it('regression: tests/*.sql are rendered and run on the fixtures, passing when they return no rows', async () => {
    const project = copyProject('bigquery', join(dir, 'project'));
    writeTree(project, {
      'tests/assert_revenue_not_negative.sql':
        "select * from {{ ref('gold_daily_revenue') }} where revenue < 0\n",
      'tests/orders_exist.sql':
        "select order_id from {{ ref('silver_orders') }}\nwhere order_id is not null\n",
      'tests/calls_a_missing_macro.sql':
        "select *\nfrom {{ ref('gold_daily_revenue') }}\nwhere {{ no_such_macro() }}\n",
      'tests/on_migration_models.sql': "select * from {{ ref('migration_silver_orders') }}\n",
      // A generic test definition, not a test to run: never read.
      'tests/generic/positive.sql': '{% test positive(model, column_name) %}select 1{% endtest %}\n',
    });
    const { report } = await checkProject(project, { fixtures: join(project, 'fixtures') });
    const tests = singular(report.tests);
    // The test on a disabled (migration) model is left out, as dbt disables it.
    expect(tests.map((test) => [test.name, test.status, test.finding?.reason_code])).toEqual([
      ['assert_revenue_not_negative', 'passed', undefined],
      ['calls_a_missing_macro', 'failed', 'undefined_macro'],
      ['orders_exist', 'failed', 'test_failed'],
    ]);
    expect(tests[0]).toMatchObject({
      attached_to: 'gold_daily_revenue',
      path: 'tests/assert_revenue_not_negative.sql',
      failures: 0,
    });
    expect(tests[1]?.finding).toMatchObject({
      location: { path: join(project, 'tests', 'calls_a_missing_macro.sql'), line: 3, column: 10 },
      hint: "'no_such_macro' is not a macro of this project",
    });
    const built = report.models.find((model) => model.name === 'silver_orders')?.rows ?? 0;
    expect(built).toBeGreaterThan(0);
    expect(tests[2]).toMatchObject({ failures: built });
    expect(tests[2]?.finding?.hint).toMatch(/^the singular test orders_exist returned \d+ failing rows/);
    expect(tests[2]?.finding?.failing_rows?.length).toBe(Math.min(built, 5));
    expect(report.summary.tests).toBe(report.tests.length);
    expect(report.status).toBe('failed');
  });

  it('regression: without fixtures a singular test is not run, but its Jinja and SQL are still checked, under test-paths', async () => {
    const project = copyProject('bigquery', join(dir, 'project'));
    const projectFile = join(project, 'dbt_project.yml');
    const text = readFileSync(projectFile, 'utf8');
    expect(text).toContain('test-paths: ["tests"]');
    writeFileSync(projectFile, text.replace('test-paths: ["tests"]', 'test-paths: ["checks"]'));
    writeTree(project, {
      'checks/fine.sql': "select * from {{ ref('silver_orders') }} where order_id is null\n",
      'checks/broken.sql': "select * from {{ ref('silver_orders') }} where\n",
      'tests/not_a_test_path.sql': '{{ no_such_macro() }}\n',
    });
    const { report } = await checkProject(project);
    expect(singular(report.tests).map((test) => [test.name, test.status, test.finding?.reason_code])).toEqual(
      [
        ['broken', 'failed', 'sql_parse_error'],
        ['fine', 'not_run', undefined],
      ],
    );
  });

  it('regression: two singular tests of one name, and a ; ending a test, fail as dbt would (passed as dup_2, or only with fixtures)', async () => {
    const project = copyProject('bigquery', join(dir, 'project'));
    writeTree(project, {
      'tests/dup.sql': "select * from {{ ref('silver_orders') }} where 1 = 0\n",
      'tests/sub/dup.sql': "select * from {{ ref('silver_orders') }} where 1 = 0\n",
      'tests/ends_with_semicolon.sql': "select *\nfrom {{ ref('silver_orders') }}\nwhere 1 = 0;\n",
    });
    for (const fixtures of [undefined, join(project, 'fixtures')]) {
      const { report } = await checkProject(project, fixtures === undefined ? {} : { fixtures });
      const tests = singular(report.tests);
      expect(tests.map((test) => [test.path, test.status, test.finding?.reason_code])).toEqual([
        ['tests/dup.sql', fixtures === undefined ? 'not_run' : 'passed', undefined],
        ['tests/ends_with_semicolon.sql', 'failed', 'sql_parse_error'],
        ['tests/sub/dup.sql', 'failed', 'duplicate_test'],
      ]);
      expect(tests[1]?.finding).toMatchObject({
        location: { line: 3, column: 12 },
        hint: 'a singular test is one query, which dbt runs inside a count: drop the ; at its end',
      });
      expect(tests[2]?.finding?.hint).toBe(
        "tests/dup.sql is a singular test of the name 'dup' too, and dbt refuses two tests of one name: rename one of the files",
      );
      expect(report.status).toBe('failed');
    }
  });
});

describe('fixtures against the declared columns', () => {
  /** A copy of the bigquery edition's fixtures with order_items.csv's header (and rows) rewritten. */
  const fixturesWith = (columns: (header: string[]) => string[]): string => {
    const copy = join(dir, 'fx2');
    cpSync(join(EDITION_PROJECTS.bigquery, 'fixtures'), copy, { recursive: true });
    const file = join(copy, 'bronze', 'order_items.csv');
    const rows = readFileSync(file, 'utf8')
      .split('\n')
      .filter((row) => row !== '')
      .map((row) => row.split(','));
    const header = rows[0] ?? [];
    const kept = columns(header);
    const text = rows
      .map((row) => kept.map((name) => row[header.indexOf(name)] ?? name).join(','))
      .join('\n');
    writeFileSync(file, `${text}\n`);
    return copy;
  };

  it('regression: a fixture without a declared column is fixture_column_missing at the fixture, and the build failure names it', async () => {
    const fixtures = fixturesWith((header) => header.filter((name) => name !== 'unit_price'));
    const { report } = await checkProject(EDITION_PROJECTS.bigquery, { fixtures });
    expect(report.status).toBe('failed');
    const sources = join(EDITION_PROJECTS.bigquery, 'models', 'bronze', '_bronze__sources.yml');
    const declaredAt = readFileSync(sources, 'utf8').split('\n').indexOf('          - name: unit_price') + 1;
    expect(declaredAt).toBeGreaterThan(0);
    const source = report.sources.find((item) => item.name === 'bronze.order_items');
    expect(source).toMatchObject({
      status: 'failed',
      fixture_rows: expect.any(Number),
      finding: {
        reason_code: 'fixture_column_missing',
        location: { path: join(fixtures, 'bronze', 'order_items.csv'), line: 1 },
        hint: `bronze.order_items declares the column 'unit_price' (models/bronze/_bronze__sources.yml:${declaredAt}:13); this fixture's header lacks it: add it (an empty field is NULL)`,
      },
    });
    // The table is still loaded: what does not read the column builds.
    expect(report.models.find((model) => model.name === 'silver_orders')).toMatchObject({ built: true });
    const items = report.models.find((model) => model.name === 'silver_order_items');
    expect(items?.finding).toMatchObject({
      reason_code: 'build_failed',
      hint: `the fixture ${join(fixtures, 'bronze', 'order_items.csv')} has no column 'unit_price', which the source table bronze.order_items declares (fixture_column_missing)`,
    });
    expect(items?.finding?.detail).toContain('"unit_price"');
  });

  it('regression: a build failure caused by a fixture gap comes after it, and names every column the fixture lacks', async () => {
    // unit_price dropped and quantity misspelt: DuckDB's binder names only quantity.
    const fixtures = fixturesWith((header) =>
      header.filter((name) => name !== 'unit_price').map((name) => (name === 'quantity' ? 'quantty' : name)),
    );
    // As a user names them: bq/ and fx2/ beside each other, the fixture's path sorting after the model's.
    const project = copyProject('bigquery', join(dir, 'bq'));
    const { report } = await checkProject(project, { fixtures });
    const csv = join(fixtures, 'bronze', 'order_items.csv');
    const items = report.models.find((model) => model.name === 'silver_order_items')?.finding;
    expect(items).toMatchObject({
      reason_code: 'build_failed',
      hint: `the fixture ${csv} has no column 'quantity', which the source table bronze.order_items declares (fixture_column_missing); it lacks 'unit_price' too, and DuckDB names only the first column it cannot find`,
      caused_by: { reason_code: 'fixture_column_missing', location: { path: csv, line: 1 } },
    });
    expect(items?.detail).toContain('"quantity"');
    // The fixture's path sorts after the model's, yet the cause is read first, then what it caused.
    const models = join(project, 'models');
    expect(csv > join(models, 'silver', 'silver_order_items.sql')).toBe(true);
    const order = orderedFindings(report).map((found) => [found.reason_code, found.location?.path]);
    expect(order.slice(0, 2)).toEqual([
      ['fixture_column_missing', csv],
      ['build_failed', join(models, 'silver', 'silver_order_items.sql')],
    ]);
    expect(order.slice(2).every(([code]) => code === 'dependency_failed')).toBe(true);
    expect(order.length).toBeGreaterThan(2);
    // The same report gives the same order.
    expect(orderedFindings(structuredClone(report))).toEqual(orderedFindings(report));
  });

  it('regression: a misspelt fixture column is offered for the declared one, and case does not count', async () => {
    const fixtures = fixturesWith((header) =>
      header.map((name) => (name === 'quantity' ? 'quantty' : name === 'order_id' ? 'ORDER_ID' : name)),
    );
    const { report } = await checkProject(EDITION_PROJECTS.bigquery, { fixtures });
    const found = report.sources.find((item) => item.name === 'bronze.order_items')?.finding;
    expect(found?.reason_code).toBe('fixture_column_missing');
    expect(found?.hint).toMatch(
      /declares the column 'quantity' \(models\/bronze\/_bronze__sources\.yml:\d+:13\);/,
    );
    expect(found?.hint).toMatch(/; the header's 'quantty': did you mean 'quantity'\?$/);
    expect(found?.hint).not.toContain('order_id');
  });

  it('an extra fixture column the source does not declare is no finding', async () => {
    const fixtures = fixturesWith((header) => [...header, 'loaded_by']);
    const { report } = await checkProject(EDITION_PROJECTS.bigquery, { fixtures });
    expect(report.status).toBe('passed');
  });
});

describe('refusals', () => {
  it('refuses what it cannot read, with fixed codes and no echo of the input', async () => {
    const secret = join(dir, 'customer_project_zq');
    const cases: [() => Promise<unknown>, string][] = [
      [() => checkProject(secret), 'project_missing'],
      [() => checkProject(dir), 'project_file_missing'],
      [() => checkProject(EDITION_PROJECTS.bigquery, { vars: '[1, 2]' }), 'vars_invalid'],
      [() => checkProject(EDITION_PROJECTS.bigquery, { vars: '{a: 1, a: 2}' }), 'vars_invalid'],
      [() => checkProject(EDITION_PROJECTS.bigquery, { fixtures: secret }), 'fixtures_missing'],
    ];
    for (const [run, code] of cases) {
      const error = await run().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(Refusal);
      expect((error as Refusal).code).toBe(code);
      expect(
        scanForSentinels(
          { stdout: (error as Refusal).message, stderr: '' },
          [],
          [secret, 'customer_project_zq'],
        ),
      ).toEqual([]);
    }
  });

  it('refuses a fixture for a table no source defines, and malformed CSV', async () => {
    const unknown = writeFixtures(join(dir, 'unknown'), { 'bronze.suppliers': 'supplier_id\ns1\n' });
    await expect(checkProject(EDITION_PROJECTS.bigquery, { fixtures: unknown })).rejects.toMatchObject({
      code: 'fixture_unknown_table',
    });
    const ragged = writeFixtures(join(dir, 'ragged'), { 'bronze.customers': 'customer_id,country\nc1\n' });
    await expect(checkProject(EDITION_PROJECTS.bigquery, { fixtures: ragged })).rejects.toMatchObject({
      code: 'fixtures_invalid',
    });
  });
});
