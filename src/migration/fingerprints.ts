import { type Sha256Hex, sha256Hex } from '../core/digest/index.js';
import { pyDumps } from '../core/json/index.js';
import type { Mapping } from './mapping.js';
import type { SnapshotTable } from './snapshot.js';

/**
 * The fingerprint constructions of DESIGN.md "Migration evidence". Each is the
 * SHA-256 (64 lowercase hex) of the UTF-8 bytes of Python's
 * `json.dumps(v, sort_keys=True, ensure_ascii=False, separators=(",", ":"))`.
 * They are unkeyed integrity checks: anyone who can edit an artifact can
 * recompute them, so they prove agreement between artifacts, never provenance.
 */

export const SNAPSHOT_ALGORITHM = 'table-ordered-column-name-type-family-v1';
export const SOURCE_SCHEMA_ALGORITHM = 'sha256-table-and-ordered-column-names-v1';
export const TYPED_SCHEMA_ALGORITHM = 'sha256-table-column-type-families-v1';
export const SCHEMA_CONFIRMATION_ALGORITHM = 'sha256-schema-and-mapping-v1';
export const TYPE_PROFILE_ALGORITHM = 'destination-numeric-type-profile-v1';

function fingerprint(value: unknown): Sha256Hex {
  return sha256Hex(pyDumps(value));
}

/**
 * `mappings_fingerprint`: the normalized mapping
 * `{folded_table: [{"cast", "source", "target"}, ...]}`, rules in file order.
 * The empty mapping `{}` hashes to 44136fa3…aaff8a; `parseMapping` refuses it.
 */
export function mappingsFingerprint(mapping: Mapping): Sha256Hex {
  // A null prototype: a table is any safe identifier, `__proto__` included,
  // and on a plain object assigning that key would set the prototype instead
  // of adding the table.
  const normalized: Record<string, readonly object[]> = Object.create(null);
  for (const table of mapping.tables) {
    normalized[table.folded] = table.rules.map((rule) => ({
      cast: rule.cast,
      source: rule.source,
      target: rule.target,
    }));
  }
  return fingerprint(normalized);
}

/** `sha256-table-and-ordered-column-names-v1`: `[[T, [N, ...]], ...]` in snapshot order. */
export function sourceSchemaFingerprint(snapshot: readonly SnapshotTable[]): Sha256Hex {
  return fingerprint(snapshot.map((table) => [table.table, table.columns.map((column) => column.name)]));
}

/** `sha256-table-column-type-families-v1`: `[[T, [[N, F], ...]], ...]` in snapshot order. */
export function typedSchemaFingerprint(snapshot: readonly SnapshotTable[]): Sha256Hex {
  return fingerprint(
    snapshot.map((table) => [table.table, table.columns.map((column) => [column.name, column.typeFamily])]),
  );
}

/** `sha256-schema-and-mapping-v1`: `{"mapping": M, "source_schema": S, "typed_schema": Y}` over the three hex values. */
export function schemaConfirmationFingerprint(
  mapping: Sha256Hex,
  sourceSchema: Sha256Hex,
  typedSchema: Sha256Hex,
): Sha256Hex {
  return fingerprint({ mapping, source_schema: sourceSchema, typed_schema: typedSchema });
}
