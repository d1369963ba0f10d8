import { chmodSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../test/helpers/cli.js';
import { copyProject, EDITION_PROJECTS } from '../../../test/helpers/edition-trees.js';
import { scanForSentinels } from '../../../test/helpers/sentinels.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sealkit-edition-check-cli-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('sealkit edition check', () => {
  it('prints a per-file, per-model, per-test table and exits 0 when everything passes', () => {
    const project = EDITION_PROJECTS.bigquery;
    const run = runCli(['edition', 'check', project, '--fixtures', join(project, 'fixtures')]);
    expect(run.status).toBe(0);
    const text = run.stdout.toString();
    expect(text).toMatch(/^edition check: project retail_analytics, target default, with fixtures\n/);
    expect(text).toMatch(/\n {2}passed {4}retail_analytics\.silver\.silver_customers +table +4 +silver\n/);
    expect(text).toMatch(
      /\n {2}disabled +retail_analytics\.migration\.silver\.migration_silver_orders +table +- +medallion\n/,
    );
    expect(text).toMatch(/\n {2}passed {2}unique_silver_orders_order_id\n/);
    expect(text).toMatch(
      /\npassed: 6 models enabled, 4 disabled, 0 failed; 19 tests: 19 passed, 0 failed, 0 not run; 6 files, 0 invalid\n$/,
    );
    expect(scanForSentinels(run, [], [project])).toEqual([]);
  });

  it('says on stderr that tests were not run, and exits 2 for it with --require-tests', () => {
    const project = EDITION_PROJECTS.bigquery;
    const lenient = runCli(['edition', 'check', project]);
    expect(lenient.status).toBe(0);
    expect(lenient.stderr.toString()).toBe(
      'note: 19 tests were not run (no --fixtures); --require-tests makes this exit 2\n',
    );
    const strict = runCli(['edition', 'check', project, '--require-tests']);
    expect(strict.status).toBe(2);
    expect(strict.stderr.toString()).toBe(
      'error[tests_not_run]: 19 tests were not run (no --fixtures), and --require-tests asks for them\n',
    );
    const json = runCli(['edition', 'check', project, '--require-tests', '--json']);
    expect(json.status).toBe(2);
    expect(JSON.parse(json.stdout.toString())).toMatchObject({ unmet: ['tests_not_run'] });
    const tested = runCli([
      'edition',
      'check',
      project,
      '--fixtures',
      join(project, 'fixtures'),
      '--require-tests',
    ]);
    expect(tested.status).toBe(0);
    expect(tested.stderr.toString()).toBe('');
  });

  it('regression: -q prints nothing on a pass, not even the note that tests were not run', () => {
    // A quiet cron job got mail for the note on every passing run.
    const project = EDITION_PROJECTS.bigquery;
    for (const quiet of ['-q', '--quiet']) {
      const run = runCli(['edition', 'check', project, quiet]);
      expect([run.status, run.stdout.toString(), run.stderr.toString()]).toEqual([0, '', '']);
    }
    // The requirement still fails, and says why.
    const strict = runCli(['edition', 'check', project, '-q', '--require-tests']);
    expect([strict.status, strict.stdout.toString(), strict.stderr.toString()]).toEqual([
      2,
      '',
      'error[tests_not_run]: 19 tests were not run (no --fixtures), and --require-tests asks for them\n',
    ]);
    // Findings still go to stderr.
    const broken = copyProject('bigquery', join(dir, 'acme'));
    writeFileSync(join(broken, 'models', 'silver', 'silver_orders.sql'), "select * from {{ ref('nope') }}\n");
    const failed = runCli(['edition', 'check', broken, '-q']);
    expect(failed.status).toBe(2);
    expect(failed.stdout.toString()).toBe('');
    expect(failed.stderr.toString()).toMatch(/^error\[/);
  });

  it('regression: a non-boolean +enabled gating many items is one block per key, naming every item', () => {
    const project = copyProject('bigquery', join(dir, 'acme-retail'));
    const run = runCli(
      [
        'edition',
        'check',
        'acme-retail',
        '-q',
        '--target',
        'migration',
        '--vars',
        '{enable_migration_models: yes}',
      ],
      { cwd: dir },
    );
    expect(run.status).toBe(2);
    const blocks = run.stderr.toString().split(/(?=^error\[)/m);
    expect(blocks.map((block) => block.split('\n')[2])).toEqual([
      '  = at: models.retail_analytics.migration["+enabled"]',
      '  = at: sources.retail_analytics.migration["+enabled"]',
    ]);
    expect(blocks[0]).toContain(
      '(for 4 items: model migration_silver_customers, model migration_silver_order_items, model migration_silver_orders, model migration_silver_products)',
    );
    // --json keeps the finding on every item it gates.
    const json = JSON.parse(
      runCli([
        'edition',
        'check',
        project,
        '--target',
        'migration',
        '--vars',
        '{enable_migration_models: yes}',
        '--json',
      ]).stdout.toString(),
    ) as { models: { finding?: { reason_code: string } }[] };
    expect(json.models.filter((model) => model.finding?.reason_code === 'config_not_boolean')).toHaveLength(
      4,
    );
  });

  it('regression: a misspelt +config in dbt_project.yml gets the config it is near, at the key', () => {
    // dbt's schema reads an unknown +key as a folder: the hint only said a mapping was expected.
    const project = copyProject('bigquery', join(dir, 'acme-retail'));
    const file = join(project, 'dbt_project.yml');
    const text = readFileSync(file, 'utf8');
    const lines = text.split('\n');
    const materialized = lines.indexOf('      +materialized: table') + 1;
    const enabled = lines.findIndex((line) => line.startsWith('      +enabled: ')) + 1;
    expect([materialized > 0, enabled > 0]).toEqual([true, true]);
    writeFileSync(
      file,
      text
        .replace('      +materialized: table', '      +materialzed: table')
        .replace('      +enabled: ', '      +enabeld: '),
    );
    const run = runCli(['edition', 'check', 'acme-retail', '-q'], { cwd: dir });
    expect(run.status).toBe(2);
    const blocks = run.stderr.toString().split(/(?=^error\[)/m);
    expect(blocks).toContain(
      "error[yaml_schema]: the file does not validate against dbt's JSON schema\n" +
        `  --> acme-retail/dbt_project.yml:${materialized}:7\n` +
        '  = at: models.retail_analytics.silver["+materialzed"]\n' +
        "  = help: dbt does not know the key '+materialzed' here; did you mean '+materialized'?\n",
    );
    expect(blocks.some((block) => block.includes(`dbt_project.yml:${enabled}:7\n`))).toBe(true);
    expect(run.stderr.toString()).toContain("did you mean '+enabled'?");
    expect(run.stderr.toString()).not.toContain('expected a mapping');
  });

  it('regression: a generic test written twice is one duplicate_test block at the second, naming the first', () => {
    // It was listed as <name>_2 and run, where dbt parse refuses the project.
    const project = copyProject('bigquery', join(dir, 'acme-retail'));
    const file = join(project, 'models', 'silver', '_silver__models.yml');
    const text = readFileSync(file, 'utf8');
    const before = '      - name: customer_id\n        data_tests: [not_null, unique]\n';
    expect(text).toContain(before);
    writeFileSync(
      file,
      text.replace(
        before,
        '      - name: customer_id\n        data_tests:\n          - not_null\n          - not_null\n',
      ),
    );
    const run = runCli(['edition', 'check', 'acme-retail'], { cwd: dir });
    expect(run.status).toBe(2);
    expect(run.stderr.toString()).toContain(
      'error[duplicate_test]: two tests have the same name\n' +
        '  --> acme-retail/models/silver/_silver__models.yml:10:13\n' +
        '  = at: models[0].columns[0].data_tests[1]\n' +
        "  = help: models/silver/_silver__models.yml:9 is a test of the name 'not_null_silver_customers_customer_id' too, with the same arguments, and dbt refuses two tests of one name: remove one, or give one a name: of its own\n",
    );
    expect(run.stdout.toString()).not.toContain('not_null_silver_customers_customer_id_2');
  });

  it('regression: a --vars refusal names the flag as its place, in human form and in --json', () => {
    // `--> line 1, column 6` did not say it was the --vars value; --json had no path.
    const project = EDITION_PROJECTS.bigquery;
    const cases: readonly (readonly [string, number, number])[] = [
      ['{a: [', 1, 6],
      ['[enable_migration_models]', 1, 1],
      ['{a: 1, a: 2}', 1, 8],
    ];
    for (const [value, line, column] of cases) {
      const human = runCli(['edition', 'check', project, '--vars', value]);
      expect(human.status).toBe(2);
      expect(human.stderr.toString().split('\n').slice(0, 2)).toEqual([
        'error[vars_invalid]: the --vars value is not a YAML mapping of variable names to values',
        `  --> --vars:${line}:${column}`,
      ]);
      const json = runCli(['edition', 'check', project, '--vars', value, '--json']);
      expect(JSON.parse(json.stdout.toString()).location).toMatchObject({ path: '--vars', line, column });
    }
  });

  it('regression: a check whose required tests did not run is failed, never passed, in --json and in the report', () => {
    // A CI job reading `.status` took a run whose tests never ran for a pass.
    const project = EDITION_PROJECTS.bigquery;
    const json = runCli(['edition', 'check', project, '--require-tests', '--json']);
    expect(json.status).toBe(2);
    const report = JSON.parse(json.stdout.toString()) as Record<string, unknown>;
    expect([report.status, report.reason_code, report.message, report.unmet]).toEqual([
      'failed',
      'tests_not_run',
      'tests were not run (no --fixtures), and --require-tests asks for them',
      ['tests_not_run'],
    ]);
    expect(Object.keys(report).slice(0, 3)).toEqual(['status', 'reason_code', 'message']);
    const human = runCli(['edition', 'check', project, '--require-tests']);
    expect(human.status).toBe(2);
    expect(human.stdout.toString()).not.toMatch(/^passed/m);
    expect(human.stdout.toString()).toMatch(
      /\nfailed: 6 models enabled, 4 disabled, 0 failed; 19 tests: 0 passed, 0 failed, 19 not run; 6 files, 0 invalid\n$/,
    );
    const lenient = JSON.parse(runCli(['edition', 'check', project, '--json']).stdout.toString()) as Record<
      string,
      unknown
    >;
    expect([lenient.status, lenient.reason_code, lenient.unmet]).toEqual(['passed', undefined, undefined]);
  });

  it.each([
    ['a model file', 'ws/models/silver/silver_customers.sql', 'file'],
    ['a models subfolder', 'ws/models/silver', 'folder'],
    ['dbt_project.yml', 'ws/dbt_project.yml', 'file'],
    ['a fixtures CSV', 'ws/fixtures/bronze/customers.csv', 'file'],
    ['a fixtures source folder', 'ws/fixtures/bronze', 'folder'],
  ])(
    'regression: an unreadable %s is input_unreadable at that path, not the project or the fixtures',
    (_what, path, kind) => {
      // It was project_invalid at the project root, project_file_invalid
      // ('not a single YAML mapping') or fixtures_invalid at the fixtures root.
      copyProject('bigquery', join(dir, 'ws'));
      chmodSync(join(dir, path), 0);
      try {
        const run = runCli(['edition', 'check', 'ws', '--fixtures', 'ws/fixtures'], { cwd: dir });
        expect(run.status).toBe(2);
        expect(run.stderr.toString()).toBe(
          `error[input_unreadable]: the input file cannot be read\n  --> ${path}\n  = help: ${
            kind === 'folder'
              ? 'this account cannot open or list this folder (its permissions)'
              : 'this account cannot open or read this file (its permissions, or an I/O error)'
          }\n`,
        );
        const json = JSON.parse(
          runCli(['edition', 'check', 'ws', '--fixtures', 'ws/fixtures', '--json'], {
            cwd: dir,
          }).stdout.toString(),
        ) as Record<string, unknown>;
        expect([json.status, json.reason_code, json.location]).toEqual([
          'refused',
          'input_unreadable',
          { path },
        ]);
      } finally {
        chmodSync(join(dir, path), 0o700);
      }
    },
  );

  it.each([
    ['PROJECT_DIR', [''], 'argument PROJECT_DIR is an empty string'],
    ['--fixtures', ['ws', '--fixtures', ''], '--fixtures takes a value, not an empty string: --fixtures DIR'],
    [
      'a second --fixtures',
      ['ws', '--fixtures', 'ws/fixtures', '--fixtures='],
      '--fixtures takes a value, not an empty string: --fixtures DIR',
    ],
    ['--vars', ['ws', '--vars', ''], '--vars takes a value, not an empty string: --vars YAML'],
  ])(
    'regression: an empty %s is a usage error naming it, before anything is read',
    (_what, args, message) => {
      // '' checked the current folder as the project, and --vars '' ran with no vars.
      const run = runCli(['edition', 'check', ...args], { cwd: dir });
      expect(run.status).toBe(1);
      expect(run.stdout.toString()).toBe('');
      expect(run.stderr.toString().split('\n')[0]).toBe(`sealkit: ${message}`);
    },
  );

  it('regression: --vars yes is placed at the +enabled expression, says to write true, and findings run in line order', () => {
    // dbt users write yes (PyYAML reads it as true); the finding pointed at a
    // sources file, said nothing of why, and came out of line order.
    const project = copyProject('bigquery', join(dir, 'ws'));
    const yml = readFileSync(join(project, 'dbt_project.yml'), 'utf8').split('\n');
    const lineOf = (text: string, from = 0): number =>
      yml.findIndex((line, i) => i >= from && line.includes(text)) + 1;
    const models = lineOf('+enabled', lineOf('models:'));
    const sources = lineOf('+enabled', lineOf('sources:'));
    const run = runCli(
      ['edition', 'check', 'ws', '--target', 'migration', '--vars', '{enable_migration_models: yes}'],
      {
        cwd: dir,
      },
    );
    expect(run.status).toBe(2);
    const blocks = run.stderr.toString().split(/(?=^error\[)/m);
    // One block per +enabled key, naming every item it gates.
    expect(blocks.length).toBe(2);
    expect(blocks[0]).toBe(
      'error[config_not_boolean]: an enabled config does not render to true or false\n' +
        `  --> ws/dbt_project.yml:${models}:7\n` +
        '  = at: models.retail_analytics.migration["+enabled"]\n' +
        "  = help: the --vars value 'yes' of enable_migration_models is a string in YAML 1.2 (dbt's PyYAML reads it as true); write enable_migration_models: true (for 4 items: model migration_silver_customers, model migration_silver_order_items, model migration_silver_orders, model migration_silver_products)\n",
    );
    const places = blocks.map((block) => /--> (\S+)/.exec(block)?.[1]);
    expect(places).toEqual([`ws/dbt_project.yml:${models}:7`, `ws/dbt_project.yml:${sources}:7`]);
    expect(blocks[1]).toContain("= help: the --vars value 'yes' of enable_migration_models");
    expect(blocks[1]).toContain('(for 4 items: source migration_bronze.customers,');
  });

  it('lists the migration models with --target migration --vars and gives one JSON object with --json', () => {
    const project = EDITION_PROJECTS.snowflake;
    const run = runCli(
      [
        'edition',
        'check',
        project,
        '--target',
        'migration',
        '--vars',
        '{enable_migration_models: true}',
        '--json',
      ],
      { env: { ...process.env, MIGRATION_BRONZE_NAMESPACE: 'starterkit_migration_zq_ns_cli' } },
    );
    expect(run.status).toBe(0);
    const report = JSON.parse(run.stdout.toString()) as { status: string; listed: string[] };
    expect(report.status).toBe('passed');
    expect(report.listed.filter((name) => name.startsWith('reliable_pipeline.migration.')).length).toBe(4);
    expect(scanForSentinels(run, [], ['zq_ns_cli', project])).toEqual([]);
  });

  it('prints the report on stdout and the located finding on stderr, and exits 2 when a check fails', () => {
    const project = copyProject('bigquery', join(dir, 'broken'));
    const file = join(project, 'models', 'silver', 'silver_orders.sql');
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.replace('from bronze', 'from bronze bronze bronze'));
    const line = text.slice(0, text.indexOf('from bronze')).split('\n').length;
    const human = runCli(['edition', 'check', 'broken'], { cwd: dir });
    expect(human.status).toBe(2);
    expect(human.stdout.toString()).toMatch(
      /\n {2}failed +retail_analytics\.silver\.silver_orders +table +- +silver +sql_parse_error\n/,
    );
    expect(human.stdout.toString()).toMatch(/\nfailed: 6 models enabled, 4 disabled, 1 failed;/);
    expect(human.stderr.toString()).toMatch(
      new RegExp(
        `^error\\[sql_parse_error\\]: the rendered SQL does not parse\n  --> broken/models/silver/silver_orders\\.sql:${line}:\\d+\n  = duckdb: syntax error at or near "bronze"\n$`,
      ),
    );
    // The cron redirect hides the report, never the failure.
    expect(human.stdout.toString()).not.toContain('error[');
    const json = runCli(['edition', 'check', 'broken', '--json'], { cwd: dir });
    expect(json.status).toBe(2);
    expect(json.stderr.toString()).toBe('');
    expect(JSON.parse(json.stdout.toString())).toMatchObject({
      status: 'failed',
      summary: { models_failed: 1 },
      models: expect.arrayContaining([
        expect.objectContaining({
          name: 'silver_orders',
          finding: expect.objectContaining({
            location: { path: 'broken/models/silver/silver_orders.sql', line, column: expect.any(Number) },
            detail: 'syntax error at or near "bronze"',
          }),
        }),
      ]),
    });
    // Relative in, relative out: the temp folder the user is in is never printed.
    expect(scanForSentinels(human, [], [dir])).toEqual([]);
  });

  it('lists at most 50 findings on stderr, then how many more', () => {
    const project = copyProject('bigquery', join(dir, 'many'));
    for (let index = 0; index < 55; index += 1)
      writeFileSync(
        join(project, 'models', 'gold', `gold_typo_${index}.sql`),
        "select * from {{ ref('silver_ordrs') }}\n",
      );
    const human = runCli(['edition', 'check', 'many'], { cwd: dir });
    expect(human.status).toBe(2);
    const errors = human.stderr.toString();
    expect(errors.match(/^error\[undefined_ref\]/gm)?.length).toBe(50);
    expect(errors).toMatch(/\n\.\.\. and 5 more findings\n$/);
    const json = JSON.parse(
      runCli(['edition', 'check', 'many', '--json'], { cwd: dir }).stdout.toString(),
    ) as {
      models: { finding?: { reason_code: string } }[];
    };
    // --json keeps every finding: it is the report, not a message.
    expect(json.models.filter((model) => model.finding?.reason_code === 'undefined_ref').length).toBe(55);
  });

  it('a misspelt project or fixtures folder names the folder beside it, human and --json', () => {
    copyProject('bigquery', join(dir, 'acme-retail'));
    const project = runCli(['edition', 'check', 'acme-retial'], { cwd: dir });
    expect(project.status).toBe(2);
    expect(project.stderr.toString()).toBe(
      "error[project_missing]: the project directory does not exist\n  --> acme-retial\n  = help: did you mean 'acme-retail'?\n",
    );
    const projectJson = runCli(['edition', 'check', 'acme-retial', '--json'], { cwd: dir });
    expect(JSON.parse(projectJson.stdout.toString())).toEqual({
      status: 'refused',
      reason_code: 'project_missing',
      category: 'missing',
      message: 'the project directory does not exist',
      location: { path: 'acme-retial' },
      hint: "did you mean 'acme-retail'?",
    });
    const args = ['edition', 'check', 'acme-retail', '--fixtures', 'acme-retail/fixture'];
    const fixtures = runCli(args, { cwd: dir });
    expect(fixtures.status).toBe(2);
    expect(fixtures.stderr.toString()).toContain(
      "error[fixtures_missing]: the fixtures directory does not exist\n  --> acme-retail/fixture\n  = help: did you mean 'acme-retail/fixtures'?\n",
    );
    const fixturesJson = runCli([...args, '--json'], { cwd: dir });
    expect(JSON.parse(fixturesJson.stdout.toString())).toMatchObject({
      reason_code: 'fixtures_missing',
      hint: "did you mean 'acme-retail/fixtures'?",
    });
  });

  it('refuses an unreadable input with a fixed code (exit 2) and a bad target as a usage error (exit 1)', () => {
    const secret = join(dir, 'client_project_zq');
    const missing = runCli(['edition', 'check', secret]);
    expect(missing.status).toBe(2);
    expect(missing.stderr.toString()).toBe(
      `error[project_missing]: the project directory does not exist\n  --> ${secret}\n`,
    );
    const vars = runCli([
      'edition',
      'check',
      EDITION_PROJECTS.bigquery,
      '--vars',
      'secret_zq_value',
      '--json',
    ]);
    expect(vars.status).toBe(2);
    expect(JSON.parse(vars.stdout.toString())).toMatchObject({
      status: 'refused',
      reason_code: 'vars_invalid',
    });
    // The --vars value is never echoed, only where in it the fault is.
    expect(scanForSentinels(vars, [], ['secret_zq_value'])).toEqual([]);
    expect(runCli(['edition', 'check', EDITION_PROJECTS.bigquery, '--target', 'prod']).status).toBe(1);
    expect(runCli(['edition', 'check']).status).toBe(1);
  });
  it('regression: lists a stray fixture file and a fixture for an unknown table in one run', () => {
    copyProject('bigquery', join(dir, 'ws'));
    writeFileSync(join(dir, 'ws', 'fixtures', 'notes.txt'), 'notes\n');
    renameSync(
      join(dir, 'ws', 'fixtures', 'bronze', 'orders.csv'),
      join(dir, 'ws', 'fixtures', 'bronze', 'order.csv'),
    );
    const run = runCli(['edition', 'check', 'ws', '--fixtures', 'ws/fixtures'], { cwd: dir });
    expect(run.status).toBe(2);
    expect(run.stderr.toString()).toBe(
      'error[fixtures_invalid]: the fixtures directory is not laid out as <source>/<table>.csv with well-formed CSV (header row of identifiers, equal field counts)\n' +
        '  --> ws/fixtures/notes.txt\n' +
        '  = help: fixtures are <source>/<table>.csv with plain identifier names\n' +
        'error[fixture_unknown_table]: a fixture file names a source table the project does not define\n' +
        '  --> ws/fixtures/bronze/order.csv\n' +
        "  = help: no source table 'bronze.order' is defined in the project's properties files; did you mean 'bronze.orders'?\n",
    );
    const json = runCli(['edition', 'check', 'ws', '--fixtures', 'ws/fixtures', '--json'], { cwd: dir });
    expect(json.status).toBe(2);
    expect(JSON.parse(json.stdout.toString())).toMatchObject({
      reason_code: 'fixtures_invalid',
      location: { path: 'ws/fixtures/notes.txt' },
      also: [{ reason_code: 'fixture_unknown_table', location: { path: 'ws/fixtures/bronze/order.csv' } }],
    });
  });
  it('regression: stderr shows a fixture missing a column before the build failure it causes', () => {
    // As a user lays them out: bq/ and fx2/ side by side, so the fixture's path sorts after the model's.
    copyProject('bigquery', join(dir, 'bq'));
    copyProject('bigquery', join(dir, 'copy'));
    renameSync(join(dir, 'copy', 'fixtures'), join(dir, 'fx2'));
    const csv = join(dir, 'fx2', 'bronze', 'order_items.csv');
    const [header = '', ...rows] = readFileSync(csv, 'utf8').split('\n');
    const names = header.split(',');
    const kept = names
      .map((name, index) => (name === 'unit_price' ? -1 : index))
      .filter((index) => index >= 0);
    const cut = (line: string) => {
      const fields = line.split(',');
      return kept.map((index) => fields[index]).join(',');
    };
    writeFileSync(
      csv,
      [cut(header).replace('quantity', 'quantty'), ...rows.map((row) => (row === '' ? row : cut(row)))].join(
        '\n',
      ),
    );
    const run = runCli(['edition', 'check', 'bq', '--fixtures', 'fx2'], { cwd: dir });
    expect(run.status).toBe(2);
    const heads = run.stderr
      .toString()
      .split(/(?=^error\[)/m)
      .map((block) => block.split('\n').slice(0, 2).join('\n'));
    expect(heads.slice(0, 2)).toEqual([
      'error[fixture_column_missing]: the fixture CSV has no column for a column its source table declares\n  --> fx2/bronze/order_items.csv:1',
      expect.stringMatching(
        /^error\[build_failed\]: .*\n {2}--> bq\/models\/silver\/silver_order_items\.sql/,
      ),
    ]);
  });

  it('regression: a repeated key in dbt_project.yml is refused as YAML, at the repetition', () => {
    const project = copyProject('bigquery', join(dir, 'ws'));
    const file = join(project, 'dbt_project.yml');
    const original = readFileSync(file, 'utf8');
    writeFileSync(file, original.replace('\nversion: ', '\nname: other\nversion: '));
    const run = runCli(['edition', 'check', 'ws'], { cwd: dir });
    expect(run.status).toBe(2);
    expect(run.stderr.toString()).toBe(
      'error[project_file_yaml]: dbt_project.yml is not a single well-formed YAML document (or repeats a key)\n' +
        '  --> ws/dbt_project.yml:4:1\n' +
        '  = at: name\n' +
        "  = help: 'name' is first set on line 3; keep one of the two\n",
    );
    // An explicit tag is placed at the tag, not at the value after it.
    writeFileSync(file, original.replace('\nversion: ', '\nversion: !!str '));
    const tagged = runCli(['edition', 'check', 'ws', '--json'], { cwd: dir });
    expect(tagged.status).toBe(2);
    expect(JSON.parse(tagged.stdout.toString())).toMatchObject({
      reason_code: 'project_file_yaml',
      location: { path: 'ws/dbt_project.yml', line: 4, column: 10, pointer: 'version' },
    });
  });
});
