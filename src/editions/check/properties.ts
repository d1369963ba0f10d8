import { asArray, asString, isMapping, type YamlMapping, type YamlValue } from './yaml.js';

/** A generic test as written in a properties file, before any SQL exists. */
export type TestSpec =
  | { readonly kind: 'not_null' }
  | { readonly kind: 'unique' }
  | { readonly kind: 'relationships'; readonly to: string; readonly field: string }
  | { readonly kind: 'accepted_values'; readonly values: readonly string[]; readonly quote: boolean }
  | { readonly kind: 'unsupported'; readonly label: string };

export interface ColumnProperties {
  readonly name: string;
  readonly tests: readonly TestSpec[];
}

export interface ModelProperties {
  readonly name: string;
  readonly file: string;
  readonly config: YamlMapping | undefined;
  readonly columns: readonly ColumnProperties[];
  /** Model-level tests (the offline check runs none of them). */
  readonly modelTests: readonly TestSpec[];
}

export interface SourceTableProperties {
  readonly source: string;
  readonly table: string;
  readonly file: string;
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
  docs: readonly { readonly path: string; readonly value: YamlValue }[],
): Properties {
  const models: ModelProperties[] = [];
  const sources: SourceTableProperties[] = [];
  for (const { path, value } of docs) {
    if (!isMapping(value)) continue;
    for (const entry of asArray(value.models)) {
      if (!isMapping(entry)) continue;
      const name = asString(entry.name);
      if (name === undefined) continue;
      models.push({
        name,
        file: path,
        config: isMapping(entry.config) ? entry.config : undefined,
        columns: columnsOf(entry.columns),
        modelTests: testsOf(entry),
      });
    }
    for (const source of asArray(value.sources)) {
      if (!isMapping(source)) continue;
      const sourceName = asString(source.name);
      if (sourceName === undefined) continue;
      const sourceConfig = isMapping(source.config) ? source.config : undefined;
      for (const table of asArray(source.tables)) {
        if (!isMapping(table)) continue;
        const tableName = asString(table.name);
        if (tableName === undefined) continue;
        const tableConfig = isMapping(table.config) ? table.config : undefined;
        sources.push({
          source: sourceName,
          table: tableName,
          file: path,
          schema: asString(source.schema) ?? sourceName,
          identifier: asString(table.identifier) ?? tableName,
          sourceEnabled: sourceConfig?.enabled,
          tableEnabled: tableConfig?.enabled,
          columns: columnsOf(table.columns),
        });
      }
    }
  }
  return { models, sources };
}

function columnsOf(value: YamlValue | undefined): ColumnProperties[] {
  const columns: ColumnProperties[] = [];
  for (const column of asArray(value)) {
    if (!isMapping(column)) continue;
    const name = asString(column.name);
    if (name !== undefined) columns.push({ name, tests: testsOf(column) });
  }
  return columns;
}

function testsOf(entry: YamlMapping): TestSpec[] {
  return [...asArray(entry.data_tests), ...asArray(entry.tests)].map(testSpec);
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
