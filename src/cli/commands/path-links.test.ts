import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli } from '../../../test/helpers/cli.js';
import { snapshotTree } from '../../../test/helpers/edition-trees.js';
import { makeWritable } from '../../../test/helpers/scaffold-workspace.js';

// Every command that takes a path opens it one component at a time without
// following a symlink wherever its specification refuses links: a link named
// as `link`, `link/`, `link/.`, `./link`, or a linked directory in a middle
// component (`parent-link/name`), is refused, and nothing is written through
// it. Regression: `scaffold --workspace link/` published into the link's
// target, because lstat("link/") follows the link.

let base: string;
let manifest: string;

/** The five ways of naming `real` through a link; the middle one goes through `up`, a link to real's parent. */
function forms(name: string): readonly (readonly [string, string])[] {
  return [
    ['link', `${name}-link`],
    ['link/', `${name}-link/`],
    ['link/.', `${name}-link/.`],
    ['./link', `./${name}-link`],
    ['a link in a middle component', `up-${name}/${name}`],
  ];
}

/** `real` inside its own parent folder, with `<name>-link` → it and `up-<name>` → its parent. */
function linked(name: string): string {
  const parent = join(base, `parent-${name}`);
  mkdirSync(parent, { mode: 0o700 });
  const real = join(parent, name);
  symlinkSync(real, join(base, `${name}-link`));
  symlinkSync(parent, join(base, `up-${name}`));
  return real;
}

function run(args: readonly string[]): { status: number | null; out: string } {
  const result = runCli(args, { cwd: base });
  return { status: result.status, out: `${result.stdout.toString()}${result.stderr.toString()}` };
}

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'sealkit-path-links-')));
  // A workspace, owner-only synthetic evidence, a contract project and a report bundle.
  expect(run(['edition', 'new', '--edition', 'bigquery', join(linked('ws'))]).status).toBe(0);
  mkdirSync(join(base, 'parent-ev'), { mode: 0o700 });
  expect(
    run([
      'evidence',
      'synth',
      '--out',
      join(base, 'parent-ev', 'ev'),
      '--source',
      'sql',
      '--destination',
      'bigquery',
      '--source-binding-id',
      'shop_main',
    ]).status,
  ).toBe(0);
  symlinkSync(join(base, 'parent-ev', 'ev'), join(base, 'ev-link'));
  symlinkSync(join(base, 'parent-ev'), join(base, 'up-ev'));
  manifest = readdirSync(join(base, 'parent-ev', 'ev', 'run-manifests'))[0] ?? '';
  cpSync(join(REPO_ROOT, 'examples', 'contracts', 'retail'), linked('retail'), { recursive: true });
  const bundle = linked('bundle');
  mkdirSync(bundle);
  writeFileSync(join(bundle, 'summary.txt'), 'sunny\n');
  expect(run(['distribute', 'manifest', bundle, '--id', 'weather.x']).status).toBe(0);
  mkdirSync(linked('site'));
  mkdirSync(linked('out'));
  mkdirSync(linked('unmanifested'));
  symlinkSync(base, join(base, 'self'));
});

afterAll(() => {
  makeWritable(base);
  rmSync(base, { recursive: true, force: true });
});

describe('scaffold --workspace', () => {
  it.each(forms('ws'))('%s is workspace_invalid and writes nothing', (_form, path) => {
    const before = snapshotTree(base);
    const evidence = join(base, 'parent-ev', 'ev');
    const result = run([
      'scaffold',
      '--edition',
      'bigquery',
      '--workspace',
      path,
      '--source-id',
      'shop',
      '--mapping-file',
      join(evidence, 'mapping.json'),
      '--inventory-file',
      join(evidence, 'dry-run.json'),
      '--run-manifest',
      join(evidence, 'run-manifests', manifest),
      '--source-binding-id',
      'shop_main',
      '--max-evidence-age',
      '36h',
    ]);
    expect(result.status).toBe(2);
    expect(JSON.parse(result.out.split('\n')[0] ?? '')).toMatchObject({
      status: 'refused',
      reason_codes: ['workspace_invalid'],
    });
    expect(snapshotTree(base)).toEqual(before);
  });
});

describe('edition check PROJECT_DIR', () => {
  it.each(forms('ws'))('%s is project_invalid', (_form, path) => {
    const result = run(['edition', 'check', path, '--json']);
    expect(result.status).toBe(2);
    expect(result.out).toContain('"reason_code":"project_invalid"');
  });
});

describe('edition new DEST', () => {
  // Neither DEST nor a folder on the way to it may be a link: edition check,
  // which the workspace is made for, follows none (docs/editions.md#sealkit-edition-new).
  it.each([
    ['link', 'ws-link', 'workspace_destination_symlink'],
    ['link/', 'ws-link/', 'workspace_destination_symlink'],
    ['./link', './ws-link', 'workspace_destination_symlink'],
    ['link/.', 'ws-link/.', 'destination_invalid'],
    ['a link in a middle component', 'up-ws/fresh', 'workspace_destination_symlink'],
  ])('%s is refused (%s) and writes nothing', (_form, path, code) => {
    const before = snapshotTree(base);
    const result = run(['edition', 'new', '--edition', 'snowflake', path, '--json']);
    expect(result.status).toBe(2);
    expect(result.out).toContain(`"reason_code":"${code}"`);
    expect(snapshotTree(base)).toEqual(before);
  });

  it('regression: new and check apply one rule to a linked parent, and the refusal names the link', () => {
    // edition new made a workspace under a linked folder and printed a next
    // command that edition check then refused as project_invalid.
    const before = snapshotTree(base);
    for (const args of [['--dry-run'], []]) {
      const made = runCli(['edition', 'new', '--edition', 'bigquery', ...args, 'up-ws/viaLink'], {
        cwd: base,
      });
      expect(made.status).toBe(2);
      expect(made.stdout.toString()).toBe('');
      expect(made.stderr.toString()).toBe(
        "error[workspace_destination_symlink]: the destination, or a folder on the way to it, is a symbolic link\n  --> up-ws/viaLink\n  = help: 'up-ws' is a symbolic link, and sealkit follows none on the way to the destination: name the destination by a path without one\n",
      );
    }
    expect(snapshotTree(base)).toEqual(before);
    const checked = runCli(['edition', 'check', 'up-ws/ws'], { cwd: base });
    expect(checked.status).toBe(2);
    expect(checked.stderr.toString()).toBe(
      "error[project_invalid]: the project directory is not a directory, passes through a symbolic link or cannot be read\n  --> up-ws/ws\n  = help: 'up-ws' is a symbolic link, and sealkit follows none on the way to the project: name the project by a path without one\n",
    );
    const fixtures = runCli(['edition', 'check', join('parent-ws', 'ws'), '--fixtures', 'ws-link/fixtures'], {
      cwd: base,
    });
    expect(fixtures.status).toBe(2);
    expect(fixtures.stderr.toString()).toContain(
      "= help: 'ws-link' is a symbolic link, and sealkit follows none on the way to the fixtures: name the fixtures by a path without one\n",
    );
  });

  it('the next command edition new prints runs as printed', () => {
    const made = runCli(['edition', 'new', '--edition', 'bigquery', 'parent-ws/next'], { cwd: base });
    expect(made.status).toBe(0);
    const next = made.stdout
      .toString()
      .split('\n')
      .find((line) => line.startsWith('next: '));
    expect(next).toBe('next: sealkit edition check parent-ws/next --fixtures parent-ws/next/fixtures');
    const checked = runCli(['edition', 'check', 'parent-ws/next', '--fixtures', 'parent-ws/next/fixtures'], {
      cwd: base,
    });
    expect(checked.status, checked.stderr.toString()).toBe(0);
  });
});

describe('evidence check', () => {
  const evidenceArgs = (mapping: string, dryRun: string): string[] => [
    'evidence',
    'check',
    '--mapping-file',
    mapping,
    '--inventory-file',
    dryRun,
    '--run-manifest',
    join(base, 'parent-ev', 'ev', 'run-manifests', manifest),
    '--source-binding-id',
    'shop_main',
    '--max-evidence-age',
    '36h',
    '--json',
  ];
  const real = (): string => join(base, 'parent-ev', 'ev');

  it.each([
    ['link', 'ev-link/dry-run.json', 'scaffold_input_not_private'],
    ['./link', './ev-link/dry-run.json', 'scaffold_input_not_private'],
    ['a link in a middle component', 'up-ev/ev/dry-run.json', 'scaffold_input_not_private'],
    ['link/', 'ev-link/dry-run.json/', 'scaffold_input_missing'],
    ['link/.', 'ev-link/dry-run.json/.', 'scaffold_input_missing'],
  ])('the dry run (no link at any component) through %s is %s', (_form, path, code) => {
    const result = run(evidenceArgs(join(real(), 'mapping.json'), path));
    expect(result.status).toBe(2);
    expect(result.out).toContain(`"reason_code":"${code}"`);
    expect(result.out).toContain('"role":"dry_run"');
  });

  it('the mapping may sit below a linked folder (its final component only must not be a link)', () => {
    symlinkSync(join(real(), 'mapping.json'), join(base, 'mapping-link'));
    for (const path of ['mapping-link', './mapping-link']) {
      const result = run(evidenceArgs(path, join(real(), 'dry-run.json')));
      expect(result.status, path).toBe(2);
      expect(result.out).toContain('"reason_code":"scaffold_input_not_private"');
    }
    expect(run(evidenceArgs('up-ev/ev/mapping.json', join(real(), 'dry-run.json'))).status).toBe(0);
  });
});

describe('evidence synth --out', () => {
  it.each([
    ['link', 'out-link', 'evidence_synth_output_exists'],
    ['link/', 'out-link/', 'evidence_synth_output_exists'],
    ['./link', './out-link', 'evidence_synth_output_exists'],
    ['link/.', 'out-link/.', 'evidence_synth_option_invalid'],
    ['a link in a middle component', 'up-out/fresh', 'evidence_synth_parent_unsafe'],
  ])('%s is refused (%s) and writes nothing', (_form, path, code) => {
    const before = snapshotTree(base);
    const result = run([
      'evidence',
      'synth',
      '--out',
      path,
      '--source',
      'csv',
      '--destination',
      'snowflake',
      '--json',
    ]);
    expect(result.status).toBe(2);
    expect(result.out).toContain(`"reason_code":"${code}"`);
    expect(snapshotTree(base)).toEqual(before);
  });
});

describe('distribute', () => {
  it.each(forms('bundle'))('verify %s is bundle_dir_symlink', (_form, path) => {
    const result = run(['distribute', 'verify', path, '--json']);
    expect(result.status).toBe(2);
    expect(result.out).toContain('"reason_code":"bundle_dir_symlink"');
  });

  it.each(forms('unmanifested'))('manifest %s is bundle_dir_symlink and writes nothing', (_f, path) => {
    const before = snapshotTree(base);
    const result = run(['distribute', 'manifest', path, '--id', 'weather.y', '--json']);
    expect(result.status).toBe(2);
    expect(result.out).toContain('"reason_code":"bundle_dir_symlink"');
    expect(snapshotTree(base)).toEqual(before);
  });

  const config = (source: string, destination: string): string => {
    const path = join(base, `config-${Math.random().toString(36).slice(2)}.yaml`);
    writeFileSync(
      path,
      `pipelines:\n  - id: r\n    source: {root: ${JSON.stringify(source)}}\n    destinations:\n      - id: s\n        kind: local\n        root: ${JSON.stringify(destination)}\n        outputs: {source: true, html: false}\n`,
    );
    return path;
  };

  it.each([
    ['link', 'up-bundle', 'site-link'],
    ['link/', 'up-bundle/', 'site-link/'],
    ['link/.', 'up-bundle/.', 'site-link/.'],
    ['./link', './up-bundle', './site-link'],
    ['a link in a middle component', 'self/parent-bundle', 'up-site/site'],
  ])('run: a source root named through %s is refused; so is a destination root', (_form, source, site) => {
    const before = snapshotTree(base);
    const bySource = run(['distribute', 'run', '--config', config(source, 'parent-site/site'), '--json']);
    expect(bySource.status).toBe(2);
    expect(bySource.out).toContain('"reason_code":"source_root_symlink"');
    const byDestination = run(['distribute', 'run', '--config', config('parent-bundle', site), '--json']);
    expect(byDestination.status).toBe(2);
    expect(byDestination.out).toContain('destination_root_unavailable');
    const after = snapshotTree(base);
    for (const [path, entry] of before) if (!path.startsWith('config-')) expect(after.get(path)).toBe(entry);
  });
});

describe('contract', () => {
  it.each(forms('retail'))('validate %s is contract_project_symlink', (_form, path) => {
    const result = run(['contract', 'validate', path, '--json']);
    expect(result.status).toBe(2);
    expect(result.out).toContain('contract_project_symlink');
  });

  it.each([
    ['link', 'out-link', 'contract_out_exists'],
    ['link/', 'out-link/', 'contract_out_exists'],
    ['./link', './out-link', 'contract_out_exists'],
    ['link/.', 'out-link/.', 'contract_out_parent_missing'],
    ['a link in a middle component', 'up-out/fresh', 'contract_out_parent_missing'],
  ])('project --out %s is refused (%s) and writes nothing', (_form, path, code) => {
    const before = snapshotTree(base);
    const result = run(['contract', 'project', 'parent-retail/retail', '--out', path, '--json']);
    expect(result.status).toBe(2);
    expect(result.out).toContain(code);
    expect(snapshotTree(base)).toEqual(before);
  });
});
