import { isJsonObject, type JsonObject, type JsonValue } from '../core/json/index.js';
import { TOP_LEVEL_FIELD } from './fields.js';
import {
  CASTS,
  type Cast,
  type FoldedIdentifier,
  fold,
  hasControlOrNewline,
  isOneOf,
  isSafeIdentifier,
  longerThan,
  type SafeIdentifier,
} from './identifiers.js';
import { EVIDENCE_LIMITS } from './limits.js';
import { FieldReader, own } from './shape.js';

/** One rule of a version 1 mapping: an exact raw source column, a safe target, a cast. */
export interface MappingRule {
  readonly source: string;
  readonly target: SafeIdentifier;
  readonly cast: Cast;
}

export interface MappingTable {
  /** As written in the file. */
  readonly table: SafeIdentifier;
  readonly folded: FoldedIdentifier;
  /** In file order: the fingerprint keeps it. */
  readonly rules: readonly MappingRule[];
}

/** A validated version 1 mapping; tables in file order, never empty. */
export interface Mapping {
  readonly version: 1;
  readonly tables: readonly MappingTable[];
}

const TOP_KEYS = new Set(['version', 'tables']);
const RULE_KEYS = new Set(['source', 'target', 'cast']);

/**
 * Admission bounds of a mapping document: a rule's source name is at most 255
 * code points (`_MAX_MAPPING_SOURCE_NAME_LENGTH`). Applied wherever the shape
 * lets it apply; shape faults are left to `parseMapping`.
 */
export function checkMappingBounds(document: JsonObject): void {
  const reader: FieldReader = new FieldReader('mapping');
  const tables = own(document, 'tables');
  if (tables === undefined || !isJsonObject(tables)) return;
  for (const rules of Object.values(tables)) {
    if (!Array.isArray(rules)) continue;
    for (const rule of rules as readonly JsonValue[]) {
      if (!isJsonObject(rule)) continue;
      const source = own(rule, 'source');
      if (typeof source === 'string' && longerThan(source, EVIDENCE_LIMITS.mappingSourceNameLength)) {
        reader.fail('scaffold_input_oversized', 'tables[].source');
      }
    }
  }
}

/**
 * The loader's mapping parser (`_load_mapping_file` after the file is read).
 * Codes: an absent `version` or `tables`, or a rule lacking one of its three
 * keys, is `scaffold_field_missing`; a version other than the integer 1 is
 * `scaffold_input_unsupported_version`; a source name over 255 code points is
 * `scaffold_input_oversized`; every other fault, the empty mapping included,
 * is `scaffold_mapping_invalid`.
 */
export function parseMapping(document: JsonObject): Mapping {
  checkMappingBounds(document);
  const reader: FieldReader = new FieldReader('mapping', 'scaffold_mapping_invalid');
  const version = reader.required(document, 'version', 'version');
  // `true == 1` in Python; the loader wants exactly the integer 1.
  if (version !== 1 && version !== 1n) reader.fail('scaffold_input_unsupported_version', 'version');
  const tablesValue = reader.required(document, 'tables', 'tables');
  reader.onlyKeys(document, TOP_KEYS, TOP_LEVEL_FIELD);
  const tablesObject = reader.object(tablesValue, 'tables');
  const names = Object.keys(tablesObject);
  if (names.length === 0) reader.malformed('tables');

  const seen = new Set<FoldedIdentifier>();
  const tables: MappingTable[] = [];
  for (const name of names) {
    if (!isSafeIdentifier(name)) reader.malformed('tables');
    const folded = fold(name);
    if (seen.has(folded)) reader.malformed('tables');
    seen.add(folded);
    tables.push({ table: name, folded, rules: parseRules(reader, tablesObject[name] ?? null) });
  }
  return { version: 1, tables };
}

function parseRules(reader: FieldReader, value: JsonValue): readonly MappingRule[] {
  const array = reader.array(value, 'tables[]');
  // A table that maps nothing is refused like the empty mapping: it could only be a mistake.
  if (array.length === 0) reader.malformed('tables[]');
  const targets = new Set<FoldedIdentifier>();
  return array.map((item) => {
    const rule = reader.object(item, 'tables[]');
    const source = reader.required(rule, 'source', 'tables[].source');
    const target = reader.required(rule, 'target', 'tables[].target');
    const cast = reader.required(rule, 'cast', 'tables[].cast');
    reader.onlyKeys(rule, RULE_KEYS, 'tables[]');
    if (typeof source !== 'string' || source.length === 0 || hasControlOrNewline(source)) {
      reader.malformed('tables[].source');
    }
    if (typeof target !== 'string' || !isSafeIdentifier(target)) reader.malformed('tables[].target');
    if (targets.has(fold(target))) reader.malformed('tables[].target');
    targets.add(fold(target));
    if (!isOneOf(CASTS, cast)) reader.malformed('tables[].cast');
    return { source, target, cast };
  });
}

/** Every rule of the mapping, in file order. */
export function mappingRuleCount(mapping: Mapping): number {
  return mapping.tables.reduce((total, table) => total + table.rules.length, 0);
}
