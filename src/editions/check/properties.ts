import type { PathSegment, YamlNode } from '../../core/input/index.js';
import { nearest } from '../../core/refusal/index.js';
import { IDENTIFIER } from './sql.js';
import {
  PLAIN_TEST_KEYS,
  type PyValue,
  pyFromNode,
  pyFromValue,
  pyStrOf,
  TEST_CONFIGS,
  testArgumentParts,
  testIdentity,
} from './test-names.js';
import {
  asArray,
  asString,
  isMapping,
  nodeIn,
  placeIn,
  type YamlMapping,
  type YamlPlace,
  type YamlValue,
} from './yaml.js';

/**
 * A test's `column_name:` argument, which dbt pastes into the test's query
 * as it is: a column or an SQL expression (docs/editions.md, "Tests on a
 * model or source table").
 */
export interface ColumnNameArgument {
  readonly text: string;
  /** Where it is written, from the test's entry (`['unique', 'arguments', 'column_name']`). */
  readonly key: readonly PathSegment[];
}

/** A generic test as written in a properties file, before any SQL exists. */
export type TestSpec =
  | ((
      | { readonly kind: 'not_null' }
      | { readonly kind: 'unique' }
      | { readonly kind: 'relationships'; readonly to: string; readonly field: string }
      | { readonly kind: 'accepted_values'; readonly values: readonly string[]; readonly quote: boolean }
    ) & {
      /** Given on a model's or source table's own test; a column's test tests the column. */
      readonly columnName?: ColumnNameArgument;
      /**
       * The `where` config, as written (Jinja not yet rendered): dbt tests
       * only the rows of the model it keeps, and so does the check.
       */
      readonly where?: { readonly text: string; readonly key: readonly PathSegment[] };
    })
  | {
      readonly kind: 'unsupported';
      /** The test's name as written (`dbt_utils.accepted_range`), or `test` when it has none. */
      readonly label: string;
      /** Why the check cannot run it: a config, a missing or misspelt argument, a package. */
      readonly hint?: string;
      /**
       * The key the first problem is about, from the test's entry
       * (`['accepted_values', 'values']`): the finding is placed there
       * rather than at the entry.
       */
      readonly key?: readonly PathSegment[];
    };

/** A test and where it is written in its properties file. */
export interface PlacedTest {
  readonly spec: TestSpec;
  readonly at: YamlPlace;
  /**
   * The test's own `name:` (`- name: my_nn` beside `test_name:`, or
   * `- not_null: {name: my_nn}`): dbt names the test so instead of
   * forming a name from the test, model and column.
   */
  readonly name?: string;
  /**
   * The argument values dbt names the test from when it has no `name:`
   * (the column, then each argument, as Python writes them): see
   * synthesizeTestNames.
   */
  readonly nameParts: readonly string[];
  /** The entry itself in `data_tests:`, where a repeat of an earlier test is reported. */
  readonly entry: YamlPlace;
  /** Where the test's `where` config is written, when it has one. */
  readonly whereAt?: YamlPlace;
  /** What dbt tells two tests of one name apart by (see testIdentity); undefined when set `enabled: false`. */
  readonly identity?: string;
  /** Where a model's or source table's test writes its `column_name:`, where DuckDB's verdict on it is placed. */
  readonly columnNameAt?: YamlPlace;
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
  /** The model's own tests (`data_tests:` beside its columns), run on their `column_name:`. */
  readonly modelTests: readonly PlacedTest[];
  /** `versions:` (dbt 1.5): each is a model of its own; empty for an unversioned model. */
  readonly versions: readonly VersionProperties[];
  /** `latest_version:`, when written; else the greatest version is the latest. */
  readonly latestVersion?: { readonly v: VersionValue; readonly at: YamlPlace };
}

/**
 * A version identifier as dbt's Python holds it: an int, a float or text.
 * `text` is Python's `str()` of it, which names the version everywhere
 * (`<model>_v<text>.sql`, `<model>.v<text>`); equality and order follow
 * Python (`1 == 1.0`, numbers before text is tried as a number).
 */
export interface VersionValue {
  readonly kind: 'int' | 'float' | 'str';
  readonly text: string;
  /** The number, for an int or a float. */
  readonly number?: number;
}

/** One entry of a model's `versions:`. */
export interface VersionProperties {
  readonly v: VersionValue;
  /** The entry itself in `versions:`. */
  readonly at: YamlPlace;
  /** Its `v:` key. */
  readonly vAt: YamlPlace;
  /** `defined_in:`, the file name without `.sql`, and where it is written. */
  readonly definedIn?: { readonly name: string; readonly at: YamlPlace };
  readonly config: YamlMapping | undefined;
  /** The model's columns this version keeps (its `include`/`exclude`), then its own. */
  readonly columns: readonly ColumnProperties[];
  /** Its own tests, or the model's when it lists none. */
  readonly modelTests: readonly PlacedTest[];
  /** Why dbt refuses its `columns:` include/exclude element, and where. */
  readonly columnsProblem?: { readonly at: YamlPlace; readonly hint: string };
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
  /** The table's own tests (`data_tests:` beside its columns), which dbt reads before the columns'. */
  readonly tests: readonly PlacedTest[];
}

export interface Properties {
  readonly models: readonly ModelProperties[];
  readonly sources: readonly SourceTableProperties[];
  /** `seeds:` and `snapshots:` entries: their tests run on the seed or snapshot of that name. */
  readonly others?: readonly OtherProperties[];
}

/** A `seeds:` or `snapshots:` entry of a properties file: its columns and tests. */
export interface OtherProperties {
  readonly kind: 'seed' | 'snapshot';
  readonly name: string;
  readonly file: string;
  readonly at: YamlPlace;
  readonly columns: readonly ColumnProperties[];
  readonly tests: readonly PlacedTest[];
}

/** Reads models and sources from properties documents that already passed dbt's JSON schema. */
export function collectProperties(
  docs: readonly { readonly path: string; readonly value: YamlValue; readonly node?: YamlNode }[],
): Properties {
  const models: ModelProperties[] = [];
  const sources: SourceTableProperties[] = [];
  const others: OtherProperties[] = [];
  for (const { path, value, node } of docs) {
    if (!isMapping(value)) continue;
    const place: Placer = (segments) => placeIn(node, segments);
    place.node = (segments) => nodeIn(node, segments);
    for (const [index, entry] of asArray(value.models).entries()) {
      if (!isMapping(entry)) continue;
      const name = asString(entry.name);
      if (name === undefined) continue;
      const at: readonly PathSegment[] = ['models', index];
      const columns = columnsOf(entry.columns, [...at, 'columns'], place);
      const modelTests = testsOf(entry, at, place, undefined);
      const latest = entry.latest_version;
      models.push({
        name,
        file: path,
        at: place([...at, 'name']),
        config: isMapping(entry.config) ? entry.config : undefined,
        columns,
        modelTests,
        versions: versionsOf(entry.versions, at, place, columns, modelTests),
        ...(latest === undefined || latest === null
          ? {}
          : {
              latestVersion: {
                v: versionValue(place, [...at, 'latest_version'], latest),
                at: place([...at, 'latest_version']),
              },
            }),
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
          tests: testsOf(table, at, place, undefined),
        });
      }
    }
    for (const kind of ['seed', 'snapshot'] as const) {
      const key = kind === 'seed' ? 'seeds' : 'snapshots';
      for (const [index, entry] of asArray(value[key]).entries()) {
        if (!isMapping(entry)) continue;
        const name = asString(entry.name);
        if (name === undefined) continue;
        const at: readonly PathSegment[] = [key, index];
        others.push({
          kind,
          name,
          file: path,
          at: place([...at, 'name']),
          columns: columnsOf(entry.columns, [...at, 'columns'], place),
          tests: testsOf(entry, at, place, undefined),
        });
      }
    }
  }
  return { models, sources, others };
}

interface Placer {
  (segments: readonly PathSegment[]): YamlPlace;
  /** The node there, when the document was read with its nodes. */
  node?: (segments: readonly PathSegment[]) => YamlNode | undefined;
}

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
        tests: testsOf(column, [...at, index], place, name),
      });
  }
  return columns;
}

/** A version value as written: a number keeps how it is written (`1.0` is a float). */
function versionValue(place: Placer, at: readonly PathSegment[], value: YamlValue): VersionValue {
  const written = place.node?.(at);
  const py: PyValue = written === undefined ? pyFromValue(value) : pyFromNode(written);
  if (py.kind === 'int') return { kind: 'int', text: py.digits, number: Number(py.digits) };
  if (py.kind === 'float') return { kind: 'float', text: pyStrOf(py), number: py.value };
  return { kind: 'str', text: pyStrOf(py) };
}

/** dbt's include/exclude element of a version's columns: `include` is `*`, `all` or a list of names. */
const INCLUDE_ALL = ['all', '*'];

function versionsOf(
  value: YamlValue | undefined,
  model: readonly PathSegment[],
  place: Placer,
  modelColumns: readonly ColumnProperties[],
  modelTests: readonly PlacedTest[],
): VersionProperties[] {
  const versions: VersionProperties[] = [];
  for (const [index, entry] of asArray(value).entries()) {
    if (!isMapping(entry) || entry.v === undefined || entry.v === null) continue;
    const at: readonly PathSegment[] = [...model, 'versions', index];
    const definedIn = asString(entry.defined_in);
    const written = asArray(entry.columns);
    const selectors = written
      .map((column, position) => ({ column, position }))
      .filter(
        (item): item is { column: YamlMapping; position: number } =>
          isMapping(item.column) && (item.column.include !== undefined || item.column.exclude !== undefined),
      );
    const [selector, second] = selectors;
    const include = selector === undefined ? '*' : (selector.column.include ?? null);
    const exclude = selector === undefined ? [] : asArray(selector.column.exclude ?? null);
    const names = (list: YamlValue): string[] =>
      asArray(list).filter((item): item is string => typeof item === 'string');
    const problem = ((): string | undefined => {
      if (second !== undefined)
        return 'a version takes at most one include/exclude element in its columns; merge them into one';
      if (include === null)
        return "an include/exclude element needs 'include': '*' (or 'all'), or a list of column names";
      if (typeof include === 'string' && !INCLUDE_ALL.includes(include))
        return `'include' is '*', 'all' or a list of column names, not '${include}'`;
      if (typeof include !== 'string' && !Array.isArray(include))
        return "'include' is '*', 'all' or a list of column names";
      if (exclude.length > 0 && !(typeof include === 'string'))
        return "'exclude' goes with include: '*' (or 'all') only, as dbt reads it; list the columns to keep in 'include' instead";
      return undefined;
    })();
    const kept =
      typeof include === 'string' || Array.isArray(include)
        ? modelColumns.filter(
            (column) =>
              (typeof include === 'string'
                ? INCLUDE_ALL.includes(include)
                : names(include).includes(column.name)) && !names(exclude).includes(column.name),
          )
        : modelColumns;
    // dbt takes the version's own `data_tests:` when given, even empty; else the model's. It renames
    // `tests:` to `data_tests:` only when that holds a test, so `tests: []` leaves the model's.
    const ownTests =
      (entry.data_tests !== undefined && entry.data_tests !== null) || asArray(entry.tests).length > 0;
    versions.push({
      v: versionValue(place, [...at, 'v'], entry.v),
      at: place(at),
      vAt: place([...at, 'v']),
      ...(definedIn === undefined
        ? {}
        : { definedIn: { name: definedIn, at: place([...at, 'defined_in']) } }),
      config: isMapping(entry.config) ? entry.config : undefined,
      columns: [...kept, ...columnsOf(entry.columns, [...at, 'columns'], place)],
      modelTests: ownTests ? testsOf(entry, at, place, undefined) : modelTests,
      ...(problem === undefined
        ? {}
        : {
            columnsProblem: {
              at: place([...at, 'columns', (second ?? selector)?.position ?? 0]),
              hint: problem,
            },
          }),
    });
  }
  return versions;
}

/** A model's, source table's or column's tests; `column` is undefined for a model's or table's own. */
/**
 * A test config that changes nothing the offline check decides: labels
 * (`tags`, `meta`), where dbt would store failing rows (`store_failures`,
 * `alias`, `schema`, …), `limit` (it caps the rows dbt shows, not whether
 * there are any), `enabled: true` and `severity: error` (dbt's default).
 * `where` is applied (the rows are filtered first); `severity: warn`,
 * `warn_if`, `error_if` and `fail_calc` change the outcome, and stay
 * `unsupported_test` (docs/editions.md#the-report).
 */
function neutralTestConfig(name: string, value: YamlValue): boolean {
  if (NEUTRAL_TEST_CONFIGS.has(name)) return true;
  if (name === 'enabled') return value === true;
  if (name === 'severity') return typeof value === 'string' && value.toLowerCase() === 'error';
  return false;
}

const NEUTRAL_TEST_CONFIGS: ReadonlySet<string> = new Set([
  'tags',
  'meta',
  'limit',
  'store_failures',
  'store_failures_as',
  'alias',
  'schema',
  'database',
]);

function testsOf(
  entry: YamlMapping,
  at: readonly PathSegment[],
  place: Placer,
  column: string | undefined,
): PlacedTest[] {
  return (['data_tests', 'tests'] as const).flatMap((key) =>
    asArray(entry[key]).flatMap((value, index) => {
      const spec = testSpecOn(testSpec(value), column);
      const name = givenTestName(value);
      const here: PathSegment[] = [...at, key, index];
      // In the `test_name:` form a test dbt does not know is misspelt at that key, not at `- name:`.
      const atKind =
        spec.kind === 'unsupported' &&
        spec.hint === undefined &&
        isMapping(value) &&
        asString(value.test_name) !== undefined;
      const keyPath = spec.kind === 'unsupported' ? (spec.key ?? []) : [];
      // Numbers as written: dbt names a test with `1.0` from the float, not from 1.
      const written = place.node?.(here);
      const entry = written === undefined ? pyFromValue(value) : pyFromNode(written);
      const identity = testIdentity(entry, column);
      // Set `enabled: false`: dbt disables the test, so it is neither listed nor run (as `dbt ls`).
      if (identity === undefined) return [];
      const columnName = spec.kind === 'unsupported' ? undefined : spec.columnName;
      return {
        spec,
        at: place(atKind ? [...here, 'test_name'] : [...here, ...keyPath]),
        ...(columnName === undefined ? {} : { columnNameAt: place([...here, ...columnName.key]) }),
        ...(spec.kind === 'unsupported' || spec.where === undefined
          ? {}
          : { whereAt: place([...here, ...spec.where.key]) }),
        ...(typeof name === 'string' ? { name } : {}),
        nameParts: testArgumentParts(entry, column),
        entry: place(here),
        identity,
      };
    }),
  );
}

/**
 * A test where it is declared. Under a column, dbt gives it the column as
 * `column_name`: one written in the test as well is refused, because dbt
 * keeps one of the two without a word (the column over one beside the
 * arguments, one in `arguments:` over the column). On a model or source
 * table nothing gives it one, so the test must.
 */
export function testSpecOn(spec: TestSpec, column: string | undefined): TestSpec {
  if (spec.kind === 'unsupported') return spec;
  const given = spec.columnName;
  if (column !== undefined && given !== undefined) {
    const nested = given.key.includes(ARGUMENTS_KEY);
    return {
      kind: 'unsupported',
      label: spec.kind,
      hint: nested
        ? `${spec.kind} is declared on the column '${column}' and gives 'column_name' in 'arguments' too: dbt tests '${given.text}' instead of the column without a word; move the test to the data_tests of the model or source table, or drop 'column_name'`
        : `${spec.kind} is declared on the column '${column}' and gives 'column_name' too: dbt tests the column and drops '${given.text}' without a word; move the test to the data_tests of the model or source table, or drop 'column_name'`,
      key: given.key,
    };
  }
  if (column === undefined && given === undefined)
    return {
      kind: 'unsupported',
      label: spec.kind,
      hint: `${spec.kind} in the data_tests of a model or source table needs 'column_name', the column or SQL expression it tests: only a column's tests get it from their column`,
    };
  return spec;
}

/**
 * The `name:` a test is given, as dbt reads it: beside `test_name:`, or
 * among the arguments of the one-key form. Undefined when none is given;
 * a value that is not text is returned as it is, for testSpec to refuse.
 */
export function givenTestName(value: YamlValue): YamlValue | undefined {
  if (!isMapping(value)) return undefined;
  if (asString(value.test_name) !== undefined) return value.name;
  const keys = Object.keys(value);
  const body = keys.length === 1 && keys[0] !== undefined ? value[keys[0]] : undefined;
  return isMapping(body) ? body.name : undefined;
}

/**
 * dbt 1.10 nests a generic test's arguments under this key, and deprecates
 * giving them beside it (docs/editions.md, "Generic test arguments").
 */
const ARGUMENTS_KEY = 'arguments';

/**
 * The argument every generic test takes for the column it tests. dbt reads
 * it beside `arguments:` too, without the warning other arguments get there.
 */
const COLUMN_NAME = 'column_name';

/** The generic tests the check runs, by the names dbt spells them. */
export const RUNNABLE_TESTS = ['not_null', 'unique', 'relationships', 'accepted_values'] as const;

/** What each runnable test takes besides `name`, and what it needs. */
const TEST_ARGUMENTS: Readonly<
  Record<string, { readonly takes: readonly string[]; readonly needs: readonly string[] }>
> = {
  not_null: { takes: [COLUMN_NAME], needs: [] },
  unique: { takes: [COLUMN_NAME], needs: [] },
  relationships: { takes: ['to', 'field', COLUMN_NAME], needs: ['to', 'field'] },
  accepted_values: { takes: ['values', 'quote', COLUMN_NAME], needs: ['values'] },
};

/** `'a'`, `'a' and 'b'`, `'a', 'b' and 'c'`. */
const quoted = (names: readonly string[]): string => {
  const each = names.map((name) => `'${name}'`);
  return each.length < 2 ? (each[0] ?? '') : `${each.slice(0, -1).join(', ')} and ${each[each.length - 1]}`;
};

/**
 * The four generic tests the check runs, in their dbt spellings. A test with
 * extra configuration (where, severity, config, ...), one missing or
 * misspelling an argument, or any other test is `unsupported`, with a hint
 * saying which: reported as not passing rather than silently dropped.
 */
export function testSpec(value: YamlValue): TestSpec {
  if (value === 'not_null' || value === 'unique') return { kind: value };
  if (typeof value === 'string') return { kind: 'unsupported', label: value };
  if (!isMapping(value))
    return {
      kind: 'unsupported',
      label: 'test',
      hint: 'a test is a name (- not_null) or a mapping from its name to its arguments (- accepted_values: {values: [...]})',
    };
  const keys = Object.keys(value);
  // dbt's other form: `- test_name: not_null`, with `name:` and the arguments beside it (or none).
  const testName = asString(value.test_name);
  if (testName !== undefined) {
    const body: { [key: string]: YamlValue } = {};
    for (const key of keys)
      if (key !== 'test_name') Object.defineProperty(body, key, { value: value[key], enumerable: true });
    return testSpecOf(testName, body);
  }
  const kind = keys[0];
  if (keys.length !== 1 || kind === undefined)
    return {
      kind: 'unsupported',
      label: 'test',
      hint: `a test is a mapping with one key, the test's name (- not_null: {…}); this one has ${keys.length === 0 ? 'none' : quoted(keys)}`,
    };
  const spec = testSpecOf(kind, value[kind] ?? null);
  if (spec.kind === 'unsupported')
    return spec.key === undefined ? spec : { ...spec, key: [kind, ...spec.key] };
  return spec.columnName === undefined
    ? spec
    : { ...spec, columnName: { ...spec.columnName, key: [kind, ...spec.columnName.key] } };
}

function testSpecOf(kind: string, body: YamlValue): TestSpec {
  const unsupported = (hint: string, key?: readonly PathSegment[]): TestSpec => ({
    kind: 'unsupported',
    label: kind,
    hint,
    ...(key === undefined ? {} : { key }),
  });
  const dot = kind.indexOf('.');
  if (dot > 0)
    return unsupported(
      `'${kind}' is a test of the package '${kind.slice(0, dot)}', and the offline check installs no packages: it runs ${RUNNABLE_TESTS.join(', ')}`,
    );
  const args = TEST_ARGUMENTS[kind];
  if (args === undefined) return { kind: 'unsupported', label: kind };
  if ((kind === 'not_null' || kind === 'unique') && body === null) return { kind };
  if (!isMapping(body)) return unsupported(`${kind} takes a mapping of its arguments`);
  const nested = body[ARGUMENTS_KEY];
  const hasNested = nested !== undefined;
  // `arguments:` with nothing after it is null in YAML: no arguments, as dbt reads it.
  const under: YamlMapping = isMapping(nested) ? nested : {};
  const beside = Object.keys(body).filter((key) => !PLAIN_TEST_KEYS.has(key) && key !== ARGUMENTS_KEY);
  const configs = beside.filter((key) => TEST_CONFIGS.includes(key));
  const besideArgs = beside.filter((key) => !configs.includes(key));
  const underKeys = Object.keys(under);
  /** A problem, and the key (from the body) to place the finding at when it is the first one that has a key. */
  const problems: { readonly text: string; readonly key?: readonly PathSegment[] }[] = [];
  const name = body.name;
  if (name !== undefined && !(typeof name === 'string' && IDENTIFIER.test(name)))
    problems.push({
      text: `${typeof name === 'string' ? `the name '${name}'` : `${kind}'s name`} is not a plain identifier (letters, digits and _), the only test names the offline check reports`,
    });
  if (hasNested && nested !== null && !isMapping(nested))
    problems.push({
      text: `'arguments' takes a mapping of ${kind}'s arguments, and dbt ignores anything else there`,
      key: [ARGUMENTS_KEY],
    });
  // dbt merges the two, the one in `arguments:` winning for a name given in both: a
  // half-moved test is where a value is shadowed without a word, so the check names it.
  if (hasNested)
    for (const key of besideArgs) {
      const both = underKeys.includes(key);
      // dbt reads column_name beside `arguments:` as it reads name: there, without a warning.
      if (key === COLUMN_NAME && !both) continue;
      problems.push({
        text: both
          ? `${kind} gives '${key}' both in 'arguments' and beside it: dbt takes the one in 'arguments' and drops the other without a word; put every argument in 'arguments'`
          : `${kind} gives '${key}' beside 'arguments': dbt merges the two, but since dbt 1.10 an argument belongs in 'arguments'; put every argument there`,
        key: [key],
      });
    }
  const description = body.description;
  if (description !== undefined && description !== null && typeof description !== 'string')
    problems.push({ text: `${kind}'s description takes text`, key: ['description'] });
  // What the test's macro would receive: the arguments under `arguments:` over those beside it, as dbt merges them.
  const given: { [key: string]: YamlValue } = {};
  for (const key of hasNested ? besideArgs : beside)
    Object.defineProperty(given, key, {
      value: body[key],
      enumerable: true,
      writable: true,
      configurable: true,
    });
  // A name, description or config under `arguments:` is not an argument: dbt reads those beside it.
  const misplaced = underKeys.filter((key) => TEST_CONFIGS.includes(key) || PLAIN_TEST_KEYS.has(key));
  for (const key of misplaced)
    problems.push({
      text: `${kind}'s '${key}' goes beside 'arguments', not in it: 'arguments' holds the test's arguments only (${quoted(args.takes)})`,
    });
  for (const key of underKeys)
    if (!misplaced.includes(key))
      Object.defineProperty(given, key, {
        value: under[key],
        enumerable: true,
        writable: true,
        configurable: true,
      });
  const unknown = Object.keys(given).filter((key) => !configs.includes(key) && !args.takes.includes(key));
  const meant = new Set<string>();
  for (const key of unknown) {
    const match = nearest(key, args.takes);
    if (match !== undefined) meant.add(match);
    // Beside the arguments, a misspelt `arguments:` or `description:` is named too.
    const other =
      match ?? (underKeys.includes(key) ? undefined : nearest(key, [ARGUMENTS_KEY, 'description']));
    // A misspelt `arguments:` holds the arguments: they are not also said to be missing.
    if (other === ARGUMENTS_KEY) for (const need of args.needs) meant.add(need);
    const takes = ` (it takes ${quoted(args.takes)})`;
    problems.push({
      text: `${kind} has no argument '${key}'${other === undefined ? takes : `: did you mean '${other}'?`}`,
      // At the misspelt key itself, under `arguments:` or beside it, where the fix goes.
      key: underKeys.includes(key) ? [ARGUMENTS_KEY, key] : [key],
    });
  }
  const missing = args.needs.filter((key) => given[key] === undefined && !meant.has(key));
  if (missing.length > 0)
    problems.push({
      text: `${kind} needs ${quoted(args.needs)}${hasNested ? " in 'arguments'" : ''}: ${quoted(missing)} ${missing.length === 1 ? 'is' : 'are'} missing`,
    });
  // Each config as written, in `config:` or beside the arguments, with its value.
  const written = configs.flatMap((key): { name: string; value: YamlValue; key: readonly PathSegment[] }[] =>
    key === 'config' && isMapping(body.config)
      ? Object.entries(body.config).map(([name, value]) => ({ name, value, key: ['config', name] }))
      : key === 'config'
        ? []
        : [{ name: key, value: body[key] ?? null, key: [key] }],
  );
  // Configs that change neither which rows are tested nor whether the test fails are no reason to refuse it.
  // `where` (text) is applied as dbt applies it: the rows the test reads are filtered first.
  const whereConfig = written.find((config) => config.name === 'where' && typeof config.value === 'string');
  const applied = written.filter(
    (config) => !neutralTestConfig(config.name, config.value) && config !== whereConfig,
  );
  const configNames = applied.map((config) => config.name);
  if (applied.length > 0) {
    problems.push({
      text: `${kind} has the ${configNames.length === 1 ? 'config' : 'configs'} ${quoted(configNames)}, which the offline check does not apply: it runs a generic test only without a config that changes whether it fails (severity: warn, warn_if, error_if, fail_calc)`,
      // At the (first) config, where it is written.
      key: applied[0]?.key ?? ['config'],
    });
  }
  const columnKey: readonly PathSegment[] = underKeys.includes(COLUMN_NAME)
    ? [ARGUMENTS_KEY, COLUMN_NAME]
    : [COLUMN_NAME];
  const columnText = given[COLUMN_NAME];
  // dbt writes the value into the test's SQL with str(): only text names a column or expression.
  if (columnText !== undefined && !(typeof columnText === 'string' && columnText.trim() !== ''))
    problems.push({
      text: `${kind} takes text for 'column_name': a column, or an SQL expression such as "order_id || '-' || customer_id"`,
      key: columnKey,
    });
  if (problems.length > 0)
    return unsupported(
      problems.map((problem) => problem.text).join('; '),
      problems.find((problem) => problem.key !== undefined)?.key,
    );
  const column = {
    ...(typeof columnText === 'string' ? { columnName: { text: columnText, key: columnKey } } : {}),
    ...(whereConfig === undefined
      ? {}
      : { where: { text: String(whereConfig.value), key: whereConfig.key } }),
  };
  if (kind === 'not_null' || kind === 'unique') return { kind, ...column };
  if (kind === 'relationships') {
    const to = asString(given.to);
    const field = asString(given.field);
    if (to === undefined || field === undefined)
      return unsupported(
        `relationships takes text for ${quoted([...(to === undefined ? ['to'] : []), ...(field === undefined ? ['field'] : [])])}`,
      );
    return { kind, to, field, ...column };
  }
  const values = asArray(given.values);
  const quote = given.quote === undefined ? true : given.quote;
  if (typeof quote !== 'boolean') return unsupported("accepted_values takes true or false for 'quote'");
  if (!Array.isArray(given.values) || !values.every((item) => typeof item === 'string'))
    return unsupported(
      "accepted_values takes a list of quoted text values for 'values' (the check compares them as text)",
    );
  return { kind: 'accepted_values', values: values as string[], quote, ...column };
}
