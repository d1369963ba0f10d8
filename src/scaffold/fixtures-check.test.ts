import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../test/helpers/cli.js';
import { EDITIONS, makeWritable, PROJECT_DIR } from '../../test/helpers/scaffold-workspace.js';

const base = realpathSync(mkdtempSync(join(tmpdir(), 'sealkit-fixtures-check-')));
afterAll(() => {
  makeWritable(base);
  rmSync(base, { recursive: true, force: true });
});

const MODELS = ['customers', 'order_items', 'orders', 'products'].map((table) => `silver_shop__${table}`);

interface Report {
  status: string;
  models: { name: string; status: string; built?: boolean }[];
  tests: { kind: string; attached_to: string; status: string; failures?: number }[];
}

// Regression: after scaffolding, the suggested offline check with fixtures
// failed with fixture_missing for every generated model, since the new
// source had no Bronze rows under its raw Bronze names. evidence synth now
// writes synthetic Bronze fixtures beside its evidence, and edition check
// builds the generated and the shipped models on them together.
describe.each(EDITIONS)('scaffold, then edition check on the synthetic Bronze fixtures (%s)', (edition) => {
  it('builds every generated model and passes every generated test, beside the shipped models', () => {
    const dir = join(base, edition);
    mkdirSync(dir, { mode: 0o700 });
    expect(runCli(['edition', 'new', '--edition', edition, join(dir, 'ws')], { cwd: base }).status).toBe(0);
    const synth = runCli([
      'evidence',
      'synth',
      '--out',
      join(dir, 'ev'),
      '--source',
      'csv',
      '--destination',
      edition,
      '--source-binding-id',
      'shop_main',
    ]);
    expect(synth.status).toBe(0);
    // Owner-only and labelled synthetic, like the rest of the evidence.
    const fixtures = join(dir, 'ev', 'fixtures');
    expect(lstatSync(fixtures).mode & 0o777).toBe(0o700);
    expect(readFileSync(join(fixtures, 'README.md'), 'utf8')).toContain('synthetic');
    const csvs = readdirSync(join(fixtures, 'migration_bronze')).sort();
    expect(csvs).toEqual(['customers.csv', 'order_items.csv', 'orders.csv', 'products.csv']);
    for (const name of csvs)
      expect(lstatSync(join(fixtures, 'migration_bronze', name)).mode & 0o777).toBe(0o600);

    const manifest = readdirSync(join(dir, 'ev', 'run-manifests'))[0] ?? '';
    const scaffold = runCli([
      'scaffold',
      '--edition',
      edition,
      '--workspace',
      join(dir, 'ws'),
      '--source-id',
      'shop',
      '--mapping-file',
      join(dir, 'ev', 'mapping.json'),
      '--inventory-file',
      join(dir, 'ev', 'dry-run.json'),
      '--run-manifest',
      join(dir, 'ev', 'run-manifests', manifest),
      '--source-binding-id',
      'shop_main',
      '--max-evidence-age',
      '1h',
    ]);
    expect(scaffold.status).toBe(0);

    const project = join(dir, 'ws', PROJECT_DIR[edition]);
    const check = runCli([
      'edition',
      'check',
      project,
      '--target',
      'migration',
      '--vars',
      '{enable_migration_models: true}',
      '--fixtures',
      join(project, 'fixtures'),
      '--fixtures',
      fixtures,
      '--json',
    ]);
    const report = JSON.parse(check.stdout.toString()) as Report;
    expect(report.models.filter((model) => model.status !== 'passed').map((model) => model.name)).toEqual([]);
    for (const name of MODELS) {
      expect(
        report.models.find((model) => model.name === name),
        name,
      ).toMatchObject({
        status: 'passed',
        built: true,
      });
    }
    const generated = report.tests.filter((test) => MODELS.includes(test.attached_to));
    expect(generated.map((test) => test.kind).sort()).toEqual([
      'accepted_values',
      ...Array(4).fill('not_null'),
      ...Array(3).fill('relationships'),
      ...Array(4).fill('unique'),
    ]);
    expect(generated.filter((test) => test.status !== 'passed')).toEqual([]);
    expect(report.tests.filter((test) => test.status !== 'passed')).toEqual([]);
    expect(report.status).toBe('passed');
    expect(check.status).toBe(0);
  });
});
