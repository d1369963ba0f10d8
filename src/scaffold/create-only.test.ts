import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../test/helpers/cli.js';
import { snapshotTree } from '../../test/helpers/edition-trees.js';
import { FAULTS_ENV } from '../../test/helpers/scaffold-child.js';
import { type ScaffoldFixture, ScaffoldScratch, SOURCE_ID } from '../../test/helpers/scaffold-workspace.js';
import { parseFaultRules } from './faults.js';
import type { ScaffoldResult } from './result.js';
import { scaffold } from './run.js';

const scratch = new ScaffoldScratch('create-only');
afterAll(() => scratch.dispose());

const OUTPUT = `models/migration/generated/${SOURCE_ID}`;

function mode(path: string): number {
  return lstatSync(path).mode & 0o7777;
}

/** An existing entry planted at the output path, and what it must stay. */
interface Collision {
  readonly name: string;
  readonly code: string;
  readonly plant: (fixture: ScaffoldFixture, outside: string) => void;
}

const generatedDir = (fixture: ScaffoldFixture): string =>
  join(fixture.project, 'models', 'migration', 'generated');

const OUTPUT_COLLISIONS: readonly Collision[] = [
  {
    name: 'a populated directory',
    code: 'output_exists',
    plant: (fixture) => {
      mkdirSync(fixture.output, { recursive: true, mode: 0o700 });
      writeFileSync(join(fixture.output, 'mine.sql'), 'select 1\n', { mode: 0o600 });
    },
  },
  {
    name: 'an empty directory',
    code: 'output_exists',
    plant: (fixture) => mkdirSync(fixture.output, { recursive: true, mode: 0o700 }),
  },
  {
    name: 'a regular file',
    code: 'output_exists',
    plant: (fixture) => {
      mkdirSync(generatedDir(fixture), { mode: 0o700 });
      writeFileSync(fixture.output, 'not a directory\n', { mode: 0o600 });
    },
  },
  {
    name: 'a symlink to a directory',
    code: 'symlink_refused',
    plant: (fixture, outside) => {
      mkdirSync(generatedDir(fixture), { mode: 0o700 });
      symlinkSync(outside, fixture.output);
    },
  },
  {
    name: 'a symlink to a file',
    code: 'symlink_refused',
    plant: (fixture, outside) => {
      mkdirSync(generatedDir(fixture), { mode: 0o700 });
      symlinkSync(join(outside, 'target.txt'), fixture.output);
    },
  },
  {
    name: 'a dangling symlink',
    code: 'symlink_refused',
    plant: (fixture, outside) => {
      mkdirSync(generatedDir(fixture), { mode: 0o700 });
      symlinkSync(join(outside, 'nothing-here'), fixture.output);
    },
  },
  {
    name: 'a FIFO',
    code: 'not_regular_file',
    plant: (fixture) => {
      mkdirSync(generatedDir(fixture), { mode: 0o700 });
      expect(spawnSync('mkfifo', ['-m', '0600', fixture.output]).status).toBe(0);
    },
  },
];

function outsideDir(): string {
  const outside = scratch.dir('outside');
  writeFileSync(join(outside, 'target.txt'), 'outside\n', { mode: 0o600 });
  return outside;
}

describe('create-only: an existing output is never touched', () => {
  it.each(OUTPUT_COLLISIONS)(
    '$name at generated/<source_id> is refused with $code',
    async ({ plant, code }) => {
      const fixture = scratch.fixture('bigquery');
      const outside = outsideDir();
      plant(fixture, outside);
      const workspaceBefore = fixture.snapshot();
      const outsideBefore = snapshotTree(outside);

      const result = await scaffold(fixture.options());
      expect(result).toMatchObject({
        status: 'refused',
        reason_codes: [code],
        stage: 'preflight',
        output: OUTPUT,
      });
      // No staging root, no lock file, nothing changed (the link target included).
      expect(existsSync(fixture.stagingRoot)).toBe(false);
      expect(fixture.snapshot()).toEqual(workspaceBefore);
      expect(snapshotTree(outside)).toEqual(outsideBefore);
    },
  );

  it('dry run parity: --dry-run reports the same code on every collision, writes nothing and is never ready', async () => {
    const outside = outsideDir();
    const cases: { name: string; code: string; prepare: (fixture: ScaffoldFixture) => void }[] = [
      ...OUTPUT_COLLISIONS.map((c) => ({
        name: c.name,
        code: c.code,
        prepare: (f: ScaffoldFixture) => c.plant(f, outside),
      })),
      {
        name: 'an existing staging directory',
        code: 'staging_exists',
        prepare: (f) => mkdirSync(f.staging, { recursive: true, mode: 0o700 }),
      },
      {
        name: 'a symlinked staging directory',
        code: 'symlink_refused',
        prepare: (f) => {
          mkdirSync(f.stagingRoot, { mode: 0o700 });
          symlinkSync(outside, f.staging);
        },
      },
      {
        name: 'a group-writable generated/',
        code: 'output_parent_invalid',
        prepare: (f) => {
          mkdirSync(generatedDir(f), { mode: 0o700 });
          chmodSync(generatedDir(f), 0o770);
        },
      },
    ];
    for (const testCase of cases) {
      const dry = scratch.fixture('bigquery');
      const real = scratch.fixture('bigquery');
      testCase.prepare(dry);
      testCase.prepare(real);
      const before = dry.snapshot();
      const planned = await scaffold(dry.options({ dryRun: true }));
      const ran = await scaffold(real.options());
      expect(planned.status, testCase.name).toBe('refused');
      expect(planned.reason_codes, testCase.name).toEqual([testCase.code]);
      expect(ran.reason_codes, testCase.name).toEqual([testCase.code]);
      expect(planned.output ?? planned.staging, testCase.name).toBe(ran.output ?? ran.staging);
      if (testCase.code === 'output_exists' || testCase.code === 'staging_exists') {
        // The command line prints the same object and exits 2.
        const cli = runCli(dry.cliArgs(['--dry-run']));
        expect(cli.status, testCase.name).toBe(2);
        expect(JSON.parse(cli.stdout.toString()), testCase.name).toEqual(planned);
      }
      expect(dry.snapshot(), testCase.name).toEqual(before);
    }
  });

  it('dry run on a clean workspace is plan_only with the very files a run publishes, and writes nothing', async () => {
    const fixture = scratch.fixture('snowflake');
    const before = fixture.snapshot();
    const planned = await scaffold(fixture.options({ dryRun: true }));
    expect(planned.status).toBe('plan_only');
    expect(planned.reason_codes).toEqual([]);
    expect(fixture.snapshot()).toEqual(before);
    const published = await scaffold(fixture.options());
    expect(published.status).toBe('published');
    expect(published.files).toEqual(planned.files);
  });

  it('--update is a usage error that writes nothing', () => {
    const fixture = scratch.fixture('bigquery');
    const before = fixture.snapshot();
    const run = runCli(fixture.cliArgs(['--update']));
    expect(run.status).toBe(1);
    expect(run.stdout.length).toBe(0);
    expect(run.stderr.toString()).toContain('unknown option --update');
    expect(fixture.snapshot()).toEqual(before);
  });
});

describe('a workspace the operator may not write in', () => {
  it.each([
    ['models/migration/', (fixture: ScaffoldFixture) => join(fixture.project, 'models', 'migration')],
    [
      'an existing generated/',
      (fixture: ScaffoldFixture) => {
        mkdirSync(generatedDir(fixture), { mode: 0o700 });
        return generatedDir(fixture);
      },
    ],
  ])(
    'regression: a read-only %s is publish_permission_denied before anything is staged, in --dry-run too',
    async (_name, folderOf) => {
      const fixture = scratch.fixture('bigquery');
      const folder = folderOf(fixture);
      chmodSync(folder, 0o500);
      try {
        const before = fixture.snapshot();
        for (const dryRun of [true, false]) {
          const result = await scaffold(fixture.options({ dryRun }));
          expect(result).toMatchObject({
            status: 'refused',
            reason_codes: ['publish_permission_denied'],
            stage: 'preflight',
          });
        }
        expect(existsSync(fixture.staging)).toBe(false);
        expect(fixture.snapshot()).toEqual(before);
      } finally {
        chmodSync(folder, 0o700);
      }
      expect(await scaffold(fixture.options())).toMatchObject({ status: 'published' });
    },
  );
});

describe('a project folder the operator may not create the staging directory in', () => {
  it.each([
    [
      'the project folder, where .scaffold-staging is still to be created',
      (fixture: ScaffoldFixture) => fixture.project,
    ],
    [
      'existing .scaffold-staging',
      (fixture: ScaffoldFixture) => {
        mkdirSync(fixture.stagingRoot, { mode: 0o700 });
        return fixture.stagingRoot;
      },
    ],
  ])(
    'regression: a read-only %s is staging_write_failed before anything is written, in --dry-run too',
    async (_name, folderOf) => {
      const fixture = scratch.fixture('bigquery');
      const folder = folderOf(fixture);
      chmodSync(folder, 0o500);
      try {
        const before = fixture.snapshot();
        for (const dryRun of [true, false]) {
          expect(await scaffold(fixture.options({ dryRun }))).toEqual({
            status: 'refused',
            reason_codes: ['staging_write_failed'],
            stage: 'preflight',
            message: 'the staging directory could not be written or sealed; nothing was published',
            edition: 'bigquery',
            project_dir: '.',
            source_id: SOURCE_ID,
            staging: `.scaffold-staging/${SOURCE_ID}`,
          });
        }
        const cli = runCli(fixture.cliArgs(['--dry-run']));
        expect(cli.status).toBe(2);
        expect(cli.stderr.toString()).toBe(
          'error[staging_write_failed]: the staging directory could not be written or sealed; nothing was published\n' +
            `  = staging: .scaffold-staging/${SOURCE_ID}\n`,
        );
        expect(existsSync(fixture.staging)).toBe(false);
        expect(fixture.snapshot()).toEqual(before);
      } finally {
        chmodSync(folder, 0o700);
      }
      expect(await scaffold(fixture.options())).toMatchObject({ status: 'published' });
    },
  );
});

describe('after publication the output is the operator’s', () => {
  let fixture: ScaffoldFixture;
  beforeAll(async () => {
    fixture = scratch.fixture('bigquery');
    expect((await scaffold(fixture.options())).status).toBe('published');
  });

  it('is owner-writable without a manual chmod: edit, add and delete files; every later run refuses and changes nothing', async () => {
    const sql = join(fixture.output, `silver_${SOURCE_ID}__orders.sql`);
    writeFileSync(sql, `${readFileSync(sql, 'utf8')}-- my edit\n`);
    writeFileSync(join(fixture.output, 'my_model.sql'), 'select 1 as x\n');
    unlinkSync(join(fixture.output, `silver_${SOURCE_ID}__products.sql`));
    const edited = snapshotTree(fixture.output);
    for (let run = 0; run < 2; run += 1) {
      const again = await scaffold(fixture.options());
      expect(again).toMatchObject({ status: 'refused', reason_codes: ['output_exists'] });
      expect(again.repair).toBeUndefined();
    }
    const dry = await scaffold(fixture.options({ dryRun: true }));
    expect(dry.reason_codes).toEqual(['output_exists']);
    expect(snapshotTree(fixture.output)).toEqual(edited);
  });

  it('a symlink that replaced the output is refused with symlink_refused, not output_exists', async () => {
    const other = scratch.fixture('bigquery');
    expect((await scaffold(other.options())).status).toBe('published');
    const moved = `${other.output}.moved`;
    spawnSync('mv', [other.output, moved]);
    symlinkSync(moved, other.output);
    expect((await scaffold(other.options())).reason_codes).toEqual(['symlink_refused']);
  });
});

describe('published modes and a failed normalization', () => {
  it.each([1, 3, 6])(
    'an injected chmod failure (call %i) leaves the complete output, reports published_permissions_not_normalized, and the repair restores editability',
    async (nth) => {
      const fixture = scratch.fixture('snowflake');
      const result: ScaffoldResult = await scaffold({
        ...fixture.options(),
        faults: { rules: parseFaultRules(`errno@chmod#${nth}=EPERM`) },
      });
      expect(result).toMatchObject({
        status: 'published_permissions_not_normalized',
        reason_codes: ['published_permissions_not_normalized'],
        stage: 'normalize',
        output: OUTPUT,
        repair: `chmod -R u+w ${OUTPUT}`,
      });
      // Complete content: the golden-equal plan is all there, some files still read-only.
      expect(readdirSync(fixture.output).sort()).toEqual(
        (result.files ?? []).map((f) => f.path.split('/').pop()).sort(),
      );
      const modes = readdirSync(fixture.output).map((name) => mode(join(fixture.output, name)));
      expect(modes.filter((m) => m === 0o400).length).toBe(6 - (nth - 1));
      const repair = spawnSync('sh', ['-c', result.repair ?? 'false'], { cwd: fixture.project });
      expect(repair.status).toBe(0);
      for (const name of readdirSync(fixture.output)) {
        writeFileSync(join(fixture.output, name), '-- edited\n', { flag: 'a' });
      }
      expect((await scaffold(fixture.options())).reason_codes).toEqual(['output_exists']);
    },
  );

  it('the CLI exits 3 for published_permissions_not_normalized', () => {
    const fixture = scratch.fixture('bigquery');
    const run = runCli(fixture.cliArgs(), { env: { ...process.env, [FAULTS_ENV]: 'errno@chmod#2=EPERM' } });
    expect(run.status).toBe(3);
    const printed = run.stdout.toString().trim().split('\n');
    expect(printed).toHaveLength(1);
    expect(JSON.parse(printed[0] ?? '')).toMatchObject({ status: 'published_permissions_not_normalized' });
  });

  it('a later run adds the repair hint when the published tree is still sealed, reading modes only', async () => {
    const fixture = scratch.fixture('bigquery');
    await scaffold({ ...fixture.options(), faults: { rules: parseFaultRules('errno@chmod#1=EPERM') } });
    const later = await scaffold(fixture.options());
    expect(later).toMatchObject({ reason_codes: ['output_exists'], repair: `chmod -R u+w ${OUTPUT}` });
  });
});
