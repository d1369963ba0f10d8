import { createHash } from 'node:crypto';
import {
  chmodSync,
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
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../test/helpers/cli.js';
import { copyExample } from '../../contracts/fixtures/resources.js';
import { Dir, lockExclusiveNonBlocking } from '../../core/fs/index.js';

const work = mkdtempSync(join(tmpdir(), 'sealkit-contract-history-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('reading a ledger that was never created', () => {
  it('regression: history and replay name where the ledger was looked for and how to create it', () => {
    const history = runCli(['contract', 'history', '--resource', 'retail.source.orders'], { cwd: work });
    expect(history.status).toBe(2);
    expect(history.stderr.toString()).toBe(
      [
        'error[contract_ledger_missing]: the ledger does not exist yet: nothing was ever published there',
        '  --> .sealkit/ledger',
        "  = help: publish first with 'sealkit contract publish .', or pass --ledger URL",
        '',
      ].join('\n'),
    );
    const replay = runCli(['contract', 'replay', '--json'], { cwd: work });
    expect(replay.status).toBe(2);
    expect(JSON.parse(replay.stdout.toString())).toMatchObject({
      reason_code: 'contract_ledger_missing',
      location: { path: '.sealkit/ledger' },
    });
  });
});

describe('reading from a folder that holds projects', () => {
  const env = { ...process.env };
  delete env.SEALKIT_LEDGER_URL;
  delete env.DATABASE_URL;
  const run = (cwd: string, ...args: string[]) => runCli(['contract', ...args], { cwd, env });

  it('regression: history and replay in a folder of a published project point at its ledger (advised a second one)', () => {
    const home = join(work, 'inside');
    copyExample(join(home, 'retail'));
    expect(run(home, 'publish', 'retail', '-q').status).toBe(0);
    const sources = join(home, 'retail', 'sources');
    const history = run(sources, 'history', '--resource', 'retail.source.orders');
    expect(history.status).toBe(2);
    expect(history.stderr.toString()).toContain(
      "  = help: '.' is inside the contract project '..', whose ledger is ../.sealkit/ledger: run: sealkit contract history .. --resource retail.source.orders (publishing '.' would start a second ledger)\n",
    );
    const replay = JSON.parse(run(home, 'replay', 'retail/sources', '--json').stdout.toString());
    expect(replay).toMatchObject({ reason_code: 'contract_ledger_missing' });
    expect(replay.hint).toBe(
      "'retail/sources' is inside the contract project 'retail', whose ledger is retail/.sealkit/ledger: run: sealkit contract replay retail (publishing 'retail/sources' would start a second ledger)",
    );
    // As advised, it reads the project's ledger.
    expect(run(sources, 'history', '..', '--resource', 'retail.source.orders').status).toBe(0);
  });

  it('regression: validate and project one folder too high name the projects below (told to add kind: to other files)', () => {
    const above = join(work, 'above');
    copyExample(join(above, 'retail'));
    copyExample(join(above, 'shop'));
    // A dbt workspace beside them holds YAML too, and is not named a project.
    mkdirSync(join(above, 'acme', 'models'), { recursive: true });
    writeFileSync(join(above, 'acme', 'dbt_project.yml'), 'name: acme\nversion: "1.0.0"\n');
    writeFileSync(join(above, 'acme', 'models', '_models.yml'), 'version: 2\nmodels: []\n');
    expect(run(above, 'publish', 'retail', '-q').status).toBe(0);
    const below = "'.' is not a contract project; it holds projects: 'retail', 'shop'. Run: sealkit contract";
    const note = `note: ${below}`;
    const validate = run(above, 'validate', '.');
    expect(validate.status).toBe(2);
    expect(validate.stderr.toString().endsWith(`\n${note} validate retail\n`)).toBe(true);
    // --json says it as the hint of its refusal.
    expect(JSON.parse(run(above, 'validate', '.', '--json').stdout.toString())).toMatchObject({
      reason_code: 'contract_project_invalid',
      hint: `${below} validate retail`,
    });
    const project = run(above, 'project', '.');
    expect(project.status).toBe(2);
    expect(project.stderr.toString().endsWith(`\n${note} project retail\n`)).toBe(true);
    // Inside a project, nothing of the kind is said.
    const inside = run(join(above, 'shop'), 'validate', '.');
    expect(inside.status).toBe(0);
    expect(inside.stderr.toString()).toBe('');
  });
  const missing =
    'error[contract_ledger_missing]: the ledger does not exist yet: nothing was ever published there';

  it('regression: history and replay in a folder of projects name the projects and their ledgers, not publish .', () => {
    // shelf/: retail published (a real ledger), shop a project not published
    // yet, notes no project, a link to retail (never followed), a dot-folder.
    const shelf = join(work, 'shelf');
    copyExample(join(shelf, 'retail'));
    copyExample(join(shelf, 'shop'));
    mkdirSync(join(shelf, 'notes'));
    writeFileSync(join(shelf, 'notes', 'README.md'), 'not a project\n');
    symlinkSync('retail', join(shelf, 'linked'));
    mkdirSync(join(shelf, '.cache', '.sealkit', 'ledger'), { recursive: true });
    expect(run(shelf, 'publish', 'retail', '-q').status).toBe(0);
    const hint =
      "'.' is not a contract project; it holds projects: retail (its ledger: retail/.sealkit/ledger), shop (no ledger yet).";
    const history = run(shelf, 'history', '--resource', 'retail.source.orders');
    expect(history.status).toBe(2);
    expect(history.stdout.toString()).toBe('ledger: embedded, .sealkit/ledger\n');
    expect(history.stderr.toString()).toBe(
      [
        missing,
        '  --> .sealkit/ledger',
        `  = help: ${hint} Run: sealkit contract history retail --resource retail.source.orders`,
        '',
      ].join('\n'),
    );
    const replay = run(shelf, 'replay', '--json');
    expect(replay.status).toBe(2);
    expect(JSON.parse(replay.stdout.toString())).toMatchObject({
      reason_code: 'contract_ledger_missing',
      location: { path: '.sealkit/ledger' },
      hint: `${hint} Run: sealkit contract replay retail`,
    });
    // Named from outside, the folder and its projects are named as given.
    const outside = run(work, 'replay', 'shelf');
    expect(outside.stderr.toString()).toContain(
      "  = help: 'shelf' is not a contract project; it holds projects: shelf/retail (its ledger: shelf/retail/.sealkit/ledger), shelf/shop (no ledger yet). Run: sealkit contract replay shelf/retail\n",
    );
    // The command the hint gives reads that ledger.
    const next = run(shelf, 'history', 'retail', '--resource', 'retail.source.orders');
    expect(next.status).toBe(0);
    expect(next.stdout.toString()).toMatch(/\n1 publication\n$/);
    // Nothing was created by reading.
    expect(readdirSync(shelf).sort()).toEqual(['.cache', 'linked', 'notes', 'retail', 'shop']);
  });

  it('regression: a folder of many projects names a few, those with a ledger first, and counts the rest', () => {
    const wide = join(work, 'wide');
    copyExample(join(wide, 'zeta'));
    for (const name of ['a1', 'a2', 'a3', 'a4', 'a5', 'a6']) copyExample(join(wide, name));
    expect(run(wide, 'publish', 'zeta', '-q').status).toBe(0);
    const replay = run(wide, 'replay');
    expect(replay.status).toBe(2);
    expect(replay.stderr.toString()).toContain(
      "  = help: '.' is not a contract project; it holds projects: zeta (its ledger: zeta/.sealkit/ledger), a1 (no ledger yet), a2 (no ledger yet), a3 (no ledger yet), a4 (no ledger yet) and 2 more. Run: sealkit contract replay zeta\n",
    );
  });

  it('regression: a project whose ledger is missing keeps the advice to publish it, its sub-folders are no projects of their own', () => {
    // The example's resource files are all in sub-folders (sources/, models/, ...).
    const project = join(work, 'unpublished');
    copyExample(project);
    for (const args of [['replay'], ['history', '--resource', 'retail.source.orders']]) {
      const reader = run(project, ...args);
      expect(reader.status).toBe(2);
      expect(reader.stderr.toString()).toBe(
        [
          missing,
          '  --> .sealkit/ledger',
          "  = help: publish first with 'sealkit contract publish .', or pass --ledger URL",
          '',
        ].join('\n'),
      );
    }
  });
});

describe('a ledger another process holds', () => {
  it('regression: a busy embedded ledger is named, with what to do', () => {
    const project = join(work, 'busy');
    mkdirSync(join(project, '.sealkit'), { recursive: true, mode: 0o700 });
    const sealkit = Dir.open(join(project, '.sealkit'));
    const held = lockExclusiveNonBlocking(sealkit, 'ledger.lock');
    try {
      expect(held.kind).toBe('acquired');
      const history = runCli(['contract', 'history', 'busy', '--resource', 'retail.source.orders'], {
        cwd: work,
      });
      expect(history.status).toBe(2);
      expect(history.stderr.toString()).toBe(
        [
          'error[contract_ledger_busy]: another sealkit process has the embedded ledger open',
          '  --> busy/.sealkit/ledger',
          '  = help: another publish, history or replay of this project holds the ledger: try again when it has finished',
          '',
        ].join('\n'),
      );
      const replay = runCli(['contract', 'replay', 'busy', '--json'], { cwd: work });
      expect(JSON.parse(replay.stdout.toString())).toMatchObject({
        reason_code: 'contract_ledger_busy',
        location: { path: 'busy/.sealkit/ledger' },
        hint: 'another publish, history or replay of this project holds the ledger: try again when it has finished',
      });
    } finally {
      if (held.kind === 'acquired') held.lock.release();
      sealkit.close();
    }
  });
});

/** Every file and folder under `root` with its mode, and each file's SHA-256 and modification time. */
function treeState(root: string): Record<string, string> {
  const state: Record<string, string> = {};
  for (const name of readdirSync(root, { recursive: true, encoding: 'utf8' }).sort()) {
    const path = join(root, name);
    const stat = statSync(path);
    state[name] = stat.isFile()
      ? `${stat.mode.toString(8)} ${stat.mtimeMs} ${createHash('sha256').update(readFileSync(path)).digest('hex')}`
      : stat.mode.toString(8);
  }
  return state;
}

/** Takes every write bit off `root` and everything under it; returns what puts the modes back exactly. */
function readOnlyTree(root: string): () => void {
  const paths = [
    root,
    ...readdirSync(root, { recursive: true, encoding: 'utf8' }).map((name) => join(root, name)),
  ];
  const modes = paths.map((path) => [path, statSync(path).mode & 0o7777] as const);
  for (const [path, mode] of [...modes].reverse()) chmodSync(path, mode & ~0o222);
  return () => {
    for (const [path, mode] of modes) chmodSync(path, mode);
  };
}

describe('commands that only read the embedded ledger', () => {
  it('regression: publish --dry-run, history and replay leave every file of the ledger as it was, and work on a read-only ledger', () => {
    copyExample(join(work, 'readonly'));
    const env = { ...process.env };
    delete env.SEALKIT_LEDGER_URL;
    delete env.DATABASE_URL;
    const run = (...args: string[]) => runCli(['contract', ...args], { cwd: work, env });
    expect(run('publish', 'readonly').status).toBe(0);
    const sealkit = join(work, 'readonly', '.sealkit');
    const before = treeState(sealkit);
    expect(Object.keys(before)).toContain('ledger/PG_VERSION');
    const readers = () => [
      run('publish', 'readonly', '--dry-run'),
      run('history', 'readonly', '--resource', 'retail.source.orders'),
      run('replay', 'readonly'),
    ];
    for (const reader of readers())
      expect({ status: reader.status, stderr: reader.stderr.toString() }).toEqual({ status: 0, stderr: '' });
    expect(treeState(sealkit)).toEqual(before);
    const restore = readOnlyTree(sealkit);
    try {
      const readOnly = readers();
      for (const reader of readOnly)
        expect({ status: reader.status, stderr: reader.stderr.toString() }).toEqual({
          status: 0,
          stderr: '',
        });
      expect(readOnly[0]?.stdout.toString()).toContain(
        'dry run: 0 to append, 6 unchanged; nothing was written',
      );
      expect(readOnly[2]?.stdout.toString()).toMatch(
        /^ledger: embedded, readonly\/\.sealkit\/ledger\nreplayed 6 entries of 6 resources: valid; ledger head 6 sha256:/,
      );
    } finally {
      restore();
    }
    const after = treeState(sealkit);
    expect(after).toEqual(before);
  });
});

describe('a first publication that is refused', () => {
  it('regression: leaves the project folder as it found it, and history and replay then name the ledger', () => {
    const project = join(work, 'first-refused');
    copyExample(project);
    const env = { ...process.env };
    delete env.SEALKIT_LEDGER_URL;
    delete env.DATABASE_URL;
    const run = (...args: string[]) => runCli(['contract', ...args], { cwd: work, env });
    const before = treeState(project);
    // An approval where nothing widens: refused by the rules, against the empty ledger.
    const refused = run(
      'publish',
      'first-refused',
      '--approve-widening',
      'retail.source.orders@1.3.0',
      '--approver',
      'A',
      '--reason',
      'R',
    );
    expect(refused.status).toBe(2);
    expect(refused.stdout.toString()).toMatch(/refused: 1 of 6 resources; nothing was written\n$/);
    expect(treeState(project)).toEqual(before);
    expect(readdirSync(project).filter((name) => name.startsWith('.'))).toEqual([]);
    for (const reader of [
      run('replay', 'first-refused'),
      run('history', 'first-refused', '--resource', 'retail.source.orders'),
    ]) {
      expect(reader.status).toBe(2);
      expect(reader.stderr.toString()).toBe(
        [
          'error[contract_ledger_missing]: the ledger does not exist yet: nothing was ever published there',
          '  --> first-refused/.sealkit/ledger',
          "  = help: publish first with 'sealkit contract publish first-refused', or pass --ledger URL",
          '',
        ].join('\n'),
      );
    }
    expect(treeState(project)).toEqual(before);
    // The same project, published: the ledger appears with the publication.
    expect(run('publish', 'first-refused', '-q').status).toBe(0);
    expect(readdirSync(join(project, '.sealkit')).sort()).toEqual(['cache', 'ledger', 'ledger.lock']);
  });
});

describe('a ledger folder this account may not open', () => {
  it('regression: reading commands name the folder, its owner and mode, and never talk of creating or writing', () => {
    const project = join(work, 'closed');
    copyExample(project);
    const env = { ...process.env };
    delete env.SEALKIT_LEDGER_URL;
    delete env.DATABASE_URL;
    const run = (...args: string[]) => runCli(['contract', ...args], { cwd: work, env });
    // The open stops at .sealkit itself, so the ledger inside need not be a real one.
    mkdirSync(join(project, '.sealkit', 'ledger'), { recursive: true, mode: 0o700 });
    // Mode 0000 keeps even the owner out (the suite never runs as root).
    chmodSync(join(project, '.sealkit'), 0o000);
    try {
      for (const reader of [
        run('replay', 'closed'),
        run('history', 'closed', '--resource', 'retail.source.orders'),
        run('publish', 'closed', '--dry-run'),
      ]) {
        expect(reader.status).toBe(2);
        expect(reader.stderr.toString()).toBe(
          [
            'error[contract_ledger_unavailable]: the ledger database cannot be opened or reached',
            '  --> closed/.sealkit/ledger',
            '  = help: this account cannot open closed/.sealkit (permission denied, EACCES): its mode is 0000; give this account read access',
            '',
          ].join('\n'),
        );
      }
      const publish = run('publish', 'closed');
      expect(publish.stderr.toString()).toContain(
        '= help: this account cannot open closed/.sealkit (permission denied, EACCES): its mode is 0000; give this account read and write access',
      );
    } finally {
      chmodSync(join(project, '.sealkit'), 0o700);
    }
  });
});
