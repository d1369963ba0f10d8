import { isJsonObject, type JsonObject, type JsonValue } from '../core/json/index.js';
import type { EvidenceRole } from './fields.js';
import {
  type FoldedIdentifier,
  fold,
  isOneOf,
  isSafeIdentifier,
  longerThan,
  type SafeIdentifier,
  TYPE_FAMILIES,
  type TypeFamily,
} from './identifiers.js';
import { EVIDENCE_LIMITS } from './limits.js';
import { FieldReader, own } from './shape.js';

export interface SnapshotColumn {
  /** The exact raw source column name. */
  readonly name: string;
  readonly typeFamily: TypeFamily;
}

/**
 * One table of a `table-ordered-column-name-type-family-v1` snapshot. A table
 * missing at the source has no columns (gap 9, docs/evidence.md#evidence-gaps):
 * only the inventory status tells it apart from a columnless one.
 */
export interface SnapshotTable {
  readonly table: SafeIdentifier;
  readonly folded: FoldedIdentifier;
  /** In source order. */
  readonly columns: readonly SnapshotColumn[];
}

const TABLE_KEYS = new Set(['table', 'columns']);
const COLUMN_KEYS = new Set(['name', 'type_family']);

/**
 * Admission bounds of a snapshot (`schema_drift._MAX_*`): at most 1,000
 * tables, 4,096 columns per table, and 1,024 code points per table name,
 * column name and type family. Applied wherever the shape lets them apply.
 */
export function checkSnapshotBounds(record: JsonObject, role: EvidenceRole): void {
  const reader: FieldReader = new FieldReader(role);
  const snapshot = own(record, 'source_schema_snapshot');
  if (!Array.isArray(snapshot)) return;
  if (snapshot.length > EVIDENCE_LIMITS.snapshotTables) {
    reader.fail('scaffold_input_oversized', 'source_schema_snapshot');
  }
  for (const table of snapshot as readonly JsonValue[]) {
    if (!isJsonObject(table)) continue;
    if (tooLong(own(table, 'table')))
      reader.fail('scaffold_input_oversized', 'source_schema_snapshot[].table');
    const columns = own(table, 'columns');
    if (!Array.isArray(columns)) continue;
    if (columns.length > EVIDENCE_LIMITS.snapshotColumnsPerTable) {
      reader.fail('scaffold_input_oversized', 'source_schema_snapshot[].columns');
    }
    for (const column of columns as readonly JsonValue[]) {
      if (!isJsonObject(column)) continue;
      if (tooLong(own(column, 'name'))) {
        reader.fail('scaffold_input_oversized', 'source_schema_snapshot[].columns[].name');
      }
      if (tooLong(own(column, 'type_family'))) {
        reader.fail('scaffold_input_oversized', 'source_schema_snapshot[].columns[].type_family');
      }
    }
  }
}

function tooLong(value: JsonValue | undefined): boolean {
  return typeof value === 'string' && longerThan(value, EVIDENCE_LIMITS.snapshotNameLength);
}

/**
 * The snapshot's field table: an array of `{"table", "columns"}` sorted by
 * folded table name (so no two tables fold alike), each column exactly
 * `{"name", "type_family"}` with a non-empty name and a listed type family.
 */
export function parseSnapshot(reader: FieldReader, value: JsonValue): readonly SnapshotTable[] {
  const array = reader.array(value, 'source_schema_snapshot');
  const tables: SnapshotTable[] = [];
  let previous: FoldedIdentifier | undefined;
  for (const item of array) {
    const entry = reader.object(item, 'source_schema_snapshot[]');
    const table = reader.string(
      reader.required(entry, 'table', 'source_schema_snapshot[].table'),
      'source_schema_snapshot[].table',
    );
    const columnsValue = reader.required(entry, 'columns', 'source_schema_snapshot[].columns');
    reader.onlyKeys(entry, TABLE_KEYS, 'source_schema_snapshot[]');
    if (!isSafeIdentifier(table)) reader.malformed('source_schema_snapshot[].table');
    const folded = fold(table);
    if (previous !== undefined && !(previous < folded)) reader.malformed('source_schema_snapshot');
    previous = folded;
    const columns = reader.array(columnsValue, 'source_schema_snapshot[].columns').map((columnValue) => {
      const column = reader.object(columnValue, 'source_schema_snapshot[].columns[]');
      const name = reader.required(column, 'name', 'source_schema_snapshot[].columns[].name');
      const family = reader.required(column, 'type_family', 'source_schema_snapshot[].columns[].type_family');
      reader.onlyKeys(column, COLUMN_KEYS, 'source_schema_snapshot[].columns[]');
      if (typeof name !== 'string' || name.length === 0)
        reader.malformed('source_schema_snapshot[].columns[].name');
      if (!isOneOf(TYPE_FAMILIES, family)) reader.malformed('source_schema_snapshot[].columns[].type_family');
      return { name, typeFamily: family };
    });
    tables.push({ table, folded, columns });
  }
  return tables;
}
