import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../test/helpers/cli.js';
import { collectTree, scanForSentinels } from '../../../test/helpers/sentinels.js';
import {
  baseProject,
  copyExample,
  exampleGolden,
  model,
  source,
  writeProjectTree,
} from '../../contracts/fixtures/resources.js';

describe('sealkit contract', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sealkit-cli-contract-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const json = (run: { stdout: Buffer }) =>
    JSON.parse(run.stdout.toString('utf8')) as Record<string, unknown>;

  it('validates the example project and lists every file', () => {
    copyExample(join(dir, 'retail'));
    const run = runCli(['contract', 'validate', join(dir, 'retail')]);
    expect(run.status).toBe(0);
    expect(run.stderr.length).toBe(0);
    const text = run.stdout.toString('utf8');
    expect(text).toMatch(/^valid {4}Source {9}\S+\/retail\/sources\/orders\.yaml +retail\.source\.orders$/m);
    expect(text).toMatch(/8 resources valid \(2 Dashboard, 2 Model, 2 SemanticModel, 2 Source\)\n$/);
    const out = json(runCli(['contract', 'validate', '--json', join(dir, 'retail')]));
    expect(out).toMatchObject({ status: 'ok', valid: 8 });
  });

  it('projects the example: id, kind, version and the golden digests', () => {
    copyExample(join(dir, 'retail'));
    const run = runCli(['contract', 'project', '--json', join(dir, 'retail')]);
    expect(run.status).toBe(0);
    const out = json(run) as { resources: { id: string; status: string; digest: string | null }[] };
    const index = JSON.parse(readFileSync(join(exampleGolden(), 'index.json'), 'utf8')) as {
      resources: { id: string; digest: string }[];
    };
    const projected = out.resources.filter((item) => item.status === 'projected');
    expect(projected.map((item) => [item.id, item.digest])).toEqual(
      index.resources.map((entry) => [entry.id, entry.digest]),
    );
    expect(out.resources.filter((item) => item.status === 'not_contract_bearing')).toHaveLength(2);
    const human = runCli(['contract', 'project', join(dir, 'retail'), '--resource', 'retail.source.orders']);
    expect(human.status).toBe(0);
    expect(human.stdout.toString()).toMatch(
      /^Source {9}retail\.source\.orders {2}1\.3\.0 {2}backward {2}sha256:[0-9a-f]{64}\n$/,
    );
  });

  it('regression: no resource is projected while another file is refused after parsing (a dataset model was, exit 0)', () => {
    copyExample(join(dir, 'retail'));
    // The model the semantic model reads, refused for an SQL reference: a
    // refusal made after every file parsed.
    const model = join(dir, 'retail', 'models', 'order_facts.yaml');
    writeFileSync(
      model,
      readFileSync(model, 'utf8').replace('left join customers on', 'left join custmers on'),
    );
    const out = join(dir, 'out');
    for (const resource of ['retail.semantic.orders', 'retail.source.orders']) {
      const run = runCli(['contract', 'project', join(dir, 'retail'), '--resource', resource, '--out', out]);
      expect(run.status).toBe(2);
      expect(run.stdout.toString()).toMatch(/refused {2}Model +\S+order_facts\.yaml +contract_/);
      expect(existsSync(out)).toBe(false);
    }
  });

  it('regression: one projection written is "1 projection", not "1 projections"', () => {
    copyExample(join(dir, 'one'));
    const run = runCli([
      'contract',
      'project',
      join(dir, 'one'),
      '--resource',
      'retail.source.orders',
      '--out',
      join(dir, 'one-out'),
    ]);
    expect(run.status).toBe(0);
    expect(run.stdout.toString()).toMatch(/\nwrote 2 files \(1 projection and index\.json\)\n$/);
  });

  it('writes the canonical bytes with --out, byte for byte the golden tree, create-only', () => {
    copyExample(join(dir, 'retail'));
    const out = join(dir, 'out');
    const run = runCli(['contract', 'project', join(dir, 'retail'), '--out', out]);
    expect(run.status).toBe(0);
    expect(run.stdout.toString()).toMatch(/\nwrote 7 files \(6 projections and index\.json\)\n$/);
    const golden = exampleGolden();
    expect(readdirSync(join(out, 'resources')).sort()).toEqual(readdirSync(join(golden, 'resources')).sort());
    for (const name of readdirSync(join(golden, 'resources'))) {
      expect(
        readFileSync(join(out, 'resources', name)).equals(readFileSync(join(golden, 'resources', name))),
      ).toBe(true);
    }
    expect(readFileSync(join(out, 'index.json')).equals(readFileSync(join(golden, 'index.json')))).toBe(true);
    // No staging folder is left beside the output.
    expect(readdirSync(dir).sort()).toEqual(['out', 'retail']);

    const again = runCli(['contract', 'project', join(dir, 'retail'), '--out', out, '--json']);
    expect(again.status).toBe(2);
    expect(json(again)).toMatchObject({ status: 'refused', reason_code: 'contract_out_exists' });
    expect(readdirSync(dir).sort()).toEqual(['out', 'retail']);

    const orphan = runCli(['contract', 'project', join(dir, 'retail'), '--out', join(dir, 'missing', 'out')]);
    expect(orphan.status).toBe(2);
    expect(orphan.stderr.toString()).toContain('error[contract_out_parent_missing]');
  });

  it('refuses an existing empty output folder and leaves it alone', () => {
    copyExample(join(dir, 'retail'));
    mkdirSync(join(dir, 'out'));
    const run = runCli(['contract', 'project', join(dir, 'retail'), '--out', join(dir, 'out')]);
    expect(run.status).toBe(2);
    expect(readdirSync(join(dir, 'out'))).toEqual([]);
  });

  it('refuses a project with a broken file: outcomes on stdout, located errors on stderr, exit 2, nothing written', () => {
    writeProjectTree(
      join(dir, 'retail'),
      baseProject({
        'sources/secret_orders.yaml': source({
          id: 't.source.secret',
          name: 'secret',
          fields: [{ name: 'amount', type: 'string', nulable: 'VALUE_ZQ_1' }],
        }),
      }),
    );
    const outRoot = join(dir, 'published');
    mkdirSync(outRoot);
    const human = runCli(['contract', 'project', 'retail', '--out', join('published', 'out')], { cwd: dir });
    expect(human.status).toBe(2);
    const stdout = human.stdout.toString();
    expect(stdout).toMatch(
      /^refused {2}Source {9}retail\/sources\/secret_orders\.yaml +contract_field_unknown$/m,
    );
    expect(stdout).toMatch(/^valid {4}Source {9}retail\/sources\/orders\.yaml +t\.source\.orders$/m);
    expect(stdout).toMatch(/1 of 5 files refused\n$/);
    const stderr = human.stderr.toString();
    expect(stderr).toMatch(
      /^error\[contract_field_unknown\]: .*\n {2}--> retail\/sources\/secret_orders\.yaml:\d+:\d+\n {2}= at: fields\[0\]\.nulable\n {2}= help: did you mean 'nullable'\?\n$/,
    );
    expect(existsSync(join(outRoot, 'out'))).toBe(false);

    const machine = runCli(['contract', 'validate', '--json', 'retail'], { cwd: dir });
    expect(machine.status).toBe(2);
    expect(json(machine)).toMatchObject({
      status: 'refused',
      reason_code: 'contract_project_invalid',
      items: expect.arrayContaining([
        expect.objectContaining({
          file: 5,
          path: 'retail/sources/secret_orders.yaml',
          status: 'refused',
          kind: 'Source',
          reason_code: 'contract_field_unknown',
          field: 'fields[]',
          location: expect.objectContaining({
            path: 'retail/sources/secret_orders.yaml',
            pointer: 'fields[0].nulable',
          }),
          hint: "did you mean 'nullable'?",
        }),
        {
          file: 1,
          path: 'retail/dashboards/sales.yaml',
          status: 'valid',
          kind: 'Dashboard',
          id: 't.dashboard.sales',
        },
      ]),
    });
    // A value is never printed, whatever the policy.
    for (const run of [human, machine]) expect(scanForSentinels(run, [outRoot], ['VALUE_ZQ_1'])).toEqual([]);
    expect(collectTree(outRoot)).toEqual([]);
  });

  it('reports a refused model without printing its SQL', () => {
    const project = join(dir, 'p');
    writeProjectTree(
      project,
      baseProject({
        'models/facts.yaml': model({ sql: "select * from read_csv('/etc/SECRET_PATH_ZQ')" }),
      }),
    );
    const run = runCli(['contract', 'validate', '--json', 'p'], { cwd: dir });
    expect(run.status).toBe(2);
    expect(json(run).items).toContainEqual(
      expect.objectContaining({
        file: 2,
        status: 'refused',
        kind: 'Model',
        reason_code: 'contract_sql_unsupported',
        field: 'sql',
        // At the table function itself; named, its argument never shown.
        location: { path: 'p/models/facts.yaml', line: expect.any(Number), column: 20, pointer: 'sql' },
        hint: expect.stringMatching(/^the table function read_csv is not allowed \(SQL line 1, column 15\)/),
      }),
    );
    expect(scanForSentinels(run, [], ['SECRET_PATH_ZQ'])).toEqual([]);
  });

  it.each([
    ['a missing folder', (root: string) => join(root, 'nope'), 'contract_project_missing'],
    [
      'a file instead of a folder',
      (root: string) => {
        writeFileSync(join(root, 'f.yaml'), 'kind: Source\n');
        return join(root, 'f.yaml');
      },
      'contract_project_not_directory',
    ],
    [
      'a symlinked project',
      (root: string) => {
        copyExample(join(root, 'real'));
        symlinkSync(join(root, 'real'), join(root, 'link'));
        return join(root, 'link');
      },
      'contract_project_symlink',
    ],
    [
      'a symlink inside the project',
      (root: string) => {
        copyExample(join(root, 'p'));
        symlinkSync('/etc/hostname', join(root, 'p', 'sources', 'linked.yaml'));
        return join(root, 'p');
      },
      'contract_project_symlink',
    ],
    [
      'a project without resource files',
      (root: string) => {
        mkdirSync(join(root, 'empty'));
        writeFileSync(join(root, 'empty', 'README.md'), '# nothing\n');
        return join(root, 'empty');
      },
      'contract_project_empty',
    ],
    [
      'an oversized resource file',
      (root: string) => {
        mkdirSync(join(root, 'big'));
        writeFileSync(
          join(root, 'big', 'huge.yaml'),
          `kind: Source\ndescription: "${'x'.repeat(1024 * 1024)}"\n`,
        );
        return join(root, 'big');
      },
      'contract_file_too_large',
    ],
  ])('refuses %s, naming it as given', (_label, make, code) => {
    const target = make(dir);
    const run = runCli(['contract', 'validate', '--json', target]);
    expect(run.status).toBe(2);
    const out = json(run) as { status: string; reason_code: string; location?: { path?: string } };
    expect(out).toMatchObject({ status: 'refused', reason_code: code });
    // The folder, or the entry inside it, as the user would find it.
    expect(out.location?.path?.startsWith(target)).toBe(true);
  });

  it('regression: a resource file given as DIR says DIR is the project folder', () => {
    copyExample(join(dir, 'shop'));
    const run = runCli(['contract', 'validate', join('shop', 'sources', 'orders.yaml')], { cwd: dir });
    expect(run.status).toBe(2);
    expect(run.stderr.toString('utf8')).toBe(
      [
        'error[contract_project_not_directory]: the contract project path is not a directory',
        `  --> ${join('shop', 'sources', 'orders.yaml')}`,
        '  = help: this is a file: name the contract project folder instead, whose resource files are read together (references between them are checked as one graph)',
        '',
      ].join('\n'),
    );
  });

  it('regression: a link above the project folder is named in the hint, with what to do', () => {
    // The project holds no link; the folder above it is one. The refusal
    // said only that the project "contains" a link, and gave no hint.
    mkdirSync(join(dir, 'real'));
    copyExample(join(dir, 'real', 'retail'));
    symlinkSync(join(dir, 'real'), join(dir, 'up'));
    const absolute = join(dir, 'up', 'retail');
    const message =
      'error[contract_project_symlink]: the contract project, a folder on the way to it, or an entry in it is a symbolic link, which is not followed';
    for (const [shown, link, cwd] of [
      ['up/retail', 'up', dir],
      ['./up/retail/', './up', dir],
      [absolute, join(dir, 'up'), undefined],
    ] as const) {
      for (const command of [
        ['validate', shown],
        ['project', shown],
        ['publish', shown, '--dry-run'],
        ['history', shown, '--resource', 'retail.source.orders'],
      ]) {
        const run = runCli(['contract', ...command], cwd === undefined ? {} : { cwd });
        expect(run.status, command.join(' ')).toBe(2);
        expect(run.stderr.toString('utf8')).toBe(
          [
            message,
            `  --> ${shown}`,
            `  = help: '${link}' is a symbolic link, and sealkit follows none on the way to the project: name the project by a path without one, such as the one 'realpath ${shown}' prints`,
            '',
          ].join('\n'),
        );
      }
    }
    // The project folder itself a link: named the same way; one inside the project: put the entry there.
    symlinkSync(join(dir, 'real', 'retail'), join(dir, 'link'));
    const linked = json(runCli(['contract', 'validate', '--json', 'link'], { cwd: dir }));
    expect(linked).toMatchObject({
      reason_code: 'contract_project_symlink',
      location: { path: 'link' },
      hint: expect.stringMatching(/^'link' is a symbolic link, and sealkit follows none/),
    });
    symlinkSync('/etc/hostname', join(dir, 'real', 'retail', 'sources', 'linked.yaml'));
    const inside = json(runCli(['contract', 'validate', '--json', join('real', 'retail')], { cwd: dir }));
    expect(inside).toMatchObject({
      reason_code: 'contract_project_symlink',
      location: { path: join('real', 'retail', 'sources', 'linked.yaml') },
      hint: 'this entry is a symbolic link, which sealkit never follows: put the file or folder itself there',
    });
  });

  it('regression: a misspelt name key is the only error, not a reference error in another file first', () => {
    copyExample(join(dir, 'r2'));
    const orders = join(dir, 'r2', 'sources', 'orders.yaml');
    writeFileSync(orders, readFileSync(orders, 'utf8').replace(/^name: orders$/m, 'nme: orders'));
    const run = runCli(['contract', 'validate', 'r2'], { cwd: dir });
    expect(run.status).toBe(2);
    expect(run.stdout.toString('utf8')).toMatch(
      /^blocked {2}Model {10}r2\/models\/order_facts\.yaml {10}not checked: it refers to what r2\/sources\/orders\.yaml may declare, which is refused$/m,
    );
    expect(run.stderr.toString('utf8')).toBe(
      [
        'error[contract_field_unknown]: a resource has a field that its kind does not define',
        '  --> r2/sources/orders.yaml:4:1',
        '  = at: nme',
        "  = help: did you mean 'name'?",
        '',
      ].join('\n'),
    );
  });

  it('regression: a blocked file names the refused files that block it, directly or through a dependency', () => {
    // It said only "what a refused file may declare": with several refused
    // files the operator could not tell which one to fix first.
    copyExample(join(dir, 'r2'));
    const unname = (file: string, key: string) => {
      const path = join(dir, 'r2', file);
      writeFileSync(path, readFileSync(path, 'utf8').replace(new RegExp(`^${key}: `, 'm'), `n${key}: `));
    };
    unname('sources/orders.yaml', 'name');
    const one = runCli(['contract', 'validate', 'r2', '--json'], { cwd: dir });
    expect(one.status).toBe(2);
    const blocked = (run: typeof one) =>
      (
        JSON.parse(run.stdout.toString('utf8')) as {
          items: { path: string; status: string; blocked_by?: string[] }[];
        }
      ).items
        .filter((item) => item.status === 'blocked')
        .map((item) => [item.path, item.blocked_by]);
    // The dashboards use semantic models that are blocked themselves: the refused file is named, not those.
    expect(blocked(one)).toEqual([
      ['r2/dashboards/customer_health.yaml', ['r2/sources/orders.yaml']],
      ['r2/dashboards/sales_overview.yaml', ['r2/sources/orders.yaml']],
      ['r2/models/order_facts.yaml', ['r2/sources/orders.yaml']],
      ['r2/semantic/orders.yaml', ['r2/sources/orders.yaml']],
    ]);
    unname('semantic/customers.yaml', 'name');
    const two = runCli(['contract', 'validate', 'r2'], { cwd: dir });
    expect(two.status).toBe(2);
    expect(two.stdout.toString('utf8')).toMatch(
      /^blocked {2}Model {10}r2\/models\/order_facts\.yaml {10}not checked: it refers to what refused files may declare: r2\/semantic\/customers\.yaml, r2\/sources\/orders\.yaml$/m,
    );
  });

  it('regression: an unknown --resource is named, with how to list ids, after the ledger line', () => {
    // It printed only the fixed message: no id (with two --resource flags,
    // not which one), no place, no hint, and publish printed no `ledger:`
    // line, though DATABASE_URL may be left set in the shell.
    copyExample(join(dir, 'retail'));
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env.DATABASE_URL;
    delete env.SEALKIT_LEDGER_URL;
    const refusal = (hint: string) =>
      [
        'error[contract_resource_not_found]: the requested resource id is not declared by the project',
        '  --> retail',
        `  = help: ${hint}`,
        '',
      ].join('\n');
    const unknown = refusal(
      "no resource of the project has the id 'nope'; 'sealkit contract validate retail' lists the id of every resource",
    );
    const publish = [
      'contract',
      'publish',
      'retail',
      '--resource',
      'retail.source.orders',
      '--resource',
      'nope',
    ];
    const embedded = runCli([...publish, '--dry-run'], { cwd: dir, env });
    expect(embedded.status).toBe(2);
    expect(embedded.stdout.toString('utf8')).toBe('ledger: embedded, retail/.sealkit/ledger\n');
    expect(embedded.stderr.toString('utf8')).toBe(unknown);
    // A server named by DATABASE_URL is shown, and not connected to (nothing listens on port 1).
    const server = { ...env, DATABASE_URL: 'postgres://ci@127.0.0.1:1/contracts' };
    const viaVariable = runCli(publish, { cwd: dir, env: server });
    expect(viaVariable.status).toBe(2);
    expect(viaVariable.stdout.toString('utf8')).toBe(
      'ledger: postgres://ci@127.0.0.1:1/contracts (from DATABASE_URL)\n',
    );
    expect(viaVariable.stderr.toString('utf8')).toBe(unknown);
    expect(json(runCli([...publish, '--json'], { cwd: dir, env: server }))).toEqual({
      status: 'refused',
      reason_code: 'contract_resource_not_found',
      category: 'missing',
      message: 'the requested resource id is not declared by the project',
      role: 'project',
      location: { path: 'retail' },
      hint: "no resource of the project has the id 'nope'; 'sealkit contract validate retail' lists the id of every resource",
      ledger: 'postgres',
      ledger_at: 'postgres://ci@127.0.0.1:1/contracts (from DATABASE_URL)',
    });
    expect(existsSync(join(dir, 'retail', '.sealkit'))).toBe(false);
    // project and affected name the id the same way; a near miss keeps its "did you mean".
    for (const command of [
      ['project', 'retail', '--resource', 'zzz'],
      ['affected', 'retail', '--resource', 'zzz'],
    ]) {
      const run = runCli(['contract', ...command], { cwd: dir, env });
      expect(run.status).toBe(2);
      expect(run.stderr.toString('utf8')).toBe(
        refusal(
          "no resource of the project has the id 'zzz'; 'sealkit contract validate retail' lists the id of every resource",
        ),
      );
    }
    const near = runCli(['contract', 'project', 'retail', '--resource', 'retail.source.order'], {
      cwd: dir,
      env,
    });
    expect(near.stderr.toString('utf8')).toBe(
      refusal(
        "no resource of the project has the id 'retail.source.order'; did you mean 'retail.source.orders'?",
      ),
    );
  });

  it('refuses an unreadable resource file (run unprivileged, so the mode bits count)', () => {
    copyExample(join(dir, 'p'));
    chmodSync(join(dir, 'p', 'sources', 'orders.yaml'), 0o000);
    const run = runCli(['contract', 'validate', '--json', join(dir, 'p')]);
    expect(run.status).toBe(2);
    expect(json(run)).toMatchObject({ reason_code: 'contract_project_unreadable' });
  });

  it('regression: an unreadable project folder or subfolder is named as given, with what to check', () => {
    copyExample(join(dir, 'c4'));
    copyExample(join(dir, 'c5'));
    mkdirSync(join(dir, 'c5', 'sub'));
    chmodSync(join(dir, 'c4'), 0o000);
    chmodSync(join(dir, 'c5', 'sub'), 0o000);
    try {
      for (const [folder, shown] of [
        ['c4', 'c4'],
        ['c5', 'c5/sub'],
      ] as const) {
        const human = runCli(['contract', 'validate', folder], { cwd: dir });
        expect(human.status).toBe(2);
        expect(human.stderr.toString('utf8')).toBe(
          [
            'error[contract_project_unreadable]: the contract project folder or one of its files cannot be read',
            `  --> ${shown}`,
            '  = help: this account cannot open or list this folder (its permissions)',
            '',
          ].join('\n'),
        );
        const asJson = runCli(['contract', 'project', folder, '--json'], { cwd: dir });
        expect(json(asJson)).toMatchObject({
          reason_code: 'contract_project_unreadable',
          location: { path: shown },
          hint: 'this account cannot open or list this folder (its permissions)',
        });
      }
    } finally {
      chmodSync(join(dir, 'c4'), 0o755);
      chmodSync(join(dir, 'c5', 'sub'), 0o755);
    }
  });

  it('writes nothing and leaves no staging folder when the output parent is not writable', () => {
    copyExample(join(dir, 'p'));
    const locked = join(dir, 'locked');
    mkdirSync(locked, { mode: 0o555 });
    const run = runCli(['contract', 'project', join(dir, 'p'), '--out', join(locked, 'out'), '--json']);
    expect(run.status).toBe(2);
    expect(json(run)).toMatchObject({ reason_code: 'contract_out_failed' });
    expect(readdirSync(locked)).toEqual([]);
    chmodSync(locked, 0o755);
  });

  it('regression: an output folder that cannot be written is named as given, with the cause (project and schemas)', () => {
    copyExample(join(dir, 'p'));
    mkdirSync(join(dir, 'ro'), { mode: 0o555 });
    const runs = [
      runCli(['contract', 'project', 'p', '--out', 'ro/x'], { cwd: dir }),
      runCli(['contract', 'schemas', '--out', 'ro/x'], { cwd: dir }),
    ];
    for (const run of runs) {
      expect(run.status).toBe(2);
      expect(run.stderr.toString('utf8')).toBe(
        [
          'error[contract_out_failed]: the output folder could not be written; nothing was published',
          '  --> ro/x',
          '  = help: the folder that would hold the output folder is not writable by this account (EACCES)',
          '',
        ].join('\n'),
      );
    }
    const asJson = runCli(['contract', 'schemas', '--out', 'ro/x', '--json'], { cwd: dir });
    expect(json(asJson)).toMatchObject({
      reason_code: 'contract_out_failed',
      location: { path: 'ro/x' },
      hint: 'the folder that would hold the output folder is not writable by this account (EACCES)',
    });
    expect(readdirSync(join(dir, 'ro'))).toEqual([]);
    chmodSync(join(dir, 'ro'), 0o755);
  });

  it('regression: an empty list says it wants at least 1 item, in a sentence, not "1 items"', () => {
    writeProjectTree(join(dir, 'p'), {
      'sources/empty.yaml': [
        'kind: Source',
        'id: t.source.empty',
        'name: empty',
        'contract: { version: 1.0.0, compatibility: backward }',
        'fields: []',
        '',
      ].join('\n'),
    });
    const run = runCli(['contract', 'validate', 'p'], { cwd: dir });
    expect(run.status).toBe(2);
    expect(run.stderr.toString('utf8')).toBe(
      [
        'error[contract_field_invalid]: a resource field has a value of the wrong type or outside its allowed values',
        '  --> p/sources/empty.yaml:5:9',
        '  = at: fields',
        '  = help: expected a list of at least 1 item: it is empty',
        '',
      ].join('\n'),
    );
  });

  it('regression: contract project keeps its columns aligned after versions and compatibilities of other widths', () => {
    copyExample(join(dir, 'p'));
    const run = runCli(['contract', 'project', 'p'], { cwd: dir });
    expect(run.status).toBe(0);
    const lines = run.stdout.toString('utf8').trimEnd().split('\n');
    const projected = lines.filter((line) => line.includes('sha256:'));
    // The example has "full" and "backward": every digest starts in one column.
    expect(new Set(projected.map((line) => line.split(/ {2,}/)[3]))).toEqual(new Set(['backward', 'full']));
    expect(new Set(projected.map((line) => line.indexOf('sha256:'))).size).toBe(1);
    expect(lines.find((line) => line.includes('retail.semantic.customers'))).toMatch(
      /^SemanticModel {2}retail\.semantic\.customers {9}1\.2\.0 {2}full {6}sha256:[0-9a-f]{64}$/,
    );
    expect(lines.every((line) => line === line.trimEnd())).toBe(true);
  });

  it('skips dot folders such as .sealkit and .git', () => {
    copyExample(join(dir, 'p'));
    mkdirSync(join(dir, 'p', '.sealkit', 'ledger'), { recursive: true });
    writeFileSync(join(dir, 'p', '.sealkit', 'ledger', 'state.yaml'), 'not: a resource\n');
    expect(runCli(['contract', 'validate', join(dir, 'p')]).status).toBe(0);
  });

  it('suggests an id for a misspelt segment of --resource, never another id for an unrelated one', () => {
    copyExample(join(dir, 'p'));
    // The suggestion, after the id asked for (docs/contracts.md#commands-classification-ledger-graph).
    const hintOf = (resource: string) =>
      json(runCli(['contract', 'project', join(dir, 'p'), '--resource', resource, '--json'])).hint;
    const none = (resource: string) => `no resource of the project has the id '${resource}'; `;
    expect(hintOf('retail.sourc.orders')).toBe(
      `${none('retail.sourc.orders')}did you mean 'retail.source.orders'?`,
    );
    expect(hintOf('retail.semantic.custmers')).toBe(
      `${none('retail.semantic.custmers')}did you mean 'retail.semantic.customers'?`,
    );
    // regression: the shared 'retail.source.' made any source look one typo away.
    const list = `'sealkit contract validate ${join(dir, 'p')}' lists the id of every resource`;
    expect(hintOf('retail.source.payments')).toBe(`${none('retail.source.payments')}${list}`);
    expect(hintOf('retail.source')).toBe(`${none('retail.source')}${list}`);
  });

  it('refuses an unknown resource and a dashboard with --resource', () => {
    copyExample(join(dir, 'p'));
    const unknown = runCli(['contract', 'project', join(dir, 'p'), '--resource', 'retail.nope', '--json']);
    expect(unknown.status).toBe(2);
    expect(json(unknown)).toMatchObject({ reason_code: 'contract_resource_not_found' });
    const board = runCli([
      'contract',
      'project',
      join(dir, 'p'),
      '--resource',
      'retail.dashboard.sales_overview',
    ]);
    expect(board.status).toBe(2);
    expect(board.stderr.toString()).toContain('error[contract_resource_not_contract_bearing]');
  });

  it('lists unversioned resources without projecting them, and refuses them with --resource', () => {
    const project = join(dir, 'p');
    writeProjectTree(project, baseProject({ 'sources/orders.yaml': source({ contract: undefined }) }));
    const run = runCli(['contract', 'project', '--json', project]);
    expect(run.status).toBe(0);
    expect(json(run).resources as unknown[]).toContainEqual({
      file: 4,
      kind: 'Source',
      id: 't.source.orders',
      status: 'unversioned',
      version: null,
      compatibility: null,
      digest: null,
    });
    const one = runCli(['contract', 'project', project, '--resource', 't.source.orders']);
    expect(one.status).toBe(2);
    expect(one.stderr.toString()).toContain('error[contract_version_missing]');
  });

  it('writes the JSON Schemas, create-only', () => {
    const out = join(dir, 'schemas');
    const run = runCli(['contract', 'schemas', '--out', out]);
    expect(run.status).toBe(0);
    expect(readdirSync(out).sort()).toEqual([
      'dashboard.schema.json',
      'model.schema.json',
      'projection.schema.json',
      'resource.schema.json',
      'semantic-model.schema.json',
      'source.schema.json',
    ]);
    expect(runCli(['contract', 'schemas', '--out', out]).status).toBe(2);
  });

  it.each([
    ['contract project', ['contract', 'project', 'retail', '--out', '']],
    ['contract project', ['contract', 'project', 'retail', '--out=']],
    ['contract schemas', ['contract', 'schemas', '--out', '']],
  ])(
    'regression: %s --out with an empty value is a usage error naming the flag, nothing written',
    (_name, args) => {
      copyExample(join(dir, 'retail'));
      const before = readdirSync(dir).sort();
      const run = runCli(args, { cwd: dir });
      expect(run.status).toBe(1);
      expect(run.stderr.toString().split('\n')[0]).toMatch(
        /^sealkit: --out takes a value, not an empty string: --out [A-Z]+$/,
      );
      expect(run.stdout.toString()).toBe('');
      expect(readdirSync(dir).sort()).toEqual(before);
    },
  );

  it('treats bad arguments as usage errors (exit 1) and prints help', () => {
    for (const args of [
      ['contract', 'validate'],
      ['contract', 'validate', 'a', 'b'],
      ['contract', 'project', 'a', '--bogus'],
      ['contract', 'project', 'a', '--out'],
      ['contract', 'schemas'],
    ]) {
      expect(runCli(args).status).toBe(1);
    }
    const help = runCli(['contract', 'project', '--help']);
    expect(help.status).toBe(0);
    expect(help.stdout.toString()).toContain('Usage: sealkit contract project DIR');
  });
  it.each([
    [['validate', 'retial']],
    [['project', 'retial']],
    [['affected', 'retial', '--resource', 'retail.source.orders']],
    [['publish', 'retial', '--dry-run']],
    [['history', 'retial', '--resource', 'retail.source.orders']],
    [['replay', 'retial']],
  ])('contract %j on a misspelt project folder names the folder beside it, human and --json', (args) => {
    copyExample(join(dir, 'retail'));
    const human = runCli(['contract', ...args], { cwd: dir });
    expect(human.status).toBe(2);
    expect(human.stderr.toString('utf8')).toBe(
      [
        'error[contract_project_missing]: the contract project folder does not exist',
        '  --> retial',
        "  = help: did you mean 'retail'?",
        '',
      ].join('\n'),
    );
    const machine = runCli(['contract', ...args, '--json'], { cwd: dir });
    expect(machine.status).toBe(2);
    expect(json(machine)).toEqual({
      status: 'refused',
      reason_code: 'contract_project_missing',
      category: 'missing',
      message: 'the contract project folder does not exist',
      role: 'project',
      location: { path: 'retial' },
      hint: "did you mean 'retail'?",
    });
  });

  it.each([
    [['project', 'retail', '--out', 'reprots/projections']],
    [['schemas', '--out', 'reprots/projections']],
  ])('contract %j under a misspelt folder names the output path meant, and writes nothing', (args) => {
    copyExample(join(dir, 'retail'));
    mkdirSync(join(dir, 'reports'));
    const human = runCli(['contract', ...args], { cwd: dir });
    expect(human.status).toBe(2);
    expect(human.stderr.toString('utf8')).toBe(
      [
        'error[contract_out_parent_missing]: the parent folder of the output folder does not exist or is not a directory',
        '  --> reprots/projections',
        "  = help: did you mean 'reports/projections'?",
        '',
      ].join('\n'),
    );
    const machine = runCli(['contract', ...args, '--json'], { cwd: dir });
    expect(machine.status).toBe(2);
    expect(json(machine)).toMatchObject({
      reason_code: 'contract_out_parent_missing',
      location: { path: 'reprots/projections' },
      hint: "did you mean 'reports/projections'?",
    });
    expect(readdirSync(join(dir, 'reports'))).toEqual([]);
  });

  it('a misspelt project folder beside a server ledger keeps both pieces of advice', () => {
    copyExample(join(dir, 'retail'));
    // Nothing listens on port 9: the folder is refused before any connection.
    const run = runCli(['contract', 'replay', 'retial', '--ledger', 'postgresql://127.0.0.1:9/ledger'], {
      cwd: dir,
    });
    expect(run.status).toBe(2);
    expect(run.stderr.toString('utf8')).toContain(
      "  = help: the ledger is the server named by --ledger, which needs no DIR: leave DIR out, or name an existing contract project; did you mean 'retail'?\n",
    );
  });

  it("regression: reports a duplicate id in the same run as the other file's schema error", () => {
    const root = join(dir, 'b3');
    copyExample(root);
    const orders = readFileSync(join(root, 'sources', 'orders.yaml'), 'utf8');
    writeFileSync(join(root, 'sources', 'dup.yaml'), orders);
    writeFileSync(join(root, 'sources', 'orders.yaml'), orders.replace('nullable', 'nulable'));
    const run = runCli(['contract', 'validate', 'b3'], { cwd: dir });
    expect(run.status).toBe(2);
    const text = run.stdout.toString('utf8');
    expect(text).toMatch(/^refused +Source +b3\/sources\/dup\.yaml +contract_duplicate_id$/m);
    expect(text).toMatch(/^refused +Source +b3\/sources\/orders\.yaml +contract_duplicate_id and 1 more$/m);
    expect(text).not.toMatch(/^valid .*dup\.yaml/m);
    const stderr = run.stderr.toString('utf8');
    expect(stderr).toContain(
      'error[contract_duplicate_id]: two resources of the project declare the same id\n  --> b3/sources/orders.yaml:3:5\n  = at: id\n  = help: the same id is declared in b3/sources/dup.yaml\n',
    );
    expect(stderr).toContain(
      '  --> b3/sources/dup.yaml:3:5\n  = at: id\n  = help: the same id is declared in b3/sources/orders.yaml\n',
    );
    expect(stderr).toContain("  = at: fields[0].nulable\n  = help: did you mean 'nullable'?\n");
  });
  it('regression: an explicit tag is refused at the tag, not at the value after it', () => {
    const root = join(dir, 'b4');
    copyExample(root);
    const file = join(root, 'sources', 'orders.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace('\nkind: Source\n', '\nkind: !!str Source\n'));
    const run = runCli(['contract', 'validate', 'b4'], { cwd: dir });
    expect(run.status).toBe(2);
    expect(run.stderr.toString('utf8')).toBe(
      'error[contract_yaml_tag]: a resource file uses an explicit YAML tag, which is not accepted\n' +
        '  --> b4/sources/orders.yaml:2:7\n' +
        '  = at: kind\n',
    );
  });
});
