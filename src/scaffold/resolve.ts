import {
  type BoundEvidence,
  type BoundTable,
  type Cast,
  fold,
  type MappingRule,
  type SafeIdentifier,
} from '../migration/index.js';
import { type CanonicalColumn, type CanonicalTableName, canonicalTable } from './canonical.js';
import type { ScaffoldRefusalCode } from './refusals.js';
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

class RuleViolation extends Error {
  constructor(readonly failure: Extract<Resolution, { ok: false }>) {
    super(failure.code);
  }
}

function violate(
  code: ScaffoldRefusalCode,
  role: 'mapping' | 'dry_run',
  field: string,
  table?: CanonicalTableName,
): never {
  throw new RuleViolation(
    table === undefined ? { ok: false, code, role, field } : { ok: false, code, role, field, table },
  );
}

/**
 * The canonical retail scope (§3.2) over bound evidence: the tables to
 * scaffold are the mapping's tables, each canonical; every rule targets a
 * canonical column; every canonical column resolves to a rule (read through
 * the dry run's normalized name of the rule's source) or to an identically
 * named Bronze column; every emitted Bronze name is a safe identifier.
 * Models come back sorted by table name. Pure: no I/O.
 */
export function resolveModels(bound: BoundEvidence): Resolution {
  try {
    const mapped = bound.tables.filter((table) => table.rules.length > 0);
    const models = mapped.map((table) => resolveTable(table));
    models.sort((a, b) => (a.table < b.table ? -1 : a.table > b.table ? 1 : 0));
    return { ok: true, models };
  } catch (error: unknown) {
    if (error instanceof RuleViolation) return error.failure;
    throw error;
  }
}

function resolveTable(table: BoundTable): ResolvedModel {
  const contract = canonicalTable(fold(table.table));
  if (contract === undefined) violate('non_canonical_table', 'mapping', 'tables');
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
    cast = rule.cast;
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
  };
}
