import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli } from '../../test/helpers/cli.js';
import { snapshotTree } from '../../test/helpers/edition-trees.js';
import { EDITIONS, ScaffoldScratch, SOURCE_ID } from '../../test/helpers/scaffold-workspace.js';
import { scanForSentinels } from '../../test/helpers/sentinels.js';
import { refuseScaffold } from './refusals.js';
import { scaffold } from './run.js';

const scratch = new ScaffoldScratch('isolation');
afterAll(() => scratch.dispose());

// The starter repository is the sealkit checkout; colleagues edit its source
// while tests run, so the snapshot covers what the scaffolder could touch
// there: the shipped editions (templates and projects) and the top level.
function starterSnapshot(): { readonly editions: Map<string, string>; readonly top: string[] } {
  return { editions: snapshotTree(join(REPO_ROOT, 'editions')), top: readdirSync(REPO_ROOT).sort() };
}

describe('edition isolation', () => {
  it.each(EDITIONS)(
    'a %s run changes nothing in the starter repository and nothing in the workspace but the three allowed entries',
    async (edition) => {
      const fixture = scratch.fixture(edition);
      const repository = starterSnapshot();
      const before = fixture.snapshot();
      const result = await scaffold(fixture.options());
      expect(result.status).toBe('published');
      expect(starterSnapshot()).toEqual(repository);
      const after = fixture.snapshot();
      const prefix = edition === 'bigquery' ? '' : 'kit/';
      const allowed = [`${prefix}.scaffold-staging`, `${prefix}models/migration/generated`];
      const added = [...after.keys()].filter((path) => !before.has(path));
      expect(
        added.every((path) => allowed.some((root) => path === root || path.startsWith(`${root}/`))),
      ).toBe(true);
      expect(added.filter((path) => path.startsWith(`${prefix}.scaffold-staging`)).sort()).toEqual([
        `${prefix}.scaffold-staging`,
        `${prefix}.scaffold-staging/${SOURCE_ID}.lock`,
      ]);
      for (const [path, entry] of before) expect(after.get(path), path).toBe(entry);
    },
  );
});

describe('workspace boundary: refused before any write, each with its own code', () => {
  it('the BigQuery edition folder of the checkout itself is workspace_inside_starter_repo', async () => {
    const repository = starterSnapshot();
    const fixture = scratch.fixture('bigquery');
    for (const dryRun of [false, true]) {
      const result = await scaffold(
        fixture.options({ workspace: join(REPO_ROOT, 'editions', 'Bigquery'), dryRun }),
      );
      expect(result).toMatchObject({ status: 'refused', reason_codes: ['workspace_inside_starter_repo'] });
    }
    const inside = await scaffold(
      fixture.options({ edition: 'snowflake', workspace: join(REPO_ROOT, 'editions', 'Snowflake') }),
    );
    expect(inside.reason_codes).toEqual(['workspace_inside_starter_repo']);
    expect(starterSnapshot()).toEqual(repository);
    expect(existsSync(join(REPO_ROOT, 'editions', 'Bigquery', '.scaffold-staging'))).toBe(false);
  });

  it('a starter checkout copied elsewhere is workspace_is_starter_checkout', async () => {
    const fixture = scratch.fixture('bigquery');
    const copy = join(scratch.dir('checkout'), 'sealkit');
    mkdirSync(copy);
    cpSync(join(REPO_ROOT, 'editions'), join(copy, 'editions'), { recursive: true });
    writeFileSync(join(copy, 'package.json'), '{"name":"sealkit"}\n');
    // Posing as a workspace: a BigQuery project at its root, and as the edition folder inside.
    cpSync(join(REPO_ROOT, 'editions', 'Bigquery'), copy, { recursive: true });
    const before = snapshotTree(copy);
    const result = await scaffold(fixture.options({ workspace: copy }));
    expect(result.reason_codes).toEqual(['workspace_is_starter_checkout']);
    expect(snapshotTree(copy)).toEqual(before);
  });

  it('a symlinked workspace is workspace_invalid', async () => {
    const fixture = scratch.fixture('bigquery');
    const link = join(scratch.dir('link'), 'ws-link');
    symlinkSync(fixture.workspace, link);
    const before = fixture.snapshot();
    expect((await scaffold(fixture.options({ workspace: link }))).reason_codes).toEqual([
      'workspace_invalid',
    ]);
    expect(fixture.snapshot()).toEqual(before);
  });

  it('a missing workspace, or a file in its place, is workspace_invalid', async () => {
    const fixture = scratch.fixture('snowflake');
    expect(
      (await scaffold(fixture.options({ workspace: join(fixture.workspace, 'absent') }))).reason_codes,
    ).toEqual(['workspace_invalid']);
    const file = join(scratch.dir('file'), 'ws');
    writeFileSync(file, 'x');
    expect((await scaffold(fixture.options({ workspace: file }))).reason_codes).toEqual([
      'workspace_invalid',
    ]);
    rmSync(join(fixture.workspace, 'kit'), { recursive: true });
    expect((await scaffold(fixture.options())).reason_codes).toEqual(['workspace_invalid']);
  });

  it.each([
    ['the workspace root (0000)', 'bigquery', '.', 0o000],
    ['the workspace root, readable but not enterable (0600)', 'bigquery', '.', 0o600],
    ['the folder that holds the workspace (0600)', 'bigquery', '..', 0o600],
    ['the Snowflake project folder kit/ (0000)', 'snowflake', 'kit', 0o000],
    ['models/ (0600)', 'bigquery', 'models', 0o600],
  ] as const)(
    'regression: %s you may not read is workspace_unreadable, in a dry run too',
    async (_name, edition, below, mode) => {
      const fixture = scratch.fixture(edition);
      const before = fixture.snapshot();
      const locked = join(fixture.workspace, below);
      const original = statSync(locked).mode & 0o7777;
      chmodSync(locked, mode);
      try {
        for (const dryRun of [false, true]) {
          expect(await scaffold(fixture.options({ dryRun }))).toMatchObject({
            status: 'refused',
            reason_codes: ['workspace_unreadable'],
            stage: 'preflight',
          });
        }
        const run = runCli(fixture.cliArgs(['--dry-run']));
        expect({ status: run.status, stderr: run.stderr.toString() }).toEqual({
          status: 2,
          stderr: `error[workspace_unreadable]: ${refuseScaffold.table.workspace_unreadable.message}\n`,
        });
        expect(scanForSentinels(run, [], [fixture.workspace, fixture.evidence.dir])).toEqual([]);
      } finally {
        chmodSync(locked, original);
      }
      expect(fixture.snapshot()).toEqual(before);
      expect(existsSync(fixture.stagingRoot)).toBe(false);
    },
  );

  it.each([
    ['a missing dbt_project.yml', (file: string) => rmSync(file)],
    ['a dbt_project.yml of another project', (file: string) => writeFileSync(file, 'name: other_project\n')],
    ['a dbt_project.yml that is not YAML', (file: string) => writeFileSync(file, 'name: [unclosed\n')],
    ['a dbt_project.yml with a repeated key', (file: string) => writeFileSync(file, 'name: a\nname: b\n')],
  ])('%s is edition_project_mismatch', async (_name, change) => {
    const fixture = scratch.fixture('bigquery');
    change(join(fixture.project, 'dbt_project.yml'));
    const before = fixture.snapshot();
    expect((await scaffold(fixture.options())).reason_codes).toEqual(['edition_project_mismatch']);
    expect(fixture.snapshot()).toEqual(before);
    expect(existsSync(fixture.stagingRoot)).toBe(false);
  });

  it('a workspace of the other edition is edition_project_mismatch', async () => {
    const fixture = scratch.fixture('snowflake');
    const { workspace } = scratch.workspace('bigquery');
    mkdirSync(join(workspace, 'kit'));
    cpSync(join(workspace, 'dbt_project.yml'), join(workspace, 'kit', 'dbt_project.yml'));
    expect((await scaffold(fixture.options({ workspace }))).reason_codes).toEqual([
      'edition_project_mismatch',
    ]);
    expect(readFileSync(join(workspace, 'kit', 'dbt_project.yml'), 'utf8')).toContain('retail_analytics');
  });

  it.each([
    ['snowflake', 'bigquery'],
    ['bigquery', 'snowflake'],
  ] as const)(
    'regression: --edition %s on an untouched %s workspace is edition_project_mismatch, not workspace_invalid',
    async (flag, made) => {
      const fixture = scratch.fixture(flag);
      const { workspace } = scratch.workspace(made);
      const before = snapshotTree(workspace);
      const result = await scaffold(fixture.options({ workspace }));
      expect(result).toMatchObject({ status: 'refused', reason_codes: ['edition_project_mismatch'] });
      expect(snapshotTree(workspace)).toEqual(before);
    },
  );

  it('regression: the kit/ folder of a snowflake workspace is workspace_is_project_folder, naming the folder to pass', async () => {
    const fixture = scratch.fixture('snowflake');
    const before = fixture.snapshot();
    for (const dryRun of [false, true]) {
      expect(await scaffold(fixture.options({ workspace: fixture.project, dryRun }))).toMatchObject({
        status: 'refused',
        reason_codes: ['workspace_is_project_folder'],
        stage: 'preflight',
      });
    }
    const args = fixture.cliArgs();
    args[args.indexOf('--workspace') + 1] = fixture.project;
    const run = runCli(args);
    expect({ status: run.status, stderr: run.stderr.toString() }).toEqual({
      status: 2,
      stderr: `error[workspace_is_project_folder]: ${refuseScaffold.table.workspace_is_project_folder.message}\n`,
    });
    expect(refuseScaffold.table.workspace_is_project_folder.message).toContain('the folder that holds kit/');
    expect(scanForSentinels(run, [], [fixture.workspace, fixture.evidence.dir])).toEqual([]);
    expect(fixture.snapshot()).toEqual(before);
    // The root it names is the one that works.
    expect((await scaffold(fixture.options({ dryRun: true }))).status).toBe('plan_only');
  });

  it('a workspace without models/migration/ is workspace_missing_migration_models', async () => {
    const fixture = scratch.fixture('snowflake');
    rmSync(join(fixture.project, 'models', 'migration'), { recursive: true });
    const before = fixture.snapshot();
    expect((await scaffold(fixture.options())).reason_codes).toEqual(['workspace_missing_migration_models']);
    expect(fixture.snapshot()).toEqual(before);
    expect(existsSync(fixture.stagingRoot)).toBe(false);
  });
});
