import { refuseEdition } from '../refusals.js';
import { CheckEngine } from './engine.js';
import type { FindingCode } from './findings.js';
import type { FixtureSet, FixtureTable } from './fixtures.js';
import type { CheckPlan, PlannedModel } from './plan.js';
import {
  type CheckReport,
  type FileReport,
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
  for (const table of fixtures?.tables ?? []) {
    const key = `${table.source}.${table.table}`;
    if (!plan.sources.some((source) => `${source.source}.${source.table}` === key))
      throw refuseEdition('fixture_unknown_table');
    fixtureByKey.set(key, table);
  }

  const engine = await CheckEngine.open();
  try {
    const modelFindings = new Map<string, FindingCode | undefined>(
      plan.models.map((model) => [model.name, model.finding]),
    );
    for (const model of plan.models) {
      if (!model.enabled || model.finding !== undefined || model.sql === undefined) continue;
      const verdict = await engine.parse(model.sql);
      if (verdict !== 'ok') modelFindings.set(model.name, verdict);
    }

    const loaded = new Map<string, number>();
    const built = new Map<string, number>();
    const sourceFindings = new Map<string, FindingCode | undefined>();
    const captured: Record<string, CapturedRows> = {};
    if (fixtures !== undefined) {
      for (const source of plan.sources) {
        const key = `${source.source}.${source.table}`;
        const table = fixtureByKey.get(key);
        if (!source.enabled || source.finding !== undefined || table === undefined) continue;
        if (source.schema === undefined || source.identifier === undefined) continue;
        try {
          await engine.loadTable(source.schema, source.identifier, table.columns, table.rows);
          loaded.set(key, table.rows.length);
        } catch {
          sourceFindings.set(key, 'build_failed');
        }
      }
      const byName = new Map(plan.models.map((model) => [model.name, model]));
      for (const name of plan.buildOrder) {
        const model = byName.get(name);
        if (model === undefined || modelFindings.get(name) !== undefined || model.sql === undefined) continue;
        const blocked = blockedBy(model, modelFindings, built, loaded);
        if (blocked !== undefined) {
          modelFindings.set(name, blocked);
          continue;
        }
        const kind = model.materialized === 'view' || model.materialized === 'ephemeral' ? 'view' : 'table';
        try {
          await engine.run(`create ${kind} ${model.relation} as ${model.sql}`);
          built.set(name, await engine.count(`select count(*) from ${model.relation}`));
        } catch {
          modelFindings.set(name, 'build_failed');
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
          ...optional(finding(test.finding ?? 'test_target_invalid')),
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
        tests.push({ ...base, status: 'failed', ...optional(finding('dependency_failed')) });
        continue;
      }
      try {
        const failures = await engine.count(test.sql);
        tests.push(
          failures === 0
            ? { ...base, status: 'passed', failures }
            : { ...base, status: 'failed', failures, ...optional(finding('test_failed')) },
        );
      } catch {
        tests.push({ ...base, status: 'failed', ...optional(finding('test_error')) });
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
        ...optional(finding(code)),
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
        ...optional(finding(code)),
      };
    });
    const files: FileReport[] = plan.files.map((file) => ({
      path: file.path,
      kind: file.kind,
      status: file.finding === undefined ? 'valid' : 'invalid',
      ...optional(finding(file.finding)),
      violations: file.violations.map((violation) => ({
        keyword: violation.keyword,
        schema_path: violation.schemaPath,
      })),
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

function optional<T>(value: T | undefined): { finding?: T } {
  return value === undefined ? {} : { finding: value };
}

function blockedBy(
  model: PlannedModel,
  findings: ReadonlyMap<string, FindingCode | undefined>,
  built: ReadonlyMap<string, number>,
  loaded: ReadonlyMap<string, number>,
): FindingCode | undefined {
  if (model.refs.some((ref) => findings.get(ref) !== undefined || !built.has(ref)))
    return 'dependency_failed';
  if (model.sources.some((key) => !loaded.has(`${key.source}.${key.table}`))) return 'fixture_missing';
  return undefined;
}
