import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../test/helpers/cli.js';
import { startPostgres } from '../../../test/services/postgres.js';
import { copyExample } from '../fixtures/resources.js';

/**
 * What `contract publish` is asked for, told against the project's files
 * and its ledger: a --resource whose file left the project, and an approval
 * for a resource the run does not publish. Real projects in a temporary
 * folder, named relatively (`retail`, `r3`) as a user types them, run by
 * the built CLI.
 */

const work = mkdtempSync(join(tmpdir(), 'sealkit-contract-requested-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const env = { ...process.env };
delete env.SEALKIT_LEDGER_URL;
delete env.DATABASE_URL;

const sealkit = (...args: string[]) => runCli(['contract', ...args], { cwd: work, env });
/** The flags of an approval of a widening of `target` (`id@version`), by Ada. */
const approving = (target: string): string[] => [
  '--approve-widening',
  target,
  '--approver',
  'Ada',
  '--reason',
  'x',
];
const text = (buffer: Buffer) => buffer.toString('utf8');
const jsonOf = (run: { stdout: Buffer }) => JSON.parse(text(run.stdout)) as Record<string, unknown>;

describe('contract publish --resource: an id whose file left the project', () => {
  beforeAll(() => {
    copyExample(join(work, 'retail'));
    expect(sealkit('publish', 'retail').status).toBe(0);
    // The published project, its semantic model's file deleted (and the dashboards that read it).
    cpSync(join(work, 'retail'), join(work, 'r3'), { recursive: true });
    rmSync(join(work, 'r3', 'semantic', 'orders.yaml'));
    rmSync(join(work, 'r3', 'dashboards'), { recursive: true });
  });

  it('regression: --resource of an id the ledger holds but no file declares says the ledger holds it', () => {
    // A whole run lists it as absent, at its latest entry ...
    const whole = sealkit('publish', 'r3');
    expect(whole.status).toBe(0);
    expect(text(whole.stdout)).toContain(
      'absent     SemanticModel  retail.semantic.orders     1.0.0  published at position 4; no file of the project has this id (deleted or renamed)',
    );
    // ... and asking for it by --resource says the same, with what to do.
    const hint =
      'the ledger holds retail.semantic.orders (SemanticModel 1.0.0, published at position 4), but no file of the project has this id (deleted or renamed): restore its file to publish it again (a change needs a version above 1.0.0); otherwise there is nothing to publish, and the ledger keeps it as it is';
    const run = sealkit('publish', 'r3', '--resource', 'retail.semantic.orders');
    expect(run.status).toBe(2);
    expect(text(run.stdout)).toBe('ledger: embedded, r3/.sealkit/ledger\n');
    expect(text(run.stderr)).toBe(
      [
        'error[contract_resource_not_found]: the requested resource id is not declared by the project',
        '  --> r3',
        `  = help: ${hint}`,
        '',
      ].join('\n'),
    );
    const json = sealkit('publish', 'r3', '--resource', 'retail.semantic.orders', '--json');
    expect(json.status).toBe(2);
    expect(jsonOf(json)).toEqual({
      status: 'refused',
      reason_code: 'contract_resource_not_found',
      category: 'missing',
      message: 'the requested resource id is not declared by the project',
      role: 'project',
      location: { path: 'r3' },
      hint,
      ledger: 'embedded',
      ledger_at: 'embedded, r3/.sealkit/ledger',
    });
    // An id the ledger does not hold keeps the project's own hint, its near id included.
    expect(text(sealkit('publish', 'r3', '--resource', 'retail.source.ordrs').stderr)).toContain(
      "= help: no resource of the project has the id 'retail.source.ordrs'; did you mean 'retail.source.orders'?",
    );
  });

  it('regression: --resource of an id a PostgreSQL ledger holds but no file declares says the server holds it', async () => {
    const server = await startPostgres();
    try {
      copyExample(join(work, 'served'));
      const publish = (...args: string[]) => sealkit('publish', 'served', '--ledger', server.url, ...args);
      expect(publish().status).toBe(0);
      rmSync(join(work, 'served', 'semantic', 'orders.yaml'));
      rmSync(join(work, 'served', 'dashboards'), { recursive: true });
      const run = publish('--resource', 'retail.semantic.orders', '--json');
      expect(run.status).toBe(2);
      expect(jsonOf(run)).toMatchObject({
        reason_code: 'contract_resource_not_found',
        location: { path: 'served' },
        hint: expect.stringMatching(
          /^the ledger holds retail\.semantic\.orders \(SemanticModel 1\.0\.0, published at position 4\), but no file of the project has this id/,
        ),
      });
      // Nothing was created beside the project: the server is the ledger.
      expect(existsSync(join(work, 'served', '.sealkit', 'ledger'))).toBe(false);
    } finally {
      server.stop();
    }
  });

  it('regression: an approval for an id the ledger holds but no file declares says the ledger holds it', () => {
    const hint =
      'the ledger holds retail.semantic.orders (SemanticModel 1.0.0, published at position 4), but no file of the project has this id (deleted or renamed), so this run publishes none: restore its file with a version above 1.0.0 to publish it with an approval, or drop --approve-widening retail.semantic.orders@1.0.1';
    const approve = (...flags: string[]) =>
      sealkit('publish', 'r3', ...flags, ...approving('retail.semantic.orders@1.0.1'));
    const head = text(sealkit('replay', 'r3').stdout);
    for (const flags of [[], ['--dry-run'], ['--resource', 'retail.source.orders']]) {
      const run = approve(...flags);
      expect(run.status).toBe(2);
      expect(text(run.stdout)).toBe('ledger: embedded, r3/.sealkit/ledger\n');
      expect(text(run.stderr)).toBe(
        [
          'error[contract_ledger_approval_target_unknown]: a widening approval names a resource this publication does not include',
          '  --> r3',
          '  = field: approval.approves',
          `  = help: ${hint}`,
          '',
        ].join('\n'),
      );
    }
    expect(jsonOf(approve('--json'))).toMatchObject({
      status: 'refused',
      reason_code: 'contract_ledger_approval_target_unknown',
      field: 'approval.approves',
      location: { path: 'r3' },
      hint,
    });
    // Nothing was appended.
    expect(text(sealkit('replay', 'r3').stdout)).toBe(head);
    // A project without a ledger keeps the project's own hint, and gets none.
    cpSync(join(work, 'r3'), join(work, 'r3-fresh'), { recursive: true });
    rmSync(join(work, 'r3-fresh', '.sealkit'), { recursive: true });
    const fresh = sealkit('publish', 'r3-fresh', ...approving('retail.semantic.orders@1.0.1'));
    expect(fresh.status).toBe(2);
    expect(text(fresh.stderr)).toContain(
      "= help: no resource of the project has the id 'retail.semantic.orders', so this run publishes none; drop --approve-widening retail.semantic.orders@1.0.1\n",
    );
    expect(existsSync(join(work, 'r3-fresh', '.sealkit'))).toBe(false);
  });

  it('regression: --resource of an unknown id in a project without a ledger reads none and creates none', () => {
    cpSync(join(work, 'r3'), join(work, 'fresh'), { recursive: true });
    rmSync(join(work, 'fresh', '.sealkit'), { recursive: true });
    const run = sealkit('publish', 'fresh', '--resource', 'retail.semantic.orders');
    expect(run.status).toBe(2);
    expect(text(run.stderr)).toContain(
      "= help: no resource of the project has the id 'retail.semantic.orders'; 'sealkit contract validate fresh' lists the id of every resource",
    );
    expect(existsSync(join(work, 'fresh', '.sealkit', 'ledger'))).toBe(false);
  });
});

describe('contract publish --resource: a resource that is never published', () => {
  it('regression: --resource of a dashboard or an unversioned resource is refused in its file, as project --resource is', () => {
    copyExample(join(work, 'kinds'));
    const file = join(work, 'kinds', 'sources', 'customers.yaml');
    const yaml = readFileSync(file, 'utf8');
    const block = /^contract:\n(?: {2}.*\n)+/m;
    expect(yaml).toMatch(block);
    writeFileSync(file, yaml.replace(block, ''));
    const board = sealkit('publish', 'kinds', '--dry-run', '--resource', 'retail.dashboard.sales_overview');
    expect(board.status).toBe(2);
    expect(text(board.stderr).split('\n')).toEqual([
      'error[contract_resource_not_contract_bearing]: the requested resource is a dashboard, which has no contract projection',
      '  --> kinds/dashboards/sales_overview.yaml',
      expect.stringMatching(
        /^ {2}= help: choose a Source, Model or SemanticModel, such as one this dashboard reads: retail\./,
      ),
      '',
    ]);
    const unversioned = sealkit('publish', 'kinds', '--dry-run', '--resource', 'retail.source.customers');
    expect(unversioned.status).toBe(2);
    expect(text(unversioned.stderr)).toBe(
      [
        'error[contract_version_missing]: the resource has no authored contract metadata and no constructor fallback was given',
        '  --> kinds/sources/customers.yaml:3:5',
        '  = at: id',
        '  = help: add contract: {version: ..., compatibility: ...} to project or publish this resource',
        '',
      ].join('\n'),
    );
    expect(
      jsonOf(sealkit('publish', 'kinds', '--dry-run', '--json', '--resource', 'retail.source.customers')),
    ).toMatchObject({
      reason_code: 'contract_version_missing',
      field: 'contract',
      location: { path: 'kinds/sources/customers.yaml', line: 3, column: 5, pointer: 'id' },
    });
  });

  it('regression: contract_version_missing points at the id that declares the resource, not a comment on line 1', () => {
    copyExample(join(work, 'commented'));
    const file = join(work, 'commented', 'sources', 'customers.yaml');
    // Two comment lines above the resource, and its contract: block removed.
    const yaml = readFileSync(file, 'utf8').replace(/^contract:\n(?: {2}.*\n)+/m, '');
    writeFileSync(file, `# owned by the CRM team\n${yaml}`);
    const lines = readFileSync(file, 'utf8').split('\n');
    expect(lines[0]).toBe('# owned by the CRM team');
    expect(lines[1]).toMatch(/^# yaml-language-server:/);
    expect(lines[3]).toBe('id: retail.source.customers');
    for (const command of ['project', 'publish']) {
      const run = sealkit(command, 'commented', '--resource', 'retail.source.customers');
      expect(run.status).toBe(2);
      expect(text(run.stderr)).toContain(
        'error[contract_version_missing]: the resource has no authored contract metadata and no constructor fallback was given\n  --> commented/sources/customers.yaml:4:5\n  = at: id\n',
      );
    }
    expect(existsSync(join(work, 'commented', '.sealkit'))).toBe(false);
  });
});

describe('contract publish --approve-widening: a resource the run does not publish', () => {
  const approve = (target: string, ...flags: string[]) =>
    sealkit('publish', 'approving', '--dry-run', ...flags, ...approving(target));
  beforeAll(() => copyExample(join(work, 'approving')));

  it('regression: an approval for a resource --resource leaves out points at its file and says to add it', () => {
    const run = approve('retail.source.orders@1.4.0', '--resource', 'retail.source.customers');
    expect(run.status).toBe(2);
    const hint =
      '--resource leaves retail.source.orders out of this run, which publishes only retail.source.customers: add --resource retail.source.orders to publish it with this approval, or drop --approve-widening retail.source.orders@1.4.0';
    expect(text(run.stderr)).toBe(
      [
        'error[contract_ledger_approval_target_unknown]: a widening approval names a resource this publication does not include',
        '  --> approving/sources/orders.yaml:3:5',
        '  = at: id',
        `  = help: ${hint}`,
        '',
      ].join('\n'),
    );
    const json = approve('retail.source.orders@1.4.0', '--resource', 'retail.source.customers', '--json');
    expect(jsonOf(json)).toMatchObject({
      status: 'refused',
      reason_code: 'contract_ledger_approval_target_unknown',
      field: 'approval.approves',
      location: { path: 'approving/sources/orders.yaml', line: 3, column: 5, pointer: 'id' },
      hint,
    });
    // Refused before the ledger: a dry run of a project without one creates nothing.
    expect(existsSync(join(work, 'approving', '.sealkit'))).toBe(false);
  });

  it('regression: an approval for an id no file declares is refused at the project, with the near id', () => {
    const misspelt = approve('retail.source.ordrs@1.4.0');
    expect(misspelt.status).toBe(2);
    expect(text(misspelt.stderr)).toBe(
      [
        'error[contract_ledger_approval_target_unknown]: a widening approval names a resource this publication does not include',
        '  --> approving',
        '  = field: approval.approves',
        "  = help: no resource of the project has the id 'retail.source.ordrs', so this run publishes none; did you mean 'retail.source.orders'?",
        '',
      ].join('\n'),
    );
    // The near id left out by --resource: the hint says to add it too.
    expect(
      text(approve('retail.source.ordrs@1.4.0', '--resource', 'retail.source.customers').stderr),
    ).toContain(
      "did you mean 'retail.source.orders'? (add --resource retail.source.orders too: this run publishes only what --resource names)",
    );
    expect(text(approve('retail.zzz.top@1.4.0').stderr)).toContain(
      "= help: no resource of the project has the id 'retail.zzz.top', so this run publishes none; drop --approve-widening retail.zzz.top@1.4.0",
    );
  });

  it('regression: an approval for a resource without a contract version points at its file and says none publishes it', () => {
    cpSync(join(work, 'approving'), join(work, 'unversioned'), { recursive: true });
    const file = join(work, 'unversioned', 'semantic', 'customers.yaml');
    const yaml = readFileSync(file, 'utf8');
    const block = 'contract:\n  version: 1.2.0\n  compatibility: full\n';
    expect(yaml).toContain(block);
    writeFileSync(file, yaml.replace(block, ''));
    const run = sealkit(
      'publish',
      'unversioned',
      '--dry-run',
      ...approving('retail.semantic.customers@1.3.0'),
    );
    expect(run.status).toBe(2);
    expect(text(run.stderr)).toContain(
      [
        '  --> unversioned/semantic/customers.yaml:3:5',
        '  = at: id',
        '  = help: retail.semantic.customers declares no contract version, so no run publishes it: add a contract: block with its version to its file, or drop --approve-widening retail.semantic.customers@1.3.0',
      ].join('\n'),
    );
  });

  it('regression: an approval for a dashboard points at the dashboard and says it is never published', () => {
    const run = approve('retail.dashboard.sales_overview@1.0.0');
    expect(run.status).toBe(2);
    expect(text(run.stderr)).toContain(
      [
        '  --> approving/dashboards/sales_overview.yaml:3:5',
        '  = at: id',
        '  = help: retail.dashboard.sales_overview is a Dashboard, which is never published and takes no approval: drop --approve-widening retail.dashboard.sales_overview@1.0.0',
      ].join('\n'),
    );
  });
});
