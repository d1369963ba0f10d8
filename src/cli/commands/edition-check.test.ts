import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

  it('prints the report and exits 2 when a check fails', () => {
    const project = copyProject('bigquery', join(dir, 'broken'));
    const file = join(project, 'models', 'silver', 'silver_orders.sql');
    writeFileSync(file, readFileSync(file, 'utf8').replace('from bronze', 'from bronze bronze bronze'));
    const human = runCli(['edition', 'check', project]);
    expect(human.status).toBe(2);
    expect(human.stdout.toString()).toMatch(
      /\n {2}failed +retail_analytics\.silver\.silver_orders +table +- +silver +sql_parse_error: the rendered SQL does not parse\n/,
    );
    expect(human.stdout.toString()).toMatch(/\nfailed: 6 models enabled, 4 disabled, 1 failed;/);
    const json = runCli(['edition', 'check', project, '--json']);
    expect(json.status).toBe(2);
    expect(JSON.parse(json.stdout.toString())).toMatchObject({
      status: 'failed',
      summary: { models_failed: 1 },
    });
    expect(scanForSentinels(human, [], [dir])).toEqual([]);
  });

  it('refuses an unreadable input with a fixed code (exit 2) and a bad target as a usage error (exit 1)', () => {
    const secret = join(dir, 'client_project_zq');
    const missing = runCli(['edition', 'check', secret]);
    expect(missing.status).toBe(2);
    expect(missing.stderr.toString()).toBe('error[project_missing]: the project directory does not exist\n');
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
    for (const run of [missing, vars])
      expect(scanForSentinels(run, [], ['client_project_zq', 'secret_zq_value', dir])).toEqual([]);
    expect(runCli(['edition', 'check', EDITION_PROJECTS.bigquery, '--target', 'prod']).status).toBe(1);
    expect(runCli(['edition', 'check']).status).toBe(1);
  });
});
