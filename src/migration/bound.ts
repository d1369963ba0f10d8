import type { Sha256Hex } from '../core/digest/index.js';
import type { NormalizedColumn } from './dry-run.js';
import type { EditionDestination, EditionPath } from './edition.js';
import type { SafeIdentifier, SourceBindingId, SourceKind } from './identifiers.js';
import type { MappingRule } from './mapping.js';
import type { SnapshotColumn } from './snapshot.js';

/** One selected table, as a generator may use it. */
export interface BoundTable {
  /** The selected entity, as the dry run names it. */
  readonly table: SafeIdentifier;
  /** Its dlt-normalized Bronze table name. */
  readonly bronzeTable: SafeIdentifier;
  /** Snapshot columns in source order: exact raw names and type families (never raw dialect types). */
  readonly sourceColumns: readonly SnapshotColumn[];
  /** The dry run's name → Bronze column name map for the table, including mapped targets. */
  readonly bronzeColumns: readonly NormalizedColumn[];
  /** The mapping rules of the table in file order; empty when the mapping does not name it. */
  readonly rules: readonly MappingRule[];
}

/**
 * The two integrity markers a generated asset may carry. Unkeyed SHA-256:
 * they show the artifacts agree, never who produced or reviewed them.
 */
export interface IntegrityMarkers {
  readonly sourceMappingFingerprint: Sha256Hex;
  readonly schemaConfirmationFingerprint: Sha256Hex;
}

/**
 * Evidence that passed every admission, field-table and binding check: the
 * typed subset a Silver generator may use. It holds no target identity,
 * pipeline name, run ID, file name, size, count, load ID, raw dialect type
 * or path; the Bronze namespace is left out on purpose, since generated
 * assets must reference it through MIGRATION_BRONZE_NAMESPACE.
 */
export interface BoundEvidence {
  readonly status: 'bound';
  readonly destination: EditionDestination;
  readonly edition: EditionPath;
  readonly sourceKind: SourceKind;
  readonly sourceBindingId: SourceBindingId;
  /** Sorted by folded table name. */
  readonly tables: readonly BoundTable[];
  readonly integrity: IntegrityMarkers;
}
