import type { Cast } from '../identifiers.js';
import type { BundleSpec, SynthTableSpec } from './bundle.js';
import { snakeCase } from './normalize.js';

/**
 * Synthetic Bronze rows for the tables a synthetic bundle describes, as the
 * loader would have written them: one CSV per Bronze table, with a column
 * for every normalized source column, the mapped targets the loader adds
 * (docs/evidence.md#synthetic-bronze-fixtures), and the two provenance
 * columns. The folder is the edition's `migration_bronze` source, so
 * `sealkit edition check --fixtures` builds both the shipped migration
 * models and the scaffolded ones on it (both sources read one Bronze
 * relation per namespace). No value comes from a real system.
 */
export const FIXTURES_DIR = 'fixtures';
export const FIXTURE_SOURCE = 'migration_bronze';

export const FIXTURES_README = `# Bronze fixtures (synthetic)

Written by \`sealkit evidence synth\`: synthetic Bronze rows for the tables
the synthetic evidence beside this folder describes, under the Bronze column
names its dry run records (normalized source names, mapped targets and the
provenance columns). No row comes from a real system.

Build the scaffolded models on them together with the workspace's own
fixtures (a table here replaces the same table of an earlier folder):

    sealkit edition check WORKSPACE --target migration \\
      --vars '{enable_migration_models: true}' \\
      --fixtures WORKSPACE/fixtures --fixtures THIS_FOLDER

The rows include primary keys the blank-key policy drops (an empty string)
and a blank foreign key it turns into NULL.
`;

type Value = string | null;

/** Per canonical column: the values of the synthetic rows, the last row's key blank. */
const VALUES: { readonly [target: string]: readonly Value[] } = {
  customer_id: ['1', '2', '3', ''],
  created_at: ['2024-01-03 09:15:00', '2024-01-05 14:02:11', '2024-02-11 08:30:00', '2024-02-12 10:00:00'],
  country: ['NL', 'DE', 'FR', 'BE'],
  product_id: ['10', '11', ''],
  product_name: ['synthetic product 10', 'synthetic product 11', 'synthetic product blank'],
  category: ['synthetic', 'synthetic', 'synthetic'],
  order_id: ['100', '101', '102', ''],
  order_status: ['placed', 'shipped', 'delivered', 'cancelled'],
  order_date: ['2024-03-01', '2024-03-01', '2024-03-02', '2024-03-03'],
  updated_at: ['2024-03-04 08:00:00', '2024-03-02 16:30:00', '2024-03-05 09:00:00', '2024-03-03 09:00:00'],
  order_item_id: ['1000', '1001', '1002', ''],
  // order 101's customer (orders) and item 1001's product are resolved below.
  quantity: ['2', '1', '3', '1'],
  unit_price: ['18.50', '9.95', '34.00', '1.00'],
};

/** Foreign keys per table: a blank one becomes NULL, never a dangling reference. */
const FOREIGN: { readonly [table: string]: { readonly [target: string]: readonly Value[] } } = {
  orders: { customer_id: ['1', ' ', '2', '1'] },
  order_items: { order_id: ['100', '101', '102', '102'], product_id: ['10', '', '11', '10'] },
};

const PROVENANCE = ['_migration_run_id', '_ingested_at_utc'] as const;

export interface FixtureFile {
  /** Relative to the fixtures folder. */
  readonly path: string;
  readonly content: string;
}

/** One CSV per table of the spec (the spec's own tables only), in the spec's order. */
export function bronzeFixtures(spec: BundleSpec): readonly FixtureFile[] {
  return spec.tables.map((table) => ({
    path: `${FIXTURE_SOURCE}/${snakeCase(table.table)}.csv`,
    content: tableCsv(table),
  }));
}

function tableCsv(table: SynthTableSpec): string {
  const columns: { readonly name: string; readonly target: string; readonly cast: Cast | undefined }[] = [];
  const seen = new Set<string>();
  const add = (name: string, target: string, cast: Cast | undefined): void => {
    if (seen.has(name)) return;
    seen.add(name);
    columns.push({ name, target, cast });
  };
  for (const column of table.columns) {
    if (column.rule !== undefined) add(snakeCase(column.raw), column.rule.target, column.rule.cast);
  }
  for (const column of table.columns) {
    if (column.rule !== undefined) add(column.rule.target, column.rule.target, column.rule.cast);
  }
  const rowCount = Math.min(...columns.map((column) => valuesOf(table.table, column.target).length));
  const header = [...columns.map((column) => column.name), ...PROVENANCE];
  const lines = [header.join(',')];
  for (let row = 0; row < rowCount; row += 1) {
    const cells = columns.map((column) => valuesOf(table.table, column.target)[row] ?? null);
    lines.push([...cells, 'synthetic_run', '2024-04-01T00:00:00Z'].map(csvField).join(','));
  }
  return `${lines.join('\n')}\n`;
}

function valuesOf(table: string, target: string): readonly Value[] {
  return FOREIGN[table]?.[target] ?? VALUES[target] ?? [];
}

/** Every value quoted: a quoted empty field is the empty string, never NULL (docs/editions.md). */
function csvField(value: Value): string {
  return value === null ? '' : `"${value.replaceAll('"', '""')}"`;
}
