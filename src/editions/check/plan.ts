import { applyConfig, projectConfig, type ResolvedConfig } from './config.js';
import type { FindingCode } from './findings.js';
import { JinjaHarness, type RelationResolver, type RenderOutcome, renderedBoolean } from './jinja.js';
import type { ProjectFiles } from './project-files.js';
import { collectProperties, type ModelProperties, type SourceTableProperties } from './properties.js';
import type { DbtSchemas, SchemaViolation } from './schemas.js';
import { IDENTIFIER, modelRelation, sourceRelation, testQuery } from './sql.js';
import { isMapping, parseYaml, type YamlMapping, type YamlValue } from './yaml.js';

export interface CheckOptions {
  /** The dbt target name: `default` or `migration` for the editions. */
  readonly target: string;
  /** --vars, as a mapping. */
  readonly vars: YamlMapping;
  /** The environment env_var() reads (e.g. MIGRATION_BRONZE_NAMESPACE). */
  readonly env: Readonly<Record<string, string>>;
}

export interface FileResult {
  readonly path: string;
  readonly kind: 'project' | 'properties' | 'macros';
  readonly finding: FindingCode | undefined;
  readonly violations: readonly SchemaViolation[];
}

export interface PlannedModel {
  readonly name: string;
  readonly path: string;
  readonly fqn: readonly string[];
  readonly enabled: boolean;
  readonly materialized: string;
  readonly tags: readonly string[];
  readonly relation: string;
  /** The rendered SQL; undefined when rendering failed. */
  readonly sql: string | undefined;
  readonly refs: readonly string[];
  readonly sources: readonly SourceKey[];
  readonly finding: FindingCode | undefined;
}

export interface SourceKey {
  readonly source: string;
  readonly table: string;
}

export interface PlannedSource extends SourceKey {
  readonly path: string;
  readonly enabled: boolean;
  /** The rendered schema (e.g. the migration Bronze namespace): used to build, never reported. */
  readonly schema: string | undefined;
  readonly identifier: string | undefined;
  readonly relation: string | undefined;
  readonly columns: readonly string[];
  readonly finding: FindingCode | undefined;
}

export interface PlannedTest {
  readonly name: string;
  readonly kind: string;
  /** The model or `source.table` the test is attached to. */
  readonly attachedTo: string;
  readonly column: string;
  readonly sql: string | undefined;
  readonly models: readonly string[];
  readonly sources: readonly SourceKey[];
  readonly finding: FindingCode | undefined;
}

/**
 * Everything the offline check will execute, decided without I/O: which
 * files validate, which models and sources are enabled for this target and
 * vars, every enabled model's rendered SQL, the build order and each test's
 * query. Serializable; apply only parses, builds and counts.
 */
export interface CheckPlan {
  readonly projectName: string;
  readonly target: string;
  readonly files: readonly FileResult[];
  readonly models: readonly PlannedModel[];
  readonly sources: readonly PlannedSource[];
  readonly buildOrder: readonly string[];
  readonly tests: readonly PlannedTest[];
}

const byString = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export function planCheck(files: ProjectFiles, schemas: DbtSchemas, options: CheckOptions): CheckPlan {
  const project = files.project;
  const projectName = String(project.name);
  const fileResults: FileResult[] = [];

  fileResults.push({
    path: 'dbt_project.yml',
    kind: 'project',
    ...schemaOutcome(schemas.project(project)),
  });

  const docs: { path: string; value: YamlValue }[] = [];
  for (const file of files.properties) {
    const parsed = parseYaml(file.bytes);
    if (!parsed.ok) {
      fileResults.push({ path: file.path, kind: 'properties', finding: 'yaml_syntax', violations: [] });
      continue;
    }
    const outcome = schemaOutcome(schemas.properties(parsed.value));
    fileResults.push({ path: file.path, kind: 'properties', ...outcome });
    if (outcome.finding === undefined) docs.push({ path: file.path, value: parsed.value });
  }

  const harness = new JinjaHarness(
    files.macros.map((file) => ({ path: file.path, text: decode(file.bytes) })),
    {
      projectName,
      target: options.target,
      cliVars: options.vars,
      projectVars: projectVars(project, projectName),
      env: options.env,
    },
  );
  for (const problem of harness.macroProblems)
    fileResults.push({ path: problem.path, kind: 'macros', finding: problem.code, violations: [] });

  const properties = collectProperties(docs);
  const modelPathOf = (path: string): { readonly dirs: readonly string[]; readonly base: string } => {
    const root = files.modelPaths.find((prefix) => path.startsWith(`${prefix}/`)) ?? '';
    const rest = path.slice(root.length + 1).split('/');
    return { dirs: rest.slice(0, -1), base: rest[rest.length - 1] ?? '' };
  };

  const noRelations: RelationResolver = { model: () => undefined, source: () => undefined };
  const renderValue = (text: string, withProjectVars: boolean): RenderOutcome =>
    harness.render(text, noRelations, { withMacros: false, withProjectVars });
  const renderIfJinja = (text: string): RenderOutcome =>
    /\{[{%#]/.test(text)
      ? renderValue(text, true)
      : { ok: true, text, record: { refs: [], sources: [], configs: [] } };

  // Sources.
  const sourceCounts = new Map<string, number>();
  for (const table of properties.sources) {
    const key = `${table.source}.${table.table}`;
    sourceCounts.set(key, (sourceCounts.get(key) ?? 0) + 1);
  }
  const sources: PlannedSource[] = properties.sources
    .map((table) =>
      planSource(table, sourceCounts, project, projectName, modelPathOf, renderValue, renderIfJinja),
    )
    .sort((a, b) => byString(`${a.source}.${a.table}`, `${b.source}.${b.table}`));
  const sourceByKey = new Map(sources.map((source) => [`${source.source}.${source.table}`, source]));

  // Models.
  const modelCounts = new Map<string, number>();
  for (const file of files.models) {
    const name = modelPathOf(file.path).base.replace(/\.sql$/, '');
    modelCounts.set(name, (modelCounts.get(name) ?? 0) + 1);
  }
  const propsByModel = new Map<string, ModelProperties>();
  for (const props of properties.models)
    if (!propsByModel.has(props.name)) propsByModel.set(props.name, props);
  const resolver: RelationResolver = {
    model: (name) => (modelCounts.has(name) && IDENTIFIER.test(name) ? modelRelation(name) : undefined),
    source: (source, table) => {
      const planned = sourceByKey.get(`${source}.${table}`);
      return planned === undefined ? undefined : (planned.relation ?? '"unresolved"."unresolved"');
    },
  };

  const models: PlannedModel[] = files.models
    .map((file): PlannedModel => {
      const { dirs, base } = modelPathOf(file.path);
      const name = base.replace(/\.sql$/, '');
      const fqn = [projectName, ...dirs, name];
      let finding: FindingCode | undefined;
      if (!IDENTIFIER.test(name)) finding = 'invalid_resource_name';
      else if ((modelCounts.get(name) ?? 0) > 1) finding = 'duplicate_model';

      let config: ResolvedConfig = projectConfig(project.models, projectName, [...dirs, name]);
      let enabled = renderedBoolean(config.enabled, (text) => renderValue(text, false));
      const props = propsByModel.get(name);
      if (props?.config !== undefined) {
        const before = config.enabled;
        config = applyConfig(config, props.config);
        if (config.enabled !== before)
          enabled = renderedBoolean(config.enabled, (text) => renderValue(text, true));
      }
      const rendered = harness.render(decode(file.bytes), resolver, {
        withMacros: true,
        withProjectVars: true,
        self: modelRelation(name),
      });
      for (const inline of rendered.record.configs) {
        const before = config.enabled;
        config = applyConfig(config, inline);
        if (config.enabled !== before)
          enabled = renderedBoolean(config.enabled, (text) => renderValue(text, true));
      }
      if (typeof enabled === 'string') finding ??= enabled;
      if (!rendered.ok) finding ??= rendered.code;
      return {
        name,
        path: file.path,
        fqn,
        enabled: enabled === true || enabled === undefined,
        materialized: config.materialized ?? 'view',
        tags: config.tags,
        relation: modelRelation(name),
        sql: rendered.ok ? rendered.text : undefined,
        refs: [...new Set(rendered.record.refs)].sort(byString),
        sources: uniqueSources(rendered.record.sources),
        finding,
      };
    })
    .sort((a, b) => byString(a.name, b.name) || byString(a.path, b.path));

  const enabledModels = new Map(models.filter((model) => model.enabled).map((model) => [model.name, model]));
  const checked = models.map((model): PlannedModel => {
    if (!model.enabled || model.finding !== undefined) return model;
    if (model.refs.some((ref) => !enabledModels.has(ref)))
      return { ...model, finding: 'ref_to_disabled_model' };
    const read = model.sources.map((key) => sourceByKey.get(`${key.source}.${key.table}`));
    if (read.some((source) => source?.enabled !== true)) return { ...model, finding: 'source_disabled' };
    const broken = read.find((source) => source?.finding !== undefined)?.finding;
    return broken === undefined ? model : { ...model, finding: broken };
  });

  const { order, cyclic } = buildOrder(checked.filter((model) => model.enabled));
  const planned = checked.map((model) =>
    cyclic.has(model.name) && model.finding === undefined
      ? { ...model, finding: 'dependency_cycle' as const }
      : model,
  );

  // Properties for models that do not exist.
  for (const props of properties.models) {
    if (modelCounts.has(props.name)) continue;
    const index = fileResults.findIndex((result) => result.path === props.file);
    const existing = fileResults[index];
    if (existing !== undefined && existing.finding === undefined)
      fileResults[index] = { ...existing, finding: 'properties_without_model' };
  }

  const sourceProps = new Map(properties.sources.map((table) => [`${table.source}.${table.table}`, table]));
  const tests = planTests(planned, sources, propsByModel, sourceProps, harness, enabledModels, sourceByKey);
  fileResults.sort((a, b) => byString(a.path, b.path));
  return {
    projectName,
    target: options.target,
    files: fileResults,
    models: planned,
    sources,
    buildOrder: order,
    tests,
  };
}

function schemaOutcome(violations: readonly SchemaViolation[]): {
  readonly finding: FindingCode | undefined;
  readonly violations: readonly SchemaViolation[];
} {
  return { finding: violations.length === 0 ? undefined : 'yaml_schema', violations };
}

const utf8 = new TextDecoder('utf-8', { fatal: false });
function decode(bytes: Uint8Array): string {
  return utf8.decode(bytes);
}

/** `vars:` of dbt_project.yml: global entries plus those scoped to this project. */
function projectVars(project: YamlMapping, projectName: string): YamlMapping {
  const vars = project.vars;
  if (!isMapping(vars)) return {};
  const out: { [key: string]: YamlValue } = {};
  for (const [key, value] of Object.entries(vars)) {
    if (key === projectName && isMapping(value)) continue;
    Object.defineProperty(out, key, { value, enumerable: true });
  }
  const scoped = vars[projectName];
  if (isMapping(scoped))
    for (const [key, value] of Object.entries(scoped))
      Object.defineProperty(out, key, { value, enumerable: true });
  return out;
}

function uniqueSources(pairs: readonly (readonly [string, string])[]): SourceKey[] {
  const seen = new Map<string, SourceKey>();
  for (const [source, table] of pairs) seen.set(`${source}.${table}`, { source, table });
  return [...seen.entries()].sort((a, b) => byString(a[0], b[0])).map(([, key]) => key);
}

function planSource(
  table: SourceTableProperties,
  counts: ReadonlyMap<string, number>,
  project: YamlMapping,
  projectName: string,
  modelPathOf: (path: string) => { readonly dirs: readonly string[] },
  renderValue: (text: string, withProjectVars: boolean) => RenderOutcome,
  renderIfJinja: (text: string) => RenderOutcome,
): PlannedSource {
  let finding: FindingCode | undefined;
  if (![table.source, table.table].every((name) => IDENTIFIER.test(name))) finding = 'invalid_resource_name';
  if ((counts.get(`${table.source}.${table.table}`) ?? 0) > 1) finding ??= 'duplicate_source';
  const dirs = modelPathOf(table.file).dirs;
  const fromProject = projectConfig(project.sources, projectName, [...dirs, table.source, table.table]);
  let enabled = renderedBoolean(fromProject.enabled, (text) => renderValue(text, false));
  for (const raw of [table.sourceEnabled, table.tableEnabled]) {
    if (raw !== undefined) enabled = renderedBoolean(raw, (text) => renderValue(text, true));
  }
  if (typeof enabled === 'string') finding ??= enabled;
  const schema = renderIfJinja(table.schema);
  const identifier = renderIfJinja(table.identifier);
  if (!schema.ok) finding ??= schema.code;
  if (!identifier.ok) finding ??= identifier.code;
  const schemaText = schema.ok ? schema.text.trim() : undefined;
  const identifierText = identifier.ok ? identifier.text.trim() : undefined;
  if (schemaText === '' || identifierText === '') finding ??= 'invalid_resource_name';
  return {
    source: table.source,
    table: table.table,
    path: table.file,
    enabled: enabled === true || enabled === undefined,
    schema: schemaText,
    identifier: identifierText,
    relation:
      schemaText !== undefined && identifierText !== undefined
        ? sourceRelation(schemaText, identifierText)
        : undefined,
    columns: table.columns.map((column) => column.name),
    finding,
  };
}

/** Kahn's algorithm over ref() edges, ties broken by name, so the order is the same on every run. */
function buildOrder(models: readonly PlannedModel[]): { order: string[]; cyclic: Set<string> } {
  const names = new Set(models.map((model) => model.name));
  const pending = new Map(
    models.map((model) => [model.name, new Set(model.refs.filter((ref) => names.has(ref)))]),
  );
  const order: string[] = [];
  for (;;) {
    const ready = [...pending.entries()]
      .filter(([, deps]) => deps.size === 0)
      .map(([name]) => name)
      .sort(byString);
    if (ready.length === 0) break;
    for (const name of ready) {
      order.push(name);
      pending.delete(name);
      for (const deps of pending.values()) deps.delete(name);
    }
  }
  return { order, cyclic: new Set(pending.keys()) };
}

function planTests(
  models: readonly PlannedModel[],
  sources: readonly PlannedSource[],
  propsByModel: ReadonlyMap<string, ModelProperties>,
  sourceProps: ReadonlyMap<string, SourceTableProperties>,
  harness: JinjaHarness,
  enabledModels: ReadonlyMap<string, PlannedModel>,
  sourceByKey: ReadonlyMap<string, PlannedSource>,
): PlannedTest[] {
  const tests: PlannedTest[] = [];
  const names = new Map<string, number>();
  const uniqueName = (base: string): string => {
    const count = (names.get(base) ?? 0) + 1;
    names.set(base, count);
    return count === 1 ? base : `${base}_${count}`;
  };
  const modelNames = new Set(models.map((model) => model.name));
  const resolver: RelationResolver = {
    model: (name) => (modelNames.has(name) ? modelRelation(name) : undefined),
    source: (source, table) => sourceByKey.get(`${source}.${table}`)?.relation,
  };

  const attach = (
    attachedTo: string,
    relation: string,
    owner: { readonly models: readonly string[]; readonly sources: readonly SourceKey[] },
    columns: ModelProperties['columns'],
  ): void => {
    for (const column of columns) {
      for (const spec of column.tests) {
        const label = spec.kind === 'unsupported' ? spec.label : spec.kind;
        const safeLabel = IDENTIFIER.test(label) ? label : 'test';
        let name = `${safeLabel}_${attachedTo.replaceAll('.', '_')}_${column.name}`;
        let finding: FindingCode | undefined;
        let to: string | undefined;
        const deps = { models: [...owner.models], sources: [...owner.sources] };
        if (spec.kind === 'unsupported') finding = 'unsupported_test';
        else if (!IDENTIFIER.test(column.name)) finding = 'test_target_invalid';
        if (spec.kind === 'relationships' && finding === undefined) {
          const rendered = harness.render(`{{ ${spec.to} }}`, resolver, {
            withMacros: false,
            withProjectVars: true,
          });
          if (!rendered.ok) finding = rendered.code;
          else if (!IDENTIFIER.test(spec.field)) finding = 'test_target_invalid';
          else {
            to = rendered.text;
            for (const ref of rendered.record.refs) {
              if (!enabledModels.has(ref)) finding ??= 'ref_to_disabled_model';
              deps.models.push(ref);
              name = `${name}__${spec.field}__${ref}`;
            }
            for (const [source, table] of rendered.record.sources) {
              if (sourceByKey.get(`${source}.${table}`)?.enabled !== true) finding ??= 'source_disabled';
              deps.sources.push({ source, table });
              name = `${name}__${spec.field}__${source}_${table}`;
            }
          }
        }
        const sql = finding === undefined ? testQuery(spec, relation, column.name, to) : undefined;
        if (finding === undefined && sql === undefined) finding = 'test_target_invalid';
        tests.push({
          name: uniqueName(name),
          kind: safeLabel,
          attachedTo,
          column: column.name,
          sql,
          models: [...new Set(deps.models)].sort(byString),
          sources: uniqueSources(deps.sources.map((key) => [key.source, key.table] as const)),
          finding,
        });
      }
    }
  };

  for (const model of models) {
    if (!model.enabled) continue;
    const props = propsByModel.get(model.name);
    if (props === undefined) continue;
    attach(model.name, model.relation, { models: [model.name], sources: [] }, props.columns);
    // Model-level tests (e.g. from packages) are listed as unsupported, never dropped.
    attach(model.name, model.relation, { models: [model.name], sources: [] }, [
      { name: 'model', tests: props.modelTests },
    ]);
  }
  for (const source of sources) {
    if (!source.enabled || source.relation === undefined) continue;
    const columns = sourceProps.get(`${source.source}.${source.table}`)?.columns ?? [];
    attach(`${source.source}.${source.table}`, source.relation, { models: [], sources: [source] }, columns);
  }
  return tests;
}
