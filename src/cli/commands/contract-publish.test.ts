import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type CliRun, runCli } from '../../../test/helpers/cli.js';
import { scanForSentinels } from '../../../test/helpers/sentinels.js';
import { type PostgresServer, startPostgres } from '../../../test/services/postgres.js';
import { copyExample } from '../../contracts/fixtures/resources.js';
import { Dir, lockExclusiveNonBlocking } from '../../core/fs/index.js';

const ORDERS = 'retail.source.orders';
type Json = Record<string, unknown> & {
  plan?: {
    items: { status: string; reason_code?: string; resource: { id: string } | null; entry: Json | null }[];
  };
};

const jsonOf = (run: { stdout: Buffer }) => JSON.parse(run.stdout.toString('utf8')) as Json;

describe('sealkit contract publish, history and replay', () => {
  let dir: string;
  let template: string;
  let server: PostgresServer;
  let counter = 0;
  let project: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sealkit-cli-ledger-'));
    // PGlite's first start runs initdb (seconds); every test copies this initialized, empty cluster.
    template = join(dir, 'template');
    const db = await PGlite.create({ dataDir: template });
    await db.close();
    server = await startPostgres();
  });
  afterAll(() => {
    server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    counter += 1;
    project = join(dir, `retail-${counter}`);
    copyExample(project);
  });

  /** Gives the project an embedded ledger (an empty initialized cluster) without a cold start. */
  const withEmbeddedLedger = () => {
    mkdirSync(join(project, '.sealkit'), { mode: 0o700 });
    cpSync(template, join(project, '.sealkit', 'ledger'), { recursive: true });
  };
  const edit = (from: string, to: string, file = 'sources/orders.yaml') => {
    const path = join(project, file);
    writeFileSync(path, readFileSync(path, 'utf8').replace(from, to));
  };
  const widen = () => {
    edit('type: decimal(12,2)', 'type: decimal(14,2)');
    edit('version: 1.3.0', 'version: 1.4.0');
  };
  const database = async () => {
    const name = `cli_${process.pid}_${counter}`;
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const url = new URL(server.url);
    url.pathname = `/${name}`;
    return url.toString();
  };
  const publish = (...args: string[]) => runCli(['contract', 'publish', project, ...args]);
  const serverPort = () => new URL(server.url).port;
  const statuses = (run: { stdout: Buffer }) => jsonOf(run).plan?.items.map((item) => item.status);

  it('plans with --dry-run and creates nothing, not even the embedded ledger', () => {
    const run = publish('--dry-run', '--json');
    expect(run.status).toBe(0);
    expect(statuses(run)).toEqual(Array(6).fill('append'));
    expect(jsonOf(run)).toMatchObject({
      status: 'ok',
      dry_run: true,
      ledger: 'embedded',
      appended: 0,
      head: null,
    });
    expect(existsSync(join(project, '.sealkit'))).toBe(false);
  });

  it('refuses an invalid project before it creates the embedded ledger it started compiling', () => {
    // PGlite is compiled ahead while the project is read; the ledger itself waits for a valid project.
    edit('version: 1.3.0', 'version: [1.3.0');
    const run = publish('--json');
    expect(run.status).toBe(2);
    expect(jsonOf(run)).toMatchObject({ status: 'refused', reason_code: 'contract_project_invalid' });
    expect(existsSync(join(project, '.sealkit'))).toBe(false);
  });

  it('publishes the example to the embedded ledger, then re-publishing changes nothing', () => {
    withEmbeddedLedger();
    const first = publish('--json');
    expect(first.status).toBe(0);
    expect(jsonOf(first)).toMatchObject({ status: 'ok', appended: 6, head: { position: 6 } });
    const dryRun = publish('--dry-run');
    expect(dryRun.stdout.toString('utf8')).toMatch(
      /dry run: 0 to append, 6 unchanged; nothing was written\n$/,
    );
    // Which ledger was used is said first, in both forms.
    expect(dryRun.stdout.toString('utf8').split('\n')[0]).toBe(
      `ledger: embedded, ${join(project, '.sealkit', 'ledger')}`,
    );
    expect(jsonOf(first)).toMatchObject({ ledger_at: `embedded, ${join(project, '.sealkit', 'ledger')}` });
    const again = publish('--json');
    expect(statuses(again)).toEqual(Array(6).fill('unchanged'));
    expect(jsonOf(again)).toMatchObject({ appended: 0, head: { position: 6 } });
  });

  it('regression: publish, history and replay all take --project DIR as DIR, and refuse both', () => {
    withEmbeddedLedger();
    const ledgerAt = `ledger: embedded, ${join(project, '.sealkit', 'ledger')}`;
    const dryRun = runCli(['contract', 'publish', '--project', project, '--dry-run']);
    expect(dryRun.status).toBe(0);
    expect(dryRun.stdout.toString('utf8').split('\n')[0]).toBe(ledgerAt);
    const published = runCli(['contract', 'publish', '--project', project, '--json']);
    expect(published.status).toBe(0);
    expect(jsonOf(published)).toMatchObject({ status: 'ok', appended: 6, head: { position: 6 } });
    const history = runCli(['contract', 'history', '--project', project, '--resource', ORDERS]);
    expect(history.status).toBe(0);
    expect(history.stdout).toEqual(runCli(['contract', 'history', project, '--resource', ORDERS]).stdout);
    expect(history.stdout.toString('utf8')).toMatch(new RegExp(`^${ledgerAt}\n[^]*\n1 publication\n$`));
    const replay = runCli(['contract', 'replay', '--project', project]);
    expect(replay.status).toBe(0);
    expect(replay.stdout.toString('utf8')).toMatch(
      new RegExp(`^${ledgerAt}\nreplayed 6 entries of 6 resources: valid; `),
    );
    for (const command of [
      ['publish', '--dry-run'],
      ['history', '--resource', ORDERS],
      ['replay'],
    ] as const) {
      const twice = runCli(['contract', command[0], project, '--project', project, ...command.slice(1)]);
      expect(twice.status).toBe(1);
      expect(twice.stderr.toString('utf8').split('\n')[0]).toBe(
        'sealkit: DIR given twice (as DIR and as --project)',
      );
    }
  });

  it('prints each refused resource of the plan on stderr too, so >/dev/null never hides a refusal', () => {
    withEmbeddedLedger();
    expect(publish().status).toBe(0);
    widen();
    const refused = publish();
    expect(refused.status).toBe(2);
    const stdout = refused.stdout.toString('utf8');
    expect(stdout).toContain(
      'refused    Source         retail.source.orders       1.3.0 → 1.4.0  (contract_ledger_approval_required): ',
    );
    expect(stdout).toMatch(/refused: 1 of 6 resources; nothing was written\n$/);
    expect(refused.stderr.toString('utf8')).toBe(
      'error[contract_ledger_approval_required]: the change widens what readers may receive or who may see it and needs an explicit approval\n' +
        `  --> ${join(project, 'sources/orders.yaml')}:46:11\n` +
        '  = at: fields[4].type\n' +
        `  = help: approve it with --approve-widening ${ORDERS}@1.4.0 --approver NAME --reason TEXT\n`,
    );
    // With --json everything stays one object on stdout.
    const json = publish('--json');
    expect(json.status).toBe(2);
    expect(json.stderr.toString('utf8')).toBe('');
  });

  it('regression: an approval for a resource this run leaves unchanged is refused at its file, not ignored', () => {
    withEmbeddedLedger();
    expect(publish().status).toBe(0);
    // The version the approval names was never written (the file not saved, the version not bumped).
    const run = publish('--approve-widening', `${ORDERS}@1.4.0`, '--approver', 'A', '--reason', 'R');
    expect(run.status).toBe(2);
    expect(run.stdout.toString('utf8')).toMatch(/refused: 1 of 6 resources; nothing was written\n$/);
    expect(run.stderr.toString('utf8')).toBe(
      'error[contract_ledger_approval_unexpected]: a widening approval was given for a publication that does not widen anything\n' +
        `  --> ${join(project, 'sources/orders.yaml')}\n` +
        '  = field: approval\n' +
        `  = help: ${ORDERS} is unchanged at 1.3.0 (published at position 6), so this run publishes no 1.4.0: write version 1.4.0 and the change into its file and save it, or drop --approve-widening ${ORDERS}@1.4.0\n`,
    );
    const json = publish(
      '--approve-widening',
      `${ORDERS}@1.4.0`,
      '--approver',
      'A',
      '--reason',
      'R',
      '--json',
    );
    expect(jsonOf(json).plan?.items.find((item) => item.resource?.id === ORDERS)).toMatchObject({
      status: 'refused',
      reason_code: 'contract_ledger_approval_unexpected',
    });
  });

  it('regression: a refused plan in --json carries the first refusal at the top level, as every --json refusal does', () => {
    withEmbeddedLedger();
    expect(publish().status).toBe(0);
    widen();
    // Two refused items: the top level is the first of the plan (sorted by id), each item keeps its own.
    edit('version: 1.1.0', 'version: 1.0.9', 'models/order_facts.yaml');
    const run = publish('--json');
    expect(run.status).toBe(2);
    const json = jsonOf(run);
    expect(
      json.plan?.items.filter((item) => item.status === 'refused').map((item) => item.reason_code),
    ).toEqual(['contract_ledger_version_not_increasing', 'contract_ledger_approval_required']);
    expect(json).toMatchObject({
      status: 'refused',
      reason_code: 'contract_ledger_version_not_increasing',
      category: 'conflict',
      message: 'the candidate version is not higher than the version of its baseline',
      field: 'version',
      location: { path: join(project, 'models/order_facts.yaml'), pointer: 'contract.version' },
      hint: expect.stringContaining('1.0.9 is not above 1.1.0'),
    });
    expect(Object.keys(json).slice(0, 3)).toEqual(['status', 'reason_code', 'category']);
    expect(json).not.toHaveProperty('details');
    // A plan without a refusal has none.
    expect(
      jsonOf(publish('--dry-run', '--json', '--resource', 'retail.source.customers')),
    ).not.toHaveProperty('reason_code');
  });

  it('regression: a published resource the project no longer publishes is listed as absent, not passed over', () => {
    withEmbeddedLedger();
    const returns = join(project, 'sources', 'returns.yaml');
    writeFileSync(
      returns,
      'kind: Source\nid: retail.source.returns\nname: returns\ncontract: { version: 1.0.0, compatibility: backward }\nfields:\n  - { name: return_id, type: int64 }\n',
    );
    expect(publish().status).toBe(0);
    rmSync(returns);
    edit('contract:\n  version: 1.2.0\n  compatibility: full\n', '', 'semantic/customers.yaml');
    const run = publish();
    // Not a refusal: the ledger keeps both as they are, and the run says so.
    expect(run.status).toBe(0);
    expect(run.stderr.toString('utf8')).toBe('');
    const lines = run.stdout.toString('utf8').split('\n');
    expect(lines.slice(-4)).toEqual([
      `absent     SemanticModel  retail.semantic.customers  1.2.0  published at position 3; its file declares no contract version (${join(project, 'semantic/customers.yaml')}): not published by this run, the ledger keeps it`,
      'absent     Source         retail.source.returns      1.0.0  published at position 7; no file of the project has this id (deleted or renamed): not published by this run, the ledger keeps it',
      expect.stringMatching(/^appended 0, unchanged 5, absent 2; ledger head 7 sha256:/),
      '',
    ]);
    const json = jsonOf(publish('--dry-run', '--json'));
    expect(json).toMatchObject({ status: 'ok', plan: { appends: 0, unchanged: 5, absent: 2 } });
    expect(json.plan?.items.slice(-2)).toMatchObject([
      {
        status: 'absent',
        resource: { kind: 'SemanticModel', id: 'retail.semantic.customers' },
        version: '1.2.0',
        reason: 'unversioned',
        file: join(project, 'semantic/customers.yaml'),
        entry: { position: 3 },
      },
      {
        status: 'absent',
        resource: { kind: 'Source', id: 'retail.source.returns' },
        version: '1.0.0',
        reason: 'not_in_project',
        entry: { position: 7 },
      },
    ]);
    // A run of chosen resources publishes only those: the others are not its business.
    expect(jsonOf(publish('--dry-run', '--json', '--resource', ORDERS)).plan).toMatchObject({ absent: 0 });
    // The refused footer counts them too.
    widen();
    expect(publish().stdout.toString('utf8')).toMatch(
      /refused: 1 of 5 resources, 2 absent; nothing was written\n$/,
    );
  });

  it('regression: history says a project-local name is one, and shows headers and what each publication changed', () => {
    withEmbeddedLedger();
    expect(publish().status).toBe(0);
    edit('version: 1.3.0', 'version: 1.3.1');
    edit('fields:\n', 'fields:\n  - { name: channel, type: string }\n');
    const history = (...args: string[]) => runCli(['contract', 'history', project, ...args]);
    const byName = history('--resource', 'orders');
    expect(byName.status).toBe(0);
    expect(byName.stdout.toString('utf8')).toBe(
      `ledger: embedded, ${join(project, '.sealkit', 'ledger')}\n0 publications of 'orders' in this ledger\n`,
    );
    const hint = "'orders' is the name of retail.source.orders; --resource takes an id";
    expect(byName.stderr.toString('utf8')).toBe(`  = help: ${hint}\n`);
    expect(jsonOf(history('--resource', 'orders', '--json'))).toMatchObject({ publications: [], hint });
    // A name of no resource and no near id: the empty history alone, as before.
    expect(history('--resource', 'nothing_here').stderr.toString('utf8')).toBe('');

    expect(publish().status).toBe(0);
    const lines = history('--resource', ORDERS).stdout.toString('utf8').split('\n');
    expect(lines[1]).toBe('position  version    verdict     digest');
    expect(lines[2]).toMatch(/^ {7}6 {2}1\.3\.0 {6}genesis {5}sha256:[0-9a-f]{64}$/);
    expect(lines[3]).toMatch(/^ {7}7 {2}1\.3\.1 {6}compatible {2}sha256:[0-9a-f]{64}$/);
    // The changes that publication recorded, as the plan showed them.
    expect(lines.slice(4, -2).every((line) => line.startsWith(' '.repeat(10)))).toBe(true);
    expect(lines.slice(4, -2).join('\n')).toMatch(/compatible {2}field_added {6}content\.fields\[channel\]/);
    expect(lines.slice(4, -2).join('\n')).toContain('version_changed');
    expect(lines.at(-2)).toBe('2 publications');
  });

  it('refuses a widening without approval (exit 2, nothing written), then appends it approved', () => {
    withEmbeddedLedger();
    expect(publish().status).toBe(0);
    widen();
    const refused = publish('--json');
    expect(refused.status).toBe(2);
    const item = jsonOf(refused).plan?.items.find((candidate) => candidate.resource?.id === ORDERS);
    expect(item).toMatchObject({ status: 'refused', reason_code: 'contract_ledger_approval_required' });
    expect(jsonOf(refused)).toMatchObject({ status: 'refused', appended: 0, head: { position: 6 } });

    const approved = publish(
      '--approve-widening',
      `${ORDERS}@1.4.0`,
      '--approver',
      'Ada Steward',
      '--reason',
      'Wholesale amounts exceed 10^10.',
      '--approved-at',
      '2026-03-01T09:30:00Z',
    );
    expect(approved.status).toBe(0);
    const text = approved.stdout.toString('utf8');
    expect(text).toContain(
      'append     Source         retail.source.orders       1.3.0 → 1.4.0  widening  position 7',
    );
    expect(text).toContain('    approved by Ada Steward at 2026-03-01T09:30:00Z\n');

    const history = runCli(['contract', 'history', project, '--resource', ORDERS, '--json']);
    expect(history.status).toBe(0);
    const publications = (jsonOf(history) as { publications: Json[] }).publications;
    expect(publications.map((entry) => [entry.position, entry.version, entry.verdict])).toEqual([
      [6, '1.3.0', 'genesis'],
      [7, '1.4.0', 'widening'],
    ]);
    expect(publications[1]).toMatchObject({
      baseline: publications[0]?.digest,
      affected: { kind: 'Source', id: ORDERS },
      approval: {
        approves: `${ORDERS}@1.4.0`,
        approver: 'Ada Steward',
        approved_at: '2026-03-01T09:30:00Z',
        reason: 'Wholesale amounts exceed 10^10.',
      },
    });
    // Evidence holds the direct identity only, never the dashboards derived from the graph.
    expect(history.stdout.toString('utf8')).not.toContain('dashboard');

    // regression: a mistyped id is not silently an empty history.
    const mistyped = runCli(['contract', 'history', project, '--resource', 'retail.source.ordres']);
    expect(mistyped.status).toBe(0);
    expect(mistyped.stdout.toString('utf8')).toBe(
      `ledger: embedded, ${join(project, '.sealkit', 'ledger')}\n0 publications of 'retail.source.ordres' in this ledger\n`,
    );
    expect(mistyped.stderr.toString('utf8')).toBe("  = help: did you mean 'retail.source.orders'?\n");
    const mistypedJson = jsonOf(
      runCli(['contract', 'history', project, '--resource', 'retail.source.ordres', '--json']),
    );
    expect(mistypedJson).toEqual({
      status: 'ok',
      ledger: 'embedded',
      ledger_at: `embedded, ${join(project, '.sealkit', 'ledger')}`,
      resource: 'retail.source.ordres',
      publications: [],
      hint: "did you mean 'retail.source.orders'?",
    });

    // DIR as for every contract command; --project is the older spelling of the same.
    const replay = runCli(['contract', 'replay', project]);
    expect(replay.status).toBe(0);
    expect(replay.stdout.toString('utf8')).toMatch(
      /^ledger: embedded, \S+\/\.sealkit\/ledger\nreplayed 7 entries of 6 resources: valid; ledger head 7 sha256:[0-9a-f]{64}\n$/,
    );
    expect(runCli(['contract', 'replay', '--project', project]).stdout).toEqual(replay.stdout);
    const twice = runCli(['contract', 'replay', project, '--project', project]);
    expect(twice.status).toBe(1);
    expect(twice.stderr.toString('utf8')).toContain('DIR given twice');
  });

  it('takes one --approve-widening per resource, all in one publication', () => {
    const approve = [
      '--approver',
      'Ada Steward',
      '--reason',
      'Both widen.',
      '--approved-at',
      '2026-03-01T09:30:00Z',
    ];
    const twice = publish(
      '--approve-widening',
      `${ORDERS}@1.4.0`,
      '--approve-widening',
      `${ORDERS}@1.5.0`,
      ...approve,
    );
    expect(twice.status).toBe(1);
    expect(twice.stderr.toString('utf8')).toContain('names one resource twice');
    withEmbeddedLedger();
    expect(publish().status).toBe(0);
    widen();
    edit('classification: restricted', 'classification: confidential', 'sources/customers.yaml');
    edit('version: 2.0.1', 'version: 2.1.0', 'sources/customers.yaml');
    const both = publish(
      '--approve-widening',
      `${ORDERS}@1.4.0`,
      '--approve-widening',
      'retail.source.customers@2.1.0',
      ...approve,
      '--json',
    );
    expect(both.status).toBe(0);
    const appended = jsonOf(both).plan?.items.filter((item) => item.status === 'append');
    expect(
      appended?.map((item) => [item.resource?.id, (item.entry?.approval as Json | null)?.approves]),
    ).toEqual([
      ['retail.source.customers', 'retail.source.customers@2.1.0'],
      [ORDERS, `${ORDERS}@1.4.0`],
    ]);
  });

  it('refuses a breaking change without a major version, and a reused version', () => {
    withEmbeddedLedger();
    expect(publish().status).toBe(0);
    edit('type: decimal(12,2)', 'type: string');
    const breaking = publish('--resource', ORDERS, '--json');
    expect(breaking.status).toBe(2);
    // regression: the refusal pointed at the file only, not at the version to change.
    expect(jsonOf(breaking).plan?.items[0]).toMatchObject({
      reason_code: 'contract_ledger_version_reused',
      location: {
        path: join(project, 'sources', 'orders.yaml'),
        line: 8,
        column: 12,
        pointer: 'contract.version',
      },
      // regression: the hint asked for any version above 1.3.0, and 1.3.1 was then refused as breaking.
      hint: "1.3.0 is published with other content: the change is breaking: write version 2.0.0 or above (the ledger's newest is 1.3.0)",
      classification: { verdict: 'breaking' },
    });
    expect(publish('--resource', ORDERS).stderr.toString()).toContain(
      `--> ${join(project, 'sources', 'orders.yaml')}:8:12\n  = at: contract.version\n  = help: 1.3.0 is published with other content: the change is breaking: write version 2.0.0 or above (the ledger's newest is 1.3.0)\n`,
    );
    edit('version: 1.3.0', 'version: 1.4.0');
    const minor = publish('--resource', ORDERS, '--json');
    expect(jsonOf(minor).plan?.items[0]).toMatchObject({
      reason_code: 'contract_ledger_major_bump_required',
    });
    // The human form says which version would do.
    expect(publish('--resource', ORDERS).stderr.toString()).toContain(
      "= help: the change is breaking: write version 2.0.0 or above (the ledger's newest is 1.3.0)\n",
    );
    edit('version: 1.4.0', 'version: 2.0.0');
    const major = publish('--resource', ORDERS, '--json');
    expect(major.status).toBe(0);
    expect(jsonOf(major).plan?.items[0]?.entry).toMatchObject({ verdict: 'breaking', version: '2.0.0' });
  });

  it('regression: a reused version lists the changes, so a file nobody edited shows why it differs', () => {
    withEmbeddedLedger();
    expect(publish().status).toBe(0);
    // Only the model is edited: the semantic model bound to its amount changes with it.
    const model = 'models/order_facts.yaml';
    edit('type: decimal(12,2)', 'type: decimal(14,2)', model);
    edit('as decimal(12, 2)', 'as decimal(14, 2)', model);
    edit('version: 1.1.0', 'version: 2.0.0', model);
    const approve = [
      '--approve-widening',
      'retail.model.order_facts@2.0.0',
      '--approver',
      'Ada',
      '--reason',
      'wider',
    ];
    const run = publish(...approve);
    expect(run.status).toBe(2);
    expect(run.stdout.toString('utf8')).toContain(
      [
        'refused    SemanticModel  retail.semantic.orders     1.0.0 → 1.0.0  (contract_ledger_version_reused): this version of the resource is already published with different canonical bytes',
        '    widening  binding_type_widened  content.measures[average_order_value].binding.type',
        '    widening  binding_type_widened  content.measures[revenue].binding.type',
        '',
      ].join('\n'),
    );
    const hint =
      '1.0.0 is published with other content: write a version above 1.0.0, the newest in the ledger, e.g. 1.0.1; it also widens, so approve the version you write: --approve-widening retail.semantic.orders@1.0.1 --approver NAME --reason TEXT';
    expect(run.stderr.toString('utf8')).toContain(`  = help: ${hint}\n`);
    const item = jsonOf(publish(...approve, '--json')).plan?.items.find(
      (one) => one.resource?.id === 'retail.semantic.orders',
    ) as Json | undefined;
    expect(item).toMatchObject({
      reason_code: 'contract_ledger_version_reused',
      hint,
      classification: {
        verdict: 'widening',
        changes: [{ rule: 'binding_type_widened' }, { rule: 'binding_type_widened' }],
      },
    });
    // The next attempt, as the hint says it: appended.
    edit('version: 1.0.0', 'version: 1.0.1', 'semantic/orders.yaml');
    expect(
      publish(
        '--approve-widening',
        'retail.model.order_facts@2.0.0',
        '--approve-widening',
        'retail.semantic.orders@1.0.1',
        '--approver',
        'Ada',
        '--reason',
        'wider',
      ).status,
    ).toBe(0);
  });

  it('refuses malformed or misplaced approvals without printing them', () => {
    withEmbeddedLedger();
    expect(publish().status).toBe(0);
    widen();
    const approver = 'zq_sentinel_approver';
    const reason = 'zq_sentinel_reason';
    const sentinels = [approver, reason];
    const bad = publish(
      '--approve-widening',
      `${ORDERS}@1.4.0`,
      '--approver',
      approver,
      '--reason',
      reason,
      '--approved-at',
      'yesterday',
    );
    expect(bad.status).toBe(2);
    expect(bad.stderr.toString('utf8')).toContain('contract_ledger_approval_invalid');
    expect(scanForSentinels(bad, [], sentinels)).toEqual([]);
    const elsewhere = publish(
      '--resource',
      'retail.source.customers',
      '--approve-widening',
      `${ORDERS}@1.4.0`,
      '--approver',
      approver,
      '--reason',
      reason,
      '--json',
    );
    expect(elsewhere.status).toBe(2);
    // Regression: this said the publication "does not widen anything".
    expect(jsonOf(elsewhere)).toMatchObject({
      reason_code: 'contract_ledger_approval_target_unknown',
      location: { path: join(project, 'sources/orders.yaml'), pointer: 'id' },
      hint: `--resource leaves ${ORDERS} out of this run, which publishes only retail.source.customers: add --resource ${ORDERS} to publish it with this approval, or drop --approve-widening ${ORDERS}@1.4.0`,
    });
    const misspelt = publish(
      '--approve-widening',
      'retail.source.ordrs@1.4.0',
      '--approver',
      approver,
      '--reason',
      reason,
      '--json',
    );
    expect(misspelt.status).toBe(2);
    expect(jsonOf(misspelt)).toMatchObject({
      reason_code: 'contract_ledger_approval_target_unknown',
      hint: expect.stringContaining(`did you mean '${ORDERS}'?`),
    });
    expect(scanForSentinels(elsewhere, [], sentinels)).toEqual([]);
    const mismatched = publish(
      '--approve-widening',
      `${ORDERS}@1.5.0`,
      '--approver',
      'A',
      '--reason',
      'R',
      '--json',
    );
    expect(jsonOf(mismatched).plan?.items.find((item) => item.resource?.id === ORDERS)).toMatchObject({
      reason_code: 'contract_ledger_approval_mismatch',
      hint: `the approval names 1.5.0; approve ${ORDERS}@1.4.0, the version this run publishes: --approve-widening ${ORDERS}@1.4.0`,
    });
    expect(
      publish('--approve-widening', `${ORDERS}@1.5.0`, '--approver', 'A', '--reason', 'R').stderr.toString(),
    ).toContain(
      `  --> ${join(project, 'sources', 'orders.yaml')}:46:11\n  = at: fields[4].type\n  = help: the approval names 1.5.0; approve ${ORDERS}@1.4.0, the version this run publishes: --approve-widening ${ORDERS}@1.4.0\n`,
    );
    expect(publish('--approver', 'A').status).toBe(1);
    expect(publish('--approve-widening', `${ORDERS}@1.4.0`).status).toBe(1);
  });

  it('refuses to read or replay an embedded ledger that does not exist, and a busy one', () => {
    const history = runCli(['contract', 'history', project, '--resource', ORDERS]);
    expect(history.status).toBe(2);
    expect(history.stderr.toString('utf8')).toContain('contract_ledger_missing');
    expect(runCli(['contract', 'replay', project, '--json']).status).toBe(2);
    expect(existsSync(join(project, '.sealkit'))).toBe(false);

    withEmbeddedLedger();
    const held = lockExclusiveNonBlocking(Dir.open(join(project, '.sealkit')), 'ledger.lock');
    if (held.kind !== 'acquired') throw new Error('the test could not take the lock');
    try {
      const busy = publish('--json');
      expect(busy.status).toBe(2);
      expect(jsonOf(busy)).toMatchObject({ reason_code: 'contract_ledger_busy' });
    } finally {
      held.lock.release();
    }
  });

  it('names a wrong project folder, and a project where the ledger cannot be created, by path (regression: all were ledger_unavailable)', () => {
    const said = (run: CliRun) => run.stderr.toString('utf8');
    const missing = join(dir, 'no-such-project');
    for (const args of [
      ['history', missing, '--resource', ORDERS],
      ['replay', missing],
    ]) {
      const run = runCli(['contract', ...args]);
      expect(run.status).toBe(2);
      expect(said(run)).toContain(`error[contract_project_missing]`);
      expect(said(run)).toContain(`--> ${missing}`);
    }
    const file = join(project, 'sources', 'orders.yaml');
    const notFolder = runCli(['contract', 'history', file, '--resource', ORDERS]);
    expect(said(notFolder)).toContain('error[contract_project_not_directory]');
    expect(said(notFolder)).toContain(`--> ${file}`);

    // A project this account may read but not write: the ledger's folder cannot be created.
    chmodSync(project, 0o555);
    try {
      const readOnly = publish();
      expect(readOnly.status).toBe(2);
      expect(said(readOnly)).toContain('error[contract_ledger_unavailable]');
      expect(said(readOnly)).toContain(`--> ${join(project, '.sealkit', 'ledger')}`);
      expect(said(readOnly)).toContain(
        `= help: this account cannot create ${join(project, '.sealkit')}: the folder that would hold it is not writable by this account (EACCES)`,
      );
      expect(existsSync(join(project, '.sealkit'))).toBe(false);
    } finally {
      chmodSync(project, 0o755);
    }
  });

  it('publishes to PostgreSQL with --ledger and never prints the URL or its password', async () => {
    const url = new URL(await database());
    url.password = 'zqSentinelPassword';
    const ledger = url.toString();
    const first = publish('--ledger', ledger, '--json');
    expect(first.status).toBe(0);
    expect(jsonOf(first)).toMatchObject({ ledger: 'postgres', appended: 6 });
    const history = runCli(['contract', 'history', '--resource', ORDERS, '--ledger', ledger]);
    expect(history.stdout.toString('utf8')).toMatch(
      /^ledger: postgres:\/\/postgres@127\.0\.0\.1:\d+\/\w+ \(from --ledger\)\nposition {2}version {4}verdict {5}digest\n {7}6 {2}1\.3\.0 {6}genesis {5}sha256:[0-9a-f]{64}\n1 publication\n$/,
    );
    // The same ledger named by the environment: SEALKIT_LEDGER_URL, DATABASE_URL with the
    // postgresql:// scheme, and a URL that leaves host, port and user to libpq's PG* variables.
    const env = (extra: Record<string, string>) => {
      const base = { ...process.env };
      delete base.SEALKIT_LEDGER_URL;
      delete base.DATABASE_URL;
      return { env: { ...base, ...extra } };
    };
    const viaSealkit = runCli(
      ['contract', 'history', '--resource', ORDERS, '--json'],
      env({ SEALKIT_LEDGER_URL: ledger }),
    );
    const scheme = new URL(ledger);
    const viaDatabase = runCli(
      ['contract', 'replay', '--json'],
      env({ DATABASE_URL: ledger.replace(/^postgres:/, 'postgresql:') }),
    );
    const viaPg = runCli(
      ['contract', 'publish', project, '--json'],
      env({
        SEALKIT_LEDGER_URL: `postgresql://${scheme.pathname}`,
        PGHOST: scheme.hostname,
        PGPORT: scheme.port,
        PGUSER: 'postgres',
        PGPASSWORD: 'zqSentinelPassword',
      }),
    );
    expect(viaSealkit.status).toBe(0);
    expect((jsonOf(viaSealkit) as { publications: Json[] }).publications).toHaveLength(1);
    expect(viaDatabase.status).toBe(0);
    expect(jsonOf(viaDatabase)).toMatchObject({ entries: 6 });
    expect(viaPg.status).toBe(0);
    expect(jsonOf(viaPg)).toMatchObject({ ledger: 'postgres', appended: 0 });
    // The server a publication wrote to is named, as the connection resolved it, with what named it.
    const server = `postgres://postgres@${scheme.hostname}:${scheme.port}${scheme.pathname}`;
    expect(jsonOf(first)).toMatchObject({ ledger_at: `${server} (from --ledger)` });
    expect(jsonOf(viaPg)).toMatchObject({ ledger_at: `${server} (from SEALKIT_LEDGER_URL)` });
    const viaDatabaseUrl = runCli(['contract', 'publish', project], env({ DATABASE_URL: ledger }));
    expect(viaDatabaseUrl.stdout.toString('utf8').split('\n')[0]).toBe(
      `ledger: ${server} (from DATABASE_URL)`,
    );
    for (const run of [first, history, viaSealkit, viaDatabase, viaPg, viaDatabaseUrl])
      expect(scanForSentinels(run, [project], ['zqSentinelPassword'])).toEqual([]);

    const unreachable = new URL(ledger);
    unreachable.port = '1';
    const down = runCli(['contract', 'replay', '--ledger', unreachable.toString()]);
    expect(down.status).toBe(2);
    expect(down.stderr.toString('utf8')).toContain('contract_ledger_unavailable');
    const invalid = runCli([
      'contract',
      'replay',
      '--ledger',
      'mysql://root:zqSentinelPassword@db.example/x',
    ]);
    expect(invalid.status).toBe(2);
    expect(invalid.stderr.toString('utf8')).toContain('contract_ledger_location_invalid');
    for (const run of [down, invalid])
      expect(scanForSentinels(run, [], ['zqSentinelPassword', 'db.example'])).toEqual([]);
  });

  it('reads sslmode and socket URLs as libpq does, on a real server without TLS (regression: prefer refused, socket URL invalid)', async () => {
    const ledger = await database();
    expect(publish('--ledger', ledger).status).toBe(0);
    const clean = { ...process.env };
    delete clean.SEALKIT_LEDGER_URL;
    delete clean.DATABASE_URL;
    delete clean.PGSSLMODE;
    const replay = (url: string, extra: Record<string, string> = {}) =>
      runCli(['contract', 'replay', '--ledger', url, '--json'], { env: { ...clean, ...extra } });
    // prefer falls back to a plain connection when the server has no TLS; allow starts plain.
    for (const run of [
      replay(ledger, { PGSSLMODE: 'prefer' }),
      replay(`${ledger}?sslmode=prefer`),
      replay(ledger, { PGSSLMODE: 'allow' }),
    ]) {
      expect({ status: run.status, stderr: run.stderr.toString('utf8') }).toEqual({ status: 0, stderr: '' });
      expect(jsonOf(run)).toMatchObject({ entries: 6 });
    }
    // require insists on TLS, as libpq does: this server has none.
    const required = replay(ledger, { PGSSLMODE: 'require' });
    const printed = (run: CliRun) => `${run.stdout.toString('utf8')}${run.stderr.toString('utf8')}`;
    expect(required.status).toBe(2);
    expect(printed(required)).toContain('contract_ledger_unavailable');
    expect(printed(required)).not.toContain('SECURITY WARNING');
    // A user and a socket folder, no host: libpq's form for a local server.
    const name = new URL(ledger).pathname;
    const socket = replay(`postgres://postgres@${name}?host=${server.socketDir}&port=${server.port}`);
    expect(socket.status).toBe(0);
    expect(jsonOf(socket)).toMatchObject({ entries: 6 });
    // A URL of the right scheme that cannot be read says what to check, without quoting it.
    const badPort = replay('postgres://ci:zqSentinelPassword@127.0.0.1:notaport/x');
    expect(badPort.status).toBe(2);
    const said = printed(badPort);
    expect(said).toContain('contract_ledger_location_invalid');
    expect(said).toContain('check its port');
    expect(scanForSentinels(badPort, [], ['zqSentinelPassword'])).toEqual([]);
  });

  it('regression: says which connection problem it met, and never echoes a ledger URL given as an argument', async () => {
    const ledger = await database();
    expect(publish('--ledger', ledger).status).toBe(0);
    const printed = (run: CliRun) => `${run.stdout.toString('utf8')}${run.stderr.toString('utf8')}`;
    const replay = (url: string) => runCli(['contract', 'replay', '--ledger', url]);
    const withPassword = (url: string) => {
      const parsed = new URL(url);
      parsed.password = 'zqSentinelPassword';
      return parsed;
    };
    // A database that does not exist, and a port nothing listens on: each says so.
    const missing = withPassword(ledger);
    missing.pathname = '/zq_no_such_database';
    const noDatabase = replay(missing.toString());
    expect(noDatabase.status).toBe(2);
    expect(printed(noDatabase)).toContain('contract_ledger_unavailable');
    expect(printed(noDatabase)).toContain('the database does not exist on that server (SQLSTATE 3D000)');
    const closed = withPassword(ledger);
    closed.port = '1';
    const refused = replay(closed.toString());
    expect(printed(refused)).toContain('nothing listens at that host and port (connection refused)');
    // A broken escape and an unknown sslmode are the URL's own problems.
    const brokenEscape = replay(
      `${withPassword(ledger).toString().replace('zqSentinelPassword', 'zqSentinelPassword%ZZ')}`,
    );
    expect(brokenEscape.status).toBe(2);
    expect(printed(brokenEscape)).toContain('contract_ledger_location_invalid');
    expect(printed(brokenEscape)).toContain("a '%' in the URL must start an escape of two hex digits");
    const mode = replay(`${withPassword(ledger).toString()}?sslmode=bogus`);
    expect(printed(mode)).toContain('contract_ledger_location_invalid');
    expect(printed(mode)).toContain('sslmode (in the URL or PGSSLMODE) takes disable, allow, prefer');
    // A role that may log in but holds no privilege on the ledger.
    const role = `zq_reader_${process.pid}_${counter}`;
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    await admin.query(`CREATE ROLE ${role} LOGIN`);
    await admin.end();
    const reader = withPassword(ledger);
    reader.username = role;
    const denied = runCli(['contract', 'replay', '--ledger', reader.toString(), '--json']);
    expect(denied.status).toBe(2);
    expect(jsonOf(denied)).toMatchObject({
      reason_code: 'contract_ledger_failed',
      hint: expect.stringContaining('this role lacks a privilege on the ledger (SQLSTATE 42501)'),
    });
    // The URL given where a path goes: a usage error that never repeats it, naming --ledger
    // where a ledger is what the command reads (history, replay, publish).
    const asArgument = withPassword(ledger).toString();
    const slips = [
      runCli(['contract', 'replay', asArgument]),
      runCli(['contract', 'history', asArgument, '--resource', ORDERS, '--json']),
      runCli(['contract', 'publish', project, asArgument]),
      runCli(['contract', 'validate', asArgument, '--json']),
      runCli(['contract', 'classify', asArgument, asArgument]),
    ];
    for (const slip of slips.slice(0, 3)) {
      expect(slip.status).toBe(1);
      expect(printed(slip)).toContain('a ledger is named with --ledger URL');
    }
    for (const slip of slips.slice(3)) {
      expect(slip.status).toBe(1);
      expect(printed(slip)).toContain('a PostgreSQL URL was given as an argument');
    }
    for (const run of [noDatabase, refused, brokenEscape, mode, denied, ...slips])
      expect(scanForSentinels(run, [], ['zqSentinelPassword'])).toEqual([]);
  });

  it("regression: a user the server does not let in is told to check the user and the server's pg_hba.conf", async () => {
    const ledger = new URL(await database());
    ledger.username = `zq_nobody_${process.pid}_${counter}`;
    const run = runCli(['contract', 'replay', '--ledger', ledger.toString(), '--json']);
    expect(run.status).toBe(2);
    expect(jsonOf(run)).toMatchObject({
      reason_code: 'contract_ledger_unavailable',
      hint: "the server does not let this user in from here (SQLSTATE 28000): check the user, and the server's pg_hba.conf",
    });
  });

  it('regression: history and replay name the ledger they read; a DIR beside a server is said to be unused, a missing one refused', async () => {
    const ledger = await database();
    expect(publish('--ledger', ledger).status).toBe(0);
    withEmbeddedLedger();
    edit('version: 1.3.0', 'version: 1.3.1');
    expect(publish().status).toBe(0);
    const env = { ...process.env };
    delete env.SEALKIT_LEDGER_URL;
    const server = `postgres://postgres@127.0.0.1:${serverPort()}/${new URL(ledger).pathname.slice(1)}`;
    // DATABASE_URL left set in the shell: the server is read, and the output says so.
    const viaVariable = runCli(['contract', 'replay', project], { env: { ...env, DATABASE_URL: ledger } });
    expect(viaVariable.status).toBe(0);
    expect(viaVariable.stdout.toString('utf8').split('\n')[0]).toBe(
      `ledger: ${server} (from DATABASE_URL); the embedded ledger of ${project} is not read`,
    );
    const json = jsonOf(
      runCli(['contract', 'replay', project, '--json'], { env: { ...env, DATABASE_URL: ledger } }),
    );
    expect(json).toMatchObject({
      ledger: 'postgres',
      ledger_at: `${server} (from DATABASE_URL)`,
      dir_not_used: project,
      entries: 6,
    });
    delete env.DATABASE_URL;
    const embedded = jsonOf(
      runCli(['contract', 'history', project, '--resource', ORDERS, '--json'], { env }),
    );
    expect(embedded).toMatchObject({
      ledger: 'embedded',
      ledger_at: `embedded, ${join(project, '.sealkit', 'ledger')}`,
    });
    expect(embedded).not.toHaveProperty('dir_not_used');
    // A DIR that does not exist is refused even when the server needs none.
    const missing = join(dir, 'no-such-project');
    const absent = runCli(['contract', 'replay', missing, '--ledger', ledger], { env });
    expect(absent.status).toBe(2);
    expect(absent.stderr.toString('utf8')).toBe(
      [
        'error[contract_project_missing]: the contract project folder does not exist',
        `  --> ${missing}`,
        '  = help: the ledger is the server named by --ledger, which needs no DIR: leave DIR out, or name an existing contract project',
        '',
      ].join('\n'),
    );
    const noDir = runCli(['contract', 'replay', '--ledger', ledger], { env });
    expect(noDir.stdout.toString('utf8').split('\n')[0]).toBe(`ledger: ${server} (from --ledger)`);
  });

  it('regression: a first publication by the publisher role names the server and who must create the ledger', async () => {
    const ledger = await database();
    const role = `zq_ci_${process.pid}_${counter}`;
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    await admin.query(
      "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'sealkit_ledger_publisher') THEN CREATE ROLE sealkit_ledger_publisher; END IF; END $$",
    );
    await admin.query(`CREATE ROLE ${role} LOGIN IN ROLE sealkit_ledger_publisher`);
    await admin.end();
    const asPublisher = new URL(ledger);
    asPublisher.username = role;
    const first = publish('--ledger', asPublisher.toString());
    expect(first.status).toBe(2);
    const shown = `postgres://${role}@127.0.0.1:${serverPort()}${asPublisher.pathname} (from --ledger)`;
    expect(first.stdout.toString('utf8')).toBe(`ledger: ${shown}\n`);
    expect(first.stderr.toString('utf8')).toBe(
      [
        'error[contract_ledger_missing]: the ledger does not exist yet: nothing was ever published there',
        `  --> ${shown}`,
        '  = help: this role may not create schema sealkit_ledger in this database (no CREATE privilege on the database): run the first publication as a role that may (the database owner, say); later ones can run as a member of sealkit_ledger_publisher',
        '',
      ].join('\n'),
    );
    expect(jsonOf(publish('--ledger', asPublisher.toString(), '--json'))).toMatchObject({
      reason_code: 'contract_ledger_missing',
      location: { path: shown },
      ledger_at: shown,
    });
    // The documented order: the owner publishes first, then the publisher role appends.
    expect(publish('--ledger', ledger, '-q').status).toBe(0);
    edit('version: 1.3.0', 'version: 1.3.1');
    expect(publish('--ledger', asPublisher.toString(), '-q').status).toBe(0);
  });

  it('replay reports the position of an entry a superuser tampered with', async () => {
    const ledger = await database();
    expect(publish('--ledger', ledger).status).toBe(0);
    widen();
    expect(
      publish('--ledger', ledger, '--approve-widening', `${ORDERS}@1.4.0`, '--approver', 'A', '--reason', 'R')
        .status,
    ).toBe(0);
    const client = new pg.Client({ connectionString: ledger });
    await client.connect();
    try {
      await client.query('SET session_replication_role = replica');
      await client.query(`UPDATE sealkit_ledger.publications SET approval = NULL WHERE position = 7`);
    } finally {
      await client.end();
    }
    const human = runCli(['contract', 'replay', '--ledger', ledger]);
    expect(human.status).toBe(2);
    const server = /^ledger: (postgres:\/\/postgres@127\.0\.0\.1:\d+\/\w+ \(from --ledger\))\n$/.exec(
      human.stdout.toString('utf8'),
    )?.[1];
    expect(server).toBeDefined();
    expect(human.stderr.toString('utf8')).toBe(
      `ledger position 7: entry_hash does not re-validate\nerror[contract_ledger_tampered]: the publication ledger does not re-validate: stored evidence was changed, removed or inserted\n  --> ${server}\n  = field: entry_hash\n`,
    );
    const json = runCli(['contract', 'replay', '--ledger', ledger, '--json']);
    expect(jsonOf(json)).toMatchObject({
      status: 'refused',
      reason_code: 'contract_ledger_tampered',
      position: 7,
      field: 'entry_hash',
    });
    // The position stays beside the field, in the order --json has always printed.
    expect(Object.keys(jsonOf(json))).toEqual([
      'status',
      'reason_code',
      'category',
      'message',
      'role',
      'field',
      'position',
      'location',
      'ledger',
      'ledger_at',
    ]);
    expect(jsonOf(json)).toMatchObject({ location: { path: server }, ledger: 'postgres', ledger_at: server });
    const history = runCli(['contract', 'history', '--resource', ORDERS, '--ledger', ledger, '--json']);
    expect(jsonOf(history)).toMatchObject({ reason_code: 'contract_ledger_tampered', position: 7 });
    const publishAgain = publish('--ledger', ledger, '--json');
    expect(jsonOf(publishAgain)).toMatchObject({ reason_code: 'contract_ledger_tampered', position: 7 });
  });

  describe('a resource whose entries a superuser deleted is refused by publish and history, not only replay', () => {
    const CUSTOMERS = 'retail.semantic.customers';
    const deleteCustomers = async (session: { query(text: string): Promise<unknown> }) => {
      await session.query('BEGIN');
      await session.query('SET LOCAL session_replication_role = replica');
      await session.query(`DELETE FROM sealkit_ledger.publications WHERE resource_id = '${CUSTOMERS}'`);
      await session.query('COMMIT');
    };
    const expectRefusedAtThree = (args: readonly string[]) => {
      edit('version: 1.2.0', 'version: 0.0.1', 'semantic/customers.yaml');
      const again = publish('--resource', CUSTOMERS, ...args);
      expect(again.status).toBe(2);
      const at = /^ledger: (?:embedded, )?(.*?)\n/.exec(again.stdout.toString('utf8'))?.[1];
      expect(at).toEqual(
        args.length === 0 ? join(project, '.sealkit', 'ledger') : expect.stringMatching(/^postgres:/),
      );
      expect(again.stderr.toString('utf8')).toBe(
        `ledger position 3: position does not re-validate\nerror[contract_ledger_tampered]: the publication ledger does not re-validate: stored evidence was changed, removed or inserted\n  --> ${at}\n  = field: position\n`,
      );
      const history = runCli(['contract', 'history', project, '--resource', CUSTOMERS, ...args, '--json']);
      expect(history.status).toBe(2);
      expect(jsonOf(history)).toMatchObject({ reason_code: 'contract_ledger_tampered', position: 3 });
      const replay = runCli(['contract', 'replay', '--project', project, ...args, '--json']);
      expect(jsonOf(replay)).toMatchObject({ reason_code: 'contract_ledger_tampered', position: 3 });
    };

    it('on the embedded ledger', async () => {
      withEmbeddedLedger();
      const first = publish('--json');
      expect(jsonOf(first).plan?.items[2]?.resource?.id).toBe(CUSTOMERS);
      const db = await PGlite.create({ dataDir: join(project, '.sealkit', 'ledger') });
      try {
        await deleteCustomers(db);
      } finally {
        await db.close();
      }
      expectRefusedAtThree([]);
    });

    it('on PostgreSQL 15', async () => {
      const ledger = await database();
      expect(publish('--ledger', ledger).status).toBe(0);
      const client = new pg.Client({ connectionString: ledger });
      await client.connect();
      try {
        await deleteCustomers(client);
      } finally {
        await client.end();
      }
      expectRefusedAtThree(['--ledger', ledger]);
    });
  });
});
