import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../test/helpers/cli.js';
import { baseProject, copyExample, writeProjectTree } from '../../contracts/fixtures/resources.js';

describe('sealkit contract affected', () => {
  let dir: string;
  let retail: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sealkit-cli-affected-'));
    retail = join(dir, 'retail');
    copyExample(retail);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const dashboards = (resource: string) => {
    const run = runCli(['contract', 'affected', retail, '--resource', resource, '--json']);
    expect(run.status).toBe(0);
    return (JSON.parse(run.stdout.toString('utf8')) as { dashboards: string[] }).dashboards;
  };

  it('lists the dashboards that depend on a resource, sorted, unrelated ones excluded', () => {
    expect(dashboards('retail.source.orders')).toEqual([
      'retail.dashboard.customer_health',
      'retail.dashboard.sales_overview',
    ]);
    expect(dashboards('retail.model.customer_dim')).toEqual(['retail.dashboard.customer_health']);
    const run = runCli(['contract', 'affected', retail, '--resource', 'retail.semantic.customers']);
    expect(run.stdout.toString('utf8')).toBe('retail.dashboard.customer_health\n1 dashboard affected\n');
  });

  it('refuses an unknown resource, and an invalid project with the errors of its files', () => {
    const unknown = runCli(['contract', 'affected', retail, '--resource', 'zq.sentinel.resource']);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr.toString('utf8')).toContain('contract_resource_not_found');
    // The id is the operator's own input: named, so that the wrong one of several is plain.
    expect(unknown.stderr.toString('utf8')).toContain(
      `  --> ${retail}\n  = help: no resource of the project has the id 'zq.sentinel.resource'; 'sealkit contract validate ${retail}' lists the id of every resource\n`,
    );
    const typo = runCli(['contract', 'affected', retail, '--resource', 'retail.source.order']);
    expect(typo.status).toBe(2);
    expect(typo.stderr.toString('utf8')).toContain(
      "= help: no resource of the project has the id 'retail.source.order'; did you mean 'retail.source.orders'?",
    );
    const broken = join(dir, 'broken');
    writeProjectTree(broken, baseProject({ 'sources/extra.yaml': 'kind: Source\nid: zq.sentinel.broken\n' }));
    const invalid = runCli(['contract', 'affected', broken, '--resource', 't.source.orders', '--json']);
    expect(invalid.status).toBe(2);
    expect(JSON.parse(invalid.stdout.toString('utf8'))).toMatchObject({
      reason_code: 'contract_project_invalid',
      also: expect.arrayContaining([
        expect.objectContaining({
          reason_code: 'contract_field_missing',
          location: { path: join(broken, 'sources/extra.yaml'), line: 1, column: 1, pointer: 'name' },
        }),
      ]),
    });
  });

  it('refuses a dashboard as the starting resource instead of answering with no dashboards', () => {
    const run = runCli([
      'contract',
      'affected',
      retail,
      '--resource',
      'retail.dashboard.sales_overview',
      '--json',
    ]);
    expect(run.status).toBe(2);
    expect(JSON.parse(run.stdout.toString('utf8'))).toMatchObject({
      status: 'refused',
      reason_code: 'contract_graph_seed_invalid',
    });
  });

  it('places a dashboard given as the starting resource at its id, naming what it reads', () => {
    // A refusal on the operator's own files says where: the file that declares the dashboard.
    const run = runCli(['contract', 'affected', retail, '--resource', 'retail.dashboard.sales_overview']);
    expect(run.status).toBe(2);
    expect(run.stdout.toString('utf8')).toBe('');
    expect(run.stderr.toString('utf8')).toBe(
      'error[contract_graph_seed_invalid]: affected dashboards start from a published Source, Model or SemanticModel; a dashboard is a consumer, not a starting point\n' +
        `  --> ${join(retail, 'dashboards/sales_overview.yaml')}:3:5\n` +
        '  = at: id\n' +
        '  = help: start from a Source, Model or SemanticModel, such as one this dashboard reads: retail.semantic.orders\n',
    );
    const json = runCli([
      'contract',
      'affected',
      retail,
      '--resource',
      'retail.dashboard.sales_overview',
      '--json',
    ]);
    expect(JSON.parse(json.stdout.toString('utf8'))).toMatchObject({
      reason_code: 'contract_graph_seed_invalid',
      location: { path: join(retail, 'dashboards/sales_overview.yaml'), line: 3, column: 5, pointer: 'id' },
      hint: 'start from a Source, Model or SemanticModel, such as one this dashboard reads: retail.semantic.orders',
    });
  });

  it('needs --resource', () => {
    expect(runCli(['contract', 'affected', retail]).status).toBe(1);
  });
});
