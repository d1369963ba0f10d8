import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli } from '../../../test/helpers/cli.js';
import { CliChild } from '../../../test/helpers/cli-child.js';
import { snapshotTree } from '../../../test/helpers/edition-trees.js';
import { scanForSentinels } from '../../../test/helpers/sentinels.js';

const EDITION_ROOTS = {
  bigquery: join(REPO_ROOT, 'editions', 'Bigquery'),
  snowflake: join(REPO_ROOT, 'editions', 'Snowflake'),
} as const;

/** The edition as a workspace should hold it: contents only (modes differ by design), `.ci` left out. */
function expectedContents(edition: keyof typeof EDITION_ROOTS): Map<string, string> {
  const out = new Map<string, string>();
  for (const [path, entry] of snapshotTree(EDITION_ROOTS[edition])) {
    if (path.split('/').includes('.ci')) continue;
    out.set(path, entry.startsWith('dir') ? 'dir' : `file ${entry.split(' ')[2]}`);
  }
  return out;
}

function contentsAndModes(root: string): { contents: Map<string, string>; modes: Set<string> } {
  const contents = new Map<string, string>();
  const modes = new Set<string>();
  for (const [path, entry] of snapshotTree(root)) {
    const [kind, mode, hash] = entry.split(' ');
    contents.set(path, kind === 'dir' ? 'dir' : `file ${hash}`);
    modes.add(`${kind} ${mode}`);
  }
  return { contents, modes };
}

let dir: string;
let editions: Map<string, string>;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sealkit-edition-new-'));
  editions = snapshotTree(join(REPO_ROOT, 'editions'));
});
afterEach(() => {
  // The shipped editions are never touched, and no staging folder is ever left in the checkout.
  expect(snapshotTree(join(REPO_ROOT, 'editions'))).toEqual(editions);
  expect(readdirSync(REPO_ROOT).filter((name) => name.startsWith('.sealkit-edition-staging'))).toEqual([]);
  rmSync(dir, { recursive: true, force: true });
});

describe('sealkit edition new', () => {
  it.each(['bigquery', 'snowflake'] as const)(
    'copies the %s edition, without .ci/ and without a marker file, owner-only',
    (edition) => {
      const dest = join(dir, 'client_ws');
      const run = runCli(['edition', 'new', '--edition', edition, dest]);
      expect(run.status).toBe(0);
      expect(run.stderr.toString()).toBe('');
      const { contents, modes } = contentsAndModes(dest);
      expect(contents).toEqual(expectedContents(edition));
      expect(modes).toEqual(new Set(['dir 700', 'file 600']));
      expect([...contents.keys()].some((path) => path.split('/').includes('.ci'))).toBe(false);
      // Nothing but the workspace appeared beside it: the staging folder was renamed, not left.
      expect(readdirSync(dir)).toEqual(['client_ws']);
      const project = edition === 'bigquery' ? dest : `${dest}/kit`;
      // DEST appears once, as given, in the next step to run (docs/refusals.md#two-policies: located).
      const printed = `${run.stdout.toString()}${run.stderr.toString()}`.split('\n');
      expect(printed.filter((line) => line.includes('client_ws'))).toEqual([
        `next: sealkit edition check ${project} --fixtures ${project}/fixtures`,
      ]);
    },
  );

  it('gives a workspace the offline check passes (Snowflake: the project is DEST/kit)', () => {
    const dest = join(dir, 'ws');
    expect(runCli(['edition', 'new', '--edition', 'snowflake', dest]).status).toBe(0);
    const check = runCli([
      'edition',
      'check',
      join(dest, 'kit'),
      '--fixtures',
      join(dest, 'kit', 'fixtures'),
      '--json',
    ]);
    expect(check.status).toBe(0);
    expect(JSON.parse(check.stdout.toString())).toMatchObject({
      status: 'passed',
      project: 'reliable_pipeline',
    });
  });

  it('regression: the next step it prints is a command that runs as pasted, with the folder given', () => {
    const dest = join(dir, 'ws');
    const created = runCli(['edition', 'new', '--edition', 'snowflake', dest]);
    expect(created.status).toBe(0);
    const out = created.stdout.toString();
    // Two summary lines and the next step; the file list is the dry run's and --json's.
    expect(out.split('\n').filter((line) => line.startsWith('  create'))).toEqual([]);
    const next = out.split('\n').find((line) => line.startsWith('next: '));
    expect(next).toBe(`next: sealkit edition check ${dest}/kit --fixtures ${dest}/kit/fixtures`);
    const words = (next ?? '').slice('next: sealkit '.length).split(' ');
    expect(runCli([...words, '--json']).status).toBe(0);
  });

  it.each([
    ['bigquery', 'acme/', 'acme/', 'acme/fixtures'],
    ['bigquery', 'acme//', 'acme//', 'acme/fixtures'],
    ['snowflake', 'acme/', 'acme/kit', 'acme/kit/fixtures'],
  ])(
    'regression: %s DEST %s with trailing slashes prints a next step without a doubled slash',
    (edition, dest, project, fixtures) => {
      // It printed `--fixtures acme//fixtures`.
      const created = runCli(['edition', 'new', '--edition', edition, dest], { cwd: dir });
      expect(created.status).toBe(0);
      const next = created.stdout
        .toString()
        .split('\n')
        .find((line) => line.startsWith('next: '));
      expect(next).toBe(`next: sealkit edition check ${project} --fixtures ${fixtures}`);
      const words = (next ?? '').slice('next: sealkit '.length).split(' ');
      expect(runCli([...words, '--json'], { cwd: dir }).status).toBe(0);
    },
  );

  it('prints with --dry-run the very plan a real run executes, and writes nothing', () => {
    const dest = join(dir, 'ws');
    const dry = runCli(['edition', 'new', '--edition', 'bigquery', '--dry-run', '--json', dest]);
    expect(dry.status).toBe(0);
    expect(readdirSync(dir)).toEqual([]);
    const real = runCli(['edition', 'new', '--edition', 'bigquery', '--json', dest]);
    expect(real.status).toBe(0);
    const planned = JSON.parse(dry.stdout.toString()) as Record<string, unknown>;
    const created = JSON.parse(real.stdout.toString()) as Record<string, unknown>;
    expect(planned.status).toBe('planned');
    expect(created.status).toBe('created');
    expect({ ...planned, status: 'x' }).toEqual({ ...created, status: 'x' });
    expect(created).toMatchObject({ project_name: 'retail_analytics', project_dir: '.', skipped: ['.ci'] });
  });

  describe('refusals write nothing and name DEST as given', () => {
    /** `hidden`: what the refusal must never print (where a link points, what it resolves to). */
    const refuse = (dest: string, code: string, hidden: readonly string[]) => {
      const watched = [dir, join(REPO_ROOT, 'editions')];
      const before = watched.map((path) => snapshotTree(path));
      for (const json of [false, true]) {
        const run = runCli(['edition', 'new', '--edition', 'bigquery', ...(json ? ['--json'] : []), dest]);
        expect(run.status).toBe(2);
        if (json)
          expect(JSON.parse(run.stdout.toString())).toMatchObject({
            status: 'refused',
            reason_code: code,
            location: { path: dest },
          });
        else {
          expect(run.stderr.toString()).toMatch(new RegExp(`^error\\[${code}\\]: [^\\n]*\\n  --> `));
          expect(run.stderr.toString().split('\n')[1]).toBe(`  --> ${dest}`);
          expect(run.stdout.toString()).toBe('');
        }
        expect(scanForSentinels(run, [], hidden)).toEqual([]);
      }
      expect(watched.map((path) => snapshotTree(path))).toEqual(before);
    };

    it('refuses a destination inside the checkout, including one whose parent does not exist', () => {
      refuse(join(REPO_ROOT, 'editions', 'Bigquery', 'ws_zq_inside'), 'destination_inside_installation', []);
      refuse(join(REPO_ROOT, 'ws_zq_top'), 'destination_inside_installation', []);
      expect(existsSync(join(REPO_ROOT, 'ws_zq_top'))).toBe(false);
      refuse(join(REPO_ROOT, 'src', 'no_such_zq', 'ws'), 'destination_inside_installation', []);
      refuse(REPO_ROOT, 'destination_inside_installation', []);
    });

    it('regression: a destination inside the checkout says what to do (had no hint)', () => {
      const run = runCli(['edition', 'new', '--edition', 'bigquery', 'acme_zq'], { cwd: REPO_ROOT });
      expect(run.status).toBe(2);
      expect(run.stderr.toString()).toBe(
        [
          'error[destination_inside_installation]: the destination lies inside the sealkit installation or checkout; choose a folder outside it',
          '  --> acme_zq',
          '  = help: a new workspace goes outside the sealkit checkout or installation that runs this command: give a path outside it, or run the command from another folder (cd ~ first)',
          '',
        ].join('\n'),
      );
      expect(existsSync(join(REPO_ROOT, 'acme_zq'))).toBe(false);
      // An absolute path is inside wherever the command runs: no other folder to go to.
      const absolute = runCli(['edition', 'new', '--edition', 'bigquery', join(REPO_ROOT, 'acme_zq')], {
        cwd: tmpdir(),
      });
      expect(absolute.stderr.toString()).toContain(
        '  = help: a new workspace goes outside the sealkit checkout or installation that runs this command: give a path outside it\n',
      );
    });

    it('refuses a destination that reaches the checkout through a symlink', () => {
      symlinkSync(REPO_ROOT, join(dir, 'link_zq'));
      // The path as typed, never what the link resolves to.
      refuse(join(dir, 'link_zq', 'ws_zq_linked'), 'destination_inside_installation', [REPO_ROOT]);
      symlinkSync(join(REPO_ROOT, 'editions'), join(dir, 'editions_link_zq'));
      // Not normalized as text: the filesystem resolves `..` after the link, into the checkout.
      refuse(`${dir}/editions_link_zq/../ws_zq_dotdot`, 'destination_inside_installation', [REPO_ROOT]);
      expect(existsSync(join(REPO_ROOT, 'ws_zq_dotdot'))).toBe(false);
    });

    it('refuses an existing destination: a directory, even empty, or a file', () => {
      mkdirSync(join(dir, 'existing_zq'));
      refuse(join(dir, 'existing_zq'), 'destination_exists', []);
      writeFileSync(join(dir, 'file_zq'), 'x_zq_contents');
      refuse(join(dir, 'file_zq'), 'destination_exists', ['x_zq_contents']);
    });

    it('refuses a destination that is a symlink, to a directory or dangling', () => {
      mkdirSync(join(dir, 'target_zq'));
      symlinkSync(join(dir, 'target_zq'), join(dir, 'link_zq'));
      refuse(join(dir, 'link_zq'), 'workspace_destination_symlink', ['target_zq']);
      symlinkSync(join(dir, 'nowhere_zq'), join(dir, 'dangling_zq'));
      refuse(join(dir, 'dangling_zq'), 'workspace_destination_symlink', ['nowhere_zq']);
    });

    it('refuses a destination whose parent folder does not exist', () => {
      refuse(join(dir, 'missing_zq', 'ws'), 'destination_parent_missing', []);
    });
  });

  it.each([
    ['a real run', []],
    ['a dry run', ['--dry-run']],
  ])(
    'regression: a DEST that is not UTF-8 is destination_invalid in %s, and nothing is made',
    (_run, extra) => {
      // Node decoded the bytes as U+FFFD and the workspace was made under that name.
      const shell = spawnSync(
        '/bin/sh',
        [
          '-c',
          `exec "$0" "$1" edition new --edition bigquery ${extra.join(' ')} "$(printf 'bad\\377name')"`,
          process.execPath,
          join(REPO_ROOT, 'bin', 'sealkit.js'),
        ],
        { cwd: dir },
      );
      expect(shell.status).toBe(2);
      expect(shell.stdout.toString()).toBe('');
      expect(shell.stderr.toString()).toBe(
        'error[destination_invalid]: the destination path is empty, ends in . or .., is not valid text, or is too long\n' +
          '  --> bad\\xffname\n' +
          '  = help: DEST holds bytes that are not UTF-8 (shown as \\xNN): name the destination in UTF-8\n',
      );
      expect(readdirSync(dir)).toEqual([]);
    },
  );

  it.each([
    ['a real run', []],
    ['a dry run', ['--dry-run']],
  ])(
    'regression: a parent this account cannot write is workspace_write_failed with its cause, in %s',
    (_run, extra) => {
      // The real run gave no cause, and the dry run predicted success.
      const parent = join(dir, 'readonly');
      mkdirSync(parent, { mode: 0o500 });
      try {
        const run = runCli(['edition', 'new', '--edition', 'bigquery', ...extra, 'readonly/ws'], {
          cwd: dir,
        });
        expect(run.status).toBe(2);
        expect(run.stdout.toString()).toBe('');
        expect(run.stderr.toString()).toBe(
          'error[workspace_write_failed]: the workspace could not be written; nothing was published at the destination\n' +
            '  --> readonly/ws\n' +
            '  = help: the folder that would hold the destination is not writable by this account (EACCES)\n',
        );
        expect(readdirSync(parent)).toEqual([]);
      } finally {
        chmodSync(parent, 0o700);
      }
    },
  );

  it.each([
    ['a real run', []],
    ['a dry run', ['--dry-run']],
  ])(
    'regression: a missing folder followed by .. is destination_parent_missing naming that folder, in %s',
    (_run, extra) => {
      // It was destination_invalid ("ends in . or .."), although `existing/../acme` is taken.
      mkdirSync(join(dir, 'clients'));
      const cases: readonly (readonly [string, string])[] = [
        [
          'nonexist/../acme',
          "'nonexist' does not exist, and the '..' after it does not skip it (the filesystem goes through 'nonexist' first): create it, or write the destination without it",
        ],
        [
          'clients/nonexist/x/../acme',
          "'clients/nonexist' does not exist, and the '..' after it does not skip it (the filesystem goes through 'clients/nonexist' first): create it, or write the destination without it",
        ],
        [
          'nonexist/sub/acme',
          "'nonexist' does not exist: create it first, or choose a destination in an existing folder",
        ],
      ];
      for (const [dest, hint] of cases) {
        const run = runCli(['edition', 'new', '--edition', 'bigquery', ...extra, dest], { cwd: dir });
        expect(run.status).toBe(2);
        expect(run.stdout.toString()).toBe('');
        expect(run.stderr.toString()).toBe(
          'error[destination_parent_missing]: the folder that would hold the destination does not exist\n' +
            `  --> ${dest}\n` +
            `  = help: ${hint}\n`,
        );
      }
      expect(readdirSync(dir)).toEqual(['clients']);
      expect(readdirSync(join(dir, 'clients'))).toEqual([]);
      // The same path through a folder that exists is a destination like any other.
      expect(
        runCli(['edition', 'new', '--edition', 'bigquery', '--dry-run', 'clients/../acme'], { cwd: dir })
          .status,
      ).toBe(0);
    },
  );

  it('a misspelt folder above DEST names the folder beside it, human and --json, and makes nothing', () => {
    mkdirSync(join(dir, 'clients'));
    const human = runCli(['edition', 'new', '--edition', 'bigquery', 'clinets/acme'], { cwd: dir });
    expect(human.status).toBe(2);
    expect(human.stderr.toString()).toBe(
      'error[destination_parent_missing]: the folder that would hold the destination does not exist\n' +
        '  --> clinets/acme\n' +
        "  = help: 'clinets' does not exist: did you mean 'clients'?\n",
    );
    const json = runCli(['edition', 'new', '--edition', 'bigquery', 'clinets/acme', '--json'], { cwd: dir });
    expect(json.status).toBe(2);
    expect(JSON.parse(json.stdout.toString())).toMatchObject({
      reason_code: 'destination_parent_missing',
      location: { path: 'clinets/acme' },
      hint: "'clinets' does not exist: did you mean 'clients'?",
    });
    expect(readdirSync(dir)).toEqual(['clients']);
    expect(readdirSync(join(dir, 'clients'))).toEqual([]);
  });

  it.each([
    ['a real run', []],
    ['a dry run', ['--dry-run']],
  ])(
    'regression: a file on the way, or a folder this account may not search, is named in %s',
    (_run, extra) => {
      writeFileSync(join(dir, 'notes.txt'), 'kept\n');
      mkdirSync(join(dir, 'locked'), { mode: 0o000 });
      try {
        const cases: readonly (readonly [string, string])[] = [
          ['notes.txt/../acme', "'notes.txt' is not a folder (ENOTDIR)"],
          ['notes.txt/acme', "'notes.txt' is not a folder (ENOTDIR)"],
          [
            'locked/../acme',
            "the account running sealkit may not open or search the folder 'locked' (EACCES): check its permissions",
          ],
          [
            'locked/acme',
            "the account running sealkit may not open or search the folder 'locked' (EACCES): check its permissions",
          ],
        ];
        for (const [dest, hint] of cases) {
          const run = runCli(['edition', 'new', '--edition', 'bigquery', ...extra, dest], { cwd: dir });
          expect(run.status).toBe(2);
          expect(run.stderr.toString()).toBe(
            'error[destination_parent_invalid]: the folder that would hold the destination is not a directory or cannot be opened\n' +
              `  --> ${dest}\n` +
              `  = help: ${hint}\n`,
          );
        }
      } finally {
        chmodSync(join(dir, 'locked'), 0o700);
      }
      expect(readdirSync(dir).sort()).toEqual(['locked', 'notes.txt']);
      expect(readdirSync(join(dir, 'locked'))).toEqual([]);
    },
  );

  it('regression: a DEST name over 255 bytes is destination_invalid saying so, not a bad parent', () => {
    const name = 'w'.repeat(300);
    for (const extra of [['--dry-run'], []]) {
      const run = runCli(['edition', 'new', '--edition', 'bigquery', ...extra, name], { cwd: dir });
      expect(run.status).toBe(2);
      expect(run.stderr.toString()).toBe(
        'error[destination_invalid]: the destination path is empty, ends in . or .., is not valid text, or is too long\n' +
          `  --> ${name}\n` +
          "  = help: the destination's own name is 300 bytes long; a folder name takes at most 255 bytes\n",
      );
    }
    expect(readdirSync(dir)).toEqual([]);
  });

  it('takes a DEST that holds U+FFFD typed as UTF-8: it is valid text', () => {
    const run = runCli(['edition', 'new', '--edition', 'bigquery', '--dry-run', join(dir, 'ok\ufffdname')]);
    expect(run.status, run.stderr.toString()).toBe(0);
  });

  it.each([
    ['DEST', ['--edition', 'bigquery', ''], 'argument DEST is an empty string'],
    ['DEST in a dry run', ['--edition', 'bigquery', '--dry-run', ''], 'argument DEST is an empty string'],
    [
      '--edition',
      ['--edition', '', 'ws'],
      '--edition takes a value, not an empty string: --edition bigquery|snowflake',
    ],
  ])('regression: an empty %s is a usage error naming it, and nothing is made', (_what, args, message) => {
    const run = runCli(['edition', 'new', ...args], { cwd: dir });
    expect(run.status).toBe(1);
    expect(run.stderr.toString().split('\n')[0]).toBe(`sealkit: ${message}`);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('is a usage error (exit 1) without --edition, with an unknown edition or without DEST', () => {
    for (const args of [
      ['edition', 'new', join(dir, 'a')],
      ['edition', 'new', '--edition', 'postgres', join(dir, 'a')],
      ['edition', 'new', '--edition', 'bigquery'],
    ]) {
      const run = runCli(args);
      expect(run.status).toBe(1);
    }
    expect(readdirSync(dir)).toEqual([]);
  });
});

/**
 * The whole installation, hashed before and after every run. It is a copy of
 * this checkout's installed files (bin, package.json, dist, editions, the dbt
 * schemas; node_modules linked) in a private folder, so the snapshot is exact:
 * colleagues editing the shared checkout cannot change it mid-test. The copy
 * also proves the installation is found wherever sealkit is installed.
 */
describe('sealkit edition new, against a whole-installation hash snapshot', () => {
  let install: string;
  let outside: string;
  const runInstalled = (args: readonly string[]) => {
    const result = spawnSync(process.execPath, [join(install, 'bin', 'sealkit.js'), ...args], { input: '' });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  };

  beforeAll(() => {
    const base = mkdtempSync(join(tmpdir(), 'sealkit-installation-'));
    install = join(base, 'sealkit');
    outside = join(base, 'client');
    mkdirSync(outside);
    for (const part of ['bin', 'package.json', 'dist', 'editions', join('src', 'editions', 'dbt-jsonschema')])
      cpSync(join(REPO_ROOT, part), join(install, part), { recursive: true });
    symlinkSync(join(REPO_ROOT, 'node_modules'), join(install, 'node_modules'));
  });
  afterAll(() => rmSync(join(install, '..'), { recursive: true, force: true }));

  it('leaves the installation byte-for-byte unchanged after every run, refused or not', () => {
    symlinkSync(install, join(outside, 'install_link'));
    mkdirSync(join(outside, 'taken'));
    symlinkSync(join(outside, 'nowhere'), join(outside, 'dangling'));
    const cases: [readonly string[], number, string | undefined][] = [
      [['--edition', 'bigquery', join(install, 'ws')], 2, 'destination_inside_installation'],
      [
        ['--edition', 'snowflake', join(install, 'editions', 'Snowflake', 'kit', 'ws')],
        2,
        'destination_inside_installation',
      ],
      [['--edition', 'bigquery', join(outside, 'install_link', 'ws')], 2, 'destination_inside_installation'],
      [['--edition', 'bigquery', join(outside, 'taken')], 2, 'destination_exists'],
      [['--edition', 'bigquery', join(outside, 'dangling')], 2, 'workspace_destination_symlink'],
      [['--edition', 'bigquery', '--dry-run', join(outside, 'ws_dry')], 0, undefined],
      [['--edition', 'bigquery', join(outside, 'ws_bigquery')], 0, undefined],
      [['--edition', 'snowflake', join(outside, 'ws_snowflake')], 0, undefined],
    ];
    for (const [args, status, code] of cases) {
      const before = snapshotTree(install);
      const run = runInstalled(['edition', 'new', '--json', ...args]);
      expect(run.status).toBe(status);
      if (code !== undefined) expect(JSON.parse(run.stdout.toString())).toMatchObject({ reason_code: code });
      expect(snapshotTree(install)).toEqual(before);
    }
    expect(readdirSync(outside).sort()).toEqual([
      'dangling',
      'install_link',
      'taken',
      'ws_bigquery',
      'ws_snowflake',
    ]);
    expect(existsSync(join(outside, 'ws_snowflake', 'kit', 'dbt_project.yml'))).toBe(true);
  });
});

describe('sealkit edition new, stopped by a real signal', () => {
  // The built CLI in a process of its own, paused by SEALKIT_EDITION_FAULTS at a
  // step boundary; the test sends the signal while it waits there.
  /** A parent folder that already holds entries of its own, which no run may touch. */
  function parentWithEntries(): string {
    const parent = join(dir, 'clients');
    mkdirSync(join(parent, 'other-client'), { recursive: true });
    writeFileSync(join(parent, 'other-client', 'notes.md'), 'kept\n');
    writeFileSync(join(parent, 'keep.txt'), 'kept\n');
    return parent;
  }

  const stops = [
    ['after_preflight#1', 'SIGINT', 130, false],
    ['after_staging#1', 'SIGTERM', 143, true],
    ['after_dir#3', 'SIGINT', 130, true],
    ['after_file#5', 'SIGTERM', 143, true],
    ['after_fsync#1', 'SIGINT', 130, true],
    ['before_rename#1', 'SIGTERM', 143, true],
  ] as const;

  it.each(stops)(
    'regression: at %s, %s removes what the run staged, leaves the parent as it was and exits %i',
    async (point, signal, exit, staged) => {
      const parent = parentWithEntries();
      const before = snapshotTree(parent);
      const child = new CliChild(['edition', 'new', '--edition', 'bigquery', 'acme'], {
        cwd: parent,
        env: { SEALKIT_EDITION_FAULTS: `pause@${point}` },
      });
      await child.paused(point);
      // The run had made something of its own by then, beside the entries that were there.
      const staging = readdirSync(parent).filter((name) => name.startsWith('.sealkit-edition-staging-'));
      expect(staging).toHaveLength(staged ? 1 : 0);
      child.kill(signal);
      const outcome = await child.exited();
      expect(outcome.status).toBe(exit);
      expect(outcome.stdout).toBe('');
      expect(outcome.stderr).toBe(
        `sealkit edition new fault: paused at ${point}\n` +
          'error[workspace_interrupted]: the workspace was interrupted by a signal before it was published; what this run staged was removed and nothing exists at the destination\n' +
          '  --> acme\n',
      );
      expect(snapshotTree(parent)).toEqual(before);
    },
    30_000,
  );

  it('regression: with --json the interruption is one refusal object on stdout, and exits 143 on SIGTERM', async () => {
    const parent = parentWithEntries();
    const before = snapshotTree(parent);
    const child = new CliChild(['edition', 'new', '--edition', 'snowflake', '--json', 'acme'], {
      cwd: parent,
      env: { SEALKIT_EDITION_FAULTS: 'pause@after_file#2' },
    });
    await child.paused('after_file#2');
    child.kill('SIGTERM');
    const outcome = await child.exited();
    expect(outcome.status).toBe(143);
    expect(JSON.parse(outcome.stdout)).toMatchObject({
      status: 'refused',
      reason_code: 'workspace_interrupted',
      location: { path: 'acme' },
    });
    expect(outcome.stderr).toBe('sealkit edition new fault: paused at after_file#2\n');
    expect(snapshotTree(parent)).toEqual(before);
  }, 30_000);

  it('regression: a signal after the publication changes nothing: the workspace stays and the exit is 0', async () => {
    const parent = parentWithEntries();
    const child = new CliChild(['edition', 'new', '--edition', 'bigquery', 'acme'], {
      cwd: parent,
      env: { SEALKIT_EDITION_FAULTS: 'pause@after_result' },
    });
    await child.paused('after_result#1');
    child.kill('SIGINT');
    await child.stderrHas('sealkit: SIGINT came after the workspace was published; the result stands\n');
    const outcome = await child.finished();
    expect(outcome.status).toBe(0);
    expect(outcome.signal).toBeNull();
    expect(outcome.stdout).toContain('created a bigquery workspace');
    expect(contentsAndModes(join(parent, 'acme')).contents).toEqual(expectedContents('bigquery'));
    expect(readdirSync(parent).sort()).toEqual(['acme', 'keep.txt', 'other-client']);
  }, 30_000);

  it('removes what it staged when a step fails, and refuses with workspace_write_failed', () => {
    const parent = parentWithEntries();
    const before = snapshotTree(parent);
    const run = runCli(['edition', 'new', '--edition', 'bigquery', 'acme'], {
      cwd: parent,
      env: { ...process.env, SEALKIT_EDITION_FAULTS: 'fail@after_file#4' },
    });
    expect(run.status).toBe(2);
    expect(run.stderr.toString()).toContain('error[workspace_write_failed]');
    expect(snapshotTree(parent)).toEqual(before);
  });

  it('is a usage error (exit 1) naming the variable and the rule when a rule cannot be read', () => {
    const parent = parentWithEntries();
    const before = snapshotTree(parent);
    for (const rule of ['pause@after_everything', 'fail@after_result', 'stop@after_dir']) {
      const run = runCli(['edition', 'new', '--edition', 'bigquery', 'acme'], {
        cwd: parent,
        env: { ...process.env, SEALKIT_EDITION_FAULTS: rule },
      });
      expect(run.status).toBe(1);
      expect(run.stderr.toString().split('\n')[0]).toContain(
        `invalid rule '${rule}' in SEALKIT_EDITION_FAULTS`,
      );
      expect(snapshotTree(parent)).toEqual(before);
    }
  });
});
