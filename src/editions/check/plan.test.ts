import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SMALL_PROJECT, writeSmallProject } from '../../../test/helpers/edition-trees.js';
import { type CheckPlan, planCheck } from './plan.js';
import { readProjectFiles } from './project-files.js';
import { loadDbtSchemas } from './schemas.js';

let dir: string;
let runs = 0;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sealkit-edition-plan-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

type Overrides = Readonly<Record<string, string | Uint8Array | null>>;

function plan(overrides: Overrides): CheckPlan {
  runs += 1;
  const project = writeSmallProject(join(dir, `shop-${runs}`), overrides);
  return planCheck(readProjectFiles(project), loadDbtSchemas(), { target: 'default', vars: {}, env: {} });
}

const NOT_UTF8 = new Uint8Array([0x73, 0x65, 0x6c, 0xff, 0x0a]);
const SOURCES = SMALL_PROJECT['models/bronze/_bronze__sources.yml'] ?? '';
const MODELS = SMALL_PROJECT['models/silver/_silver__models.yml'] ?? '';
const GOLD_X_OFF = 'version: 2\nmodels:\n  - name: gold_x\n    config:\n      enabled: "maybe"\n';
/** A second source, whose schema renders an undefined var() or is left to default. */
const EXTRA_NOPE = `  - name: extra\n    schema: "{{ var('nope') }}"\n    tables:\n`;
const EXTRA = '  - name: extra\n    tables:\n';
const RETURNS_OFF = '      - name: returns\n        config:\n          enabled: false\n';

/**
 * Each case plants two faults in one item: the item reports the one checked
 * first (docs/editions.md#one-finding-per-item); `alone` plants only the
 * second, to show that it is found when the first is absent.
 */
describe('one finding per item: the first check that finds something wins', () => {
  it.each(
    [
      {
        name: 'a name that is not an identifier before a duplicate',
        both: { 'models/gold/bad-name.sql': 'select 1\n', 'models/silver/bad-name.sql': 'select 2\n' },
        alone: { 'models/gold/silver_orders.sql': 'select 1\n' },
        path: ['models/gold/bad-name.sql', 'models/gold/silver_orders.sql'],
        codes: ['invalid_resource_name', 'duplicate_model'],
      },
      {
        name: 'a duplicate before bytes that are not UTF-8',
        both: { 'models/gold/silver_orders.sql': NOT_UTF8 },
        alone: { 'models/gold/gold_x.sql': NOT_UTF8 },
        path: ['models/gold/silver_orders.sql', 'models/gold/gold_x.sql'],
        codes: ['duplicate_model', 'file_not_utf8'],
      },
      {
        name: 'bytes that are not UTF-8 before an enabled config that is not a boolean',
        both: { 'models/gold/gold_x.sql': NOT_UTF8, 'models/gold/_gold__models.yml': GOLD_X_OFF },
        alone: { 'models/gold/gold_x.sql': 'select 1\n', 'models/gold/_gold__models.yml': GOLD_X_OFF },
        path: ['models/gold/gold_x.sql', 'models/gold/gold_x.sql'],
        codes: ['file_not_utf8', 'config_not_boolean'],
      },
      {
        name: 'an enabled config that is not a boolean before a failed render',
        both: {
          'models/gold/gold_x.sql': "{{ config(enabled='maybe') }}\nselect * from {{ ref('nope') }}\n",
        },
        alone: { 'models/gold/gold_x.sql': "select * from {{ ref('nope') }}\n" },
        path: ['models/gold/gold_x.sql', 'models/gold/gold_x.sql'],
        codes: ['config_not_boolean', 'undefined_ref'],
      },
      {
        name: 'a ref to a disabled model before a disabled source',
        both: {
          'models/bronze/_bronze__sources.yml': `${SOURCES}${RETURNS_OFF}`,
          'models/gold/gold_off.sql': '{{ config(enabled=false) }}\nselect 1 as id\n',
          'models/gold/gold_x.sql':
            "select * from {{ ref('gold_off') }} join {{ source('bronze', 'returns') }} using (id)\n",
        },
        alone: {
          'models/bronze/_bronze__sources.yml': `${SOURCES}${RETURNS_OFF}`,
          'models/gold/gold_x.sql': "select * from {{ source('bronze', 'returns') }}\n",
        },
        path: ['models/gold/gold_x.sql', 'models/gold/gold_x.sql'],
        codes: ['ref_to_disabled_model', 'source_disabled'],
      },
      {
        name: "a disabled source before a source's own finding",
        both: {
          'models/bronze/_bronze__sources.yml': `${SOURCES}${RETURNS_OFF}      - name: orders\n`,
          'models/gold/gold_x.sql':
            "select * from {{ source('bronze', 'orders') }} join {{ source('bronze', 'returns') }} using (id)\n",
        },
        alone: {
          'models/bronze/_bronze__sources.yml': `${SOURCES}      - name: orders\n`,
          'models/gold/gold_x.sql': "select * from {{ source('bronze', 'orders') }}\n",
        },
        path: ['models/gold/gold_x.sql', 'models/gold/gold_x.sql'],
        codes: ['source_disabled', 'duplicate_source'],
      },
    ].map((row) => [row.name, row] as const),
  )('model: %s', (_name, { both, alone, path, codes }) => {
    const found = [both, alone].map(
      (overrides, i) => plan(overrides).models.find((model) => model.path === path[i])?.finding?.code,
    );
    expect(found).toEqual(codes);
  });

  it.each(
    [
      {
        name: 'a name that is not an identifier before a duplicate',
        both: '      - name: bad-table\n      - name: bad-table\n',
        alone: '      - name: returns\n      - name: returns\n',
        key: ['bronze.bad-table', 'bronze.returns'],
        codes: ['invalid_resource_name', 'duplicate_source'],
      },
      {
        name: 'a duplicate before an enabled config that is not a boolean',
        both: '      - name: returns\n        config:\n          enabled: "maybe"\n      - name: returns\n',
        alone: '      - name: returns\n        config:\n          enabled: "maybe"\n',
        key: ['bronze.returns', 'bronze.returns'],
        codes: ['duplicate_source', 'config_not_boolean'],
      },
      {
        name: 'an enabled config that is not a boolean before a failed render of the schema',
        both: `${EXTRA_NOPE}      - name: returns\n        config:\n          enabled: "maybe"\n`,
        alone: `${EXTRA_NOPE}      - name: returns\n`,
        key: ['extra.returns', 'extra.returns'],
        codes: ['config_not_boolean', 'undefined_var'],
      },
      {
        name: 'a failed render of the schema before an empty identifier',
        both: `${EXTRA_NOPE}      - name: returns\n        identifier: "{{ '' }}"\n`,
        alone: `${EXTRA}      - name: returns\n        identifier: "{{ '' }}"\n`,
        key: ['extra.returns', 'extra.returns'],
        codes: ['undefined_var', 'invalid_resource_name'],
      },
    ].map((row) => [row.name, row] as const),
  )('source: %s', (_name, { both, alone, key, codes }) => {
    const found = [both, alone].map((tables, i) => [
      ...new Set(
        plan({ 'models/bronze/_bronze__sources.yml': `${SOURCES}${tables}` })
          .sources.filter((source) => `${source.source}.${source.table}` === key[i])
          .map((source) => source.finding?.code),
      ),
    ]);
    expect(found).toEqual(codes.map((code) => [code]));
  });

  it.each(
    [
      {
        name: 'an unsupported kind before a column that is not an identifier',
        both: { column: 'bad-column', tests: '[dbt_utils.at_least_one]' },
        alone: { column: 'bad-column', tests: '[not_null]' },
        codes: ['unsupported_test', 'test_target_invalid'],
      },
      {
        name: 'a column that is not an identifier before what relationships renders',
        both: { column: 'bad-column', tests: "[{relationships: {to: ref('nope'), field: id}}]" },
        alone: { column: 'customer_id', tests: "[{relationships: {to: ref('nope'), field: id}}]" },
        codes: ['test_target_invalid', 'undefined_ref'],
      },
      {
        name: 'a failed render of relationships before a field that is not an identifier',
        both: { column: 'customer_id', tests: "[{relationships: {to: ref('nope'), field: bad-field}}]" },
        alone: {
          column: 'customer_id',
          tests: "[{relationships: {to: ref('silver_orders'), field: bad-field}}]",
        },
        codes: ['undefined_ref', 'test_target_invalid'],
      },
    ].map((row) => [row.name, row] as const),
  )('test: %s', (_name, { both, alone, codes }) => {
    const found = [both, alone].map(({ column, tests }) => {
      const planted = `      - name: ${column}\n        data_tests: ${tests}\n      - name: order_id\n`;
      const models = MODELS.replace('      - name: order_id\n', planted);
      return plan({ 'models/silver/_silver__models.yml': models })
        .tests.filter((test) => test.attachedTo === 'silver_orders' && test.column === column)
        .map((test) => test.finding?.code);
    });
    expect(found).toEqual(codes.map((code) => [code]));
  });
});
