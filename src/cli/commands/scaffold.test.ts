import { chmodSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../test/helpers/cli.js';
import { snapshotTree } from '../../../test/helpers/edition-trees.js';
import { FAULTS_ENV } from '../../../test/helpers/scaffold-child.js';
import { ScaffoldScratch, SOURCE_ID } from '../../../test/helpers/scaffold-workspace.js';
import { scanForSentinels } from '../../../test/helpers/sentinels.js';
import { fromSpec, retailSpec } from '../../migration/testing/bundles.js';

const scratch = new ScaffoldScratch('cli');
afterAll(() => scratch.dispose());

function oneObject(stdout: Buffer): Record<string, unknown> {
  const lines = stdout
    .toString()
    .split('\n')
    .filter((line) => line !== '');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0] ?? '') as Record<string, unknown>;
}

describe('sealkit scaffold', () => {
  it('publishes, prints exactly one JSON object and exits 0; a rerun exits 2 with output_exists', () => {
    const fixture = scratch.fixture('snowflake');
    const first = runCli(fixture.cliArgs());
    expect(first.status).toBe(0);
    // The one stderr line after a publication names the namespace variable, never a value.
    expect(first.stderr.toString()).toBe(
      'sealkit scaffold: source migration_bronze_shop reads its schema from MIGRATION_BRONZE_NAMESPACE;\n' +
        "  export it to this source's Bronze namespace (bronze_namespace in its dry run) before dbt runs\n" +
        '  these models, one dbt invocation per namespace.\n',
    );
    expect(first.stderr.toString()).not.toContain('starterkit_migration');
    expect(oneObject(first.stdout)).toMatchObject({
      status: 'published',
      reason_codes: [],
      stage: 'normalize',
      edition: 'snowflake',
      project_dir: 'kit',
      source_id: SOURCE_ID,
      output: `models/migration/generated/${SOURCE_ID}`,
    });
    expect(readdirSync(fixture.output)).toHaveLength(6);
    const second = runCli(fixture.cliArgs());
    expect(second.status).toBe(2);
    expect(oneObject(second.stdout)).toMatchObject({ status: 'refused', reason_codes: ['output_exists'] });
  });

  it('--dry-run prints plan_only with the planned files, exits 0 and writes nothing, not even a lock file', () => {
    const fixture = scratch.fixture('bigquery');
    const before = fixture.snapshot();
    const run = runCli(fixture.cliArgs(['--dry-run']));
    expect(run.status).toBe(0);
    const result = oneObject(run.stdout);
    expect(result.status).toBe('plan_only');
    expect((result.files as { path: string }[]).map((file) => file.path)).toContain(
      `models/migration/generated/${SOURCE_ID}/.scaffold-manifest.json`,
    );
    expect(fixture.snapshot()).toEqual(before);
    expect(existsSync(fixture.stagingRoot)).toBe(false);
  });

  it.each([
    ['an unknown flag', ['--force']],
    ['--show without --dry-run', ['--show']],
    ['an invalid maximum age', ['--max-evidence-age', '3 days']],
    ['a positional argument', ['extra']],
  ])('%s is a usage error (exit 1) that writes nothing', (_name, extra) => {
    const fixture = scratch.fixture('bigquery');
    const before = fixture.snapshot();
    const run = runCli(fixture.cliArgs(extra));
    expect(run.status).toBe(1);
    expect(fixture.snapshot()).toEqual(before);
  });

  it('accepts --json, as every command does: the same one JSON object, and nothing on stderr', () => {
    // Regression: the top-level help promises --json everywhere; scaffold refused it (exit 1).
    const fixture = scratch.fixture('bigquery');
    const run = runCli(fixture.cliArgs(['--json']));
    expect(run.status).toBe(0);
    expect(oneObject(run.stdout)).toMatchObject({ status: 'published', reason_codes: [] });
    expect(run.stderr.length).toBe(0);
    const dry = runCli(fixture.cliArgs(['--dry-run', '--json']));
    expect(dry.status).toBe(2);
    expect(oneObject(dry.stdout)).toMatchObject({ status: 'refused', reason_codes: ['output_exists'] });
    expect(dry.stderr.length).toBe(0);
    const help = runCli(['--help']).stdout.toString();
    expect(help).toContain('3 published with a condition');
    expect(help).toContain('(scaffold always does)');
    expect(runCli(['scaffold', '--help']).stdout.toString()).toContain('--json');
  });

  it('--dry-run --show prints every planned file with its exact contents, in plan order; --dry-run alone paths only', () => {
    const fixture = scratch.fixture('snowflake');
    const before = fixture.snapshot();
    const shown = runCli(fixture.cliArgs(['--dry-run', '--show']));
    expect(shown.status).toBe(0);
    const plan = oneObject(shown.stdout) as { status: string; files: { path: string; content?: string }[] };
    expect(plan.status).toBe('plan_only');
    expect(fixture.snapshot()).toEqual(before);
    const plain = oneObject(runCli(fixture.cliArgs(['--dry-run'])).stdout) as {
      files: { content?: string }[];
    };
    expect(plain.files.every((file) => file.content === undefined)).toBe(true);
    expect(runCli(fixture.cliArgs()).status).toBe(0);
    // The contents shown are the bytes then published, file for file, in the same order.
    expect(plan.files.map((file) => file.path)).toEqual(
      [...readdirSync(fixture.output)]
        .sort()
        .map((name) => `models/migration/generated/${SOURCE_ID}/${name}`),
    );
    for (const file of plan.files) {
      expect(file.content, file.path).toBe(readFileSync(join(fixture.project, file.path), 'utf8'));
    }
  });

  it.each([
    ['--edition', 'missing option --edition'],
    ['--workspace', 'missing option --workspace'],
    ['--source-id', 'missing option --source-id'],
  ])('without %s it is a usage error', (flag, message) => {
    const fixture = scratch.fixture('bigquery');
    const args = fixture.cliArgs();
    const index = args.indexOf(flag);
    args.splice(index, 2);
    const run = runCli(args);
    expect(run.status).toBe(1);
    expect(run.stderr.toString()).toContain(message);
  });

  it.each([
    ['--workspace', '', '--workspace takes a value, not an empty string: --workspace DIR'],
    [
      '--source-id',
      '',
      "--source-id takes a generic alias: a lowercase letter, then up to 39 lowercase letters, digits or _, not ''",
    ],
    [
      '--source-id',
      'Shop-1',
      "--source-id takes a generic alias: a lowercase letter, then up to 39 lowercase letters, digits or _, not 'Shop-1'",
    ],
    ['--mapping-file', '', '--mapping-file takes a value, not an empty string: --mapping-file FILE'],
    ['--inventory-file', '', '--inventory-file takes a value, not an empty string: --inventory-file FILE'],
    ['--run-manifest', '', '--run-manifest takes a value, not an empty string: --run-manifest FILE'],
    [
      '--source-binding-id',
      'ZORBEX',
      "--source-binding-id takes a lowercase letter, then up to 39 lowercase letters, digits or _, not 'ZORBEX'",
    ],
  ])(
    'regression: %s %j is a usage error naming the flag and its form, writing nothing',
    (flag, value, message) => {
      const fixture = scratch.fixture('bigquery');
      const before = fixture.snapshot();
      const args = fixture.cliArgs();
      args[args.indexOf(flag) + 1] = value;
      for (const extra of [[], ['--dry-run']]) {
        const run = runCli([...args, ...extra]);
        expect({
          status: run.status,
          stdout: run.stdout.toString(),
          first: run.stderr.toString().split('\n')[0],
        }).toEqual({
          status: 1,
          stdout: '',
          first: `sealkit: ${message}`,
        });
      }
      expect(fixture.snapshot()).toEqual(before);
    },
  );

  it('an edition other than bigquery or snowflake is a usage error', () => {
    const fixture = scratch.fixture('bigquery');
    const args = fixture.cliArgs();
    args[args.indexOf('--edition') + 1] = 'duckdb';
    expect(runCli(args).status).toBe(1);
  });

  it('a missing evidence file is refused with its evidence code (exit 2), naming the role only', () => {
    const fixture = scratch.fixture('bigquery');
    const args = fixture.cliArgs();
    args[args.indexOf('--mapping-file') + 1] = join(fixture.evidence.dir, 'absent.json');
    const run = runCli(args);
    expect(run.status).toBe(2);
    expect(oneObject(run.stdout)).toMatchObject({
      status: 'refused',
      reason_codes: ['scaffold_input_missing'],
      role: 'mapping',
    });
    expect(run.stdout.toString()).not.toContain(fixture.evidence.dir);
  });

  describe('regression: a run that does not publish cleanly says why on stderr, not only on stdout', () => {
    // A user who discards stdout (`> /dev/null`, a cron job) used to see nothing at all.
    it('a refusal: error[code]: its fixed message, exit 2', () => {
      const fixture = scratch.fixture('bigquery');
      expect(runCli(fixture.cliArgs()).status).toBe(0);
      const again = runCli(fixture.cliArgs());
      expect(again.status).toBe(2);
      const result = oneObject(again.stdout);
      expect(result.reason_codes).toEqual(['output_exists']);
      // The folder that exists is named: sealkit's own path, as in the result on stdout.
      expect(again.stderr.toString()).toBe(
        `error[output_exists]: ${String(result.message)}\n  = output: ${String(result.output)}\n`,
      );
      expect(result.output).toBe(`models/migration/generated/${SOURCE_ID}`);
    });

    it('an evidence refusal: the code, then the artifact role, and no path', () => {
      const fixture = scratch.fixture('snowflake');
      const args = fixture.cliArgs();
      args[args.indexOf('--mapping-file') + 1] = join(fixture.evidence.dir, 'absent.json');
      const run = runCli(args);
      expect(run.status).toBe(2);
      expect(run.stderr.toString()).toBe(
        'error[scaffold_input_missing]: a required evidence artifact was not supplied or does not exist\n' +
          '  = in: mapping\n',
      );
      expect(run.stderr.toString()).not.toContain(fixture.evidence.dir);
    });

    it('an interrupted or failed step, and a dry run that would be refused', () => {
      const fixture = scratch.fixture('bigquery');
      const failed = runCli(fixture.cliArgs(), { env: { ...process.env, [FAULTS_ENV]: 'fail@after_mkdir' } });
      expect(failed.status).toBe(2);
      const result = oneObject(failed.stdout);
      const staging = `.scaffold-staging/${SOURCE_ID}`;
      const repair = `chmod -R u+w ${staging} && rm -r ${staging}`;
      expect(failed.stderr.toString()).toBe(
        `error[${String((result.reason_codes as string[])[0])}]: ${String(result.message)}\n` +
          `  = staging: ${staging} (left unsealed)\n` +
          `  = repair, from the workspace folder: ${repair}\n`,
      );
      const dry = runCli(fixture.cliArgs(['--dry-run']));
      expect(dry.status).toBe(2);
      expect(dry.stderr.toString()).toBe(
        `error[staging_exists]: ${String(oneObject(dry.stdout).message)}\n` +
          `  = staging: ${staging}\n` +
          `  = repair, from the workspace folder: ${repair}\n`,
      );
    });

    it('an input rule refused names its canonical table on stderr (= table:), as on stdout; exit 2', () => {
      const spec = retailSpec({ destination: 'bigquery' });
      const bundle = fromSpec({
        ...spec,
        tables: spec.tables.map((table) =>
          table.table === 'products'
            ? { ...table, columns: table.columns.filter((column) => column.rule?.target !== 'category') }
            : table,
        ),
      });
      const run = runCli(scratch.fixture('bigquery', { bundle }).cliArgs());
      expect(run.status).toBe(2);
      expect(oneObject(run.stdout)).toMatchObject({
        reason_codes: ['missing_contract_column'],
        table: 'products',
      });
      expect(run.stderr.toString()).toBe(
        'error[missing_contract_column]: a canonical column of a table resolves to no mapping rule or Bronze column\n' +
          '  = in: mapping\n' +
          '  = field: tables[].target\n' +
          '  = table: products\n',
      );
    });

    it('a publication with a condition: the condition, then the namespace line; exit 3', () => {
      const fixture = scratch.fixture('snowflake');
      const run = runCli(fixture.cliArgs(), {
        env: { ...process.env, [FAULTS_ENV]: 'errno@parent_fsync=EIO' },
      });
      expect(run.status).toBe(3);
      expect(oneObject(run.stdout)).toMatchObject({ status: 'published_durability_unknown' });
      const lines = run.stderr.toString().split('\n');
      expect(lines[0]).toBe(
        'error[published_durability_unknown]: the output is complete and visible, but a directory fsync failed: it may not survive a crash',
      );
      expect(lines[1]).toBe('  = output: models/migration/generated/shop');
      expect(lines[2]).toMatch(/^sealkit scaffold: source migration_bronze_shop reads its schema from/);
    });
  });

  it.each(['bigquery', 'snowflake'] as const)(
    'regression: a models/migration/ you may not write in (%s) is refused before staging, by --dry-run too, leaving nothing',
    (edition) => {
      const fixture = scratch.fixture(edition);
      const migration = join(fixture.project, 'models', 'migration');
      const before = snapshotTree(fixture.workspace);
      chmodSync(migration, 0o500);
      let dry: ReturnType<typeof runCli>;
      let run: ReturnType<typeof runCli>;
      try {
        dry = runCli(fixture.cliArgs(['--dry-run']));
        run = runCli(fixture.cliArgs());
      } finally {
        chmodSync(migration, 0o700);
      }
      for (const result of [dry, run]) {
        expect(result.status).toBe(2);
        expect(oneObject(result.stdout)).toMatchObject({
          status: 'refused',
          reason_codes: ['publish_permission_denied'],
          stage: 'preflight',
        });
        expect(result.stderr.toString()).toBe(
          'error[publish_permission_denied]: the filesystem denied creating models/migration/generated/ or the publishing rename into it; nothing was published\n',
        );
        expect(scanForSentinels(result, [], [fixture.workspace, fixture.evidence.dir])).toEqual([]);
      }
      // Nothing staged, nothing to repair: with the permission back, the next run publishes.
      expect(existsSync(fixture.staging)).toBe(false);
      expect(snapshotTree(fixture.workspace)).toEqual(before);
      expect(runCli(fixture.cliArgs()).status).toBe(0);
    },
  );

  it('is listed by sealkit --help and has its own --help', () => {
    expect(runCli(['--help']).stdout.toString()).toContain('sealkit scaffold');
    const help = runCli(['scaffold', '--help']);
    expect(help.status).toBe(0);
    expect(help.stdout.toString()).toContain('--source-binding-id ALIAS');
  });
});
