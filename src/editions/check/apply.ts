import { join } from 'node:path';
import { didYouMean, nearest, type Refusal, refuseAll } from '../../core/refusal/index.js';
import { refuseEdition } from '../refusals.js';
import type { CsvTable } from './csv.js';
import { CheckEngine, type ExpressionVerdict, engineMessageLine, type ParseVerdict } from './engine.js';
import type { FixtureSet, FixtureTable } from './fixtures.js';
import {
  type CheckPlan,
  callPlace,
  type DeclaredColumn,
  type PlannedModel,
  type PlannedSource,
  type PlannedTest,
  positionAt,
  type SourceKey,
} from './plan.js';
import {
  type CheckReport,
  draft,
  type FileReport,
  type Finding,
  type FindingDraft,
  finding,
  type ModelReport,
  type SourceReport,
  type TestReport,
} from './report.js';
import { IDENTIFIER, MODEL_SCHEMA } from './sql.js';

export interface RunCheckOptions {
  readonly fixtures?: FixtureSet;
  /** Models whose built rows to return (with fixtures only), e.g. to inspect the key policy. */
  readonly captureRows?: readonly string[];
}

export interface CapturedRows {
  readonly columns: readonly string[];
  readonly rows: readonly (readonly (string | null)[])[];
}

export interface CheckRun {
  readonly report: CheckReport;
  readonly captured: Readonly<Record<string, CapturedRows>>;
}

/** A finding as the report shows it: var()/env_var() values masked, the file under the project as named. */
type Show = (found: FindingDraft | undefined) => Finding | undefined;

/** What parsing, loading and building left behind, keyed by model name or `source.table`. */
interface Execution {
  readonly modelFindings: ReadonlyMap<string, FindingDraft | undefined>;
  readonly sourceFindings: ReadonlyMap<string, FindingDraft | undefined>;
  /** Fixture rows loaded per `source.table`. */
  readonly loaded: ReadonlyMap<string, number>;
  /** Row count of each model built. */
  readonly built: ReadonlyMap<string, number>;
  /** Per `source.table`: the fixture loaded for it that lacks declared columns, and which. */
  readonly gaps: ReadonlyMap<string, FixtureGap>;
  readonly captured: Readonly<Record<string, CapturedRows>>;
  /** The project's snapshots: never built, which a test that reads one says. */
  readonly snapshots: ReadonlySet<string>;
}

/** A fixture whose header lacks columns its source table declares. */
interface FixtureGap {
  /** The fixture file as the user named it. */
  readonly path: string;
  readonly missing: readonly string[];
}

type TestBase = Pick<TestReport, 'name' | 'kind' | 'attached_to' | 'column' | 'path'>;

/**
 * Executes a check plan: every enabled model's SQL through DuckDB's parser;
 * with fixtures, the Bronze tables loaded, the models built in plan order
 * and each test's failing-row count taken. Engine error text is never kept.
 */
export async function runCheck(plan: CheckPlan, options: RunCheckOptions = {}): Promise<CheckRun> {
  const { byKey: fixtureByKey, setAside } = fixtureTables(plan, options.fixtures);
  const show: Show = (found) => finding(masked(found, plan.secrets), plan.projectDir);
  const withFixtures = options.fixtures !== undefined;
  const engine = await CheckEngine.open();
  try {
    const execution = await execute(engine, plan, options, fixtureByKey);
    const tests: TestReport[] = [];
    for (const test of plan.tests) tests.push(await runTest(engine, test, execution, withFixtures, show));
    const report = checkReport(plan, withFixtures, execution, tests, show);
    return {
      report: setAside.length === 0 ? report : { ...report, fixtures_not_loaded: setAside },
      captured: execution.captured,
    };
  } finally {
    engine.close();
  }
}

/**
 * The fixture tables by `source.table`. A table no source defines is
 * refused, every one at once; but while a properties file is not read (it
 * does not parse, or dbt's schema refuses it) its sources are unknown, so
 * such fixtures are set aside instead, and the file's own finding is what
 * the report leads with.
 */
function fixtureTables(
  plan: CheckPlan,
  fixtures: FixtureSet | undefined,
): { readonly byKey: ReadonlyMap<string, FixtureTable>; readonly setAside: readonly string[] } {
  const byKey = new Map<string, FixtureTable>();
  if (fixtures === undefined) return { byKey, setAside: [] };
  const known = new Set(plan.sources.map(keyOf));
  const unknown = fixtures.tables.filter((table) => !known.has(keyOf(table)));
  if (unknown.length > 0 && plan.unreadProperties.length === 0)
    throw refuseAll(unknownFixtureTables(plan, fixtures));
  for (const table of fixtures.tables) if (known.has(keyOf(table))) byKey.set(keyOf(table), table);
  return { byKey, setAside: unknown.map((table) => fixturePath(table, fixtures)) };
}

function fixturePath(table: FixtureTable, fixtures: FixtureSet): string {
  return join(table.dir ?? fixtures.dir, table.source, `${table.table}.csv`);
}

/**
 * A `fixture_unknown_table` refusal for each fixture table no source
 * defines, in fixture order; none while a properties file is not read
 * (see fixtureTables).
 */
export function unknownFixtureTables(plan: CheckPlan, fixtures: FixtureSet): Refusal[] {
  if (plan.unreadProperties.length > 0) return [];
  const known = plan.sources.map(keyOf);
  return fixtures.tables.flatMap((table) => {
    const key = keyOf(table);
    if (known.includes(key)) return [];
    return [
      refuseEdition('fixture_unknown_table', {
        location: { path: fixturePath(table, fixtures) },
        hint:
          known.length === 0
            ? `no source table '${key}' is defined: the project defines no source at all, so no properties file with sources: was found where dbt looks (check model-paths in dbt_project.yml)`
            : `no source table '${key}' is defined in the project's properties files${nearestSource(key, known)}`,
      }),
    ];
  });
}

/** Each model's finding from planning, or, for an enabled model that has none, from DuckDB's parser. */
async function parseModels(
  engine: CheckEngine,
  models: readonly PlannedModel[],
): Promise<Map<string, FindingDraft | undefined>> {
  const findings = new Map<string, FindingDraft | undefined>(
    models.map((model) => [model.name, model.finding]),
  );
  for (const model of models) {
    if (!model.enabled || model.finding !== undefined || model.sql === undefined) continue;
    const verdict = await engine.parse(model.sql);
    if (!verdict.ok) findings.set(model.name, parseFinding(verdict, model));
    else if (/;\s*$/.test(model.sql)) {
      // DuckDB reads `select …;` as one statement; dbt pastes the query into
      // `create table … as (…)`, where the `;` ends that statement early.
      const at = model.source.lastIndexOf(';');
      findings.set(
        model.name,
        draft('sql_parse_error', {
          file: model.path,
          ...(at === -1 ? {} : positionAt(model.source, at)),
          hint: "a model is one query, which dbt puts inside create table … as ( … ) or create view: drop the ';' at its end",
        }),
      );
    }
  }
  return findings;
}

/** The models parsed; with fixtures, the Bronze tables loaded, the models built and the rows asked for kept. */
async function execute(
  engine: CheckEngine,
  plan: CheckPlan,
  options: RunCheckOptions,
  fixtureByKey: ReadonlyMap<string, FixtureTable>,
): Promise<Execution> {
  const parsed = await parseModels(engine, plan.models);
  if (options.fixtures === undefined) {
    const none = new Map<string, never>();
    return {
      modelFindings: parsed,
      sourceFindings: none,
      loaded: none,
      built: none,
      gaps: none,
      captured: {},
      snapshots: new Set(),
    };
  }
  const fixtures = options.fixtures;
  const { loaded, sourceFindings, gaps } = await loadFixtures(engine, plan.sources, fixtureByKey, (table) =>
    fixturePath(table, fixtures),
  );
  const seeded = await loadSeeds(engine, plan);
  const { built, modelFindings } = await buildModels(
    engine,
    plan,
    parsed,
    { loaded, gaps },
    fixtures.dir,
    seeded,
  );
  const captured = await captureBuilt(engine, plan.models, built, options.captureRows ?? []);
  const snapshots = new Set(plan.snapshots.map((snapshot) => snapshot.name));
  return { modelFindings, sourceFindings, loaded, built, gaps, captured, snapshots };
}

async function loadFixtures(
  engine: CheckEngine,
  sources: CheckPlan['sources'],
  fixtureByKey: ReadonlyMap<string, FixtureTable>,
  pathOf: (table: FixtureTable) => string,
): Promise<Pick<Execution, 'loaded' | 'sourceFindings' | 'gaps'>> {
  const loaded = new Map<string, number>();
  const sourceFindings = new Map<string, FindingDraft | undefined>();
  const gaps = new Map<string, FixtureGap>();
  // A loaded source whose fixture lacks a declared column: a finding at the
  // fixture, and the table stays loaded, so every model that does not read
  // the column still builds and tests (docs/editions.md).
  const compare = (source: PlannedSource, table: FixtureTable): void => {
    const gap = columnGap(source, table, pathOf(table));
    if (gap === undefined) return;
    gaps.set(keyOf(source), gap.gap);
    sourceFindings.set(keyOf(source), gap.finding);
  };
  // Two sources whose schema and identifier render alike name one Bronze
  // relation (the migration source and a scaffolded one, both on
  // MIGRATION_BRONZE_NAMESPACE): one fixture loads it for both, as one
  // table serves both in the warehouse.
  const relations = new Map<string, { readonly rows: number; readonly table: FixtureTable }>();
  for (const source of sources) {
    const key = keyOf(source);
    const table = fixtureByKey.get(key);
    if (!source.enabled || source.finding !== undefined || table === undefined) continue;
    if (source.schema === undefined || source.identifier === undefined) continue;
    try {
      await engine.loadTable(source.schema, source.identifier, table.columns, table.rows);
      loaded.set(key, table.rows.length);
      relations.set(relationOf(source.schema, source.identifier), { rows: table.rows.length, table });
      compare(source, table);
    } catch (error: unknown) {
      sourceFindings.set(key, engineFinding('build_failed', source.path, error));
    }
  }
  for (const source of sources) {
    const key = keyOf(source);
    const relation =
      source.schema === undefined || source.identifier === undefined
        ? undefined
        : relations.get(relationOf(source.schema, source.identifier));
    if (!source.enabled || source.finding !== undefined || fixtureByKey.has(key) || relation === undefined)
      continue;
    loaded.set(key, relation.rows);
    compare(source, relation.table);
  }
  return { loaded, sourceFindings, gaps };
}

/** ASCII case folding: DuckDB resolves column names without regard to case. */
const fold = (name: string): string => name.toLowerCase();

/**
 * The declared columns a fixture's header lacks, as a `fixture_column_missing`
 * finding at the fixture's header line: each column with where its source
 * declares it, and the header column it is close to when one is (a column
 * the source does not declare, so likely the same one misspelt).
 */
function columnGap(
  source: PlannedSource,
  table: FixtureTable,
  path: string,
): { readonly gap: FixtureGap; readonly finding: FindingDraft } | undefined {
  const header = new Set(table.columns.map(fold));
  const missing = source.declared.filter((column) => !header.has(fold(column.name)));
  if (missing.length === 0) return undefined;
  const declared = new Set(source.declared.map((column) => fold(column.name)));
  const undeclared = table.columns.filter((column) => !declared.has(fold(column)));
  const place = (column: DeclaredColumn): string =>
    column.line === undefined
      ? source.path
      : `${source.path}:${column.line}${column.column === undefined ? '' : `:${column.column}`}`;
  const named = missing.map((column) => `'${column.name}' (${place(column)})`).join(', ');
  const near = missing.flatMap((column) => {
    const close = nearest(column.name, undeclared);
    return close === undefined ? [] : [`the header's '${close}': did you mean '${column.name}'?`];
  });
  const [what, them] = missing.length === 1 ? ['the column', 'it'] : ['the columns', 'them'];
  const hint = `${keyOf(source)} declares ${what} ${named}; this fixture's header lacks ${them}: add ${them} (an empty field is NULL)${near.length === 0 ? '' : `; ${near.join('; ')}`}`;
  return {
    gap: { path, missing: missing.map((column) => column.name) },
    finding: draft('fixture_column_missing', { path, line: 1, hint }),
  };
}

function relationOf(schema: string, identifier: string): string {
  return JSON.stringify([schema, identifier]);
}

/**
 * Loads each CSV data file a model or test reads, as dbt loads the
 * project's CSV files, into the models' schema: its rows, each column
 * typed by what all its values read as (whole numbers bigint, other
 * numbers double, then date, timestamp, true/false boolean, else
 * varchar), in the order dbt's CSV reader tries them
 * (docs/editions.md#seeds-and-snapshots). Returns the row count of each
 * one loaded, by name.
 */
async function loadSeeds(engine: CheckEngine, plan: CheckPlan): Promise<Map<string, number>> {
  const read = new Set([
    ...plan.models.filter((model) => model.enabled).flatMap((model) => model.seeds),
    ...plan.tests.flatMap((test) => test.models),
  ]);
  const loaded = new Map<string, number>();
  const seen = new Set<string>();
  for (const csv of plan.seeds) {
    if (csv.table === undefined || !read.has(csv.name) || seen.has(csv.name)) continue;
    seen.add(csv.name);
    try {
      await engine.loadTable(MODEL_SCHEMA, csv.name, csv.table.columns, csv.table.rows);
      await engine.retype(MODEL_SCHEMA, csv.name, seedTypes(csv.table));
      loaded.set(csv.name, csv.table.rows.length);
    } catch {
      // Not loaded: whatever reads it says so (dependency_failed, naming the seed).
    }
  }
  return loaded;
}

/** The type of each seed column that is not text, from its non-NULL values. */
export function seedTypes(table: CsvTable): Map<string, string> {
  const tests: readonly (readonly [string, RegExp])[] = [
    ['bigint', /^-?\d{1,18}$/],
    ['double', /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/],
    ['date', /^\d{4}-\d{2}-\d{2}$/],
    ['timestamp', /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d{1,6})?$/],
    ['boolean', /^(true|false)$/i],
  ];
  const types = new Map<string, string>();
  for (const [index, column] of table.columns.entries()) {
    const values = table.rows
      .map((row) => row[index])
      .filter((value) => value !== null && value !== undefined);
    if (values.length === 0) continue;
    const type = tests.find(([, pattern]) => values.every((value) => pattern.test(value ?? '')))?.[0];
    if (type !== undefined) types.set(column, type);
  }
  return types;
}

/** Builds the models in plan order; one whose refs or sources failed is not built but blocked. */
async function buildModels(
  engine: CheckEngine,
  plan: CheckPlan,
  parsed: ReadonlyMap<string, FindingDraft | undefined>,
  { loaded, gaps }: Pick<Execution, 'loaded' | 'gaps'>,
  fixturesDir: string,
  seeded: ReadonlyMap<string, number>,
): Promise<Pick<Execution, 'built' | 'modelFindings'>> {
  const modelFindings = new Map(parsed);
  // A loaded seed counts as built: the models and tests that read it go ahead.
  const built = new Map<string, number>(seeded);
  const seedFaults = new Map(plan.seeds.map((seed) => [seed.name, seed.fault]));
  const byName = new Map(plan.models.map((model) => [model.name, model]));
  for (const name of plan.buildOrder) {
    const model = byName.get(name);
    if (model === undefined || modelFindings.get(name) !== undefined || model.sql === undefined) continue;
    const blocked = blockedBy(model, modelFindings, built, loaded, fixturesDir, seedFaults);
    const outcome = blocked ?? (await buildModel(engine, model, model.sql));
    if (typeof outcome === 'number') built.set(name, outcome);
    else modelFindings.set(name, withGapHint(outcome, model, byName, gaps));
  }
  return { built, modelFindings };
}

/**
 * A build that failed on a column a fixture lacks (DuckDB names it, quoted)
 * says which fixture, so the binder's message is not all there is: the
 * sources the model reads, directly or through its refs, are searched.
 */
function withGapHint(
  found: FindingDraft,
  model: PlannedModel,
  byName: ReadonlyMap<string, PlannedModel>,
  gaps: ReadonlyMap<string, FixtureGap>,
): FindingDraft {
  const detail = found.detail;
  if (found.code !== 'build_failed' || detail === undefined || gaps.size === 0) return found;
  const named = fold(detail);
  for (const key of upstreamSources(model, byName)) {
    const gap = gaps.get(key);
    const column = gap?.missing.find((name) => named.includes(`"${fold(name)}"`));
    if (gap === undefined || column === undefined) continue;
    // DuckDB's binder stops at the first column it cannot find: the others
    // the fixture lacks are named too, or adding that one only moves the failure.
    const others = gap.missing.filter((name) => name !== column).map((name) => `'${name}'`);
    const also =
      others.length === 0
        ? ''
        : `; it lacks ${others.length === 1 ? others[0] : `${others.slice(0, -1).join(', ')} and ${others[others.length - 1]}`} too, and DuckDB names only the first column it cannot find`;
    return {
      ...found,
      hint: `the fixture ${gap.path} has no column '${column}', which the source table ${key} declares (fixture_column_missing)${also}`,
      causedBy: { code: 'fixture_column_missing', path: gap.path, line: 1 },
    };
  }
  return found;
}

/** The `source.table` keys a model reads, its own first, then through its refs, each once. */
function upstreamSources(model: PlannedModel, byName: ReadonlyMap<string, PlannedModel>): string[] {
  const keys = new Set<string>();
  const seen = new Set<string>();
  const walk = (current: PlannedModel): void => {
    if (seen.has(current.name)) return;
    seen.add(current.name);
    for (const key of current.sources) keys.add(keyOf(key));
    for (const ref of current.refs) {
      const upstream = byName.get(ref);
      if (upstream !== undefined) walk(upstream);
    }
  };
  walk(model);
  return [...keys];
}

/** The model's row count once built, or the engine's failure. */
async function buildModel(
  engine: CheckEngine,
  model: PlannedModel,
  sql: string,
): Promise<number | FindingDraft> {
  const kind = model.materialized === 'view' || model.materialized === 'ephemeral' ? 'view' : 'table';
  const statement = `create ${kind} ${model.relation} as `;
  try {
    await engine.run(`${statement}${sql}`);
    return await engine.count(`select count(*) from ${model.relation}`);
  } catch (error: unknown) {
    return withBinderPlace(engineFinding('build_failed', model.path, error), error, model, statement.length);
  }
}

/**
 * A build DuckDB's binder refused is placed where DuckDB points (its
 * `LINE n:` excerpt and caret), in the file when rendering kept that line,
 * and DuckDB's own candidates become the "did you mean": a misspelt column
 * is named with the column it is close to, a column a CTE lacks with the
 * CTE's name (DuckDB calls it a "values list"). `prefix` is the length of
 * the `create … as ` before the model's SQL on the statement's first line.
 */
function withBinderPlace(
  found: FindingDraft,
  error: unknown,
  model: Pick<PlannedModel, 'sql' | 'source'>,
  prefix: number,
): FindingDraft {
  const message = error instanceof Error ? error.message : typeof error === 'string' ? error : '';
  if (!message.startsWith('Binder Error:')) return found;
  const pointed = /\nLINE (\d+): (.*)\n( *)\^/.exec(message);
  let place: { line?: number; column?: number } = {};
  if (pointed !== null && model.sql !== undefined) {
    const line = Number(pointed[1]);
    const excerpt = pointed[2] ?? '';
    const caret = (pointed[3] ?? '').length - `LINE ${pointed[1]}: `.length;
    // An excerpt DuckDB cut ("...") does not give the column.
    const column = excerpt.startsWith('...') ? undefined : caret + 1 - (line === 1 ? prefix : 0);
    place = fileLineOf(model, line, column !== undefined && column > 0 ? column : undefined);
  }
  const missing = /Referenced column "([^"]+)" not found/.exec(message)?.[1];
  const candidates = [...(/\nCandidate bindings: (.*)/.exec(message)?.[1] ?? '').matchAll(/"([^"]+)"/g)].map(
    (match) => match[1] ?? '',
  );
  const near = missing === undefined ? undefined : didYouMean(missing, candidates);
  const inList = /Values list "([^"]+)" does not have a column named "([^"]+)"/.exec(message);
  const hint =
    near !== undefined
      ? `no column '${missing}' here; ${near}`
      : inList !== null
        ? `'${inList[1]}' (a CTE or subquery of this model) has no column '${inList[2]}'`
        : undefined;
  return { ...found, ...place, ...(hint === undefined || found.hint !== undefined ? {} : { hint }) };
}

/**
 * The file's line (and column) of a line of the rendered SQL: the same
 * line when Jinja kept the file's lines and that line is either written as
 * it renders or holds Jinja (a loop that adds lines and a comment that
 * drops as many keep the count, not the places), else the one line of the
 * file written as it renders, if there is exactly one; the column only
 * when that line renders to itself.
 */
function fileLineOf(
  model: Pick<PlannedModel, 'sql' | 'source'>,
  line: number,
  column: number | undefined,
): { line?: number; column?: number } {
  const renderedLines = (model.sql ?? '').split('\n');
  const sourceLines = model.source.split('\n');
  const rendered = renderedLines[line - 1];
  if (rendered === undefined) return {};
  let fileLine: number | undefined;
  const written = sourceLines[line - 1];
  if (
    renderedLines.length === sourceLines.length &&
    written !== undefined &&
    (written.trim() === rendered.trim() || /\{[{%#]/.test(written))
  )
    fileLine = line;
  else {
    const same = sourceLines.flatMap((text, index) =>
      text.trim() !== '' && text.trim() === rendered.trim() ? [index + 1] : [],
    );
    fileLine = same.length === 1 ? same[0] : undefined;
  }
  if (fileLine === undefined) return {};
  return column !== undefined && sourceLines[fileLine - 1] === rendered
    ? { line: fileLine, column }
    : { line: fileLine };
}

async function captureBuilt(
  engine: CheckEngine,
  models: readonly PlannedModel[],
  built: ReadonlyMap<string, number>,
  names: readonly string[],
): Promise<Record<string, CapturedRows>> {
  const byName = new Map(models.map((model) => [model.name, model]));
  const captured: Record<string, CapturedRows> = {};
  for (const name of names) {
    const model = byName.get(name);
    if (model !== undefined && built.has(name)) captured[name] = await engine.rows(model.relation);
  }
  return captured;
}

/** One test: failed by planning, not run without fixtures, failed with what it needs unbuilt, or counted. */
async function runTest(
  engine: CheckEngine,
  test: PlannedTest,
  execution: Execution,
  withFixtures: boolean,
  show: Show,
): Promise<TestReport> {
  const base: TestBase = {
    name: test.name,
    kind: test.kind,
    attached_to: test.attachedTo,
    column: test.column,
    ...(test.singular === undefined ? {} : { path: test.singular.path }),
  };
  if (test.finding !== undefined || test.sql === undefined)
    return {
      ...base,
      status: 'failed',
      ...optional(show(test.finding ?? draft('test_target_invalid', test.at))),
    };
  // A singular test's query goes through DuckDB's parser like a model's, fixtures or not.
  if (test.singular?.sql !== undefined) {
    const verdict = await engine.parse(test.singular.sql);
    if (!verdict.ok)
      return { ...base, status: 'failed', ...optional(show(parseFinding(verdict, test.singular))) };
  }
  // So is a column_name, which dbt pastes into the test's query.
  if (test.expression !== undefined) {
    const verdict = await engine.parseExpression(test.expression.text);
    if (!verdict.ok)
      return { ...base, status: 'failed', ...optional(show(expressionFinding(verdict, test.expression))) };
  }
  if (!withFixtures) return { ...base, status: 'not_run' };
  const unbuilt = [
    ...test.models
      .filter((name) => !execution.built.has(name))
      .map((name) =>
        execution.snapshots.has(name) ? `${name} (a snapshot: the offline check builds none)` : name,
      ),
    ...test.sources.map(keyOf).filter((key) => !execution.loaded.has(key)),
  ];
  if (unbuilt.length > 0) {
    const blocked = draft('dependency_failed', { ...test.at, hint: `not built: ${unbuilt.join(', ')}` });
    return { ...base, status: 'failed', ...optional(show(blocked)) };
  }
  return countFailures(engine, test, test.sql, base, show);
}

async function countFailures(
  engine: CheckEngine,
  test: PlannedTest,
  sql: string,
  base: TestBase,
  show: Show,
): Promise<TestReport> {
  try {
    const failures = await engine.count(sql);
    if (failures === 0) return { ...base, status: 'passed', failures };
    const failingRows = test.rowsSql === undefined ? [] : await engine.values(test.rowsSql);
    const shown = failures > failingRows.length ? `, the first ${failingRows.length} shown` : '';
    const rows = `${failures} failing ${failures === 1 ? 'row' : 'rows'}${shown}`;
    const subject = `${test.kind} on ${testedBy(test)}`;
    const hint =
      test.singular === undefined
        ? `${test.given === true ? `${test.name} (${subject})` : subject}: ${rows}`
        : `the singular test ${test.name} returned ${rows} (it passes when its query returns none)`;
    const failed = draft('test_failed', { ...test.at, hint, failingRows });
    return { ...base, status: 'failed', failures, ...optional(show(failed)) };
  } catch (error: unknown) {
    return {
      ...base,
      status: 'failed',
      // A column_name DuckDB parses but cannot bind (a column the model lacks) is that key's fault.
      ...optional(show(engineFinding('test_error', test.at.file, error, test.expression?.at ?? test.at))),
    };
  }
}

function checkReport(
  plan: CheckPlan,
  withFixtures: boolean,
  execution: Execution,
  tests: readonly TestReport[],
  show: Show,
): CheckReport {
  const models = modelReports(plan.models, execution, show);
  const sources = sourceReports(plan.sources, execution, show);
  const files = fileReports(plan.files, show);
  const failedModels = models.filter((model) => model.status === 'failed').length;
  const failedTests = tests.filter((test) => test.status === 'failed').length;
  const invalidFiles = files.filter((file) => file.status === 'invalid').length;
  const failedSources = sources.filter((source) => source.status === 'failed').length;
  const passed = failedModels === 0 && failedTests === 0 && invalidFiles === 0 && failedSources === 0;
  return {
    status: passed ? 'passed' : 'failed',
    project: plan.projectName,
    target: plan.target,
    fixtures: withFixtures,
    listed: models
      .filter((model) => model.enabled)
      .map((model) => model.fqn)
      .sort(),
    files,
    sources,
    models,
    tests,
    summary: {
      files: files.length,
      files_invalid: invalidFiles,
      models_enabled: models.filter((model) => model.enabled).length,
      models_disabled: models.filter((model) => !model.enabled).length,
      models_failed: failedModels,
      tests: tests.length,
      tests_passed: tests.filter((test) => test.status === 'passed').length,
      tests_failed: failedTests,
      tests_not_run: tests.filter((test) => test.status === 'not_run').length,
    },
  };
}

function modelReports(models: readonly PlannedModel[], execution: Execution, show: Show): ModelReport[] {
  return models.map((model) => {
    // Two model files of one name share it in the maps by name: a planning finding is each file's own.
    const code = model.finding ?? execution.modelFindings.get(model.name);
    const rows = execution.built.get(model.name);
    return {
      name: model.name,
      ...(model.version === undefined ? {} : { version: model.version }),
      fqn: model.fqn.join('.'),
      path: model.path,
      enabled: model.enabled,
      materialized: model.materialized,
      tags: model.tags,
      status: code !== undefined ? 'failed' : model.enabled ? 'passed' : 'disabled',
      built: rows !== undefined,
      ...(rows === undefined ? {} : { rows }),
      ...optional(show(code)),
    };
  });
}

function sourceReports(sources: CheckPlan['sources'], execution: Execution, show: Show): SourceReport[] {
  return sources.map((source) => {
    const key = keyOf(source);
    const code = source.finding ?? execution.sourceFindings.get(key);
    const rows = execution.loaded.get(key);
    return {
      name: key,
      path: source.path,
      enabled: source.enabled,
      status: code !== undefined ? 'failed' : source.enabled ? 'passed' : 'disabled',
      ...(rows === undefined ? {} : { fixture_rows: rows }),
      ...optional(show(code)),
    };
  });
}

function fileReports(files: CheckPlan['files'], show: Show): FileReport[] {
  return files.map((file) => ({
    path: file.path,
    kind: file.kind,
    status: file.finding === undefined ? 'valid' : 'invalid',
    ...optional(show(file.finding)),
    ...(file.also === undefined || file.also.length === 0
      ? {}
      : { also: file.also.flatMap((other) => show(other) ?? []) }),
    violations: uniqueRules(file.violations),
    ...(file.testsNotRead === undefined || file.testsNotRead === 0
      ? {}
      : { tests_not_read: file.testsNotRead }),
  }));
}

function keyOf(key: SourceKey): string {
  return `${key.source}.${key.table}`;
}

/** The rules a file breaks, each once (where they break is in the findings). */
function uniqueRules(
  violations: CheckPlan['files'][number]['violations'],
): { readonly keyword: string; readonly schema_path: string }[] {
  const seen = new Set<string>();
  const out: { readonly keyword: string; readonly schema_path: string }[] = [];
  for (const violation of violations) {
    const key = `${violation.keyword} ${violation.schemaPath}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ keyword: violation.keyword, schema_path: violation.schemaPath });
  }
  return out;
}

function optional<T>(value: T | undefined): { finding?: T } {
  return value === undefined ? {} : { finding: value };
}

function blockedBy(
  model: PlannedModel,
  findings: ReadonlyMap<string, FindingDraft | undefined>,
  built: ReadonlyMap<string, number>,
  loaded: ReadonlyMap<string, number>,
  fixturesDir: string,
  seedFaults: ReadonlyMap<string, string | undefined>,
): FindingDraft | undefined {
  const snapshot = model.snapshots[0];
  if (snapshot !== undefined)
    return draft('snapshot_not_built', {
      file: model.path,
      ...callPlace(model.source, 'ref', snapshot),
      hint: `ref('${snapshot}') reads a snapshot, which needs its earlier runs and the warehouse: the offline check builds no snapshot, so this model and what reads it are not built`,
    });
  const failed = [
    ...model.refs.filter((ref) => findings.get(ref) !== undefined || !built.has(ref)),
    ...model.seeds
      .filter((seed) => !built.has(seed))
      .map((seed) => {
        const fault = seedFaults.get(seed);
        return `the seed ${seed}${fault === undefined ? '' : ` (${fault})`}`;
      }),
  ];
  if (failed.length > 0)
    return draft('dependency_failed', { file: model.path, hint: `not built: ${failed.join(', ')}` });
  const missing = model.sources.find((key) => !loaded.has(`${key.source}.${key.table}`));
  if (missing !== undefined)
    return draft('fixture_missing', {
      file: model.path,
      hint: `no fixture for source '${missing.source}.${missing.table}': add ${join(fixturesDir, missing.source, `${missing.table}.csv`)}`,
    });
  return undefined;
}

/** sql_parse_error at the line DuckDB names, when the rendered SQL keeps the file's lines. */
function parseFinding(
  verdict: Extract<ParseVerdict, { readonly ok: false }>,
  model: Pick<PlannedModel, 'path' | 'sql' | 'source'>,
): FindingDraft {
  const place: { line?: number; column?: number } = {};
  let hint: string | undefined;
  if (verdict.offset !== undefined && model.sql !== undefined) {
    const renderedLines = model.sql.split('\n');
    const sourceLines = model.source.split('\n');
    // Jinja may add or drop lines; a line is named only when rendering kept them all, a
    // column only when that line renders to itself.
    const before = model.sql.slice(0, verdict.offset);
    const line = before.split('\n').length;
    const column = [...before.slice(before.lastIndexOf('\n') + 1)].length + 1;
    if (renderedLines.length === sourceLines.length) {
      place.line = line;
      if (renderedLines[line - 1] === sourceLines[line - 1]) place.column = column;
    } else {
      // Jinja changed the line count (a for loop, a set): the rendered line is
      // placed in the file when the file has it once, written as it renders.
      const rendered = renderedLines[line - 1] ?? '';
      const same = sourceLines.flatMap((text, index) =>
        text.trim() !== '' && text.trim() === rendered.trim() ? [index + 1] : [],
      );
      const only = same.length === 1 ? same[0] : undefined;
      if (only !== undefined) {
        place.line = only;
        if (sourceLines[only - 1] === rendered) place.column = column;
      } else
        hint = `DuckDB stops at line ${line}, column ${column} of the rendered SQL; Jinja changed the file's lines, so that line is not placed in the file`;
    }
  }
  if (verdict.code === 'sql_not_single_select' && model.sql !== undefined) {
    // DuckDB says only "not implemented": a ';' with more after it is a second statement.
    const more = /;\s*\S/.exec(model.sql);
    const at = more === null ? -1 : model.source.indexOf(';');
    return draft(verdict.code, {
      file: model.path,
      ...(at === -1 ? {} : positionAt(model.source, at)),
      hint:
        more === null
          ? 'this statement is not a query: a model or a singular test is one select (or with … select)'
          : "the SQL holds more than one statement (a ';' ends one here): a model or a singular test is one query; make each other query one of its own",
    });
  }
  return draft(verdict.code, {
    file: model.path,
    ...place,
    ...(hint === undefined ? {} : { hint }),
    ...(verdict.message === undefined ? {} : { detail: verdict.message }),
  });
}

/** What a generic test tests: `model.column`, or the model and the expression a column_name gives. */
function testedBy(test: PlannedTest): string {
  if (test.expression === undefined || IDENTIFIER.test(test.expression.text))
    return `${test.attachedTo}.${test.column}`;
  return `${test.attachedTo} (${test.expression.text})`;
}

/** A column_name DuckDB's parser refuses, or reads as something other than one value, at its key. */
function expressionFinding(
  verdict: Extract<ExpressionVerdict, { readonly ok: false }>,
  { text, at }: NonNullable<PlannedTest['expression']>,
): FindingDraft {
  const where =
    verdict.offset === undefined
      ? ''
      : verdict.offset >= text.trimEnd().length
        ? ' (DuckDB stops at its end)'
        : ` (DuckDB stops at character ${verdict.offset + 1} of it)`;
  const hint =
    verdict.notOneValue === true
      ? "dbt pastes column_name into the test's query as the one value it selects, groups and filters by, so a second value, an alias, * or a clause there breaks that query or changes what it tests: give a column or one SQL expression"
      : `column_name is SQL that dbt pastes into the test's query, and DuckDB's parser refuses it${where}`;
  return draft('sql_parse_error', {
    ...at,
    hint,
    ...(verdict.message === undefined ? {} : { detail: verdict.message }),
  });
}

/** A failure of the engine itself, with the first line of DuckDB's message. */
function engineFinding(
  code: 'build_failed' | 'test_error',
  file: string | undefined,
  error: unknown,
  at: Omit<FindingDraft, 'code'> = {},
): FindingDraft {
  const detail = engineMessageLine(error);
  return draft(code, {
    ...at,
    ...(file === undefined ? {} : { file }),
    ...(detail === undefined ? {} : { detail }),
  });
}

/**
 * DuckDB's message with every var()/env_var() value replaced by `…`: a
 * rendered schema name (the migration Bronze namespace) is used, never
 * printed. Longest first, so a value containing another is masked whole.
 */
function masked(found: FindingDraft | undefined, secrets: readonly string[]): FindingDraft | undefined {
  if (found?.detail === undefined) return found;
  let detail = found.detail;
  for (const secret of [...secrets].sort((a, b) => b.length - a.length))
    detail = detail.replaceAll(secret, '…');
  return { ...found, detail };
}

function nearestSource(key: string, known: readonly string[]): string {
  const hint = didYouMean(key, known);
  return hint === undefined ? '' : `; ${hint}`;
}
