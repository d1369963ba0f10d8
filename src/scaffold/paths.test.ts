import {
  chmodSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { snapshotTree } from '../../test/helpers/edition-trees.js';
import {
  type Edition,
  type ScaffoldFixture,
  ScaffoldScratch,
  SOURCE_ID,
} from '../../test/helpers/scaffold-workspace.js';
import { Dir } from '../core/fs/index.js';
import { parseFaultRules } from './faults.js';
import { scaffold } from './run.js';
import { validLockFile } from './workspace/collisions.js';
import { ownedWithout } from './workspace/entry.js';

const scratch = new ScaffoldScratch('paths');
afterAll(() => scratch.dispose());

const generated = (fixture: ScaffoldFixture): string =>
  join(fixture.project, 'models', 'migration', 'generated');

/** Replaces the real directory at `path` by a symlink to a copy of it outside the workspace. */
function swapForSymlink(path: string, outside: string): void {
  renameSync(path, outside);
  symlinkSync(outside, path);
}

interface LinkCase {
  readonly point: string;
  readonly edition: Edition;
  readonly code: string;
  readonly plant: (fixture: ScaffoldFixture, outside: string) => void;
}

// A symlink at any point of the output or staging path (docs/scaffold.md#checks-in-order).
// The workspace and the project directory are the workspace checks (workspace_invalid).
const LINKS: readonly LinkCase[] = [
  {
    point: 'the workspace',
    edition: 'bigquery',
    code: 'workspace_invalid',
    plant: (fixture, outside) => swapForSymlink(fixture.workspace, join(outside, 'ws')),
  },
  {
    point: 'the project (kit/)',
    edition: 'snowflake',
    code: 'workspace_invalid',
    plant: (fixture, outside) => swapForSymlink(fixture.project, join(outside, 'kit')),
  },
  {
    point: 'models/',
    edition: 'bigquery',
    code: 'symlink_refused',
    plant: (fixture, outside) => swapForSymlink(join(fixture.project, 'models'), join(outside, 'models')),
  },
  {
    point: 'models/migration/',
    edition: 'snowflake',
    code: 'symlink_refused',
    plant: (fixture, outside) =>
      swapForSymlink(join(fixture.project, 'models', 'migration'), join(outside, 'migration')),
  },
  {
    point: 'generated/',
    edition: 'bigquery',
    code: 'symlink_refused',
    plant: (fixture, outside) => {
      mkdirSync(join(outside, 'generated'), { mode: 0o700 });
      symlinkSync(join(outside, 'generated'), generated(fixture));
    },
  },
  {
    point: 'the staging root',
    edition: 'snowflake',
    code: 'symlink_refused',
    plant: (fixture, outside) => {
      mkdirSync(join(outside, 'staging-root'), { mode: 0o700 });
      symlinkSync(join(outside, 'staging-root'), fixture.stagingRoot);
    },
  },
  {
    point: 'the lock file',
    edition: 'bigquery',
    code: 'symlink_refused',
    plant: (fixture, outside) => {
      mkdirSync(fixture.stagingRoot, { mode: 0o700 });
      writeFileSync(join(outside, 'lock'), '', { mode: 0o600 });
      symlinkSync(join(outside, 'lock'), join(fixture.stagingRoot, `${SOURCE_ID}.lock`));
    },
  },
  {
    point: 'a dangling lock file link',
    edition: 'snowflake',
    code: 'symlink_refused',
    plant: (fixture, outside) => {
      mkdirSync(fixture.stagingRoot, { mode: 0o700 });
      symlinkSync(join(outside, 'no-lock'), join(fixture.stagingRoot, `${SOURCE_ID}.lock`));
    },
  },
  {
    point: 'the staging directory',
    edition: 'bigquery',
    code: 'symlink_refused',
    plant: (fixture, outside) => {
      mkdirSync(fixture.stagingRoot, { mode: 0o700 });
      mkdirSync(join(outside, 'staging'), { mode: 0o700 });
      symlinkSync(join(outside, 'staging'), fixture.staging);
    },
  },
];

describe('symlinks on the output and staging paths', () => {
  it.each(LINKS)('a symlink at $point is refused with $code; nothing is written through it', async (c) => {
    const fixture = scratch.fixture(c.edition);
    const outside = scratch.dir('outside');
    writeFileSync(join(outside, 'keep.txt'), 'outside\n');
    c.plant(fixture, outside);
    const outsideBefore = snapshotTree(outside);
    const workspaceBefore = existsSync(fixture.workspace) ? snapshotTree(fixture.workspace) : undefined;
    for (const dryRun of [true, false]) {
      const result = await scaffold(fixture.options({ dryRun }));
      expect(result.status).toBe('refused');
      expect(result.reason_codes).toEqual([c.code]);
    }
    expect(snapshotTree(outside)).toEqual(outsideBefore);
    if (workspaceBefore !== undefined) expect(snapshotTree(fixture.workspace)).toEqual(workspaceBefore);
  });
});

describe('a held component swapped after preflight', () => {
  it.each([
    ['models/migration', 'after_preflight'],
    ['models/migration', 'after_unseal'],
    ['models', 'before_generated'],
  ])(
    '%s replaced by a symlink to an outside directory at %s: no write lands outside',
    async (component, point) => {
      const fixture = scratch.fixture('bigquery');
      const outside = scratch.dir('outside');
      const target = join(outside, 'elsewhere');
      mkdirSync(target, { mode: 0o700 });
      writeFileSync(join(target, 'keep.txt'), 'outside\n');
      const outsideBefore = snapshotTree(outside);
      const result = await scaffold({
        ...fixture.options(),
        faults: {
          rules: parseFaultRules(`pause@${point}`),
          pause: () => {
            const path = join(fixture.project, ...component.split('/'));
            renameSync(path, `${path}.moved`);
            symlinkSync(target, path);
          },
        },
      });
      expect(result).toMatchObject({ status: 'refused', reason_codes: ['symlink_refused'] });
      expect(snapshotTree(outside)).toEqual(outsideBefore);
      // The moved original holds no output either: nothing was published anywhere.
      const moved = join(fixture.project, ...component.split('/')).concat('.moved');
      expect(
        existsSync(join(moved, ...(component === 'models' ? ['migration'] : []), 'generated', SOURCE_ID)),
      ).toBe(false);
    },
  );
});

describe('invalid parents', () => {
  it.each([0o770, 0o707, 0o720, 0o702])(
    'a generated/ with mode %o is output_parent_invalid',
    async (bits) => {
      const fixture = scratch.fixture('bigquery');
      mkdirSync(generated(fixture), { mode: 0o700 });
      chmodSync(generated(fixture), bits);
      const before = fixture.snapshot();
      expect((await scaffold(fixture.options())).reason_codes).toEqual(['output_parent_invalid']);
      expect((await scaffold(fixture.options({ dryRun: true }))).reason_codes).toEqual([
        'output_parent_invalid',
      ]);
      expect(fixture.snapshot()).toEqual(before);
    },
  );

  it('a generated/ that is a regular file is output_parent_invalid', async () => {
    const fixture = scratch.fixture('snowflake');
    writeFileSync(generated(fixture), 'not a directory\n', { mode: 0o600 });
    expect((await scaffold(fixture.options())).reason_codes).toEqual(['output_parent_invalid']);
  });

  it('a directory owned by another user fails the output-parent and staging-root checks', () => {
    // A real root-owned directory: no group or other write bit, so only the owner differs.
    const root = Dir.open('/');
    try {
      const stat = root.stat();
      expect(stat.uid).not.toBe(process.geteuid?.());
      expect(stat.mode & 0o022).toBe(0);
      expect(ownedWithout(stat, 0o022)).toBe(false);
    } finally {
      root.close();
    }
    const mine = Dir.open(scratch.dir('mine'));
    try {
      expect(ownedWithout(mine.stat(), 0o022)).toBe(true);
    } finally {
      mine.close();
    }
  });

  const lockCases: { name: string; plant: (lock: string, fixture: ScaffoldFixture) => void }[] = [
    { name: 'a non-empty lock file', plant: (lock) => writeFileSync(lock, 'x', { mode: 0o600 }) },
    {
      name: 'a lock file with mode 0644',
      plant: (lock) => {
        writeFileSync(lock, '', { mode: 0o600 });
        chmodSync(lock, 0o644);
      },
    },
    {
      name: 'a lock file with mode 0400',
      plant: (lock) => {
        writeFileSync(lock, '', { mode: 0o600 });
        chmodSync(lock, 0o400);
      },
    },
    {
      name: 'a hard-linked lock file',
      plant: (lock, fixture) => {
        writeFileSync(lock, '', { mode: 0o600 });
        linkSync(lock, join(fixture.stagingRoot, 'second-link'));
      },
    },
    { name: 'a directory as the lock file', plant: (lock) => mkdirSync(lock, { mode: 0o700 }) },
  ];

  it.each(lockCases)('$name is staging_root_invalid', async ({ plant }) => {
    const fixture = scratch.fixture('bigquery');
    mkdirSync(fixture.stagingRoot, { mode: 0o700 });
    plant(join(fixture.stagingRoot, `${SOURCE_ID}.lock`), fixture);
    const before = fixture.snapshot();
    expect((await scaffold(fixture.options())).reason_codes).toEqual(['staging_root_invalid']);
    expect((await scaffold(fixture.options({ dryRun: true }))).reason_codes).toEqual([
      'staging_root_invalid',
    ]);
    expect(fixture.snapshot()).toEqual(before);
  });

  it('a lock file owned by another user fails the lock-file check (a real root-owned file)', () => {
    const dir = Dir.open('/etc');
    try {
      const foreign = dir.stat('passwd');
      expect(foreign.uid).not.toBe(process.geteuid?.());
      expect(validLockFile(foreign)).toBe(false);
      // The same file with only the owner made right would pass every other rule but size and mode.
      expect(validLockFile({ ...foreign, size: 0n, mode: 0o600, nlink: 1 })).toBe(false);
    } finally {
      dir.close();
    }
  });

  it.each([
    ['a group-readable staging root', (root: string) => mkdirSync(root, { mode: 0o750 })],
    ['a regular file as the staging root', (root: string) => writeFileSync(root, '', { mode: 0o600 })],
  ] as const)('%s is staging_root_invalid', async (_name, plant) => {
    const fixture = scratch.fixture('snowflake');
    plant(fixture.stagingRoot);
    if (lstatSync(fixture.stagingRoot).isDirectory()) chmodSync(fixture.stagingRoot, 0o750);
    expect((await scaffold(fixture.options())).reason_codes).toEqual(['staging_root_invalid']);
  });
});

describe('staging outside every dbt path', () => {
  it.each([
    ['model-paths: ["."]', 'model-paths: ["models"]', 'model-paths: ["."]'],
    ['model-paths: ["./"]', 'model-paths: ["models"]', 'model-paths: ["./"]'],
    [
      'analysis-paths on the staging root',
      'test-paths: ["tests"]',
      'test-paths: ["tests"]\nanalysis-paths: [".scaffold-staging/x"]',
    ],
    [
      'a seed path that cannot be proven (..)',
      'test-paths: ["tests"]',
      'test-paths: ["tests"]\nseed-paths: ["../seeds"]',
    ],
    ['a Jinja path', 'macro-paths: ["macros"]', 'macro-paths: ["{{ env_var(\'X\') }}"]'],
  ])('%s is staging_inside_dbt_paths', async (_name, from, to) => {
    const fixture = scratch.fixture('bigquery');
    const file = join(fixture.project, 'dbt_project.yml');
    const text = readFileSync(file, 'utf8');
    expect(text).toContain(from);
    writeFileSync(file, text.replace(from, to));
    const before = fixture.snapshot();
    expect((await scaffold(fixture.options())).reason_codes).toEqual(['staging_inside_dbt_paths']);
    expect(fixture.snapshot()).toEqual(before);
  });
});
