/**
 * Where a refusal points: the artifact role and an allowlisted field path.
 * Paths are written by sealkit from this list only (a compile-time union),
 * never built from input, so a table, column or key name cannot reach a log.
 * `[]` stands for "some element"; `tables[]` is some table of the mapping.
 */

export const EVIDENCE_ROLES = ['mapping', 'dry_run', 'run_manifest'] as const;
export type EvidenceRole = (typeof EVIDENCE_ROLES)[number];

/**
 * The field of an unknown top-level key: the document itself holds it, and the
 * key's name is never shown (docs/evidence.md#field-tables).
 */
export const TOP_LEVEL_FIELD = 'top_level_keys';

export const EVIDENCE_FIELDS = [
  TOP_LEVEL_FIELD,
  // mapping
  'version',
  'tables',
  'tables[]',
  'tables[].source',
  'tables[].target',
  'tables[].cast',
  // dry run and run manifest
  'mode',
  'kind',
  'run_id',
  'status',
  'source_binding_id',
  'source',
  'source_kind',
  'destination',
  'bronze_namespace',
  'target_identity',
  'pipeline_name',
  'resolved_tables',
  'entities',
  'destination_tables',
  'inventory',
  'inventory[]',
  'inventory[].table',
  'inventory[].status',
  'source_schema_snapshot',
  'source_schema_snapshot[]',
  'source_schema_snapshot[].table',
  'source_schema_snapshot[].columns',
  'source_schema_snapshot[].columns[]',
  'source_schema_snapshot[].columns[].name',
  'source_schema_snapshot[].columns[].type_family',
  'source_schema_snapshot_algorithm',
  'source_schema_fingerprint',
  'source_schema_fingerprint_algorithm',
  'typed_schema_fingerprint',
  'typed_schema_fingerprint_algorithm',
  'source_mapping_fingerprint',
  'source_mapping_rule_count',
  'schema_confirmation_fingerprint',
  'schema_confirmation_algorithm',
  'source_mapping_report',
  'source_mapping_report.valid',
  'source_mapping_report.errors',
  'source_mapping_report.mappings',
  'source_mapping_report.mappings[]',
  'source_mapping_report.mappings[].table',
  'source_mapping_report.mappings[].source',
  'source_mapping_report.mappings[].target',
  'source_mapping_report.mappings[].cast',
  'normalized_identifier_safety',
  'normalized_identifier_safety.safe_to_extract',
  'normalized_identifier_safety.tables',
  'normalized_identifier_safety.tables[]',
  'normalized_identifier_safety.tables[].table',
  'normalized_identifier_safety.tables[].normalized_destination_table',
  'normalized_identifier_safety.tables[].normalized_columns',
  'normalized_identifier_safety.tables[].normalized_columns[]',
  'normalized_identifier_safety.tables[].normalized_columns[].name',
  'normalized_identifier_safety.tables[].normalized_columns[].normalized_name',
  'destination_type_profile',
  'destination_type_profile.destination',
  'destination_type_profile.name',
  'destination_type_profile.algorithm',
  'schema_drift_review',
  'schema_drift_review.fresh_confirmation_verified',
  'blockers',
  'writes_performed',
  'source_identity',
  'source_identity.kind',
  'source_identity.schema',
  'source_identity.tables',
  'source_identity.files',
  'source_identity.files[]',
  'source_identity.files[].entity',
  'source_identity.files[].file_name',
  'source_identity.files[].size_bytes',
  'source_identity.connection_identity',
  'source_identity.identity_scope',
  'write_disposition',
  'started_at_utc',
  'finished_at_utc',
  'source_schema_fingerprint_status',
  'typed_schema_fingerprint_status',
  'source_schema_fingerprint_observed',
  'typed_schema_fingerprint_observed',
  'destination_write_may_be_partial',
  'load_evidence_incomplete',
  // the invocation (maximum evidence age)
  'max_evidence_age',
] as const;

export type EvidenceField = (typeof EVIDENCE_FIELDS)[number];
