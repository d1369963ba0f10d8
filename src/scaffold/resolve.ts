import {
  type BoundEvidence,
  type BoundTable,
  type Cast,
  fold,
  type MappingRule,
  type SafeIdentifier,
} from '../migration/index.js';
import { type CanonicalColumn, type CanonicalTableName, canonicalTable } from './canonical.js';
import { refuseScaffold, type ScaffoldRefusalCode } from './refusals.js';
import { isEmittableIdentifier } from './sql-identifiers.js';

/** One canonical column of a generated model and the Bronze column it reads. */
export interface ResolvedColumn {
  readonly name: string;
  readonly role: CanonicalColumn['role'];
  readonly references?: CanonicalTableName;
  /** The dlt-normalized Bronze column, from the dry run only; never a raw source string. */
  readonly bronze: SafeIdentifier;
  readonly cast: Cast;
  /** True when a mapping rule names the column; false when an identically named Bronze column is read. */
  readonly mapped: boolean;
  /**
   * A key whose mapping rule casts it to something other than `string`: the
   * key is still generated as a string (like the shipped Silver keys) and
   * the model says so under its REVIEW header.
   */
  readonly mappingCast?: Cast;
  /**
   * A value column whose mapping rule casts it to something other than the
   * canonical Silver cast: the rule's cast is generated, and the model lists
   * the column under a REVIEW header with the canonical type, which the
   * generated tests and the shipped models downstream expect.
   */
  readonly canonicalCast?: Cast;
  readonly acceptedValues?: readonly string[];
}

export interface ResolvedModel {
  readonly table: CanonicalTableName;
  readonly bronzeTable: SafeIdentifier;
  /** Primary key first, then the canonical order. */
  readonly columns: readonly ResolvedColumn[];
}

export type Resolution =
  | { readonly ok: true; readonly models: readonly ResolvedModel[] }
  | {
      readonly ok: false;
      readonly code: ScaffoldRefusalCode;
      readonly role: 'mapping' | 'dry_run';
      readonly field: string;
      /** A canonical table name, the only name a refusal may carry. */
      readonly table?: CanonicalTableName;
    };

type TableRule =
  | 'non_canonical_target'
  | 'missing_primary_key'
  | 'missing_contract_column'
  | 'inventory_identifier_missing'
  | 'inventory_identifier_unsafe';

/** An input rule broken by one canonical table: the refusal names the table in its details. */
function violate(
  code: TableRule,
  role: 'mapping' | 'dry_run',
  field: string,
  table: CanonicalTableName,
): never {
  throw refuseScaffold(code, { role, field, details: { table } });
}

/**
 * The canonical retail scope (docs/scaffold.md#what-is-generated) over bound evidence: the tables to
 * scaffold are the mapping's tables, each canonical; every rule targets a
 * canonical column; every canonical column resolves to a rule (read through
 * the dry run's normalized name of the rule's source) or to an identically
 * named Bronze column; every emitted Bronze name is a safe identifier.
 * Models come back sorted by table name. Pure: no I/O.
 */
export function resolveModels(bound: BoundEvidence): Resolution {
  try {
    return { ok: true, models: resolveOrRefuse(bound) };
  } catch (error: unknown) {
    const role = refuseScaffold.is(error) ? error.role : undefined;
    if (!refuseScaffold.is(error) || error.field === undefined || (role !== 'mapping' && role !== 'dry_run'))
      throw error;
    const failure = { ok: false, code: error.code, role, field: error.field } as const;
    return error.details !== undefined && 'table' in error.details
      ? { ...failure, table: error.details.table }
      : failure;
  }
}

/** `resolveModels` for preflight: the models, or the scaffold refusal of the first rule broken. */
export function resolveOrRefuse(bound: BoundEvidence): readonly ResolvedModel[] {
  const mapped = bound.tables.filter((table) => table.rules.length > 0);
  const models = mapped.map((table) => resolveTable(table));
  models.sort((a, b) => (a.table < b.table ? -1 : a.table > b.table ? 1 : 0));
  return models;
}

function resolveTable(table: BoundTable): ResolvedModel {
  const contract = canonicalTable(fold(table.table));
  if (contract === undefined)
    throw refuseScaffold('non_canonical_table', { role: 'mapping', field: 'tables' });
  const name = contract.name;
  const canonicalNames = new Set(contract.columns.map((column) => column.name));
  for (const rule of table.rules) {
    if (!canonicalNames.has(fold(rule.target)))
      violate('non_canonical_target', 'mapping', 'tables[].target', name);
  }
  if (!isEmittableIdentifier(table.bronzeTable)) {
    violate('inventory_identifier_unsafe', 'dry_run', 'destination_tables', name);
  }
  const columns = contract.columns.map((column) => resolveColumn(table, column, name));
  return { table: name, bronzeTable: table.bronzeTable, columns };
}

function resolveColumn(table: BoundTable, column: CanonicalColumn, name: CanonicalTableName): ResolvedColumn {
  const rule: MappingRule | undefined = table.rules.find(
    (candidate) => fold(candidate.target) === column.name,
  );
  let bronze: string;
  let cast: Cast;
  if (rule !== undefined) {
    // The rule's source is a raw source string: it is only ever looked up, never emitted.
    const normalized = table.bronzeColumns.find((entry) => entry.name === rule.source);
    if (normalized === undefined) {
      violate(
        'inventory_identifier_missing',
        'dry_run',
        'normalized_identifier_safety.tables[].normalized_columns',
        name,
      );
    }
    bronze = normalized.normalizedName;
    // Keys keep the canonical key type whatever the mapping says: a string
    // key joined to an integer one fails on BigQuery.
    cast = column.role === 'value' ? rule.cast : column.cast;
  } else {
    const same = table.bronzeColumns.find((entry) => fold(entry.normalizedName) === column.name);
    if (same === undefined) {
      violate(
        column.role === 'primary_key' ? 'missing_primary_key' : 'missing_contract_column',
        'mapping',
        'tables[].target',
        name,
      );
    }
    bronze = same.normalizedName;
    cast = column.cast;
  }
  if (!isEmittableIdentifier(bronze)) {
    violate(
      'inventory_identifier_unsafe',
      'dry_run',
      'normalized_identifier_safety.tables[].normalized_columns',
      name,
    );
  }
  return {
    name: column.name,
    role: column.role,
    ...(column.references === undefined ? {} : { references: column.references }),
    bronze,
    cast,
    mapped: rule !== undefined,
    ...(rule !== undefined && rule.cast !== cast ? { mappingCast: rule.cast } : {}),
    ...(rule !== undefined && column.role === 'value' && rule.cast !== column.cast
      ? { canonicalCast: column.cast }
      : {}),
    ...(column.acceptedValues === undefined ? {} : { acceptedValues: column.acceptedValues }),
  };
}
