import type { Sha256Hex } from '../core/digest/index.js';
import type { EvidenceRole } from './fields.js';
import {
  schemaConfirmationFingerprint,
  sourceSchemaFingerprint,
  typedSchemaFingerprint,
} from './fingerprints.js';
import type { SchemaRecord } from './schema-record.js';
import { FieldReader } from './shape.js';

/** The extraction-match fields only a run manifest carries. */
export interface ExtractionMatch {
  readonly sourceSchemaObserved: Sha256Hex;
  readonly typedSchemaObserved: Sha256Hex;
}

/**
 * `schema_drift.reviewed_schema_from_record` — binding step 1, applied to each
 * JSON artifact on its own: recompute both snapshot fingerprints from the
 * snapshot and the confirmation fingerprint from them and the recorded mapping
 * fingerprint; for a run manifest, also require the observed fingerprints to
 * equal the recomputed ones. Any difference is
 * `scaffold_fingerprint_recompute_mismatch`. Returns the record, now known to
 * be internally consistent.
 */
export function reviewedSchemaFromRecord<R extends SchemaRecord>(
  record: R & Partial<ExtractionMatch>,
  role: Exclude<EvidenceRole, 'mapping'>,
): R {
  const reader: FieldReader = new FieldReader(role);
  const sourceSchema = sourceSchemaFingerprint(record.snapshot);
  if (sourceSchema !== record.sourceSchemaFingerprint) {
    reader.fail('scaffold_fingerprint_recompute_mismatch', 'source_schema_fingerprint');
  }
  const typedSchema = typedSchemaFingerprint(record.snapshot);
  if (typedSchema !== record.typedSchemaFingerprint) {
    reader.fail('scaffold_fingerprint_recompute_mismatch', 'typed_schema_fingerprint');
  }
  const confirmation = schemaConfirmationFingerprint(
    record.sourceMappingFingerprint,
    sourceSchema,
    typedSchema,
  );
  if (confirmation !== record.schemaConfirmationFingerprint) {
    reader.fail('scaffold_fingerprint_recompute_mismatch', 'schema_confirmation_fingerprint');
  }
  if (record.sourceSchemaObserved !== undefined && record.sourceSchemaObserved !== sourceSchema) {
    reader.fail('scaffold_fingerprint_recompute_mismatch', 'source_schema_fingerprint_observed');
  }
  if (record.typedSchemaObserved !== undefined && record.typedSchemaObserved !== typedSchema) {
    reader.fail('scaffold_fingerprint_recompute_mismatch', 'typed_schema_fingerprint_observed');
  }
  return record;
}
