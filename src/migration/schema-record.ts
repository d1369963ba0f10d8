import type { Sha256Hex } from '../core/digest/index.js';
import type { JsonObject } from '../core/json/index.js';
import {
  SCHEMA_CONFIRMATION_ALGORITHM,
  SNAPSHOT_ALGORITHM,
  SOURCE_SCHEMA_ALGORITHM,
  TYPED_SCHEMA_ALGORITHM,
} from './fingerprints.js';
import { readHex, readLabel } from './record-fields.js';
import type { FieldReader } from './shape.js';
import { parseSnapshot, type SnapshotTable } from './snapshot.js';

/** The reviewed schema state a dry run and a run manifest both record. */
export interface SchemaRecord {
  readonly snapshot: readonly SnapshotTable[];
  readonly sourceSchemaFingerprint: Sha256Hex;
  readonly typedSchemaFingerprint: Sha256Hex;
  readonly sourceMappingFingerprint: Sha256Hex;
  readonly schemaConfirmationFingerprint: Sha256Hex;
}

/**
 * The snapshot, the three fingerprints with their algorithm labels, and the
 * mapping fingerprint, in the row order of docs/evidence.md#field-tables.
 */
export function readSchemaRecord(reader: FieldReader, record: JsonObject): SchemaRecord {
  const snapshot = parseSnapshot(
    reader,
    reader.required(record, 'source_schema_snapshot', 'source_schema_snapshot'),
  );
  readLabel(
    reader,
    record,
    'source_schema_snapshot_algorithm',
    'source_schema_snapshot_algorithm',
    SNAPSHOT_ALGORITHM,
  );
  const sourceSchemaFingerprint = readHex(
    reader,
    record,
    'source_schema_fingerprint',
    'source_schema_fingerprint',
  );
  readLabel(
    reader,
    record,
    'source_schema_fingerprint_algorithm',
    'source_schema_fingerprint_algorithm',
    SOURCE_SCHEMA_ALGORITHM,
  );
  const typedSchemaFingerprint = readHex(
    reader,
    record,
    'typed_schema_fingerprint',
    'typed_schema_fingerprint',
  );
  readLabel(
    reader,
    record,
    'typed_schema_fingerprint_algorithm',
    'typed_schema_fingerprint_algorithm',
    TYPED_SCHEMA_ALGORITHM,
  );
  const sourceMappingFingerprint = readHex(
    reader,
    record,
    'source_mapping_fingerprint',
    'source_mapping_fingerprint',
  );
  const schemaConfirmationFingerprint = readHex(
    reader,
    record,
    'schema_confirmation_fingerprint',
    'schema_confirmation_fingerprint',
  );
  readLabel(
    reader,
    record,
    'schema_confirmation_algorithm',
    'schema_confirmation_algorithm',
    SCHEMA_CONFIRMATION_ALGORITHM,
  );
  return {
    snapshot,
    sourceSchemaFingerprint,
    typedSchemaFingerprint,
    sourceMappingFingerprint,
    schemaConfirmationFingerprint,
  };
}
