import { execFileSync, spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../test/helpers/cli.js';
import { Refusal } from '../../core/refusal/index.js';
import { verifyBundle } from './verify.js';
import { writeManifest } from './write-manifest.js';

/**
 * `distribute manifest` on real trees: what a producer's output folder
 * usually holds besides the report (`.DS_Store`, `.ipynb_checkpoints/`,
 * `.git/`, logs, scratch folders) is left out by default or by `--exclude`,
 * and said; `--replace` rewrites an existing manifest atomically; every
 * refusal names the file.
 */
let work: string;
let bundle: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'sealkit-manifest-'));
  bundle = join(work, 'week-22');
  const files: Record<string, string> = {
    'report.md': '# Week 22\n',
    'data/sales.csv': 'region,sales\n',
    'data/raw/dump.bin': 'raw',
    'notes.txt': 'root notes',
    'sub/notes.txt': 'sub notes',
    'run.log': 'log',
    'sub/deep/run.log': 'log',
    scratch: 'a file named scratch is kept by scratch/',
    'tmp/scratch/x.txt': 'a folder named scratch',
    '.DS_Store': 'finder',
    '.ipynb_checkpoints/report-checkpoint.md': 'checkpoint',
    '.git/HEAD': 'ref: refs/heads/main\n',
    'data/.hidden.csv': 'hidden deep',
  };
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(bundle, path, '..'), { recursive: true });
    writeFileSync(join(bundle, path), content);
  }
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

const CREATED = '2026-05-30T11:10:00Z';
const listed = () =>
  (
    JSON.parse(readFileSync(join(bundle, 'manifest.json'), 'utf8')) as { files: { path: string }[] }
  ).files.map((file) => file.path);
const refusalOf = (work: () => unknown): Refusal => {
  try {
    work();
  } catch (error: unknown) {
    if (error instanceof Refusal) return error;
    throw error;
  }
  throw new Error('not refused');
};

describe('distribute manifest: what is left out', () => {
  it('leaves hidden files and folders out by default and says which', () => {
    const written = writeManifest(bundle, { id: 'w22', created: CREATED });
    expect(listed()).toEqual([
      'data/raw/dump.bin',
      'data/sales.csv',
      'notes.txt',
      'report.md',
      'run.log',
      'scratch',
      'sub/deep/run.log',
      'sub/notes.txt',
      'tmp/scratch/x.txt',
    ]);
    expect(written.left_out).toEqual([
      { path: '.DS_Store', reason: 'hidden' },
      { path: '.git/', reason: 'hidden' },
      { path: '.ipynb_checkpoints/', reason: 'hidden' },
      { path: 'data/.hidden.csv', reason: 'hidden' },
    ]);
    expect(written.replaced).toBe(false);
    expect(verifyBundle(bundle).files).toBe(9);
  });

  it('keeps hidden files with includeHidden', () => {
    writeManifest(bundle, { id: 'w22', created: CREATED, includeHidden: true });
    expect(listed()).toContain('.git/HEAD');
    expect(listed()).toContain('.DS_Store');
    expect(listed()).toContain('.ipynb_checkpoints/report-checkpoint.md');
    expect(listed()).toHaveLength(13);
  });

  it('excludes by name at any depth, by anchored path, and folders only with a trailing slash', () => {
    const written = writeManifest(bundle, {
      id: 'w22',
      created: CREATED,
      exclude: ['*.log', '/notes.txt', 'data/raw/**', 'scratch/', ''],
    });
    expect(listed()).toEqual(['data/sales.csv', 'report.md', 'scratch', 'sub/notes.txt']);
    expect(written.left_out.filter((entry) => entry.reason === 'excluded')).toEqual([
      { path: 'data/raw/', reason: 'excluded' },
      { path: 'notes.txt', reason: 'excluded' },
      { path: 'run.log', reason: 'excluded' },
      { path: 'sub/deep/run.log', reason: 'excluded' },
      { path: 'tmp/scratch/', reason: 'excluded' },
    ]);
  });

  it('regression: a name that is not UTF-8 is refused escaped, and not at all when excluded', () => {
    const stray = Buffer.concat([
      Buffer.from(join(bundle, 'sub', 'stray')),
      Buffer.from([0xff]),
      Buffer.from('.txt'),
    ]);
    writeFileSync(stray, 'x');
    const refusal = refusalOf(() => writeManifest(bundle, { id: 'w22', created: CREATED }));
    expect([refusal.code, refusal.location?.path]).toEqual(['path_not_utf8', join(bundle, 'sub')]);
    expect(refusal.hint).toBe(
      "the name 'stray\\xff.txt' in this folder (bytes that are not UTF-8 shown as \\xNN): rename it, or leave it out with the exclude option",
    );
    const written = writeManifest(bundle, { id: 'w22', created: CREATED, exclude: ['stray*'] });
    expect(written.left_out).toContainEqual({ path: 'sub/stray\\xff.txt', reason: 'excluded' });
    expect(listed()).toContain('sub/notes.txt');
  });

  it('regression: what is left out is still looked at, as a run does (a link there was accepted, then refused by every run)', () => {
    symlinkSync('/etc/passwd', join(bundle, '.git', 'link'));
    const hidden = refusalOf(() => writeManifest(bundle, { id: 'w22', created: CREATED }));
    expect([hidden.code, hidden.location?.path]).toEqual(['source_symlink', join(bundle, '.git', 'link')]);
    expect(hidden.hint).toContain('a run refuses a bundle holding one anywhere, listed or left out');
    expect(hidden.hint).not.toContain('--exclude');
    rmSync(join(bundle, '.git', 'link'));
    execFileSync('mkfifo', [join(bundle, 'tmp', 'scratch', 'pipe')]);
    const excluded = refusalOf(() =>
      writeManifest(bundle, { id: 'w22', created: CREATED, exclude: ['tmp/'] }),
    );
    expect([excluded.code, excluded.location?.path]).toEqual([
      'source_not_regular',
      join(bundle, 'tmp', 'scratch', 'pipe'),
    ]);
    expect(existsSync(join(bundle, 'manifest.json'))).toBe(false);
    rmSync(join(bundle, 'tmp', 'scratch', 'pipe'));
    // Without them, the folders are left out and the bundle verifies, as the run will see it.
    writeManifest(bundle, { id: 'w22', created: CREATED, exclude: ['tmp/'] });
    expect(listed()).not.toContain('tmp/scratch/x.txt');
    expect(() => verifyBundle(bundle)).not.toThrow();
  });

  it('regression: a link excluded by name is refused, as verify would (its hint suggested --exclude)', () => {
    symlinkSync('report.md', join(bundle, 'latest.md'));
    const listedLink = refusalOf(() => writeManifest(bundle, { id: 'w22', created: CREATED }));
    expect(listedLink.code).toBe('file_symlink');
    expect(listedLink.hint).not.toContain('--exclude');
    const excluded = refusalOf(() =>
      writeManifest(bundle, { id: 'w22', created: CREATED, exclude: ['latest.md'] }),
    );
    expect([excluded.code, excluded.location?.path]).toEqual(['source_symlink', join(bundle, 'latest.md')]);
  });

  it.each([
    ['a blank id', { id: ' ' }, 'manifest_id_invalid'],
    ['a date without a time', { id: 'x', created: '2026-05-30' }, 'manifest_created_invalid'],
  ])('refuses %s for a library caller, writing nothing', (_what, options, code) => {
    expect(refusalOf(() => writeManifest(bundle, options)).code).toBe(code);
    expect(existsSync(join(bundle, 'manifest.json'))).toBe(false);
  });

  it('refuses when everything was left out, and says so', () => {
    const refusal = refusalOf(() => writeManifest(bundle, { id: 'w22', created: CREATED, exclude: ['*'] }));
    expect(refusal.code).toBe('manifest_files_invalid');
    expect(refusal.hint).toBe('every file was left out (hidden or excluded)');
    expect(existsSync(join(bundle, 'manifest.json'))).toBe(false);
  });

  it('regression: an empty folder and a missing one are each said as such', () => {
    const empty = join(bundle, 'empty');
    mkdirSync(empty);
    const none = refusalOf(() => writeManifest(empty, { id: 'w22', created: CREATED }));
    expect([none.code, none.hint]).toEqual([
      'manifest_files_invalid',
      "the folder holds no file: a manifest lists at least one (put the bundle's files in it first)",
    ]);
    const missing = refusalOf(() => writeManifest(join(bundle, 'no-such'), { id: 'w22', created: CREATED }));
    expect([missing.code, missing.hint]).toEqual([
      'bundle_dir_missing',
      'no such bundle folder: create it, or fix the path',
    ]);
  });
});

describe('distribute manifest: --replace', () => {
  it('refuses an existing manifest.json without --replace, naming it, and rewrites it with', () => {
    writeManifest(bundle, { id: 'w22', created: CREATED });
    const refusal = refusalOf(() => writeManifest(bundle, { id: 'w22', created: CREATED }));
    expect(refusal.code).toBe('manifest_exists');
    expect(refusal.location?.path).toBe(join(bundle, 'manifest.json'));
    expect(refusal.hint).toBe('pass replace: true to write it again');

    writeFileSync(join(bundle, 'late.csv'), 'added later\n');
    const before = statSync(join(bundle, 'manifest.json')).ino;
    const written = writeManifest(bundle, { id: 'w22', created: '2026-05-30T12:00:00Z', replace: true });
    expect(written.replaced).toBe(true);
    expect(listed()).toContain('late.csv');
    expect(statSync(join(bundle, 'manifest.json')).ino).not.toBe(before);
    expect((statSync(join(bundle, 'manifest.json')).mode & 0o777).toString(8)).toBe('644');
    // Nothing beside it: the old manifest and the temporary file are gone.
    expect(
      readdirSync(bundle).filter((name) => name.startsWith('.distributor') || name.includes('manifest')),
    ).toEqual(['manifest.json']);
    expect(verifyBundle(bundle).manifest.created).toBe('2026-05-30T12:00:00Z');
    // With --replace and no manifest yet, it is simply written.
    rmSync(join(bundle, 'manifest.json'));
    expect(writeManifest(bundle, { id: 'w22', created: CREATED, replace: true }).replaced).toBe(false);
  });

  it('says what it replaced: the earlier id, digest and created, when that manifest reads as one', () => {
    const first = writeManifest(bundle, { id: 'w22', created: CREATED });
    expect(first.previous).toBeUndefined();
    const again = writeManifest(bundle, { id: 'w22', created: '2026-05-30T12:00:00Z', replace: true });
    expect(again.previous).toEqual({ id: 'w22', digest: first.manifest.digest, created: CREATED });
    expect(again.manifest.digest).toBe(first.manifest.digest);
    // A manifest.json that is not one is replaced all the same, with nothing to say of it.
    writeFileSync(join(bundle, 'manifest.json'), 'not json\n');
    const over = writeManifest(bundle, { id: 'w22', created: CREATED, replace: true });
    expect([over.replaced, over.previous]).toEqual([true, undefined]);
  });

  it('regression: a manifest.json that is not a regular file is manifest_not_regular with or without replace (was manifest_exists advising --replace)', () => {
    const refused = (replace: boolean): readonly unknown[] => {
      const refusal = refusalOf(() => writeManifest(bundle, { id: 'w22', created: CREATED, replace }));
      return [refusal.code, refusal.location?.path, refusal.hint];
    };
    mkdirSync(join(bundle, 'manifest.json'));
    const folder = [
      'manifest_not_regular',
      join(bundle, 'manifest.json'),
      'it is a folder: move it away (sealkit writes manifest.json as a file; replace: true replaces only a file)',
    ];
    expect(refused(false)).toEqual(folder);
    expect(refused(true)).toEqual(folder);
    rmSync(join(bundle, 'manifest.json'), { recursive: true });
    symlinkSync('report.md', join(bundle, 'manifest.json'));
    const link = [
      'manifest_not_regular',
      join(bundle, 'manifest.json'),
      'it is a symbolic link, which sealkit never writes through: remove the link, or put the file itself there',
    ];
    expect(refused(false)).toEqual(link);
    expect(refused(true)).toEqual(link);
    rmSync(join(bundle, 'manifest.json'));
    execFileSync('mkfifo', [join(bundle, 'manifest.json')]);
    expect(refused(false)[2]).toBe(
      'it is a FIFO, socket or device: move it away (replace: true replaces only a file)',
    );
  });

  it('regression: the library names its replace option where the command line names --replace (the library hint said --replace)', () => {
    writeManifest(bundle, { id: 'w22', created: CREATED });
    expect(refusalOf(() => writeManifest(bundle, { id: 'w22', created: CREATED })).hint).toBe(
      'pass replace: true to write it again',
    );
    const cli = runCli(['distribute', 'manifest', bundle, '--id', 'w22', '--json']);
    expect(cli.status).toBe(2);
    expect(JSON.parse(cli.stdout.toString())).toMatchObject({
      reason_code: 'manifest_exists',
      hint: 'pass --replace to write it again',
    });
    rmSync(join(bundle, 'manifest.json'));
    mkdirSync(join(bundle, 'manifest.json'));
    expect(refusalOf(() => writeManifest(bundle, { id: 'w22', created: CREATED })).hint).toBe(
      'it is a folder: move it away (sealkit writes manifest.json as a file; replace: true replaces only a file)',
    );
    expect(
      JSON.parse(
        runCli(['distribute', 'manifest', bundle, '--id', 'w22', '--replace', '--json']).stdout.toString(),
      ),
    ).toMatchObject({
      reason_code: 'manifest_not_regular',
      hint: 'it is a folder: move it away (sealkit writes manifest.json as a file; --replace replaces only a file)',
    });
  });

  it('a reader never sees a partial manifest while it is replaced again and again', async () => {
    writeManifest(bundle, { id: 'w22', created: CREATED });
    // Another process reads manifest.json as fast as it can for as long as the writer works.
    const reader = spawn(
      process.execPath,
      [
        '-e',
        `const fs = require('node:fs');
         let reads = 0, bad = 0;
         const stop = Date.now() + 20000;
         process.stdin.on('data', () => { console.log(JSON.stringify({ reads, bad })); process.exit(0); });
         (function loop() {
           for (let i = 0; i < 200; i += 1) {
             try { JSON.parse(fs.readFileSync(process.argv[1], 'utf8')); reads += 1; } catch { bad += 1; }
           }
           if (Date.now() < stop) setImmediate(loop); else { console.log(JSON.stringify({ reads, bad })); process.exit(0); }
         })();`,
        join(bundle, 'manifest.json'),
      ],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    let output = '';
    reader.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const exited = new Promise<void>((resolve) => reader.on('exit', () => resolve()));
    for (let round = 0; round < 150; round += 1) {
      // Alternate between a short and a long manifest, so a partial one could not parse.
      writeFileSync(join(bundle, 'grow.txt'), 'x'.repeat(round));
      if (round % 2 === 0) mkdirSync(join(bundle, `more-${round}`));
      if (round % 2 === 0) writeFileSync(join(bundle, `more-${round}`, 'f.txt'), String(round));
      writeManifest(bundle, { id: 'w22', created: CREATED, replace: true });
    }
    reader.stdin.write('stop\n');
    await exited;
    const counts = JSON.parse(output) as { reads: number; bad: number };
    expect(counts.bad).toBe(0);
    expect(counts.reads).toBeGreaterThan(0);
  }, 60_000);
});

describe('distribute manifest: every refusal names the file', () => {
  it('a symbolic link, a FIFO, a nested manifest and a reserved name, each at its path', () => {
    const at = (setup: () => void, options: { includeHidden?: boolean } = {}) => {
      setup();
      const refusal = refusalOf(() => writeManifest(bundle, { id: 'w22', created: CREATED, ...options }));
      return [refusal.code, refusal.location?.path];
    };
    expect(at(() => symlinkSync('report.md', join(bundle, 'data', 'link.md')))).toEqual([
      'file_symlink',
      join(bundle, 'data', 'link.md'),
    ]);
    rmSync(join(bundle, 'data', 'link.md'));
    expect(at(() => execFileSync('mkfifo', [join(bundle, 'sub', 'pipe')]))).toEqual([
      'file_not_regular',
      join(bundle, 'sub', 'pipe'),
    ]);
    rmSync(join(bundle, 'sub', 'pipe'));
    expect(at(() => writeFileSync(join(bundle, 'sub', 'manifest.json'), '{}'))).toEqual([
      'bundle_nested',
      join(bundle, 'sub', 'manifest.json'),
    ]);
    // Regression: the hint suggested --exclude, which writes a manifest that every run then
    // refuses (discovery still finds the inner manifest.json): it says to move the bundle out.
    expect(refusalOf(() => writeManifest(bundle, { id: 'w22', created: CREATED })).hint).toBe(
      'a bundle holds no other bundle: move that bundle out of this folder (the exclude option is not enough: a run still finds its manifest.json and refuses both)',
    );
    // Left out, it is refused all the same: a run would refuse the bundle for it.
    const excluded = refusalOf(() =>
      writeManifest(bundle, { id: 'w22', created: CREATED, exclude: ['sub/'] }),
    );
    expect([excluded.code, excluded.location?.path]).toEqual([
      'bundle_nested',
      join(bundle, 'sub', 'manifest.json'),
    ]);
    expect(existsSync(join(bundle, 'manifest.json'))).toBe(false);
    rmSync(join(bundle, 'sub', 'manifest.json'));
    expect(at(() => writeFileSync(join(bundle, '.distributor.json'), '{}'), { includeHidden: true })).toEqual(
      ['path_reserved', join(bundle, '.distributor.json')],
    );
    expect(existsSync(join(bundle, 'manifest.json'))).toBe(false);
  });

  it('regression: every problem of the folder is named in one refusal (one per call took a fix and a rerun each)', () => {
    symlinkSync('report.md', join(bundle, 'latest.md'));
    execFileSync('mkfifo', [join(bundle, 'sub', 'pipe')]);
    symlinkSync('../report.md', join(bundle, '.git', 'link'));
    writeFileSync(join(bundle, 'data', 'secret.csv'), 'pii', { mode: 0o000 });
    mkdirSync(join(bundle, 'locked'), { mode: 0o000 });
    writeFileSync(join(bundle, 'late.csv'), 'a\n');
    const refusal = refusalOf(() => writeManifest(bundle, { id: 'w22', created: CREATED }));
    const named = [refusal, ...refusal.also].map((one) => [one.code, one.location?.path]);
    // In path order, a folder left out (.git/) looked into like the rest.
    expect(named).toEqual([
      ['source_symlink', join(bundle, '.git', 'link')],
      ['file_unreadable', join(bundle, 'data', 'secret.csv')],
      ['file_symlink', join(bundle, 'latest.md')],
      ['source_dir_unreadable', join(bundle, 'locked')],
      ['file_not_regular', join(bundle, 'sub', 'pipe')],
    ]);
    expect(refusal.also.find((one) => one.code === 'file_unreadable')?.hint).toBe(
      'the account running sealkit may not read it (EACCES): check the permissions of the file and of its folders',
    );
    expect(existsSync(join(bundle, 'manifest.json'))).toBe(false);
    expect(readdirSync(bundle).filter((name) => name.startsWith('.distributor'))).toEqual([]);
    // The CLI prints each, then refuses with the first one's code.
    const cli = runCli(['distribute', 'manifest', bundle, '--id', 'w22']);
    expect(cli.status).toBe(2);
    expect(cli.stderr.toString().match(/^error\[[a-z_]+\]/gm)).toEqual([
      'error[source_symlink]',
      'error[file_unreadable]',
      'error[file_symlink]',
      'error[source_dir_unreadable]',
      'error[file_not_regular]',
    ]);
    chmodSync(join(bundle, 'locked'), 0o755);
  });

  it('regression: a name the path rules refuse says what to do (it said only what was wrong)', () => {
    writeFileSync(join(bundle, 'bad\u0001name.txt'), 'x');
    writeFileSync(join(bundle, 'data', 'q1\\q2.csv'), 'x');
    const refusal = refusalOf(() => writeManifest(bundle, { id: 'w22', created: CREATED }));
    expect([refusal, ...refusal.also].map((one) => [one.code, one.hint])).toEqual([
      [
        'path_control_char',
        'its name holds a control character, which reports and logs would print raw: rename it, or leave it out with the exclude option',
      ],
      [
        'path_backslash',
        'its name holds a backslash, a folder separator on Windows and to many URL handlers: rename it, or leave it out with the exclude option',
      ],
    ]);
    // Left out as the hint says, the manifest is written.
    expect(
      writeManifest(bundle, { id: 'w22', created: CREATED, exclude: ['bad*', '*\\\\*'] }).manifest.files
        .length,
    ).toBeGreaterThan(0);
  });
});

describe('sealkit distribute manifest (CLI)', () => {
  it('takes --exclude more than once, lists what it left out, and --replace', () => {
    const first = runCli([
      'distribute',
      'manifest',
      bundle,
      '--id',
      'w22',
      '--created',
      CREATED,
      '--exclude',
      '*.log',
      '--exclude',
      'tmp/',
    ]);
    expect(first.status).toBe(0);
    expect(first.stdout.toString()).toMatch(
      new RegExp(
        `^wrote ${join(bundle, 'manifest.json')} \\(id w22\\): 6 files, \\d+ bytes, digest sha256:[0-9a-f]{64}\n`,
      ),
    );
    expect(first.stdout.toString()).toContain(
      'left out: .DS_Store (hidden), .git/ (hidden), .ipynb_checkpoints/ (hidden), data/.hidden.csv (hidden), run.log (excluded), sub/deep/run.log (excluded), tmp/ (excluded)\n',
    );
    const again = runCli(['distribute', 'manifest', bundle, '--id', 'w22']);
    expect(again.status).toBe(2);
    expect(again.stderr.toString()).toContain(`error[manifest_exists]`);
    expect(again.stderr.toString()).toContain(`--> ${join(bundle, 'manifest.json')}`);
    const replaced = runCli([
      'distribute',
      'manifest',
      bundle,
      '--id',
      'w22',
      '--replace',
      '--include-hidden',
      '--json',
    ]);
    expect(replaced.status).toBe(0);
    const json = JSON.parse(replaced.stdout.toString());
    expect(json).toMatchObject({ status: 'ok', replaced: true, files: 13, left_out: [] });
    expect(runCli(['distribute', 'manifest', bundle, '--id', 'w22', '--exclude', '']).status).toBe(1);
  });

  it('regression: a manifest written again over the same files with a newer created says every destination will replace the bundle (it said nothing)', () => {
    const manifest = (created: string, ...more: string[]) =>
      runCli(['distribute', 'manifest', bundle, '--id', 'w22', '--created', created, ...more]);
    expect(manifest(CREATED).status).toBe(0);
    const same = manifest('2026-05-31T00:00:00Z', '--replace');
    expect(same.status).toBe(0);
    expect(
      same.stdout
        .toString()
        .split('\n')
        .find((line) => line.startsWith('note:')),
    ).toBe(
      `note: the files are those of the manifest replaced (same digest); only created changed (${CREATED} -> 2026-05-31T00:00:00Z), so every destination will replace the bundle it published: to leave it as published, give --created ${CREATED}`,
    );
    // An older created is skipped_newer everywhere, and other files are a real change: no note.
    expect(manifest(CREATED, '--replace').stdout.toString()).not.toContain('note:');
    writeFileSync(join(bundle, 'late.csv'), 'added later\n');
    const changed = manifest('2026-06-01T00:00:00Z', '--replace', '--json');
    expect(changed.stdout.toString()).not.toContain('note:');
    expect(JSON.parse(changed.stdout.toString()).previous).toEqual({
      id: 'w22',
      digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      created: CREATED,
    });
  });

  it('regression: a manifest written again with another id says a destination will refuse it (said "only created changed")', () => {
    expect(runCli(['distribute', 'manifest', bundle, '--id', 'sales.w22', '--created', CREATED]).status).toBe(
      0,
    );
    const renamed = runCli([
      'distribute',
      'manifest',
      bundle,
      '--id',
      'sales.week22',
      '--created',
      '2026-06-02T00:00:00Z',
      '--replace',
    ]);
    expect(renamed.status).toBe(0);
    expect(
      renamed.stdout
        .toString()
        .split('\n')
        .filter((line) => line.startsWith('note:')),
    ).toEqual([
      "note: the id changed ('sales.w22' -> 'sales.week22'): a destination that published this folder as 'sales.w22' keeps it, and a run refuses the folder there as conflict_different_id (one bundle path keeps one id): to go on publishing it there, give --id sales.w22; to publish it under the new id, move the published bundle away first",
    ]);
    // The same id again: no such note.
    const same = runCli(['distribute', 'manifest', bundle, '--id', 'sales.week22', '--replace']);
    expect(same.stdout.toString()).not.toContain('the id changed');
    // An id holding a quote reads as one id.
    const quoted = runCli(['distribute', 'manifest', bundle, '--id', "it's", '--replace']);
    expect(quoted.status).toBe(0);
    expect(quoted.stdout.toString()).toContain(
      "note: the id changed ('sales.week22' -> 'it\\x27s'): a destination that published this folder as 'sales.week22' keeps it",
    );
  });
});

describe('distribute verify: a manifest whose digest was edited', () => {
  it('regression: the hint writes it again with its own id (gave --id ID)', () => {
    writeManifest(bundle, { id: 'sales.w22', created: CREATED });
    const path = join(bundle, 'manifest.json');
    const text = readFileSync(path, 'utf8');
    // One hex digit of the top-level digest changed by hand.
    const at = text.indexOf('"digest": "sha256:') + '"digest": "sha256:'.length;
    expect(at).toBeGreaterThan(20);
    writeFileSync(path, `${text.slice(0, at)}${text[at] === '0' ? '1' : '0'}${text.slice(at + 1)}`);
    const refusal = refusalOf(() => verifyBundle(bundle));
    expect(refusal.code).toBe('bundle_digest_mismatch');
    expect(refusal.hint).toBe(
      `the digest does not cover the files listed: the manifest was edited after it was written; if the files in the folder are the ones meant, write it again from them: sealkit distribute manifest ${bundle} --id sales.w22 --replace`,
    );
  });
});

describe('distribute verify: a folder without a manifest says what it is', () => {
  it('regression: a source root or a published copy is told apart from a bundle that lacks its manifest (all said "write one")', () => {
    writeManifest(bundle, { id: 'w22', created: CREATED });
    const root = refusalOf(() => verifyBundle(work));
    expect(root.code).toBe('manifest_missing');
    expect(root.hint).toBe(
      "this folder holds 1 bundle below it (the first: 'week-22'): verify a bundle folder, or check them all with sealkit distribute run --dry-run",
    );
    const published = join(work, 'site', 'week-22');
    mkdirSync(published, { recursive: true });
    writeFileSync(join(published, '.distributor.json'), '{}\n');
    expect(refusalOf(() => verifyBundle(published)).hint).toBe(
      'this folder is a published copy (it holds .distributor.json, no manifest.json): verify the source bundle it was published from; to compare what is published with its source, run sealkit distribute run --dry-run --checksum',
    );
    const empty = join(work, 'empty');
    mkdirSync(empty);
    expect(refusalOf(() => verifyBundle(empty)).hint).toBe(
      `write one with sealkit distribute manifest ${empty} --id ID`,
    );
  });
});

describe('a bundle folder that does not exist', () => {
  it('regression: a misspelt bundle folder gets the near folder beside it (was only "fix the path")', () => {
    const misspelt = join(work, 'week22');
    for (const act of [
      () => verifyBundle(misspelt),
      () => writeManifest(misspelt, { id: 'w22', created: CREATED }),
    ]) {
      const refusal = refusalOf(act);
      expect(refusal.code).toBe('bundle_dir_missing');
      expect(refusal.hint).toBe(`no such bundle folder: did you mean '${join(work, 'week-22')}'?`);
    }
    expect(refusalOf(() => verifyBundle(join(work, 'nothing', 'near'))).hint).toBe(
      'no such bundle folder: create it, or fix the path',
    );
  });
});
