import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SMALL_PROJECT, writeSmallProject } from '../../../test/helpers/edition-trees.js';
import { planCheck } from './plan.js';
import { readProjectFiles } from './project-files.js';
import { loadDbtSchemas } from './schemas.js';
import type { YamlMapping } from './yaml.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sealkit-edition-enabled-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const GATED = `${SMALL_PROJECT['dbt_project.yml']}models:\n  shop:\n    silver:\n      +enabled: "{{ var('gate', false) }}"\n`;

function silverOrders(vars: YamlMapping, projectVars = '') {
  const project = writeSmallProject(join(dir, 'shop'), { 'dbt_project.yml': `${GATED}${projectVars}` });
  const plan = planCheck(readProjectFiles(project), loadDbtSchemas(), { target: 'default', vars, env: {} });
  return plan.models.find((model) => model.name === 'silver_orders');
}

describe('an enabled config that does not render to a boolean', () => {
  it.each([
    ['yes', true],
    ['off', false],
    ['Y', true],
  ])(
    'regression: --vars %s is placed at the +enabled key of dbt_project.yml, with the fix',
    (word, meant) => {
      expect(silverOrders({ gate: word })?.finding).toEqual({
        code: 'config_not_boolean',
        file: 'dbt_project.yml',
        line: 10,
        column: 7,
        pointer: 'models.shop.silver["+enabled"]',
        // One key gates both Silver models: the finding names them all (one block per key on stderr).
        hint: `the --vars value '${word}' of gate is a string in YAML 1.2 (dbt's PyYAML reads it as ${meant}); write gate: ${meant} (for 2 items: model silver_order_items, model silver_orders)`,
      });
    },
  );

  it('says the same of a value the project vars give to config(), at the model, without naming --vars', () => {
    const sql = SMALL_PROJECT['models/silver/silver_orders.sql'] ?? '';
    const project = writeSmallProject(join(dir, 'shop'), {
      'dbt_project.yml': `${SMALL_PROJECT['dbt_project.yml']}vars:\n  gate: "on"\n`,
      'models/silver/silver_orders.sql': `{{ config(enabled=var('gate')) }}\n${sql}`,
    });
    const plan = planCheck(readProjectFiles(project), loadDbtSchemas(), {
      target: 'default',
      vars: {},
      env: {},
    });
    expect(plan.models.find((model) => model.name === 'silver_orders')?.finding).toEqual({
      code: 'config_not_boolean',
      file: 'models/silver/silver_orders.sql',
      hint: "it renders to 'on', a string in YAML 1.2 (dbt's PyYAML reads it as true); write true",
    });
  });

  it('shows no other rendered value: only which item the shared expression gates', () => {
    expect(silverOrders({ gate: 'sometimes' })?.finding).toMatchObject({
      code: 'config_not_boolean',
      file: 'dbt_project.yml',
      hint: 'for 2 items: model silver_order_items, model silver_orders',
    });
  });
});
