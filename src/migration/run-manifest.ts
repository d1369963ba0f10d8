import type { Sha256Hex } from '../core/digest/index.js';
import type { JsonObject, JsonValue } from '../core/json/index.js';
import { TOP_LEVEL_FIELD } from './fields.js';
import {
  codePointLength,
  type Destination,
  hasControlOrNewline,
  isCanonicalUuid,
  isOneOf,
  isSafeIdentifier,
  type SafeIdentifier,
  SOURCE_KINDS,
  type SourceBindingId,
  type SourceKind,
} from './identifiers.js';
import { EVIDENCE_LIMITS } from './limits.js';
import {
  readBronzeTables,
  readDestination,
  readHex,
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
import { type EpochMicros, parseUtcTimestamp } from './timestamps.js';

/** The manifest `kind` sealkit accepts (docs/evidence.md#decisions-sealkit-takes). */
export const RUN_MANIFEST_KIND = 'migration_run';
export const SQL_IDENTITY_SCOPE = 'descriptive_names_not_unique';
export const CSV_IDENTITY_SCOPE = 'pre_extraction_file_metadata';
export const MATCHED_AT_EXTRACTION = 'matched_at_extraction';

/**
 * The source schema name as recorded; judged only by binding step 6 (absent,
 * unsafe, or present for CSV is `scaffold_source_schema_unavailable`).
 */
export interface RecordedSourceSchema {
  readonly present: boolean;
  /** The name when it is present and a safe identifier. */
  readonly safe: SafeIdentifier | undefined;
}

/** SQL: descriptive schema and table names. CSV: the entities of the extracted files (names and sizes are never kept). */
export interface SourceIdentity {
  readonly kind: SourceKind;
  readonly schema: RecordedSourceSchema;
  /** SQL `tables`, or the CSV `files[].entity` values, in recorded order. */
  readonly entities: readonly SafeIdentifier[];
}

/** What `validateManifest` (`evidence_index._validate_manifest`) establishes. */
export interface ValidatedManifest {
  /** Never emitted; kept only to prove it names the file. */
  readonly runId: string;
  readonly status: 'completed';
  readonly destination: Destination;
  readonly bronzeNamespace: SafeIdentifier;
  /** Never emitted. */
  readonly pipelineName: SafeIdentifier;
  readonly entities: readonly SafeIdentifier[];
  readonly destinationTables: readonly SafeIdentifier[];
  readonly writeDisposition: 'replace';
  readonly sourceKind: SourceKind;
  readonly sourceIdentity: SourceIdentity;
  /** Never emitted. */
  readonly targetIdentity: TargetIdentity;
  readonly sourceSchemaObserved: Sha256Hex;
  readonly typedSchemaObserved: Sha256Hex;
}

/** The trusted subset of a completed run manifest; ignored fields are never read into it. */
export interface RunManifestRecord extends ValidatedManifest, SchemaRecord {
  readonly sourceBindingId: SourceBindingId | undefined;
  readonly startedAt: EpochMicros;
  readonly finishedAt: EpochMicros;
  readonly sourceMappingRuleCount: bigint;
  readonly typeProfile: TypeProfile;
}

const MANIFEST_KEYS = new Set([
  'run_id',
  'kind',
  'source_binding_id',
  'status',
  'source_kind',
  'source_identity',
  'entities',
  'destination_tables',
  'destination',
  'bronze_namespace',
  'target_identity',
  'pipeline_name',
  'write_disposition',
  'started_at_utc',
  'finished_at_utc',
  'source_schema_fingerprint_status',
  'typed_schema_fingerprint_status',
  'source_schema_fingerprint_observed',
  'typed_schema_fingerprint_observed',
  'source_schema_snapshot',
  'source_schema_snapshot_algorithm',
  'source_schema_fingerprint',
  'source_schema_fingerprint_algorithm',
  'typed_schema_fingerprint',
  'typed_schema_fingerprint_algorithm',
  'schema_confirmation_fingerprint',
  'schema_confirmation_algorithm',
  'source_mapping_fingerprint',
  'source_mapping_rule_count',
  'destination_type_profile',
  'destination_write_may_be_partial',
  'load_evidence_incomplete',
  // ignored
  'source_row_counts',
  'accepted_extraction_progress',
  'dlt_prepared_row_counts',
  'load_ids',
  'load_package_count',
  'load_job_counts',
  'extraction_reject_summary',
  'extraction_limits',
  'allow_empty_tables',
]);
/** `note` is ignored, never read; `schema` is allowed for both kinds so that step 6 judges it. */
const SQL_IDENTITY_KEYS = new Set([
  'kind',
  'schema',
  'tables',
  'connection_identity',
  'identity_scope',
  'note',
]);
const CSV_IDENTITY_KEYS = new Set(['kind', 'schema', 'files', 'identity_scope', 'note']);
const CSV_FILE_KEYS = new Set(['entity', 'file_name', 'size_bytes']);
const MAX_FILE_NAME_LENGTH = 255;

/** Admission bounds of a run manifest: the snapshot's, and at most 1,000 entities. */
export function checkRunManifestBounds(document: JsonObject): void {
  checkSnapshotBounds(document, 'run_manifest');
  const entities = own(document, 'entities');
  if (Array.isArray(entities) && entities.length > EVIDENCE_LIMITS.manifestEntities) {
    new FieldReader('run_manifest').fail('scaffold_input_oversized', 'entities');
  }
}

/**
 * `evidence_index._validate_manifest`: run ID and file name, status, kind,
 * destination, namespace, pipeline name, entities, write disposition, source
 * and target identity shape, and the SHA-256 fields. `fileName` is the
 * manifest's final path component, which must be `<run_id>.json`.
 */
export function validateManifest(document: JsonObject, fileName: string): ValidatedManifest {
  checkRunManifestBounds(document);
  const reader: FieldReader = new FieldReader('run_manifest');
  const runId = reader.string(reader.required(document, 'run_id', 'run_id'), 'run_id');
  if (!isCanonicalUuid(runId) || fileName !== `${runId}.json`) reader.malformed('run_id');
  if (reader.required(document, 'status', 'status') !== 'completed') {
    reader.fail('scaffold_evidence_run_not_completed', 'status');
  }
  if (reader.required(document, 'kind', 'kind') !== RUN_MANIFEST_KIND) reader.malformed('kind');
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
  const pipelineName = readSafe(
    reader,
    reader.required(document, 'pipeline_name', 'pipeline_name'),
    'pipeline_name',
  );
  const entities = readSafeList(reader, reader.required(document, 'entities', 'entities'), 'entities');
  if (entities.length === 0) reader.malformed('entities');
  const destinationTables = readBronzeTables(
    reader,
    reader.required(document, 'destination_tables', 'destination_tables'),
    entities,
  );
  if (reader.required(document, 'write_disposition', 'write_disposition') !== 'replace') {
    reader.malformed('write_disposition');
  }
  const sourceKind = reader.required(document, 'source_kind', 'source_kind');
  if (!isOneOf(SOURCE_KINDS, sourceKind)) reader.malformed('source_kind');
  const sourceIdentity = readSourceIdentity(
    reader,
    reader.required(document, 'source_identity', 'source_identity'),
  );
  const targetIdentity = readTargetIdentity(
    reader,
    reader.required(document, 'target_identity', 'target_identity'),
  );
  readHex(reader, document, 'source_schema_fingerprint', 'source_schema_fingerprint');
  readHex(reader, document, 'typed_schema_fingerprint', 'typed_schema_fingerprint');
  readHex(reader, document, 'source_mapping_fingerprint', 'source_mapping_fingerprint');
  readHex(reader, document, 'schema_confirmation_fingerprint', 'schema_confirmation_fingerprint');
  const sourceSchemaObserved = readHex(
    reader,
    document,
    'source_schema_fingerprint_observed',
    'source_schema_fingerprint_observed',
  );
  const typedSchemaObserved = readHex(
    reader,
    document,
    'typed_schema_fingerprint_observed',
    'typed_schema_fingerprint_observed',
  );
  return {
    runId,
    status: 'completed',
    destination,
    bronzeNamespace,
    pipelineName,
    entities,
    destinationTables,
    writeDisposition: 'replace',
    sourceKind,
    sourceIdentity,
    targetIdentity,
    sourceSchemaObserved,
    typedSchemaObserved,
  };
}

/**
 * The run manifest's whole field table (docs/evidence.md#field-tables):
 * `validateManifest`, then the further rows (alias, timestamps,
 * extraction-match statuses, snapshot and algorithms, rule count, type
 * profile, partial-write flags); unknown keys last.
 */
export function parseRunManifest(document: JsonObject, fileName: string): RunManifestRecord {
  const validated = validateManifest(document, fileName);
  const reader: FieldReader = new FieldReader('run_manifest');
  const sourceBindingId = readSourceBindingId(reader, document);
  const startedAt = readTimestamp(reader, document, 'started_at_utc');
  const finishedAt = readTimestamp(reader, document, 'finished_at_utc');
  if (startedAt > finishedAt) reader.malformed('started_at_utc');
  for (const field of ['source_schema_fingerprint_status', 'typed_schema_fingerprint_status'] as const) {
    if (reader.required(document, field, field) !== MATCHED_AT_EXTRACTION) {
      reader.fail('scaffold_evidence_schema_not_matched', field);
    }
  }
  const schema = readSchemaRecord(reader, document);
  if (validated.sourceSchemaObserved !== schema.sourceSchemaFingerprint) {
    reader.fail('scaffold_evidence_schema_not_matched', 'source_schema_fingerprint_observed');
  }
  if (validated.typedSchemaObserved !== schema.typedSchemaFingerprint) {
    reader.fail('scaffold_evidence_schema_not_matched', 'typed_schema_fingerprint_observed');
  }
  const sourceMappingRuleCount = reader.count(
    reader.required(document, 'source_mapping_rule_count', 'source_mapping_rule_count'),
    'source_mapping_rule_count',
  );
  const typeProfile = readTypeProfile(reader, document);
  const partial = reader.boolean(
    reader.required(document, 'destination_write_may_be_partial', 'destination_write_may_be_partial'),
    'destination_write_may_be_partial',
  );
  if (partial) reader.fail('scaffold_evidence_run_not_completed', 'destination_write_may_be_partial');
  const incomplete = own(document, 'load_evidence_incomplete');
  if (incomplete !== undefined) {
    if (reader.boolean(incomplete, 'load_evidence_incomplete')) {
      reader.fail('scaffold_evidence_run_not_completed', 'load_evidence_incomplete');
    }
  }
  reader.onlyKeys(document, MANIFEST_KEYS, TOP_LEVEL_FIELD);
  return {
    ...validated,
    ...schema,
    sourceBindingId,
    startedAt,
    finishedAt,
    sourceMappingRuleCount,
    typeProfile,
  };
}

function readTimestamp(
  reader: FieldReader,
  document: JsonObject,
  field: 'started_at_utc' | 'finished_at_utc',
): EpochMicros {
  const micros = parseUtcTimestamp(reader.string(reader.required(document, field, field), field));
  if (micros === undefined) reader.malformed(field);
  return micros;
}

function readSourceIdentity(reader: FieldReader, value: JsonValue): SourceIdentity {
  const identity = reader.object(value, 'source_identity');
  const kind = reader.required(identity, 'kind', 'source_identity.kind');
  if (!isOneOf(SOURCE_KINDS, kind)) reader.malformed('source_identity.kind');
  const schemaValue = own(identity, 'schema');
  const schema: RecordedSourceSchema = {
    present: schemaValue !== undefined,
    safe: typeof schemaValue === 'string' && isSafeIdentifier(schemaValue) ? schemaValue : undefined,
  };
  if (kind === 'sql') {
    const entities = readSafeList(
      reader,
      reader.required(identity, 'tables', 'source_identity.tables'),
      'source_identity.tables',
    );
    if (
      reader.required(identity, 'connection_identity', 'source_identity.connection_identity') !== 'redacted'
    ) {
      reader.malformed('source_identity.connection_identity');
    }
    if (
      reader.required(identity, 'identity_scope', 'source_identity.identity_scope') !== SQL_IDENTITY_SCOPE
    ) {
      reader.malformed('source_identity.identity_scope');
    }
    reader.onlyKeys(identity, SQL_IDENTITY_KEYS, 'source_identity');
    return { kind, schema, entities };
  }
  const files = reader.array(
    reader.required(identity, 'files', 'source_identity.files'),
    'source_identity.files',
  );
  const entities = files.map((item) => readCsvFileEntity(reader, item));
  if (reader.required(identity, 'identity_scope', 'source_identity.identity_scope') !== CSV_IDENTITY_SCOPE) {
    reader.malformed('source_identity.identity_scope');
  }
  reader.onlyKeys(identity, CSV_IDENTITY_KEYS, 'source_identity');
  return { kind, schema, entities };
}

/** `file_name` and `size_bytes` are checked for shape only; neither is kept. */
function readCsvFileEntity(reader: FieldReader, value: JsonValue): SafeIdentifier {
  const file = reader.object(value, 'source_identity.files[]');
  const entity = readSafe(
    reader,
    reader.required(file, 'entity', 'source_identity.files[].entity'),
    'source_identity.files[].entity',
  );
  const name = reader.string(
    reader.required(file, 'file_name', 'source_identity.files[].file_name'),
    'source_identity.files[].file_name',
  );
  const length = codePointLength(name);
  if (length === 0 || length > MAX_FILE_NAME_LENGTH || name.includes('/') || hasControlOrNewline(name)) {
    reader.malformed('source_identity.files[].file_name');
  }
  reader.count(
    reader.required(file, 'size_bytes', 'source_identity.files[].size_bytes'),
    'source_identity.files[].size_bytes',
  );
  reader.onlyKeys(file, CSV_FILE_KEYS, 'source_identity.files[]');
  return entity;
}
