import type { Cast } from '../migration/index.js';

/**
 * The canonical retail contract the scaffolder is limited to [D2]: four
 * tables, their canonical Silver columns in canonical order, the primary key
 * (fixed here, never read from the mapping, which has no key field) and the
 * foreign keys of the canonical relationships. `cast` is the canonical
 * Silver cast of the shipped `migration_silver_*` models: for a value column
 * it is used only when no mapping rule names the column (a rule's own cast
 * wins); keys are always `string`, like the shipped Silver keys, so every
 * relationships test compares columns of one type.
 */
export type CanonicalTableName = 'customers' | 'products' | 'orders' | 'order_items';

export interface CanonicalColumn {
  readonly name: string;
  readonly cast: Cast;
  readonly role: 'primary_key' | 'foreign_key' | 'value';
  /** For a foreign key: the canonical table it references (by its own primary key). */
  readonly references?: CanonicalTableName;
  /** The values the shipped Silver model's accepted_values test allows, where it has one. */
  readonly acceptedValues?: readonly string[];
}

export interface CanonicalTable {
  readonly name: CanonicalTableName;
  readonly primaryKey: string;
  /** Primary key first, then the contract order. */
  readonly columns: readonly CanonicalColumn[];
}

const key = (name: string): CanonicalColumn => ({ name, cast: 'string', role: 'primary_key' });
const foreign = (name: string, references: CanonicalTableName): CanonicalColumn => ({
  name,
  cast: 'string',
  role: 'foreign_key',
  references,
});
const value = (name: string, cast: Cast): CanonicalColumn => ({ name, cast, role: 'value' });

/** The order statuses of the shipped silver_orders accepted_values test (both editions). */
export const ORDER_STATUSES: readonly string[] = ['placed', 'shipped', 'delivered', 'cancelled', 'returned'];

export const CANONICAL_TABLES: readonly CanonicalTable[] = [
  {
    name: 'customers',
    primaryKey: 'customer_id',
    columns: [key('customer_id'), value('created_at', 'timestamp'), value('country', 'string')],
  },
  {
    name: 'products',
    primaryKey: 'product_id',
    columns: [key('product_id'), value('product_name', 'string'), value('category', 'string')],
  },
  {
    name: 'orders',
    primaryKey: 'order_id',
    columns: [
      key('order_id'),
      foreign('customer_id', 'customers'),
      { ...value('order_status', 'string'), acceptedValues: ORDER_STATUSES },
      value('order_date', 'date'),
      value('updated_at', 'timestamp'),
    ],
  },
  {
    name: 'order_items',
    primaryKey: 'order_item_id',
    columns: [
      key('order_item_id'),
      foreign('order_id', 'orders'),
      foreign('product_id', 'products'),
      value('quantity', 'integer'),
      value('unit_price', 'numeric'),
    ],
  },
];

const BY_NAME: ReadonlyMap<string, CanonicalTable> = new Map(CANONICAL_TABLES.map((t) => [t.name, t]));

/** The canonical table of a (case-folded) table name, or undefined outside the contract. */
export function canonicalTable(folded: string): CanonicalTable | undefined {
  return BY_NAME.get(folded);
}

/**
 * Casts whose warehouse behaviour (time zones, precision, rounding) is not
 * settled: generated files flag them for review (docs/scaffold.md#what-is-generated).
 */
export const REVIEW_CASTS: ReadonlySet<Cast> = new Set(['timestamp', 'date', 'numeric']);

/** Provenance columns the migration loader adds to every Bronze table; passed through unchanged. */
export const PROVENANCE_COLUMNS = ['_migration_run_id', '_ingested_at_utc'] as const;
