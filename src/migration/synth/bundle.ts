import { sha256Hex } from '../../core/digest/index.js';
import type { JsonObject, JsonValue } from '../../core/json/index.js';
import {
  mappingsFingerprint,
  SCHEMA_CONFIRMATION_ALGORITHM,
  SNAPSHOT_ALGORITHM,
  SOURCE_SCHEMA_ALGORITHM,
  schemaConfirmationFingerprint,
  sourceSchemaFingerprint,
  TYPE_PROFILE_ALGORITHM,
  TYPED_SCHEMA_ALGORITHM,
  typedSchemaFingerprint,
} from '../fingerprints.js';
import {
  type Cast,
  type Destination,
  fold,
  type SafeIdentifier,
  type SourceKind,
  type TypeFamily,
} from '../identifiers.js';
import { parseMapping } from '../mapping.js';
import {
  CSV_IDENTITY_SCOPE,
  MATCHED_AT_EXTRACTION,
  RUN_MANIFEST_KIND,
  SQL_IDENTITY_SCOPE,
} from '../run-manifest.js';
import type { SnapshotTable } from '../snapshot.js';
import { type EpochMicros, formatUtcTimestamp } from '../timestamps.js';
import { snakeCase } from './normalize.js';

export const SYNTHETIC_NOTE =
  'SYNTHETIC evidence written by `sealkit evidence synth`: a test fixture, not produced by a loader and not describing any real source';

export interface SynthColumnSpec {
  /** The raw source header. */
  readonly raw: string;
  readonly family: TypeFamily;
  /** What the source reports as its type (ignored evidence). */
  readonly dialectType: string;
  /** The reviewed mapping rule for the column, if it is mapped. */
  readonly rule?: { readonly target: string; readonly cast: Cast };
}

export interface SynthTableSpec {
  /** The entity name, a safe identifier. */
  readonly table: string;
  readonly columns: readonly SynthColumnSpec[];
}

/** Everything a bundle is made from; equal specs give byte-identical bundles. */
export interface BundleSpec {
  readonly source: SourceKind;
  readonly destination: Destination;
  /** In invocation (`--tables`) order; the dry run sorts them, SQL manifest entities keep this order. */
  readonly tables: readonly SynthTableSpec[];
  readonly sourceBindingId: string;
  readonly namespace: string;
  readonly runId: string;
  readonly startedAt: EpochMicros;
  readonly finishedAt: EpochMicros;
  /** Seeds the ignored counts and sizes. */
  readonly seed: number;
}

export interface EvidenceBundle {
  readonly mapping: JsonObject;
  readonly dryRun: JsonObject;
  readonly runManifest: JsonObject;
  readonly runId: string;
}

const BLOCKERS = [
  'target_not_verified',
  'table_list_not_confirmed',
  'namespace_not_verified_by_config_resolving_dry_run',
];

/** A deterministic integer in [min, max] for `label`. */
export function seededInt(seed: number, label: string, min: number, max: number): number {
  const draw = Number.parseInt(sha256Hex(`${seed}:${label}`).slice(0, 12), 16);
  return min + (draw % (max - min + 1));
}

/** A warehouse location naming the namespace as its final segment, in each destination's usual case. */
export function syntheticTargetIdentity(destination: Destination, namespace: string, seed: number): string {
  if (destination === 'bigquery') return `synthetic-project-${seed}/${namespace}`;
  if (destination === 'snowflake') return `SYNTHETIC_ACCOUNT/SYNTHETIC_DB_${seed}/${namespace.toUpperCase()}`;
  return `synthetic-warehouse-${seed}.duckdb/${namespace}`;
}

/**
 * Builds a mapping, a dry run and a completed run manifest that bind: every
 * fingerprint is computed with the readers' own constructions, and the
 * mapping fingerprint from the mapping parsed by `parseMapping`. Ignored
 * fields are filled with plausible synthetic values so that tests can prove
 * they are never read or emitted.
 */
export function buildEvidenceBundle(spec: BundleSpec): EvidenceBundle {
  const sorted = [...spec.tables].sort((a, b) => compare(a.table.toLowerCase(), b.table.toLowerCase()));
  const mapped = spec.tables.filter((table) => table.columns.some((column) => column.rule !== undefined));
  const mapping: JsonObject = {
    version: 1,
    tables: Object.fromEntries(
      mapped.map((table) => [
        table.table,
        table.columns.flatMap((column) =>
          column.rule === undefined
            ? []
            : [{ source: column.raw, target: column.rule.target, cast: column.rule.cast }],
        ),
      ]),
    ),
  };
  const family = (column: SynthColumnSpec): TypeFamily => (spec.source === 'csv' ? 'string' : column.family);
  const snapshot: SnapshotTable[] = sorted.map((table) => ({
    table: table.table as SafeIdentifier,
    folded: fold(table.table as SafeIdentifier),
    columns: table.columns.map((column) => ({ name: column.raw, typeFamily: family(column) })),
  }));
  const mappingFingerprint = mappingsFingerprint(parseMapping(mapping));
  const sourceSchema = sourceSchemaFingerprint(snapshot);
  const typedSchema = typedSchemaFingerprint(snapshot);
  const schemaRecord: JsonObject = {
    source_schema_snapshot: snapshot.map((table) => ({
      table: table.table,
      columns: table.columns.map((column) => ({ name: column.name, type_family: column.typeFamily })),
    })),
    source_schema_snapshot_algorithm: SNAPSHOT_ALGORITHM,
    source_schema_fingerprint: sourceSchema,
    source_schema_fingerprint_algorithm: SOURCE_SCHEMA_ALGORITHM,
    typed_schema_fingerprint: typedSchema,
    typed_schema_fingerprint_algorithm: TYPED_SCHEMA_ALGORITHM,
    source_mapping_fingerprint: mappingFingerprint,
    schema_confirmation_fingerprint: schemaConfirmationFingerprint(
      mappingFingerprint,
      sourceSchema,
      typedSchema,
    ),
    schema_confirmation_algorithm: SCHEMA_CONFIRMATION_ALGORITHM,
  };
  const profile: JsonObject = {
    destination: spec.destination,
    name: `${spec.destination}-numeric-default`,
    algorithm: TYPE_PROFILE_ALGORITHM,
  };
  const targetIdentity = syntheticTargetIdentity(spec.destination, spec.namespace, spec.seed);
  const bronze = (table: SynthTableSpec): string => snakeCase(table.table);
  const rows = (table: SynthTableSpec): number => seededInt(spec.seed, `rows:${table.table}`, 1200, 98_000);
  const ruleCount = spec.tables.reduce(
    (total, table) => total + table.columns.filter((column) => column.rule !== undefined).length,
    0,
  );

  const dryRun: JsonObject = {
    mode: 'dry_run',
    source_binding_id: spec.sourceBindingId,
    source: spec.source,
    destination: spec.destination,
    bronze_namespace: spec.namespace,
    target_identity: targetIdentity,
    resolved_tables: sorted.map((table) => table.table),
    destination_tables: sorted.map(bronze),
    inventory: sorted.map((table) => ({
      table: table.table,
      status: 'ready',
      row_count: rows(table),
      columns: table.columns.map((column) => ({
        name: column.raw,
        type: spec.source === 'csv' ? 'text' : column.dialectType,
      })),
    })),
    ...schemaRecord,
    source_mapping_report: {
      valid: true,
      errors: [],
      mappings: mapped.flatMap((table) =>
        table.columns.flatMap((column) =>
          column.rule === undefined
            ? []
            : [
                {
                  table: table.table,
                  source: column.raw,
                  target: column.rule.target,
                  cast: column.rule.cast,
                },
              ],
        ),
      ),
    },
    normalized_identifier_safety: {
      safe_to_extract: true,
      tables: sorted.map((table) => ({
        table: table.table,
        normalized_destination_table: bronze(table),
        normalized_columns: normalizedColumns(table),
      })),
    },
    destination_type_profile: profile,
    schema_drift_review: null,
    blockers: BLOCKERS,
    writes_performed: false,
    retail_value_profile: { synthetic: true, note: SYNTHETIC_NOTE },
    retail_contract_compatibility: { synthetic: true, compatible: true },
    extraction_limits: { max_rows_per_table: 1_000_000 },
    readiness_note: SYNTHETIC_NOTE,
  };

  const sourceIdentity: JsonObject =
    spec.source === 'sql'
      ? {
          kind: 'sql',
          schema: 'retail',
          tables: spec.tables.map((table) => table.table),
          connection_identity: 'redacted',
          identity_scope: SQL_IDENTITY_SCOPE,
          note: SYNTHETIC_NOTE,
        }
      : {
          kind: 'csv',
          files: spec.tables.map((table) => ({
            entity: table.table,
            file_name: `${table.table}.csv`,
            size_bytes: rows(table) * seededInt(spec.seed, `width:${table.table}`, 40, 160),
          })),
          identity_scope: CSV_IDENTITY_SCOPE,
          note: SYNTHETIC_NOTE,
        };
  const counts: JsonObject = Object.fromEntries(spec.tables.map((table) => [table.table, rows(table)]));
  const runManifest: JsonObject = {
    run_id: spec.runId,
    kind: RUN_MANIFEST_KIND,
    source_binding_id: spec.sourceBindingId,
    status: 'completed',
    source_kind: spec.source,
    source_identity: sourceIdentity,
    entities: spec.tables.map((table) => table.table),
    destination_tables: spec.tables.map(bronze),
    destination: spec.destination,
    bronze_namespace: spec.namespace,
    target_identity: targetIdentity,
    pipeline_name: `${spec.namespace}_pipeline`,
    write_disposition: 'replace',
    started_at_utc: formatUtcTimestamp(spec.startedAt),
    finished_at_utc: formatUtcTimestamp(spec.finishedAt),
    source_schema_fingerprint_status: MATCHED_AT_EXTRACTION,
    typed_schema_fingerprint_status: MATCHED_AT_EXTRACTION,
    source_schema_fingerprint_observed: sourceSchema,
    typed_schema_fingerprint_observed: typedSchema,
    ...schemaRecord,
    source_mapping_rule_count: ruleCount,
    destination_type_profile: profile,
    destination_write_may_be_partial: false,
    load_evidence_incomplete: false,
    source_row_counts: counts,
    accepted_extraction_progress: counts,
    dlt_prepared_row_counts: counts,
    load_ids: [`${Math.floor(spec.finishedAt / 1_000_000)}.${seededInt(spec.seed, 'load', 100000, 999999)}`],
    load_package_count: 1,
    load_job_counts: { completed_jobs: spec.tables.length, failed_jobs: 0 },
    extraction_reject_summary: { rejected_rows: 0 },
    extraction_limits: { max_rows_per_table: 1_000_000 },
    allow_empty_tables: false,
  };
  return { mapping, dryRun, runManifest, runId: spec.runId };
}

/** Raw header → Bronze name, then mapped targets not already listed (the map includes them). */
function normalizedColumns(table: SynthTableSpec): JsonValue[] {
  const entries = table.columns.map((column) => ({
    name: column.raw,
    normalized_name: snakeCase(column.raw),
  }));
  const names = new Set(entries.map((entry) => entry.name));
  for (const column of table.columns) {
    const target = column.rule?.target;
    if (target !== undefined && !names.has(target)) {
      names.add(target);
      entries.push({ name: target, normalized_name: target });
    }
  }
  return entries;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
