import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../test/helpers/cli.js';
import { snapshotTree } from '../../test/helpers/edition-trees.js';
import { FAULTS_ENV } from '../../test/helpers/scaffold-child.js';
import { type ScaffoldFixture, ScaffoldScratch, SOURCE_ID } from '../../test/helpers/scaffold-workspace.js';
import { sha256Hex } from '../core/digest/index.js';
import { type FaultPoint, parseFaultRules } from './faults.js';
import type { ScaffoldResult, StagingState } from './result.js';
import { type ScaffoldOptions, scaffold } from './run.js';

const scratch = new ScaffoldScratch('publication');
afterAll(() => scratch.dispose());

const OUTPUT = `models/migration/generated/${SOURCE_ID}`;
const STAGING = `.scaffold-staging/${SOURCE_ID}`;
const RECOVERY = `chmod -R u+w ${STAGING} && rm -r ${STAGING}`;

/** A run with faults: `spec` rules, and `onPause` run in this process while the scaffold waits. */
function run(
  options: ScaffoldOptions,
  spec: string,
  onPause?: (point: FaultPoint, nth: number) => Promise<void> | void,
): Promise<ScaffoldResult> {
  return scaffold({ ...options, faults: { rules: parseFaultRules(spec), pause: onPause } });
}

/** A run with no fault at all. */
function plain(options: ScaffoldOptions): Promise<ScaffoldResult> {
  return scaffold(options);
}

function mode(path: string): number {
  return lstatSync(path).mode & 0o7777;
}

/** The state the staging directory's modes show (docs/scaffold.md#leftover-staging-and-recovery). */
function observedState(staging: string): StagingState | 'other' {
  const dirMode = mode(staging);
  const files = readdirSync(staging).map((name) => mode(join(staging, name)));
  if (dirMode === 0o500 && files.length > 0 && files.every((m) => m === 0o400)) return 'sealed';
  if (dirMode === 0o700 && files.every((m) => m === 0o600)) return 'unsealed';
  if (dirMode === 0o700 && files.some((m) => m === 0o400)) return 'partially_sealed';
  return 'other';
}

function expectPublishedComplete(fixture: ScaffoldFixture): void {
  const manifest = JSON.parse(readFileSync(join(fixture.output, '.scaffold-manifest.json'), 'utf8')) as {
    files: { path: string; sha256: string }[];
  };
  expect(readdirSync(fixture.output).length).toBe(manifest.files.length + 1);
  for (const entry of manifest.files) {
    expect(sha256Hex(readFileSync(join(fixture.project, entry.path)))).toBe(entry.sha256);
  }
}

function recover(fixture: ScaffoldFixture): void {
  const done = spawnSync('sh', ['-c', RECOVERY], { cwd: fixture.project });
  expect(done.status).toBe(0);
  expect(existsSync(fixture.staging)).toBe(false);
}

const PRE_RENAME_PAUSES: readonly FaultPoint[] = [
  'after_lock',
  'after_mkdir',
  'after_write',
  'after_file_fsync',
  'before_rehash',
  'after_staging_fsync',
  'after_file_seal',
  'before_dir_seal',
  'after_seal',
  'before_verify',
  'after_verify',
  'after_unseal',
  'before_generated',
  'after_generated',
  'before_identity_check',
  'before_rename',
];

describe('concurrent runs with one source id', () => {
  const PAUSES: readonly FaultPoint[] = [
    ...PRE_RENAME_PAUSES,
    'after_rename',
    'after_parent_fsync',
    'after_chmod',
  ];
  const AFTER_RENAME: ReadonlySet<FaultPoint> = new Set([
    'after_rename',
    'after_parent_fsync',
    'after_chmod',
  ]);

  it.each(PAUSES)(
    'while run A is paused at %s, run B refuses with staging_in_use and changes nothing; exactly one publication',
    async (point) => {
      const fixture = scratch.fixture('bigquery');
      let second: ScaffoldResult | undefined;
      let secondDry: ScaffoldResult | undefined;
      let before: Map<string, string> | undefined;
      let after: Map<string, string> | undefined;
      const first = await run(fixture.options(), `pause@${point}#1`, async () => {
        before = fixture.snapshot();
        second = await plain(fixture.options());
        secondDry = await plain(fixture.options({ dryRun: true }));
        after = fixture.snapshot();
      });
      expect(first.status).toBe('published');
      // Once A renamed, the output is visible and outranks the lock A still holds
      // (collision precedence); both conditions are listed.
      const codes = AFTER_RENAME.has(point) ? ['output_exists', 'staging_in_use'] : ['staging_in_use'];
      expect(second?.reason_codes).toEqual(codes);
      expect(secondDry?.reason_codes).toEqual(codes);
      expect(after).toEqual(before);
      expect((await plain(fixture.options())).reason_codes).toEqual(['output_exists']);
      expect(readdirSync(join(fixture.project, 'models', 'migration', 'generated'))).toEqual([SOURCE_ID]);
      expectPublishedComplete(fixture);
    },
  );

  it('two source ids racing to create generated/: both publish, the loser accepts EEXIST for the real directory', async () => {
    const fixture = scratch.fixture('snowflake');
    let other: ScaffoldResult | undefined;
    const first = await run(fixture.options(), 'pause@before_generated#1', async () => {
      expect(existsSync(join(fixture.project, 'models', 'migration', 'generated'))).toBe(false);
      other = await run(fixture.options({ sourceId: 'other_source' }), 'pause@before_generated#1', () => {
        // Both runs are now past preflight with no generated/ yet; the inner one creates it first.
      });
    });
    expect(other?.status).toBe('published');
    expect(first.status).toBe('published');
    expect(readdirSync(join(fixture.project, 'models', 'migration', 'generated')).sort()).toEqual([
      'other_source',
      SOURCE_ID,
    ]);
  });
});

describe('staging swaps', () => {
  it.each(['after_verify', 'after_unseal', 'before_identity_check'] as const)(
    'a staging directory swapped at %s is refused with staging_modified; nothing is published',
    async (point) => {
      const fixture = scratch.fixture('bigquery');
      const result = await run(fixture.options(), `pause@${point}`, () => {
        renameSync(fixture.staging, join(fixture.stagingRoot, 'moved-away'));
        mkdirSync(fixture.staging, { mode: 0o700 });
      });
      expect(result).toMatchObject({
        status: 'refused',
        reason_codes: ['staging_modified'],
        staging: STAGING,
      });
      expect(result.staging_state).toBeUndefined();
      expect(existsSync(fixture.output)).toBe(false);
    },
  );

  it('a swap between the identity check and the rename is publish_unverified, and no mode is restored', async () => {
    const fixture = scratch.fixture('bigquery');
    const moved = join(fixture.stagingRoot, 'moved-away');
    const result = await run(fixture.options(), 'pause@before_rename', () => {
      renameSync(fixture.staging, moved);
      mkdirSync(fixture.staging, { mode: 0o750 });
      writeFileSync(join(fixture.staging, 'impostor.sql'), 'select 2\n', { mode: 0o644 });
    });
    expect(result).toMatchObject({
      status: 'publish_unverified',
      reason_codes: ['publish_identity_mismatch'],
      stage: 'publish',
      output: OUTPUT,
    });
    expect(result.files).toBeUndefined();
    // The impostor is what is visible, untouched; the verified tree keeps its publication modes.
    expect(readdirSync(fixture.output)).toEqual(['impostor.sql']);
    expect(mode(fixture.output)).toBe(0o750);
    expect(mode(join(fixture.output, 'impostor.sql'))).toBe(0o644);
    expect(mode(moved)).toBe(0o700);
    for (const name of readdirSync(moved)) expect(mode(join(moved, name))).toBe(0o400);
  });
});

describe('publish races', () => {
  const races = [
    {
      name: 'a directory',
      code: 'output_exists',
      plant: (target: string) => mkdirSync(target, { mode: 0o700 }),
    },
    {
      name: 'a regular file',
      code: 'output_exists',
      plant: (target: string) => writeFileSync(target, 'mine\n', { mode: 0o600 }),
    },
    {
      name: 'a symlink',
      code: 'symlink_refused',
      plant: (target: string, outside: string) => symlinkSync(outside, target),
    },
  ] as const;

  it.each(races)(
    '$name created at the target before the rename is not replaced ($code)',
    async ({ code, plant }) => {
      const fixture = scratch.fixture('snowflake');
      const outside = scratch.dir('outside');
      writeFileSync(join(outside, 'keep.txt'), 'outside\n');
      let planted: Map<string, string> | undefined;
      const result = await run(fixture.options(), 'pause@before_rename', () => {
        plant(fixture.output, outside);
        planted = snapshotTree(join(fixture.project, 'models', 'migration', 'generated'));
      });
      expect(result).toMatchObject({
        status: 'refused',
        reason_codes: [code],
        stage: 'publish',
        output: OUTPUT,
        staging: STAGING,
        staging_state: 'partially_sealed',
      });
      expect(snapshotTree(join(fixture.project, 'models', 'migration', 'generated'))).toEqual(planted);
      expect(readdirSync(outside)).toEqual(['keep.txt']);
      expect(observedState(fixture.staging)).toBe('partially_sealed');
      expect(readdirSync(fixture.staging).length).toBe(6);
    },
  );
});

describe('injected failures before the rename', () => {
  const points: { point: string; state: StagingState | undefined }[] = [
    { point: 'after_staging_root', state: undefined },
    { point: 'after_lock', state: undefined },
    { point: 'after_mkdir', state: 'unsealed' },
    { point: 'after_write#1', state: 'unsealed' },
    { point: 'after_write#6', state: 'unsealed' },
    { point: 'after_file_fsync#3', state: 'unsealed' },
    { point: 'after_staging_fsync', state: 'unsealed' },
    { point: 'after_file_seal#1', state: 'partially_sealed' },
    { point: 'before_dir_seal', state: 'partially_sealed' },
    { point: 'after_seal', state: 'sealed' },
    { point: 'after_verify', state: 'sealed' },
    { point: 'before_generated', state: 'partially_sealed' },
    { point: 'after_generated', state: 'partially_sealed' },
    { point: 'before_rename', state: 'partially_sealed' },
  ];

  it.each(points)(
    'fail@$point publishes nothing, reports staging_state $state, and the leftover is refused, recovered, then succeeded',
    async ({ point, state }) => {
      const fixture = scratch.fixture('bigquery');
      const failed = await run(fixture.options(), `fail@${point}`);
      expect(failed.status).toBe('refused');
      expect(existsSync(fixture.output)).toBe(false);
      expect(failed.staging_state).toBe(state);
      if (state === undefined) {
        // Only the empty, owner-only staging root (and lock file) exist: a later run proceeds.
        expect(existsSync(fixture.staging)).toBe(false);
        expect(mode(fixture.stagingRoot)).toBe(0o700);
        expect((await plain(fixture.options())).status).toBe('published');
        return;
      }
      expect(failed.staging).toBe(STAGING);
      expect(observedState(fixture.staging)).toBe(state);
      const leftover = snapshotTree(fixture.staging);
      const later = await plain(fixture.options());
      expect(later).toMatchObject({ status: 'refused', reason_codes: ['staging_exists'], repair: RECOVERY });
      expect(later.staging_state).toBeUndefined();
      expect(snapshotTree(fixture.staging)).toEqual(leftover);
      recover(fixture);
      expect((await plain(fixture.options())).status).toBe('published');
      expectPublishedComplete(fixture);
    },
  );

  it.each([
    ['EINVAL', 'atomic_publish_unavailable'],
    ['ENOSYS', 'atomic_publish_unavailable'],
    ['EOPNOTSUPP', 'atomic_publish_unavailable'],
    ['EXDEV', 'staging_cross_filesystem'],
    ['EACCES', 'publish_permission_denied'],
    ['EPERM', 'publish_permission_denied'],
    ['ENOENT', 'staging_modified'],
    ['EIO', 'publish_failed'],
    ['EMLINK', 'publish_failed'],
  ])('a rename failing with %s is %s; the staging directory stays and is reported', async (errno, code) => {
    const fixture = scratch.fixture('snowflake');
    const result = await run(fixture.options(), `errno@rename=${errno}`);
    expect(result).toMatchObject({
      status: 'refused',
      reason_codes: [code],
      stage: 'publish',
      staging: STAGING,
      staging_state: 'partially_sealed',
    });
    expect(JSON.stringify(result)).not.toContain(errno);
    expect(existsSync(fixture.output)).toBe(false);
    expect(readdirSync(fixture.staging).length).toBe(6);
  });
});

describe('injected failures after the rename', () => {
  it.each(['fail@after_rename', 'errno@parent_fsync=EIO'])(
    '%s before the parent fsync reports published_durability_unknown and still normalizes modes',
    async (spec) => {
      const fixture = scratch.fixture('bigquery');
      const result = await run(fixture.options(), spec);
      expect(result).toMatchObject({
        status: 'published_durability_unknown',
        reason_codes: ['published_durability_unknown'],
        output: OUTPUT,
      });
      expectPublishedComplete(fixture);
      expect(mode(fixture.output)).toBe(0o700);
      for (const name of readdirSync(fixture.output)) expect(mode(join(fixture.output, name))).toBe(0o600);
    },
  );

  it.each([
    ['fail@after_parent_fsync', 6],
    ['fail@after_chmod#1', 5],
    ['fail@after_chmod#4', 2],
  ] as const)(
    '%s before or between the chmod calls leaves the complete output with %i files read-only, and the repair works',
    async (spec, readOnly) => {
      const fixture = scratch.fixture('bigquery');
      const result = await run(fixture.options(), spec);
      expect(result).toMatchObject({
        status: 'published_permissions_not_normalized',
        reason_codes: ['published_permissions_not_normalized'],
        repair: `chmod -R u+w ${OUTPUT}`,
      });
      expectPublishedComplete(fixture);
      const modes = readdirSync(fixture.output).map((name) => mode(join(fixture.output, name)));
      expect(modes.filter((m) => m === 0o400).length).toBe(readOnly);
      expect(spawnSync('sh', ['-c', result.repair ?? 'false'], { cwd: fixture.project }).status).toBe(0);
      for (const name of readdirSync(fixture.output)) expect(mode(join(fixture.output, name))).toBe(0o600);
    },
  );

  it('both conditions together: status is the most severe, reason_codes lists both', async () => {
    const fixture = scratch.fixture('snowflake');
    const result = await run(fixture.options(), 'errno@parent_fsync=EIO,errno@chmod#1=EPERM');
    expect(result.status).toBe('published_durability_unknown');
    expect(result.reason_codes).toEqual([
      'published_durability_unknown',
      'published_permissions_not_normalized',
    ]);
    expect(result.repair).toBe(`chmod -R u+w ${OUTPUT}`);
  });
});

describe('modified and sealed staging', () => {
  it('a staged file altered between its write and its rehash is staging_modified', async () => {
    const fixture = scratch.fixture('bigquery');
    const result = await run(fixture.options(), 'pause@before_rehash#2', () => {
      const name = readdirSync(fixture.staging).sort()[1] ?? '';
      writeFileSync(join(fixture.staging, name), '-- changed\n', { flag: 'a' });
    });
    expect(result).toMatchObject({ status: 'refused', reason_codes: ['staging_modified'], stage: 'stage' });
    expect(existsSync(fixture.output)).toBe(false);
  });

  it('after the seal an ordinary edit or a new file fails with a permission error', async () => {
    const fixture = scratch.fixture('bigquery');
    const codes: string[] = [];
    const result = await run(fixture.options(), 'pause@after_seal', () => {
      const name = readdirSync(fixture.staging)[0] ?? '';
      for (const attempt of [
        () => writeFileSync(join(fixture.staging, name), 'x', { flag: 'a' }),
        () => writeFileSync(join(fixture.staging, 'added.sql'), 'select 1\n'),
        () => renameSync(join(fixture.staging, name), join(fixture.staging, 'renamed.sql')),
      ]) {
        try {
          attempt();
          codes.push('none');
        } catch (error: unknown) {
          codes.push(String((error as NodeJS.ErrnoException).code));
        }
      }
    });
    expect(codes).toEqual(['EACCES', 'EACCES', 'EACCES']);
    expect(result.status).toBe('published');
  });

  const tampering: { name: string; code: string; tamper: (staging: string, outside: string) => void }[] = [
    {
      name: 'a changed file content',
      code: 'staging_modified',
      tamper: (staging) => {
        const file = join(staging, readdirSync(staging)[2] ?? '');
        chmodSync(file, 0o600);
        writeFileSync(file, '-- tampered\n', { flag: 'a' });
        chmodSync(file, 0o400);
      },
    },
    {
      name: 'an added entry',
      code: 'staging_modified',
      tamper: (staging) => {
        chmodSync(staging, 0o700);
        writeFileSync(join(staging, 'added.sql'), 'select 1\n', { mode: 0o400 });
        chmodSync(staging, 0o500);
      },
    },
    {
      name: 'an added subdirectory',
      code: 'staging_modified',
      tamper: (staging) => {
        chmodSync(staging, 0o700);
        mkdirSync(join(staging, 'nested'), { mode: 0o500 });
        chmodSync(staging, 0o500);
      },
    },
    {
      name: 'a hard link to a staged file from outside the tree',
      code: 'staging_modified',
      tamper: (staging, outside) =>
        linkSync(join(staging, readdirSync(staging)[1] ?? ''), join(outside, 'alias')),
    },
    {
      name: 'a changed mode',
      code: 'staging_modified',
      tamper: (staging) => chmodSync(join(staging, readdirSync(staging)[0] ?? ''), 0o440),
    },
    {
      name: 'a symlink planted in the staging directory',
      code: 'symlink_refused',
      tamper: (staging, outside) => {
        chmodSync(staging, 0o700);
        symlinkSync(outside, join(staging, 'zz-link'));
        chmodSync(staging, 0o500);
      },
    },
  ];

  it.each(tampering)(
    '$name before the final verification is refused with $code',
    async ({ code, tamper }) => {
      const fixture = scratch.fixture('snowflake');
      const outside = scratch.dir('outside');
      const result = await run(fixture.options(), 'pause@before_verify', () =>
        tamper(fixture.staging, outside),
      );
      expect(result).toMatchObject({
        status: 'refused',
        reason_codes: [code],
        stage: 'verify',
        staging: STAGING,
      });
      expect(existsSync(fixture.output)).toBe(false);
    },
  );
});

describe('no atomic rename at preflight', () => {
  it.each([
    ['a run', false],
    ['a dry run', true],
  ])(
    '%s with the staging root on another device is staging_cross_filesystem with no writes',
    async (_mode, dryRun) => {
      const fixture = scratch.fixture('bigquery');
      const before = fixture.snapshot();
      const result = await run(fixture.options({ dryRun }), 'crossdev@preflight');
      expect(result).toMatchObject({ status: 'refused', reason_codes: ['staging_cross_filesystem'] });
      expect(fixture.snapshot()).toEqual(before);
    },
  );
});

describe('faults come only as an option', () => {
  it('the library ignores the CLI’s fault variable in its environment', async () => {
    const fixture = scratch.fixture('bigquery');
    const before = process.env[FAULTS_ENV];
    process.env[FAULTS_ENV] = 'fail@after_mkdir';
    try {
      expect((await scaffold(fixture.options())).status).toBe('published');
    } finally {
      if (before === undefined) delete process.env[FAULTS_ENV];
      else process.env[FAULTS_ENV] = before;
    }
  });

  it.each([
    ['rules as text', { rules: 'fail@after_mkdir' }],
    ['an unknown point', { rules: [{ action: 'fail', point: 'after_lunch' }] }],
    ['an errno that is not one', { rules: [{ action: 'errno', call: 'rename', errno: 'eio' }] }],
    ['a count of zero', { rules: [{ action: 'pause', point: 'after_seal', nth: 0 }] }],
    ['an unknown key', { rules: [], controller: {} }],
  ])('a faults option with %s is option_invalid and writes nothing', async (_case, faults) => {
    const fixture = scratch.fixture('bigquery');
    const before = fixture.snapshot();
    const options = { ...fixture.options(), faults } as unknown as ScaffoldOptions;
    expect(await scaffold(options)).toMatchObject({ status: 'refused', reason_codes: ['option_invalid'] });
    expect(fixture.snapshot()).toEqual(before);
  });

  it.each(['fail@after_lunch', 'errno@rename=eio', 'pause@after_seal#0', 'fail@after_seal=EIO'])(
    'parseFaultRules refuses %s as option_invalid',
    (rule) => {
      expect(() => parseFaultRules(rule)).toThrow(expect.objectContaining({ code: 'option_invalid' }));
    },
  );

  it('a malformed fault variable is a usage error naming it and the rule, with nothing written', () => {
    const fixture = scratch.fixture('bigquery');
    const before = fixture.snapshot();
    const run = runCli(fixture.cliArgs(), {
      env: { ...process.env, [FAULTS_ENV]: 'fail@after_mkdir, fail@after_lunch' },
    });
    expect(run.status).toBe(1);
    expect(run.stderr.toString()).toContain(`invalid rule 'fail@after_lunch' in ${FAULTS_ENV}`);
    expect(run.stderr.toString()).not.toContain('internal');
    expect(fixture.snapshot()).toEqual(before);
  });
});
