import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../test/helpers/cli.js';
import { BINDING_ALIAS, ScaffoldScratch, SOURCE_ID } from '../../test/helpers/scaffold-workspace.js';
import { collectTree, scanForSentinels } from '../../test/helpers/sentinels.js';
import type { SynthColumnSpec, SynthTableSpec } from '../migration/index.js';
import {
  bindFiles,
  fromSpec,
  type MutableBundle,
  retailBundle,
  retailSpec,
  summary,
  writeBundle,
} from '../migration/testing/bundles.js';
import { scaffold } from './run.js';

const scratch = new ScaffoldScratch('inputs');
afterAll(() => scratch.dispose());

type Doc = Record<string, unknown>;

/** The retail spec with its tables edited: how an input-rule fixture stays a bundle that binds. */
function editedBundle(edit: (tables: SynthTableSpec[]) => SynthTableSpec[]): MutableBundle {
  const spec = retailSpec({ destination: 'bigquery' });
  return fromSpec({
    ...spec,
    tables: edit(spec.tables.map((table) => ({ ...table, columns: [...table.columns] }))),
  });
}

function editTable(
  tables: SynthTableSpec[],
  name: string,
  edit: (columns: SynthColumnSpec[]) => SynthColumnSpec[],
): SynthTableSpec[] {
  return tables.map((table) =>
    table.table === name ? { ...table, columns: edit([...table.columns]) } : table,
  );
}

const withoutTarget = (target: string) => (columns: SynthColumnSpec[]) =>
  columns.filter((column) => column.rule?.target !== target);

describe('input bindings: each its own code, no staging, no output, nothing printed', () => {
  const cases: {
    name: string;
    code: string;
    mutate?: (bundle: MutableBundle) => void;
    alias?: string;
    edition?: 'bigquery' | 'snowflake';
  }[] = [
    {
      name: 'the mapping file changed after the dry run',
      code: 'scaffold_mapping_fingerprint_mismatch',
      mutate: (bundle) => {
        const rules = (bundle.mapping.tables as Record<string, Doc[]>).customers as Doc[];
        (rules[0] as Doc).cast = 'string';
      },
    },
    {
      name: 'the source kinds differ',
      code: 'scaffold_source_kind_mismatch',
      mutate: (bundle) => {
        bundle.runManifest.source_kind = 'csv';
      },
    },
    {
      name: 'the Bronze namespaces differ',
      code: 'scaffold_namespace_mismatch',
      mutate: (bundle) => {
        bundle.runManifest.bronze_namespace = 'starterkit_migration_zqx_other';
      },
    },
    {
      name: 'the selected tables differ',
      code: 'scaffold_selected_tables_mismatch',
      mutate: (bundle) => {
        (bundle.runManifest.entities as string[])[0] = 'zqx_other_entity';
      },
    },
    {
      name: 'regression: a selected table has no inventory entry',
      code: 'scaffold_selected_tables_mismatch',
      mutate: (bundle) => {
        bundle.dryRun.inventory = (bundle.dryRun.inventory as Doc[]).filter(
          (entry) => entry.table !== 'orders',
        );
      },
    },
    {
      name: 'a binding field is missing',
      code: 'scaffold_field_missing',
      mutate: (bundle) => {
        delete bundle.dryRun.bronze_namespace;
      },
    },
    {
      name: 'legacy artifacts without source_binding_id',
      code: 'scaffold_source_identity_unavailable',
      mutate: (bundle) => {
        delete bundle.dryRun.source_binding_id;
        delete bundle.runManifest.source_binding_id;
      },
    },
    {
      name: 'the artifacts record different aliases',
      code: 'scaffold_source_identity_mismatch',
      mutate: (bundle) => {
        bundle.runManifest.source_binding_id = 'zqx_other_alias';
      },
    },
    {
      name: 'the invocation names another alias',
      code: 'scaffold_source_identity_mismatch',
      alias: 'zqx_cli_alias',
    },
    {
      // Regression: the artifacts agree (bigquery); the flag is what is wrong,
      // so the refusal is the invocation's own code, with no evidence role.
      name: 'the evidence agrees but --edition names the other edition',
      code: 'edition_option_mismatch',
      edition: 'snowflake',
    },
  ];

  it.each(cases)('$name: $code', ({ code, mutate, alias, edition }) => {
    const bundle = retailBundle({ destination: 'bigquery' });
    mutate?.(bundle);
    const workspaceEdition = edition ?? 'bigquery';
    const { workspace } = scratch.workspace(workspaceEdition);
    const evidence = scratch.evidence('bigquery', bundle);
    const before = collectTree(workspace).map((source) => source.label);
    const args = [
      'scaffold',
      '--edition',
      workspaceEdition,
      '--workspace',
      workspace,
      '--source-id',
      SOURCE_ID,
      '--mapping-file',
      evidence.mappingFile,
      '--inventory-file',
      evidence.dryRunFile,
      '--run-manifest',
      evidence.runManifestFile,
      '--source-binding-id',
      alias ?? BINDING_ALIAS,
      '--max-evidence-age',
      '36500d',
    ];
    const run = runCli(args);
    expect(run.status).toBe(2);
    const result = JSON.parse(run.stdout.toString()) as Record<string, unknown>;
    expect(result).toMatchObject({ status: 'refused', reason_codes: [code], stage: 'preflight' });
    if (code === 'edition_option_mismatch') {
      expect(result.role).toBeUndefined();
      expect(result.message).toContain('--edition');
    }
    expect(collectTree(workspace).map((source) => source.label)).toEqual(before);
    const project = join(workspace, workspaceEdition === 'bigquery' ? '.' : 'kit');
    expect(existsSync(join(project, '.scaffold-staging'))).toBe(false);
    expect(existsSync(join(project, 'models', 'migration', 'generated'))).toBe(false);
    // Never printed: fingerprints, source and namespace names, Bronze names, paths.
    const dryRun = bundle.dryRun;
    const sentinels = [
      String(dryRun.source_mapping_fingerprint),
      String(dryRun.schema_confirmation_fingerprint),
      String(dryRun.source_schema_fingerprint),
      'starterkit_migration',
      'zqx_other',
      'zqx_cli_alias',
      'units_ordered',
      'country_code',
      workspace,
      evidence.dir,
    ];
    expect(scanForSentinels(run, [], sentinels)).toEqual([]);
  });
});

describe('input refusals: the canonical retail scope', () => {
  const cases: { name: string; code: string; table?: string; bundle: () => MutableBundle }[] = [
    {
      name: 'a non-canonical table',
      code: 'non_canonical_table',
      bundle: () =>
        editedBundle((tables) => [
          ...tables,
          {
            table: 'invoices',
            columns: [
              {
                raw: 'Invoice ID',
                family: 'integer',
                dialectType: 'BIGINT',
                rule: { target: 'invoice_id', cast: 'integer' },
              },
            ],
          },
        ]),
    },
    {
      // A safe identifier that is also Object.prototype's accessor: it once
      // broke the mapping fingerprint (canonical_unsupported_value).
      name: 'regression: a non-canonical table named __proto__',
      code: 'non_canonical_table',
      bundle: () =>
        editedBundle((tables) => [
          ...tables,
          {
            table: '__proto__',
            columns: [
              {
                raw: 'Zqx Id',
                family: 'integer',
                dialectType: 'BIGINT',
                rule: { target: 'zqx_id', cast: 'integer' },
              },
            ],
          },
        ]),
    },
    {
      name: 'a non-canonical target',
      code: 'non_canonical_target',
      table: 'customers',
      bundle: () =>
        editedBundle((tables) =>
          editTable(tables, 'customers', (columns) => [
            ...columns,
            {
              raw: 'Zqx Email',
              family: 'string',
              dialectType: 'TEXT',
              rule: { target: 'email', cast: 'string' },
            },
          ]),
        ),
    },
    {
      name: 'a missing canonical primary key',
      code: 'missing_primary_key',
      table: 'orders',
      bundle: () => editedBundle((tables) => editTable(tables, 'orders', withoutTarget('order_id'))),
    },
    {
      name: 'a missing canonical column',
      code: 'missing_contract_column',
      table: 'products',
      bundle: () => editedBundle((tables) => editTable(tables, 'products', withoutTarget('category'))),
    },
    {
      name: 'an unsafe inventory identifier (a reserved word)',
      code: 'inventory_identifier_unsafe',
      table: 'orders',
      bundle: () =>
        editedBundle((tables) =>
          editTable(tables, 'orders', (columns) =>
            columns.map((column) =>
              column.rule?.target === 'order_status' ? { ...column, raw: 'Select' } : column,
            ),
          ),
        ),
    },
    {
      name: 'an absent inventory identifier',
      code: 'inventory_identifier_missing',
      table: 'customers',
      bundle: () => {
        const bundle = retailBundle({ destination: 'bigquery' });
        const rules = (bundle.mapping.tables as Record<string, Doc[]>).customers as Doc[];
        const source = (rules[1] as Doc).source;
        const safety = bundle.dryRun.normalized_identifier_safety as { tables: Doc[] };
        const customers = safety.tables.find((table) => table.table === 'customers') as Doc;
        customers.normalized_columns = (customers.normalized_columns as Doc[]).filter(
          (c) => c.name !== source,
        );
        return bundle;
      },
    },
  ];

  it.each(cases)('$name is refused with $code before any write', async ({ code, table, bundle }) => {
    const fixture = scratch.fixture('bigquery', { bundle: bundle() });
    const before = fixture.snapshot();
    const result = await scaffold(fixture.options());
    expect(result).toMatchObject({ status: 'refused', reason_codes: [code], stage: 'preflight' });
    if (code === 'edition_option_mismatch') {
      expect(result.role).toBeUndefined();
      expect(result.message).toContain('--edition');
    }
    expect(result.table).toBe(table);
    if (code === 'non_canonical_table') expect([result.role, result.field]).toEqual(['mapping', 'tables']);
    expect(fixture.snapshot()).toEqual(before);
  });

  it.each(['Shop', '1shop', 'shop-1', 'sh op', '../shop', 'a'.repeat(41), '', 'shop/x'])(
    'source id %j is source_id_invalid with no writes',
    async (sourceId) => {
      const fixture = scratch.fixture('snowflake');
      const before = fixture.snapshot();
      const result = await scaffold(fixture.options({ sourceId }));
      expect(result).toMatchObject({ status: 'refused', reason_codes: ['source_id_invalid'] });
      expect(result.source_id).toBeUndefined();
      expect(fixture.snapshot()).toEqual(before);
    },
  );

  it('the library refuses unknown or mistyped options (option_invalid) before anything else', async () => {
    const fixture = scratch.fixture('bigquery');
    const before = fixture.snapshot();
    const bad: Record<string, unknown>[] = [
      { ...fixture.options(), update: true },
      { ...fixture.options(), force: true },
      { ...fixture.options(), dryRun: 'yes' },
      { ...fixture.options(), mappingFile: 42 },
      { ...fixture.options(), edition: 'duckdb' },
      { ...fixture.options(), workspace: undefined },
    ];
    for (const options of bad) {
      const result = await scaffold(options as unknown as Parameters<typeof scaffold>[0]);
      expect(result).toMatchObject({
        status: 'refused',
        reason_codes: ['option_invalid'],
        stage: 'preflight',
      });
    }
    expect(fixture.snapshot()).toEqual(before);
  });

  it('extra source columns are never selected: the generated files carry canonical columns only', async () => {
    const bundle = editedBundle((tables) =>
      editTable(tables, 'customers', (columns) => [
        ...columns,
        { raw: 'Zqx Email Address', family: 'string', dialectType: 'TEXT' },
        { raw: 'Zqx Phone', family: 'string', dialectType: 'TEXT' },
      ]),
    );
    const fixture = scratch.fixture('bigquery', { bundle });
    expect((await scaffold(fixture.options())).status).toBe('published');
    expect(
      scanForSentinels({ stdout: '', stderr: '' }, [fixture.output], ['zqx_email', 'zqx_phone', 'Zqx Email']),
    ).toEqual([]);
    const customers = readFileSync(join(fixture.output, `silver_${SOURCE_ID}__customers.sql`), 'utf8');
    expect(customers).toContain(' as customer_id,');
    expect(readdirSync(fixture.output)).toHaveLength(6);
  });

  it('regression: a value cast that contradicts the canonical column is listed under a REVIEW header', async () => {
    const recast = (target: string, cast: 'integer' | 'boolean') => (columns: SynthColumnSpec[]) =>
      columns.map((column) =>
        column.rule?.target === target ? { ...column, rule: { target, cast } } : column,
      );
    const bundle = editedBundle((tables) =>
      editTable(
        editTable(tables, 'orders', recast('order_status', 'integer')),
        'order_items',
        recast('unit_price', 'boolean'),
      ),
    );
    const fixture = scratch.fixture('bigquery', { bundle });
    expect((await scaffold(fixture.options())).status).toBe('published');
    const read = (table: string) =>
      readFileSync(join(fixture.output, `silver_${SOURCE_ID}__${table}.sql`), 'utf8');
    const header = '-- REVIEW: the mapping casts these columns to another type than the canonical\n';
    expect(read('orders')).toContain(`${header}`);
    expect(read('orders')).toContain('--   order_status (mapping: integer, canonical: string)\n');
    expect(read('orders')).toContain("{{ starter_cast('order_status', 'integer') }} as order_status,");
    expect(read('order_items')).toContain('--   unit_price (mapping: boolean, canonical: numeric)\n');
    expect(read('customers')).not.toContain(header);
    expect(read('products')).not.toContain(header);
  });

  it('a mapping of some canonical tables scaffolds those only, with relationships only where both sides exist', async () => {
    const spec = retailSpec({ destination: 'bigquery', tables: ['orders', 'order_items'] });
    const fixture = scratch.fixture('bigquery', { bundle: fromSpec(spec) });
    const result = await scaffold(fixture.options());
    expect(result.status).toBe('published');
    expect(readdirSync(fixture.output).sort()).toEqual([
      '.scaffold-manifest.json',
      `_silver_${SOURCE_ID}__models.yml`,
      `silver_${SOURCE_ID}__order_items.sql`,
      `silver_${SOURCE_ID}__orders.sql`,
    ]);
    const yaml = readFileSync(join(fixture.output, `_silver_${SOURCE_ID}__models.yml`), 'utf8');
    expect(yaml).toContain(`to: ref('silver_${SOURCE_ID}__orders')`);
    expect(yaml).not.toContain(`ref('silver_${SOURCE_ID}__customers')`);
    expect(yaml).not.toContain(`ref('silver_${SOURCE_ID}__products')`);
  });
});

/** The first rule of the mapping's customers table, to corrupt in place. */
function firstRule(mapping: Doc): Doc {
  const rule = (mapping.tables as Record<string, Doc[]>).customers?.[0];
  if (rule === undefined) throw new Error('the retail mapping has a customers rule');
  return rule;
}

describe('validator parity with the evidence reader', () => {
  const invalidMappings: { name: string; raw?: string; mutate?: (mapping: Doc) => void }[] = [
    { name: 'version 2', mutate: (m) => (m.version = 2) },
    { name: 'version true', mutate: (m) => (m.version = true) },
    { name: 'no tables key', mutate: (m) => delete m.tables },
    { name: 'empty tables', mutate: (m) => (m.tables = {}) },
    { name: 'a table with no rules', mutate: (m) => ((m.tables as Doc).customers = []) },
    {
      name: 'an unsafe table name',
      mutate: (m) => ((m.tables as Doc)['bad table'] = [{ source: 'a', target: 'a', cast: 'string' }]),
    },
    {
      name: 'a float cast',
      mutate: (m) => (firstRule(m).cast = 'float'),
    },
    {
      name: 'a rule without a target',
      mutate: (m) => delete firstRule(m).target,
    },
    {
      name: 'an extra rule key',
      mutate: (m) => (firstRule(m).note = 'x'),
    },
    {
      name: 'a duplicate target',
      mutate: (m) => {
        const rules = (m.tables as Record<string, Doc[]>).customers as Doc[];
        (rules[1] as Doc).target = (rules[0] as Doc).target;
      },
    },
    {
      name: 'an unsafe target',
      mutate: (m) => (firstRule(m).target = 'customer id'),
    },
    {
      name: 'a source with a newline',
      mutate: (m) => (firstRule(m).source = 'a\nb'),
    },
    { name: 'an extra top-level key', mutate: (m) => (m.comment = 'x') },
    { name: 'a JSON array', raw: '[]' },
    { name: 'a duplicate key', raw: '{"version":1,"version":1,"tables":{}}' },
    { name: 'not UTF-8', raw: 'not-utf8' },
    {
      name: 'a source over 255 code points',
      mutate: (m) => (firstRule(m).source = 'x'.repeat(256)),
    },
  ];

  it.each(invalidMappings)(
    'a mapping with $name: the same reason code, role and field as bindEvidence',
    async ({ raw, mutate }) => {
      const bundle = retailBundle({ destination: 'bigquery' });
      mutate?.(bundle.mapping);
      const bytes = raw === 'not-utf8' ? Buffer.from([0x7b, 0xff, 0x7d]) : raw;
      const evidence = writeBundle(
        scratch.dir('parity'),
        bundle,
        bytes === undefined ? {} : { mapping: bytes },
      );
      const expected = summary(bindFiles(evidence));
      expect(expected.code).not.toBe('bound');
      const { workspace } = scratch.workspace('bigquery');
      const result = await scaffold({
        edition: 'bigquery',
        workspace,
        sourceId: SOURCE_ID,
        mappingFile: evidence.mappingFile,
        inventoryFile: evidence.dryRunFile,
        runManifestFile: evidence.runManifestFile,
        sourceBindingId: BINDING_ALIAS,
        maxEvidenceAge: 86_400,
        now: new Date(Date.UTC(2025, 2, 14, 10, 26, 53)),
      });
      expect({ code: result.reason_codes[0], role: result.role, field: result.field }).toEqual({
        code: expected.code,
        role: expected.role,
        field: expected.field,
      });
    },
  );
});
