import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliRun, runCli } from '../../test/helpers/cli.js';
import { SMALL_PROJECT, writeSmallProject, writeTree } from '../../test/helpers/edition-trees.js';
import { expectGolden } from '../../test/helpers/golden.js';

/**
 * The refusal corpus of `edition check` and `edition new`: each bad input
 * through the real CLI, in human form (report on stdout, findings and
 * refusals on stderr) and with --json, against a golden file under
 * testdata/refusals/. Inputs are small projects written into a temp folder
 * that is the working directory, named by relative paths, so the goldens
 * show paths exactly as a user typing them would see them.
 */

const GOLDEN = join(import.meta.dirname, 'testdata', 'refusals');

type Files = Readonly<Record<string, string | Uint8Array | null>>;

interface Case {
  readonly name: string;
  /** Files of the small project (`shop/`) to replace, add or (null) remove. */
  readonly project?: Files;
  /** Other files under the working directory. */
  readonly extra?: Readonly<Record<string, string | Uint8Array>>;
  /** Arguments after `sealkit`; --json is appended for the JSON form. */
  readonly args: readonly string[];
}

const CHECK = ['edition', 'check', 'shop'];
const WITH_FIXTURES = [...CHECK, '--fixtures', 'shop/fixtures'];
const replace = (path: string, from: string, to: string): Files => {
  const text = SMALL_PROJECT[path];
  if (text === undefined || !text.includes(from)) throw new Error(`no '${from}' in ${path}`);
  return { [path]: text.replace(from, to) };
};

const CASES: readonly Case[] = [
  {
    name: 'undefined-ref-typo',
    project: replace(
      'models/gold/gold_order_sizes.sql',
      "ref('silver_order_items')",
      "ref('silver_order_item')",
    ),
    args: CHECK,
  },
  {
    name: 'sql-missing-paren',
    project: replace('models/silver/silver_order_items.sql', 'as integer)', 'as integer'),
    args: CHECK,
  },
  {
    name: 'independent-errors-at-once',
    project: {
      ...replace('models/gold/gold_order_sizes.sql', "ref('silver_orders')", "ref('silver_ordres')"),
      ...replace('models/silver/silver_order_items.sql', 'as integer)', 'as integer'),
      'models/silver/silver_customers.sql': "select * from {{ source('bronze', 'customer') }}\n",
    },
    args: CHECK,
  },
  {
    name: 'unique-test-duplicates',
    project: {
      'fixtures/bronze/orders.csv':
        'order_id,customer_id,order_status\no1,c1,placed\no2,c2,shipped\no1,c3,placed\no2,c2,placed\no3,c1,placed\n',
    },
    args: WITH_FIXTURES,
  },
  {
    name: 'not-null-test-nulls',
    project: {
      'fixtures/bronze/order_items.csv': 'order_item_id,order_id,quantity\ni1,o1,2\n,o1,1\ni3,o2,5\n,o3,4\n',
    },
    args: WITH_FIXTURES,
  },
  {
    name: 'accepted-values-and-relationships',
    project: {
      'fixtures/bronze/orders.csv':
        'order_id,customer_id,order_status\no1,c1,placed\no2,c2,shiped\no3,c1,placed\n',
      'fixtures/bronze/order_items.csv': 'order_item_id,order_id,quantity\ni1,o1,2\ni2,o9,1\ni3,o2,5\n',
    },
    args: WITH_FIXTURES,
  },
  {
    name: 'yaml-duplicate-key',
    project: replace(
      'models/silver/_silver__models.yml',
      '      - name: order_status\n',
      '      - name: order_status\n        name: status\n',
    ),
    args: CHECK,
  },
  {
    name: 'yaml-tab-indentation',
    project: replace(
      'models/silver/_silver__models.yml',
      '      - name: order_status\n',
      '      - name: order_status\n\t\tdescription: x\n',
    ),
    args: CHECK,
  },
  {
    name: 'yaml-bom',
    project: {
      'models/bronze/_bronze__sources.yml': `\ufeff${SMALL_PROJECT['models/bronze/_bronze__sources.yml']}`,
    },
    args: CHECK,
  },
  {
    name: 'schema-yml-unknown-model',
    project: replace(
      'models/silver/_silver__models.yml',
      '  - name: silver_order_items\n',
      '  - name: silver_order_itmes\n',
    ),
    args: CHECK,
  },
  {
    name: 'schema-yml-unknown-key',
    project: replace(
      'models/silver/_silver__models.yml',
      '      - name: order_id\n        data_tests: [not_null, unique]\n      - name: order_status',
      '      - name: order_id\n        data_tests: [not_null, unique]\n        descripton: the key\n      - name: order_status',
    ),
    args: CHECK,
  },
  {
    // DuckDB's binder refuses a misspelt column: at its line, with DuckDB's own candidates as the
    // did-you-mean (the line and the candidates were dropped); a column a CTE lacks names the CTE.
    name: 'build-column-misspelt',
    project: {
      'models/silver/silver_orders.sql': (SMALL_PROJECT['models/silver/silver_orders.sql'] ?? '').replace(
        '    customer_id,',
        '    customer_idd,',
      ),
      'models/gold/gold_order_sizes.sql': [
        'with orders as (',
        "    select order_id from {{ ref('silver_order_items') }}",
        ')',
        'select',
        '    orders.order_idd,',
        '    1 as quantity',
        'from orders',
        '',
      ].join('\n'),
    },
    args: WITH_FIXTURES,
  },
  {
    // dbt's schema allows both keys on one column; `dbt parse` refuses them (it passed here).
    name: 'tests-and-data-tests',
    project: replace(
      'models/silver/_silver__models.yml',
      '      - name: order_id\n        data_tests: [not_null, unique]\n',
      '      - name: order_id\n        data_tests: [not_null]\n        tests: [unique]\n',
    ),
    args: CHECK,
  },
  {
    // A misspelt generic test names the one it is close to.
    name: 'test-name-misspelt',
    project: replace(
      'models/silver/_silver__models.yml',
      '      - name: order_id\n        data_tests: [not_null, unique]\n',
      '      - name: order_id\n        data_tests: [not_null, uniqe]\n',
    ),
    args: CHECK,
  },
  {
    // Each generic test the check cannot run says why, and a package test keeps its name.
    name: 'unsupported-test-forms',
    project: replace(
      'models/silver/_silver__models.yml',
      "          - accepted_values:\n              values: ['placed', 'shipped']\n",
      [
        '          - accepted_values:',
        "              value: ['placed', 'shipped']",
        '          - not_null:',
        '              config:',
        '                severity: warn',
        '          - dbt_utils.accepted_range:',
        '              min_value: 0',
        '          - relationships:',
        "              to: ref('silver_orders')",
        '',
      ].join('\n'),
    ),
    args: CHECK,
  },
  {
    // A model's and a source table's own tests on their column_name: a compound unique failing on
    // the fixture rows, an expression DuckDB cannot parse, and a column's test given one too.
    name: 'model-tests-column-name',
    project: {
      ...replace(
        'models/silver/_silver__models.yml',
        '  - name: silver_orders\n    columns:\n      - name: order_id\n        data_tests: [not_null, unique]\n',
        [
          '  - name: silver_orders',
          '    data_tests:',
          '      - unique:',
          `          column_name: "customer_id || '-' || order_status"`,
          '      - not_null:',
          '          arguments:',
          '            column_name: "(order_id"',
          '    columns:',
          '      - name: order_id',
          '        data_tests:',
          '          - not_null',
          '          - unique:',
          '              column_name: customer_id',
          '',
        ].join('\n'),
      ),
      ...replace(
        'models/bronze/_bronze__sources.yml',
        '      - name: orders\n',
        '      - name: orders\n        data_tests:\n          - not_null:\n              column_name: trim(order_id)\n',
      ),
    },
    args: WITH_FIXTURES,
  },
  {
    name: 'schema-yml-several-errors',
    project: {
      'models/silver/_silver__models.yml': (SMALL_PROJECT['models/silver/_silver__models.yml'] ?? '')
        .replace('  - name: silver_orders\n', '  - name: silver_order\n    descripton: orders\n')
        .replace('      - name: order_item_id\n', '      - name: order_item_id\n        nulable: false\n')
        .replace('  - name: silver_order_items\n', '  - name: silver_order_item\n'),
    },
    args: CHECK,
  },
  {
    name: 'model-sql-bom',
    project: {
      'models/silver/silver_orders.sql': `\ufeff${SMALL_PROJECT['models/silver/silver_orders.sql']}`,
    },
    args: CHECK,
  },
  {
    name: 'jinja-unclosed',
    project: replace('models/silver/silver_orders.sql', '}}\n', '\n'),
    args: CHECK,
  },
  {
    name: 'jinja-bad-token',
    project: replace('models/silver/silver_orders.sql', "'orders') }}", "'orders') + }}"),
    args: CHECK,
  },
  {
    // Ordinary Jinja slips: each says what is wrong, in our words, and an unclosed {{ is placed at
    // itself, not where Jinja gave up (they had a place and nothing else).
    name: 'jinja-slips',
    project: {
      ...replace('models/silver/silver_orders.sql', "'orders') }}", "'orders') }} {% endif %}"),
      ...replace('models/silver/silver_order_items.sql', "'order_items') }}", "'order_items' }}"),
      ...replace('models/gold/gold_order_sizes.sql', "{{ ref('silver_orders') }}", "{{ ref('silver_orders')"),
    },
    args: CHECK,
  },
  {
    // A macro file that is not read: a call of a macro it defines names that file, not a misspelling.
    name: 'macro-file-not-read',
    project: {
      'macros/shop_upper.sql': Buffer.concat([
        Buffer.from('-- caf'),
        Buffer.from([0xe9]),
        Buffer.from('\n{% macro shop_upper(column) %}upper({{ column }}){% endmacro %}\n'),
      ]),
      ...replace(
        'models/silver/silver_orders.sql',
        '    order_status',
        "    {{ shop_upper('order_status') }} as order_status",
      ),
    },
    args: CHECK,
  },
  {
    // A model file copied to a second folder: the two files are the finding, and the tests written
    // once for that model are not reported as tests written twice (each pointed at itself).
    name: 'duplicate-model-file',
    project: {
      'models/staging/silver_orders.sql': SMALL_PROJECT['models/silver/silver_orders.sql'] ?? '',
    },
    args: CHECK,
  },
  {
    // A misspelt ref() in a relationships test is told the model it is close to, as in SQL.
    name: 'relationships-ref-misspelt',
    project: replace(
      'models/silver/_silver__models.yml',
      "to: ref('silver_orders')",
      "to: ref('silver_order')",
    ),
    args: CHECK,
  },
  {
    // A source table defined in two files: each names the other place (it named neither).
    name: 'source-defined-twice',
    project: {
      'models/bronze/_bronze__sources_copy.yml': SMALL_PROJECT['models/bronze/_bronze__sources.yml'] ?? '',
    },
    args: CHECK,
  },
  {
    // A {{ closed further on, with something after its expression: placed at that, not at the {{.
    name: 'jinja-extra-after-expression',
    project: replace(
      'models/gold/gold_order_sizes.sql',
      "{{ ref('silver_orders') }} as orders",
      "{{ ref('silver_orders') as orders }}",
    ),
    args: CHECK,
  },
  {
    // A loop that adds lines and a comment that drops as many keep the count, not the places: the
    // binder's line is placed only where the file writes it (it named the comment's line).
    name: 'build-lines-shifted-by-jinja',
    project: {
      'models/silver/silver_orders.sql': [
        '{# two lines',
        '   of comment #}',
        'select',
        '{% for n in [1, 2] %}',
        '    {{ n }} as c{{ n }},',
        '{% endfor %}',
        '    order_idd',
        "from {{ source('bronze', 'orders') }}",
        '',
      ].join('\n'),
    },
    args: WITH_FIXTURES,
  },
  {
    name: 'fixture-value-does-not-cast',
    project: {
      'models/silver/silver_order_items.sql': `{{ config(materialized='table') }}\n${SMALL_PROJECT['models/silver/silver_order_items.sql']}`,
      'fixtures/bronze/order_items.csv': 'order_item_id,order_id,quantity\ni1,o1,2\ni2,o1,"one, really"\n',
    },
    args: WITH_FIXTURES,
  },
  {
    // A fixture without a column its source declares: found at the fixture,
    // and the model that reads the column says so beside DuckDB's message.
    name: 'fixture-missing-column',
    project: {
      ...replace(
        'models/bronze/_bronze__sources.yml',
        '      - name: order_items\n',
        '      - name: order_items\n        columns:\n          - name: order_item_id\n          - name: order_id\n          - name: quantity\n',
      ),
      'fixtures/bronze/order_items.csv': 'order_item_id,order_id,qty\ni1,o1,2\ni2,o1,1\n',
    },
    args: WITH_FIXTURES,
  },
  {
    // Singular tests are rendered and run: a failing query shows its rows, an undefined macro is named.
    name: 'singular-tests',
    project: {
      'tests/quantity_at_most_one.sql': "select * from {{ ref('silver_order_items') }} where quantity > 1\n",
      'tests/every_order_has_items.sql':
        "select o.order_id\nfrom {{ ref('silver_orders') }} as o\nleft join {{ ref('silver_order_items') }} as i on i.order_id = o.order_id\nwhere i.order_id is null\n",
      'tests/uses_a_macro.sql': "select * from {{ ref('silver_orders') }} where {{ is_blank('order_id') }}\n",
    },
    args: WITH_FIXTURES,
  },
  {
    // A versioned model dbt refuses: each fault at its key, and a ref() to a version it lacks.
    name: 'versioned-model-refusals',
    project: {
      'models/gold/gold_order_sizes.sql': null,
      'models/gold/gold_order_sizes_v1.sql': SMALL_PROJECT['models/gold/gold_order_sizes.sql'] ?? '',
      'models/gold/gold_big_orders.sql': "select * from {{ ref('gold_order_sizes', v=4) }}\n",
      'models/gold/_gold__models.yml': [
        'version: 2',
        '',
        'models:',
        '  - name: gold_order_sizes',
        '    latest_version: 3',
        '    columns:',
        '      - name: order_id',
        '        data_tests: [not_null, unique]',
        '    versions:',
        '      - v: 1',
        '      - v: 2',
        '      - v: 1',
        '',
      ].join('\n'),
    },
    args: CHECK,
  },
  {
    name: 'missing-dbt-project',
    project: { 'dbt_project.yml': null },
    args: CHECK,
  },
  {
    // The project's own name under models: applies to nothing because no model is found at all:
    // the hint said to rename the key to the name it already had.
    name: 'dbt-project-model-paths-misspelt',
    project: {
      'dbt_project.yml': (SMALL_PROJECT['dbt_project.yml'] ?? '')
        .replace('model-paths: ["models"]', 'model-paths: ["model"]')
        .concat('models:\n  shop:\n    +materialized: view\n'),
    },
    args: CHECK,
  },
  {
    // The same with --fixtures, as edition new advises: every fixture names a table no source
    // defines, and the hint says the project defines none at all, and where dbt looks.
    name: 'dbt-project-model-paths-misspelt-fixtures',
    project: {
      'dbt_project.yml': (SMALL_PROJECT['dbt_project.yml'] ?? '').replace(
        'model-paths: ["models"]',
        'model-paths: ["model"]',
      ),
    },
    args: WITH_FIXTURES,
  },
  {
    name: 'dbt-project-duplicate-key',
    project: replace('dbt_project.yml', 'profile: shop\n', 'profile: shop\nname: shop2\n'),
    args: CHECK,
  },
  {
    name: 'dbt-project-bad-model-path',
    project: replace('dbt_project.yml', 'model-paths: ["models"]', 'model-paths: ["models", "../elsewhere"]'),
    args: CHECK,
  },
  {
    // dbt_project.yml faults the check cannot plan around, with dbt's schema errors: all at once.
    name: 'dbt-project-several-errors',
    project: {
      'dbt_project.yml': [
        'nme: shop',
        'version: 1',
        'config-version: 2',
        'profile: shop',
        'model-paths: ["models", "../elsewhere"]',
        'macro-paths: macros',
        'modles:',
        '  shop:',
        '    +materialized: view',
        '',
      ].join('\n'),
    },
    args: CHECK,
  },
  {
    // A dbt_project.yml the check can still plan: every schema error is its own finding.
    name: 'dbt-project-schema-errors',
    project: {
      'dbt_project.yml': `${SMALL_PROJECT['dbt_project.yml']}clean-targets: target\nmodels:\n  shop:\n    +materialized: 3\n    silver:\n      +tags: 4\n`,
    },
    args: CHECK,
  },
  {
    // A misspelt config reads to dbt's schema as a folder, which takes a
    // mapping; a near config the folder does not set yet is offered instead.
    name: 'dbt-project-config-misspelt',
    project: {
      'dbt_project.yml': `${SMALL_PROJECT['dbt_project.yml']}models:\n  shop:\n    +materialized: table\n    silver:\n      +materialzed: view\n      +enabeld: true\n    gold:\n      +materialized: table\n      +materialzed: view\n      +zzz: 1\n`,
    },
    args: CHECK,
  },
  {
    name: 'schema-yml-wrong-types',
    project: replace(
      'models/silver/_silver__models.yml',
      '      - name: order_id\n        data_tests: [not_null, unique]\n',
      '      - name: order_id\n        data_tests: [not_null, 3]\n      - nme: order_date\n        tests: unique\n',
    ),
    args: CHECK,
  },
  { name: 'project-dir-missing', args: ['edition', 'check', 'shpo'] },
  // The same typo beside the project folder `shop`: that folder is named.
  { name: 'project-dir-misspelt', args: ['edition', 'check', 'shpo'] },
  {
    name: 'vars-duplicate-key',
    args: [...CHECK, '--vars', '{enable_migration_models: true, enable_migration_models: false}'],
  },
  { name: 'vars-not-a-mapping', args: [...CHECK, '--vars', '[enable_migration_models]'] },
  {
    name: 'fixtures-two-bad-csv-files',
    project: {
      'fixtures/bronze/orders.csv': 'order_id,customer_id,order_status\no1,c1\no2,c2,shipped\n',
      'fixtures/bronze/order_items.csv': 'order_item_id,order_id,quantity\ni1,"o1,2\n',
    },
    args: WITH_FIXTURES,
  },
  {
    name: 'fixtures-unknown-table',
    project: { 'fixtures/bronze/order.csv': 'order_id\no1\n' },
    args: WITH_FIXTURES,
  },
  { name: 'fixtures-missing', args: [...CHECK, '--fixtures', 'shop/fixture'] },
  {
    // regression: a sources file that does not parse is what the report leads
    // with, with --fixtures too; the fixtures of its tables are set aside.
    name: 'sources-yaml-error-with-fixtures',
    project: replace(
      'models/bronze/_bronze__sources.yml',
      '      - name: order_items\n',
      '      - name: order_items\n         columns: []\n',
    ),
    args: WITH_FIXTURES,
  },
  {
    name: 'edition-new-existing-folder',
    extra: { 'workspace/notes.txt': 'mine\n' },
    args: ['edition', 'new', '--edition', 'bigquery', 'workspace'],
  },
  { name: 'edition-new-parent-missing', args: ['edition', 'new', '--edition', 'snowflake', 'clients/acme'] },
  {
    name: 'edition-new-parent-misspelt',
    extra: { 'clients/README.md': 'client workspaces\n' },
    args: ['edition', 'new', '--edition', 'snowflake', 'clinets/acme'],
  },
  {
    name: 'edition-new-missing-folder-then-dotdot',
    args: ['edition', 'new', '--edition', 'bigquery', 'clients/../acme'],
  },
];

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'sealkit-edition-refusals-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function prepare(testCase: Case, form: string): string {
  const cwd = join(root, `${testCase.name}-${form}`);
  mkdirSync(cwd);
  if (testCase.name !== 'project-dir-missing' && !testCase.name.startsWith('edition-new'))
    writeSmallProject(join(cwd, 'shop'), testCase.project ?? {});
  if (testCase.extra !== undefined) writeTree(cwd, testCase.extra);
  return cwd;
}

function transcript(args: readonly string[], run: CliRun, stdout: string): string {
  return [
    `$ sealkit ${args.map((arg) => (/^[A-Za-z0-9_./-]+$/.test(arg) ? arg : `'${arg}'`)).join(' ')}`,
    `exit ${run.status}`,
    '--- stdout',
    stdout.trimEnd(),
    '--- stderr',
    run.stderr.toString().trimEnd(),
    '',
  ].join('\n');
}

interface Item {
  readonly finding?: unknown;
  readonly also?: readonly unknown[];
}

/** The JSON form, reduced to what a refusal or a failed check says: status, summary and every finding (with `also`). */
function jsonView(stdout: string): unknown {
  const value = JSON.parse(stdout) as Record<string, unknown>;
  if (value.status === 'refused' || value.summary === undefined) return value;
  const items = (key: string) =>
    ((value[key] ?? []) as (Item & Record<string, unknown>)[])
      .filter((item) => item.finding !== undefined)
      .map((item) => ({
        [key === 'files' || key === 'sources' ? 'path' : 'name']: item.name ?? item.path,
        finding: item.finding,
        // Further findings in the same file: --json keeps every one.
        ...(item.also === undefined ? {} : { also: item.also }),
      }));
  return {
    status: value.status,
    summary: value.summary,
    findings: [...items('files'), ...items('sources'), ...items('models'), ...items('tests')],
    ...(value.fixtures_not_loaded === undefined ? {} : { fixtures_not_loaded: value.fixtures_not_loaded }),
  };
}

describe('edition refusals and findings, as a user sees them', () => {
  it('has at least 15 bad inputs', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(15);
  });

  it.each(CASES)('$name', (testCase) => {
    const human = runCli(testCase.args, { cwd: prepare(testCase, 'human') });
    const json = runCli([...testCase.args, '--json'], { cwd: prepare(testCase, 'json') });
    // A bad input never exits 0, in either form, and the two forms agree.
    expect(human.status).toBe(2);
    expect(json.status).toBe(human.status);
    // Every failure is on stderr in human form; --json is one object on stdout and nothing else.
    expect(human.stderr.toString()).toMatch(/^error\[[a-z0-9_]+\]: /);
    expect(json.stderr.toString()).toBe('');
    const view = jsonView(json.stdout.toString());
    expectGolden(
      join(GOLDEN, `${testCase.name}.txt`),
      transcript(testCase.args, human, human.stdout.toString()),
    );
    expectGolden(join(GOLDEN, `${testCase.name}.json`), `${JSON.stringify(view, null, 2)}\n`);
    // No temp folder prefix: paths are shown as the user typed them.
    for (const run of [human, json]) expect(`${run.stdout}${run.stderr}`).not.toContain(root);
  });
});
