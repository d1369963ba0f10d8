import type { JsonObject, JsonValue } from '../core/json/index.js';
import { TOP_LEVEL_FIELD } from './fields.js';
import {
  CASTS,
  type Cast,
  type Destination,
  type FoldedIdentifier,
  fold,
  isOneOf,
  type SafeIdentifier,
  SOURCE_KINDS,
  type SourceBindingId,
  type SourceKind,
} from './identifiers.js';
import { EVIDENCE_LIMITS } from './limits.js';
import {
  readBronzeTables,
  readDestination,
  readLabel,
  readSafe,
  readSafeList,
  readSourceBindingId,
  readTargetIdentity,
  readTypeProfile,
  type TargetIdentity,
  type TypeProfile,
} from './record-fields.js';
import { readSchemaRecord, type SchemaRecord } from './schema-record.js';
import { FieldReader, own } from './shape.js';
import { checkSnapshotBounds } from './snapshot.js';

export interface InventoryEntry {
  readonly table: SafeIdentifier;
  readonly status: string;
}

/** A rule as the dry run's mapping report restates it. */
export interface ReportedRule {
  readonly table: SafeIdentifier;
  readonly source: string;
  readonly target: SafeIdentifier;
  readonly cast: Cast;
}

export interface NormalizedColumn {
  /** A raw source column name, or a mapped target name (the map includes them). */
  readonly name: string;
  /** Its dlt-normalized Bronze column name. */
  readonly normalizedName: SafeIdentifier;
}

export interface NormalizedTable {
  readonly table: SafeIdentifier;
  /** Null when dlt naming was unavailable for the table. */
  readonly normalizedDestinationTable: SafeIdentifier | null;
  readonly normalizedColumns: readonly NormalizedColumn[] | null;
}

/** The trusted subset of a saved `--dry-run` report; ignored fields are never read into it. */
export interface DryRunRecord extends SchemaRecord {
  readonly sourceBindingId: SourceBindingId | undefined;
  readonly source: SourceKind;
  readonly destination: Destination;
  readonly bronzeNamespace: SafeIdentifier;
  readonly targetIdentity: TargetIdentity | null;
  readonly resolvedTables: readonly SafeIdentifier[];
  readonly destinationTables: readonly SafeIdentifier[];
  readonly inventory: readonly InventoryEntry[];
  readonly reportedRules: readonly ReportedRule[];
  readonly safeToExtract: boolean | null;
  readonly normalizedTables: readonly NormalizedTable[] | null;
  readonly typeProfile: TypeProfile;
  /** Null when no drift review ran; otherwise whether the fresh confirmation was verified. */
  readonly driftReviewVerified: boolean | null;
  readonly blockers: readonly string[];
}

/**
 * Every top-level key a dry run may hold: the trusted fields, then the ones
 * docs/evidence.md#dry-run---inventory-file lists as ignored (accepted, never
 * read). Anything else is refused.
 */
const DRY_RUN_KEYS = new Set([
  'mode',
  'source_binding_id',
  'source',
  'destination',
  'bronze_namespace',
  'target_identity',
  'resolved_tables',
  'destination_tables',
  'inventory',
  'source_schema_snapshot',
  'source_schema_snapshot_algorithm',
  'source_schema_fingerprint',
  'source_schema_fingerprint_algorithm',
  'typed_schema_fingerprint',
  'typed_schema_fingerprint_algorithm',
  'source_mapping_fingerprint',
  'schema_confirmation_fingerprint',
  'schema_confirmation_algorithm',
  'source_mapping_report',
  'normalized_identifier_safety',
  'destination_type_profile',
  'schema_drift_review',
  'blockers',
  'writes_performed',
  // ignored
  'retail_value_profile',
  'retail_contract_compatibility',
  'extraction_limits',
  'readiness_note',
]);
/** `columns` (raw dialect type labels) and `row_count` are ignored, never read. */
const INVENTORY_KEYS = new Set(['table', 'status', 'columns', 'row_count']);
const REPORT_KEYS = new Set(['valid', 'errors', 'mappings']);
const REPORTED_RULE_KEYS = new Set(['table', 'source', 'target', 'cast']);
const SAFETY_KEYS = new Set(['safe_to_extract', 'tables']);
const NORMALIZED_TABLE_KEYS = new Set(['table', 'normalized_destination_table', 'normalized_columns']);
const NORMALIZED_COLUMN_KEYS = new Set(['name', 'normalized_name']);
const DRIFT_REVIEW_KEYS = new Set(['fresh_confirmation_verified']);

/** Admission bounds of a dry run: the snapshot's. */
export function checkDryRunBounds(document: JsonObject): void {
  checkSnapshotBounds(document, 'dry_run');
  const inventory = own(document, 'inventory');
  if (Array.isArray(inventory) && inventory.length > EVIDENCE_LIMITS.inventoryEntries) {
    new FieldReader('dry_run').fail('scaffold_input_oversized', 'inventory');
  }
}

/**
 * The dry run's field table, row by row in the order of
 * docs/evidence.md#field-tables; unknown top-level keys last.
 */
export function parseDryRun(document: JsonObject): DryRunRecord {
  checkDryRunBounds(document);
  const reader: FieldReader = new FieldReader('dry_run');
  readLabel(reader, document, 'mode', 'mode', 'dry_run');
  const sourceBindingId = readSourceBindingId(reader, document);
  const source = reader.required(document, 'source', 'source');
  if (!isOneOf(SOURCE_KINDS, source)) reader.malformed('source');
  const destination = readDestination(
    reader,
    reader.required(document, 'destination', 'destination'),
    'destination',
  );
  const bronzeNamespace = readSafe(
    reader,
    reader.required(document, 'bronze_namespace', 'bronze_namespace'),
    'bronze_namespace',
  );
  const identityValue = reader.nullable(document, 'target_identity', 'target_identity');
  const targetIdentity = identityValue === null ? null : readTargetIdentity(reader, identityValue);
  const resolvedTables = readSafeList(
    reader,
    reader.required(document, 'resolved_tables', 'resolved_tables'),
    'resolved_tables',
  );
  if (!sortedByFold(resolvedTables)) reader.malformed('resolved_tables');
  const destinationTables = readBronzeTables(
    reader,
    reader.required(document, 'destination_tables', 'destination_tables'),
    resolvedTables,
  );
  const inventory = readInventory(reader, reader.required(document, 'inventory', 'inventory'));
  const schema = readSchemaRecord(reader, document);
  const reportedRules = readMappingReport(reader, document);
  const safety = readIdentifierSafety(reader, document);
  const typeProfile = readTypeProfile(reader, document);
  const driftReviewVerified = readDriftReview(reader, document);
  const blockers = reader
    .array(reader.required(document, 'blockers', 'blockers'), 'blockers')
    .map((blocker) => {
      if (typeof blocker !== 'string' || blocker.length === 0) reader.malformed('blockers');
      return blocker;
    });
  if (reader.required(document, 'writes_performed', 'writes_performed') !== false) {
    reader.malformed('writes_performed');
  }
  reader.onlyKeys(document, DRY_RUN_KEYS, TOP_LEVEL_FIELD);
  return {
    ...schema,
    sourceBindingId,
    source,
    destination,
    bronzeNamespace,
    targetIdentity,
    resolvedTables,
    destinationTables,
    inventory,
    reportedRules,
    safeToExtract: safety.safeToExtract,
    normalizedTables: safety.tables,
    typeProfile,
    driftReviewVerified,
    blockers,
  };
}

function sortedByFold(names: readonly SafeIdentifier[]): boolean {
  for (let i = 1; i < names.length; i++) {
    const previous = names[i - 1];
    const current = names[i];
    if (previous === undefined || current === undefined || !(fold(previous) < fold(current))) return false;
  }
  return true;
}

function readInventory(reader: FieldReader, value: JsonValue): readonly InventoryEntry[] {
  const seen = new Set<FoldedIdentifier>();
  return reader.array(value, 'inventory').map((item) => {
    const entry = reader.object(item, 'inventory[]');
    const table = readSafe(reader, reader.required(entry, 'table', 'inventory[].table'), 'inventory[].table');
    const status = reader.string(
      reader.required(entry, 'status', 'inventory[].status'),
      'inventory[].status',
    );
    reader.onlyKeys(entry, INVENTORY_KEYS, 'inventory[]');
    if (seen.has(fold(table))) reader.malformed('inventory[].table');
    seen.add(fold(table));
    return { table, status };
  });
}

/** `valid: true`, `errors` empty (its entries are never read), `mappings` well-formed. */
function readMappingReport(reader: FieldReader, document: JsonObject): readonly ReportedRule[] {
  const report = reader.object(
    reader.required(document, 'source_mapping_report', 'source_mapping_report'),
    'source_mapping_report',
  );
  const valid = reader.boolean(
    reader.required(report, 'valid', 'source_mapping_report.valid'),
    'source_mapping_report.valid',
  );
  if (!valid) reader.fail('scaffold_mapping_invalid', 'source_mapping_report.valid');
  const errors = reader.array(
    reader.required(report, 'errors', 'source_mapping_report.errors'),
    'source_mapping_report.errors',
  );
  if (errors.length !== 0) reader.fail('scaffold_mapping_invalid', 'source_mapping_report.errors');
  const mappings = reader.array(
    reader.required(report, 'mappings', 'source_mapping_report.mappings'),
    'source_mapping_report.mappings',
  );
  reader.onlyKeys(report, REPORT_KEYS, 'source_mapping_report');
  return mappings.map((item) => {
    const rule = reader.object(item, 'source_mapping_report.mappings[]');
    const table = readSafe(
      reader,
      reader.required(rule, 'table', 'source_mapping_report.mappings[].table'),
      'source_mapping_report.mappings[].table',
    );
    const source = reader.string(
      reader.required(rule, 'source', 'source_mapping_report.mappings[].source'),
      'source_mapping_report.mappings[].source',
    );
    const target = readSafe(
      reader,
      reader.required(rule, 'target', 'source_mapping_report.mappings[].target'),
      'source_mapping_report.mappings[].target',
    );
    const cast = reader.required(rule, 'cast', 'source_mapping_report.mappings[].cast');
    if (!isOneOf(CASTS, cast)) reader.malformed('source_mapping_report.mappings[].cast');
    reader.onlyKeys(rule, REPORTED_RULE_KEYS, 'source_mapping_report.mappings[]');
    return { table, source, target, cast };
  });
}

function readIdentifierSafety(
  reader: FieldReader,
  document: JsonObject,
): { readonly safeToExtract: boolean | null; readonly tables: readonly NormalizedTable[] | null } {
  const safety = reader.object(
    reader.required(document, 'normalized_identifier_safety', 'normalized_identifier_safety'),
    'normalized_identifier_safety',
  );
  const safeValue = reader.nullable(
    safety,
    'safe_to_extract',
    'normalized_identifier_safety.safe_to_extract',
  );
  const safeToExtract =
    safeValue === null ? null : reader.boolean(safeValue, 'normalized_identifier_safety.safe_to_extract');
  const tablesValue = reader.nullable(safety, 'tables', 'normalized_identifier_safety.tables');
  reader.onlyKeys(safety, SAFETY_KEYS, 'normalized_identifier_safety');
  if (tablesValue === null) return { safeToExtract, tables: null };
  const seen = new Set<FoldedIdentifier>();
  const tables = reader
    .array(tablesValue, 'normalized_identifier_safety.tables')
    .map((item): NormalizedTable => {
      const entry = reader.object(item, 'normalized_identifier_safety.tables[]');
      const table = readSafe(
        reader,
        reader.required(entry, 'table', 'normalized_identifier_safety.tables[].table'),
        'normalized_identifier_safety.tables[].table',
      );
      if (seen.has(fold(table))) reader.malformed('normalized_identifier_safety.tables[].table');
      seen.add(fold(table));
      const destinationValue = reader.nullable(
        entry,
        'normalized_destination_table',
        'normalized_identifier_safety.tables[].normalized_destination_table',
      );
      const normalizedDestinationTable =
        destinationValue === null
          ? null
          : readSafe(
              reader,
              destinationValue,
              'normalized_identifier_safety.tables[].normalized_destination_table',
            );
      const columnsValue = reader.nullable(
        entry,
        'normalized_columns',
        'normalized_identifier_safety.tables[].normalized_columns',
      );
      reader.onlyKeys(entry, NORMALIZED_TABLE_KEYS, 'normalized_identifier_safety.tables[]');
      const normalizedColumns = columnsValue === null ? null : readNormalizedColumns(reader, columnsValue);
      return { table, normalizedDestinationTable, normalizedColumns };
    });
  return { safeToExtract, tables };
}

/** A name → Bronze name map: each name appears once. */
function readNormalizedColumns(reader: FieldReader, value: JsonValue): readonly NormalizedColumn[] {
  const names = new Set<string>();
  return reader.array(value, 'normalized_identifier_safety.tables[].normalized_columns').map((item) => {
    const column = reader.object(item, 'normalized_identifier_safety.tables[].normalized_columns[]');
    const name = reader.string(
      reader.required(column, 'name', 'normalized_identifier_safety.tables[].normalized_columns[].name'),
      'normalized_identifier_safety.tables[].normalized_columns[].name',
    );
    if (name.length === 0 || names.has(name)) {
      reader.malformed('normalized_identifier_safety.tables[].normalized_columns[].name');
    }
    names.add(name);
    const normalizedName = readSafe(
      reader,
      reader.required(
        column,
        'normalized_name',
        'normalized_identifier_safety.tables[].normalized_columns[].normalized_name',
      ),
      'normalized_identifier_safety.tables[].normalized_columns[].normalized_name',
    );
    reader.onlyKeys(
      column,
      NORMALIZED_COLUMN_KEYS,
      'normalized_identifier_safety.tables[].normalized_columns[]',
    );
    return { name, normalizedName };
  });
}

function readDriftReview(reader: FieldReader, document: JsonObject): boolean | null {
  const value = reader.nullable(document, 'schema_drift_review', 'schema_drift_review');
  if (value === null) return null;
  const review = reader.object(value, 'schema_drift_review');
  const verified = reader.boolean(
    reader.required(review, 'fresh_confirmation_verified', 'schema_drift_review.fresh_confirmation_verified'),
    'schema_drift_review.fresh_confirmation_verified',
  );
  reader.onlyKeys(review, DRIFT_REVIEW_KEYS, 'schema_drift_review');
  return verified;
}
