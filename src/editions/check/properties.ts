import type { PathSegment, YamlNode } from '../../core/input/index.js';
import {
  asArray,
  asString,
  isMapping,
  placeIn,
  type YamlMapping,
  type YamlPlace,
  type YamlValue,
} from './yaml.js';

/** A generic test as written in a properties file, before any SQL exists. */
export type TestSpec =
  | { readonly kind: 'not_null' }
  | { readonly kind: 'unique' }
  | { readonly kind: 'relationships'; readonly to: string; readonly field: string }
  | { readonly kind: 'accepted_values'; readonly values: readonly string[]; readonly quote: boolean }
  | { readonly kind: 'unsupported'; readonly label: string };

/** A test and where it is written in its properties file. */
export interface PlacedTest {
  readonly spec: TestSpec;
  readonly at: YamlPlace;
}

export interface ColumnProperties {
  readonly name: string;
  /** Where the column's `name:` is written. */
  readonly at?: YamlPlace;
  readonly tests: readonly PlacedTest[];
}

export interface ModelProperties {
  readonly name: string;
  readonly file: string;
  /** Where the model's `name:` is written. */
  readonly at: YamlPlace;
  readonly config: YamlMapping | undefined;
  readonly columns: readonly ColumnProperties[];
  /** Model-level tests (the offline check runs none of them). */
  readonly modelTests: readonly PlacedTest[];
}

export interface SourceTableProperties {
  readonly source: string;
  readonly table: string;
  readonly file: string;
  /** Where the table's `name:` is written. */
  readonly at: YamlPlace;
  /** Unrendered; defaults to the source name. */
  readonly schema: string;
  /** Unrendered; defaults to the table name. */
  readonly identifier: string;
  readonly sourceEnabled: YamlValue | undefined;
  readonly tableEnabled: YamlValue | undefined;
  readonly columns: readonly ColumnProperties[];
}

export interface Properties {
  readonly models: readonly ModelProperties[];
  readonly sources: readonly SourceTableProperties[];
}

/** Reads models and sources from properties documents that already passed dbt's JSON schema. */
export function collectProperties(
  docs: readonly { readonly path: string; readonly value: YamlValue; readonly node?: YamlNode }[],
): Properties {
  const models: ModelProperties[] = [];
  const sources: SourceTableProperties[] = [];
  for (const { path, value, node } of docs) {
    if (!isMapping(value)) continue;
    const place = (segments: readonly PathSegment[]): YamlPlace => placeIn(node, segments);
    for (const [index, entry] of asArray(value.models).entries()) {
      if (!isMapping(entry)) continue;
      const name = asString(entry.name);
      if (name === undefined) continue;
      const at: readonly PathSegment[] = ['models', index];
      models.push({
        name,
        file: path,
        at: place([...at, 'name']),
        config: isMapping(entry.config) ? entry.config : undefined,
        columns: columnsOf(entry.columns, [...at, 'columns'], place),
        modelTests: testsOf(entry, at, place),
      });
    }
    for (const [sourceIndex, source] of asArray(value.sources).entries()) {
      if (!isMapping(source)) continue;
      const sourceName = asString(source.name);
      if (sourceName === undefined) continue;
      const sourceConfig = isMapping(source.config) ? source.config : undefined;
      for (const [tableIndex, table] of asArray(source.tables).entries()) {
        if (!isMapping(table)) continue;
        const tableName = asString(table.name);
        if (tableName === undefined) continue;
        const tableConfig = isMapping(table.config) ? table.config : undefined;
        const at: readonly PathSegment[] = ['sources', sourceIndex, 'tables', tableIndex];
        sources.push({
          source: sourceName,
          table: tableName,
          file: path,
          at: place([...at, 'name']),
          schema: asString(source.schema) ?? sourceName,
          identifier: asString(table.identifier) ?? tableName,
          sourceEnabled: sourceConfig?.enabled,
          tableEnabled: tableConfig?.enabled,
          columns: columnsOf(table.columns, [...at, 'columns'], place),
        });
      }
    }
  }
  return { models, sources };
}

type Placer = (segments: readonly PathSegment[]) => YamlPlace;

function columnsOf(
  value: YamlValue | undefined,
  at: readonly PathSegment[],
  place: Placer,
): ColumnProperties[] {
  const columns: ColumnProperties[] = [];
  for (const [index, column] of asArray(value).entries()) {
    if (!isMapping(column)) continue;
    const name = asString(column.name);
    if (name !== undefined)
      columns.push({
        name,
        at: place([...at, index, 'name']),
        tests: testsOf(column, [...at, index], place),
      });
  }
  return columns;
}

function testsOf(entry: YamlMapping, at: readonly PathSegment[], place: Placer): PlacedTest[] {
  return (['data_tests', 'tests'] as const).flatMap((key) =>
    asArray(entry[key]).map((value, index) => ({ spec: testSpec(value), at: place([...at, key, index]) })),
  );
}

const PLAIN_TEST_KEYS = new Set(['name']);

/**
 * The four generic tests the check runs, in their dbt spellings. A test with
 * extra configuration (where, severity, config, ...) or any other test is
 * `unsupported`: reported as not passing rather than silently dropped.
 */
export function testSpec(value: YamlValue): TestSpec {
  if (value === 'not_null' || value === 'unique') return { kind: value };
  if (typeof value === 'string') return { kind: 'unsupported', label: value };
  if (!isMapping(value)) return { kind: 'unsupported', label: 'test' };
  const keys = Object.keys(value);
  const kind = keys[0];
  if (keys.length !== 1 || kind === undefined) return { kind: 'unsupported', label: 'test' };
  const body = value[kind];
  if (kind === 'not_null' || kind === 'unique') {
    if (isMapping(body) && Object.keys(body).every((key) => PLAIN_TEST_KEYS.has(key))) return { kind };
    return { kind: 'unsupported', label: kind };
  }
  if (!isMapping(body)) return { kind: 'unsupported', label: kind };
  if (kind === 'relationships') {
    const to = asString(body.to);
    const field = asString(body.field);
    const extra = Object.keys(body).filter(
      (key) => key !== 'to' && key !== 'field' && !PLAIN_TEST_KEYS.has(key),
    );
    if (to === undefined || field === undefined || extra.length > 0)
      return { kind: 'unsupported', label: kind };
    return { kind, to, field };
  }
  if (kind === 'accepted_values') {
    const values = asArray(body.values);
    const quote = body.quote === undefined ? true : body.quote;
    const extra = Object.keys(body).filter(
      (key) => key !== 'values' && key !== 'quote' && !PLAIN_TEST_KEYS.has(key),
    );
    if (typeof quote !== 'boolean' || extra.length > 0 || !values.every((item) => typeof item === 'string'))
      return { kind: 'unsupported', label: kind };
    return { kind, values: values as string[], quote };
  }
  return { kind: 'unsupported', label: kind };
}
