import { join } from 'node:path';
import { didYouMean, type Refusal, refuseAll } from '../../core/refusal/index.js';
import { refuseEdition } from '../refusals.js';
import { CheckEngine, engineMessageLine, type ParseVerdict } from './engine.js';
import type { FixtureSet, FixtureTable } from './fixtures.js';
import type { CheckPlan, PlannedModel } from './plan.js';
import {
  type CheckReport,
  draft,
  type FileReport,
  type FindingDraft,
  finding,
  type ModelReport,
  type SourceReport,
  type TestReport,
} from './report.js';

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

/**
 * Executes a check plan: every enabled model's SQL through DuckDB's parser;
 * with fixtures, the Bronze tables loaded, the models built in plan order
 * and each test's failing-row count taken. Engine error text is never kept.
 */
export async function runCheck(plan: CheckPlan, options: RunCheckOptions = {}): Promise<CheckRun> {
  const fixtures = options.fixtures;
  const fixtureByKey = new Map<string, FixtureTable>();
  const unknown: Refusal[] = [];
  const known = plan.sources.map((source) => `${source.source}.${source.table}`);
  for (const table of fixtures?.tables ?? []) {
    const key = `${table.source}.${table.table}`;
    if (!known.includes(key)) {
      const near = nearestSource(key, known);
      unknown.push(
        refuseEdition('fixture_unknown_table', {
          location: { path: join(table.dir ?? fixtures?.dir ?? '.', table.source, `${table.table}.csv`) },
          hint: `no source table '${key}' is defined in the project's properties files${near}`,
        }),
      );
    }
    fixtureByKey.set(key, table);
  }
  if (unknown.length > 0) throw refuseAll(unknown);
  const show = (found: FindingDraft | undefined) => finding(masked(found, plan.secrets), plan.projectDir);

  const engine = await CheckEngine.open();
  try {
    const modelFindings = new Map<string, FindingDraft | undefined>(
      plan.models.map((model) => [model.name, model.finding]),
    );
    for (const model of plan.models) {
      if (!model.enabled || model.finding !== undefined || model.sql === undefined) continue;
      const verdict = await engine.parse(model.sql);
      if (!verdict.ok) modelFindings.set(model.name, parseFinding(verdict, model));
    }

    const loaded = new Map<string, number>();
    const built = new Map<string, number>();
    const sourceFindings = new Map<string, FindingDraft | undefined>();
    const captured: Record<string, CapturedRows> = {};
    if (fixtures !== undefined) {
      // Two sources whose schema and identifier render alike name one Bronze
      // relation (the migration source and a scaffolded one, both on
      // MIGRATION_BRONZE_NAMESPACE): one fixture loads it for both, as one
      // table serves both in the warehouse.
      const relations = new Map<string, number>();
      const relationOf = (source: (typeof plan.sources)[number]): string | undefined =>
        source.schema === undefined || source.identifier === undefined
          ? undefined
          : JSON.stringify([source.schema, source.identifier]);
      for (const source of plan.sources) {
        const key = `${source.source}.${source.table}`;
        const table = fixtureByKey.get(key);
        if (!source.enabled || source.finding !== undefined || table === undefined) continue;
        if (source.schema === undefined || source.identifier === undefined) continue;
        try {
          await engine.loadTable(source.schema, source.identifier, table.columns, table.rows);
          loaded.set(key, table.rows.length);
          const relation = relationOf(source);
          if (relation !== undefined) relations.set(relation, table.rows.length);
        } catch (error: unknown) {
          sourceFindings.set(key, engineFinding('build_failed', source.path, error));
        }
      }
      for (const source of plan.sources) {
        const key = `${source.source}.${source.table}`;
        const relation = relationOf(source);
        const rows = relation === undefined ? undefined : relations.get(relation);
        if (!source.enabled || source.finding !== undefined || fixtureByKey.has(key) || rows === undefined)
          continue;
        loaded.set(key, rows);
      }
      const byName = new Map(plan.models.map((model) => [model.name, model]));
      for (const name of plan.buildOrder) {
        const model = byName.get(name);
        if (model === undefined || modelFindings.get(name) !== undefined || model.sql === undefined) continue;
        const blocked = blockedBy(model, modelFindings, built, loaded, fixtures.dir);
        if (blocked !== undefined) {
          modelFindings.set(name, blocked);
          continue;
        }
        const kind = model.materialized === 'view' || model.materialized === 'ephemeral' ? 'view' : 'table';
        try {
          await engine.run(`create ${kind} ${model.relation} as ${model.sql}`);
          built.set(name, await engine.count(`select count(*) from ${model.relation}`));
        } catch (error: unknown) {
          modelFindings.set(name, engineFinding('build_failed', model.path, error));
        }
      }
      for (const name of options.captureRows ?? []) {
        const model = byName.get(name);
        if (model !== undefined && built.has(name)) captured[name] = await engine.rows(model.relation);
      }
    }

    const tests: TestReport[] = [];
    for (const test of plan.tests) {
      const base = { name: test.name, kind: test.kind, attached_to: test.attachedTo, column: test.column };
      if (test.finding !== undefined || test.sql === undefined) {
        tests.push({
          ...base,
          status: 'failed',
          ...optional(show(test.finding ?? draft('test_target_invalid', test.at))),
        });
        continue;
      }
      if (fixtures === undefined) {
        tests.push({ ...base, status: 'not_run' });
        continue;
      }
      const ready =
        test.models.every((name) => built.has(name)) &&
        test.sources.every((key) => loaded.has(`${key.source}.${key.table}`));
      if (!ready) {
        const failed = [
          ...test.models.filter((name) => !built.has(name)),
          ...test.sources.map((key) => `${key.source}.${key.table}`).filter((key) => !loaded.has(key)),
        ];
        tests.push({
          ...base,
          status: 'failed',
          ...optional(
            show(draft('dependency_failed', { ...test.at, hint: `not built: ${failed.join(', ')}` })),
          ),
        });
        continue;
      }
      try {
        const failures = await engine.count(test.sql);
        if (failures === 0) {
          tests.push({ ...base, status: 'passed', failures });
          continue;
        }
        const failingRows = test.rowsSql === undefined ? [] : await engine.values(test.rowsSql);
        tests.push({
          ...base,
          status: 'failed',
          failures,
          ...optional(
            show(
              draft('test_failed', {
                ...test.at,
                hint: `${test.kind} on ${test.attachedTo}.${test.column}: ${failures} failing ${failures === 1 ? 'row' : 'rows'}${failures > failingRows.length ? `, the first ${failingRows.length} shown` : ''}`,
                failingRows,
              }),
            ),
          ),
        });
      } catch (error: unknown) {
        tests.push({
          ...base,
          status: 'failed',
          ...optional(show(engineFinding('test_error', test.at.file, error, test.at))),
        });
      }
    }

    const models: ModelReport[] = plan.models.map((model) => {
      const code = modelFindings.get(model.name);
      const rows = built.get(model.name);
      return {
        name: model.name,
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
    const sources: SourceReport[] = plan.sources.map((source) => {
      const key = `${source.source}.${source.table}`;
      const code = source.finding ?? sourceFindings.get(key);
      const rows = loaded.get(key);
      return {
        name: key,
        path: source.path,
        enabled: source.enabled,
        status: code !== undefined ? 'failed' : source.enabled ? 'passed' : 'disabled',
        ...(rows === undefined ? {} : { fixture_rows: rows }),
        ...optional(show(code)),
      };
    });
    const files: FileReport[] = plan.files.map((file) => ({
      path: file.path,
      kind: file.kind,
      status: file.finding === undefined ? 'valid' : 'invalid',
      ...optional(show(file.finding)),
      ...(file.also === undefined || file.also.length === 0
        ? {}
        : { also: file.also.flatMap((other) => show(other) ?? []) }),
      violations: uniqueRules(file.violations),
    }));

    const failedModels = models.filter((model) => model.status === 'failed').length;
    const failedTests = tests.filter((test) => test.status === 'failed').length;
    const invalidFiles = files.filter((file) => file.status === 'invalid').length;
    const failedSources = sources.filter((source) => source.status === 'failed').length;
    const passed = failedModels === 0 && failedTests === 0 && invalidFiles === 0 && failedSources === 0;
    const report: CheckReport = {
      status: passed ? 'passed' : 'failed',
      project: plan.projectName,
      target: plan.target,
      fixtures: fixtures !== undefined,
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
    return { report, captured };
  } finally {
    engine.close();
  }
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
): FindingDraft | undefined {
  const failed = model.refs.filter((ref) => findings.get(ref) !== undefined || !built.has(ref));
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
  model: PlannedModel,
): FindingDraft {
  const place: { line?: number; column?: number } = {};
  if (verdict.offset !== undefined && model.sql !== undefined) {
    const renderedLines = model.sql.split('\n');
    const sourceLines = model.source.split('\n');
    // Jinja may add or drop lines; a line is named only when rendering kept them all, a
    // column only when that line renders to itself.
    if (renderedLines.length === sourceLines.length) {
      const before = model.sql.slice(0, verdict.offset);
      const line = before.split('\n').length;
      place.line = line;
      if (renderedLines[line - 1] === sourceLines[line - 1])
        place.column = [...before.slice(before.lastIndexOf('\n') + 1)].length + 1;
    }
  }
  return draft(verdict.code, {
    file: model.path,
    ...place,
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
