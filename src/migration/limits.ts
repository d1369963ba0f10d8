/**
 * The admission limits of migration evidence (docs/evidence.md#admission-limits).
 * sealkit must not raise any of them. Lengths count code points, as Python's
 * `len(str)` does.
 */
export const EVIDENCE_LIMITS = {
  /** `_MAX_MAPPING_FILE_BYTES`: 1 MiB. */
  mappingFileBytes: 1024 * 1024,
  /** `read_private_json` `DEFAULT_MAX_BYTES`: 10 MiB, for the dry run and the run manifest. */
  privateJsonBytes: 10 * 1024 * 1024,
  /** `schema_drift._MAX_*`: tables in a schema snapshot. */
  snapshotTables: 1000,
  /** `schema_drift._MAX_*`: columns per snapshot table. */
  snapshotColumnsPerTable: 4096,
  /** `schema_drift._MAX_*`: snapshot table names, column names and type families. */
  snapshotNameLength: 1024,
  /** `evidence_index._validate_manifest`: manifest entities (at least 1). */
  manifestEntities: 1000,
  /**
   * Dry-run `inventory` entries: one per selected table, and the selection
   * equals the snapshot and the manifest entities (at most 1,000 each), so
   * evidence that binds never has more.
   */
  inventoryEntries: 1000,
  /** `_MAX_MAPPING_SOURCE_NAME_LENGTH`: a mapping rule's source column name (at least 1). */
  mappingSourceNameLength: 255,
} as const;
