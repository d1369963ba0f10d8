import { decodeUtf8Strict, type YamlNode } from '../../core/input/index.js';
import { didYouMean } from '../../core/refusal/index.js';
import { applyConfig, projectConfig, type ResolvedConfig } from './config.js';
import type { FindingCode } from './findings.js';
import { JinjaHarness, type RelationResolver, type RenderOutcome, renderedBoolean } from './jinja.js';
import type { ProjectFiles } from './project-files.js';
import { collectProperties, type ModelProperties, type SourceTableProperties } from './properties.js';
import { draft, type FindingDraft, MAX_FAILING_ROWS } from './report.js';
import { schemaProblems } from './schema-problems.js';
import type { DbtSchemas, SchemaViolation } from './schemas.js';
import { failingRowsQuery, IDENTIFIER, modelRelation, sourceRelation, testQuery } from './sql.js';
import { isMapping, parseYaml, type YamlMapping, type YamlValue, yamlFaultHint } from './yaml.js';

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
  readonly finding: FindingDraft | undefined;
  /** Further independent findings in the same file (another unknown key, another unknown model). */
  readonly also?: readonly FindingDraft[];
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
  /** The model file's text, to place a finding on its line (never reported). */
  readonly source: string;
  readonly refs: readonly string[];
  readonly sources: readonly SourceKey[];
  readonly finding: FindingDraft | undefined;
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
  readonly finding: FindingDraft | undefined;
}

export interface PlannedTest {
  readonly name: string;
  readonly kind: string;
  /** The model or `source.table` the test is attached to. */
  readonly attachedTo: string;
  readonly column: string;
  readonly sql: string | undefined;
  /** The query listing the first failing rows, run only when the count is not 0. */
  readonly rowsSql: string | undefined;
  readonly models: readonly string[];
  readonly sources: readonly SourceKey[];
  /** Where the test is written: properties file and position. */
  readonly at: Omit<FindingDraft, 'code'>;
  readonly finding: FindingDraft | undefined;
}

/**
 * Everything the offline check will execute, decided without I/O: which
 * files validate, which models and sources are enabled for this target and
 * vars, every enabled model's rendered SQL, the build order and each test's
 * query. Serializable; apply only parses, builds and counts.
 */
export interface CheckPlan {
  /** The project folder as the user named it: findings name files under it. */
  readonly projectDir: string;
  readonly projectName: string;
  /** Values var() and env_var() returned: masked wherever DuckDB's messages are shown. */
  readonly secrets: readonly string[];
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
    ...schemaOutcome(schemas.project(project), 'dbt_project.yml', files.projectNode),
  });

  const docs: { path: string; value: YamlValue; node: YamlNode }[] = [];
  for (const file of files.properties) {
    const parsed = parseYaml(file.bytes);
    if (!parsed.ok) {
      const place = parsed.place;
      fileResults.push({
        path: file.path,
        kind: 'properties',
        finding: draft('yaml_syntax', {
          file: file.path,
          ...(place.line === undefined ? {} : { line: place.line }),
          ...(place.column === undefined ? {} : { column: place.column }),
          ...(place.pointer === undefined ? {} : { pointer: place.pointer }),
          hint: yamlFaultHint(parsed.fault, place),
        }),
        violations: [],
      });
      continue;
    }
    const outcome = schemaOutcome(schemas.properties(parsed.value), file.path, parsed.node);
    fileResults.push({ path: file.path, kind: 'properties', ...outcome });
    if (outcome.finding === undefined) docs.push({ path: file.path, value: parsed.value, node: parsed.node });
  }

  const macroTexts: { path: string; text: string }[] = [];
  for (const file of files.macros) {
    const text = decode(file.bytes);
    if (typeof text === 'string') macroTexts.push({ path: file.path, text });
    else
      fileResults.push({
        path: file.path,
        kind: 'macros',
        finding: { ...text, file: file.path },
        violations: [],
      });
  }
  const harness = new JinjaHarness(
    macroTexts.map((file) => ({ path: file.path, text: file.text })),
    {
      projectName,
      target: options.target,
      cliVars: options.vars,
      projectVars: projectVars(project, projectName),
      env: options.env,
    },
  );
  for (const problem of harness.macroProblems)
    fileResults.push({
      path: problem.path,
      kind: 'macros',
      finding: draft(problem.code, {
        file: problem.path,
        ...(problem.line === undefined ? {} : { line: problem.line }),
        ...(problem.column === undefined ? {} : { column: problem.column }),
        ...(problem.subject === undefined ? {} : { hint: `the macro '${problem.subject}' is defined twice` }),
        ...(problem.code === 'jinja_syntax' && problem.line === undefined ? { hint: UNCLOSED_HINT } : {}),
      }),
      violations: [],
    });

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

  const modelNames = [...modelCounts.keys()];
  const sourceNames = [...sourceByKey.keys()];
  const pathsByModel = new Map<string, string[]>();
  for (const file of files.models) {
    const name = modelPathOf(file.path).base.replace(/\.sql$/, '');
    pathsByModel.set(name, [...(pathsByModel.get(name) ?? []), file.path]);
  }
  const models: PlannedModel[] = files.models
    .map((file): PlannedModel => {
      const { dirs, base } = modelPathOf(file.path);
      const name = base.replace(/\.sql$/, '');
      const fqn = [projectName, ...dirs, name];
      const here = { file: file.path };
      let finding: FindingDraft | undefined;
      if (!IDENTIFIER.test(name)) finding = draft('invalid_resource_name', here);
      else if ((modelCounts.get(name) ?? 0) > 1) {
        const other = (pathsByModel.get(name) ?? []).find((path) => path !== file.path);
        finding = draft('duplicate_model', {
          ...here,
          ...(other === undefined ? {} : { hint: `another model file has the same name: ${other}` }),
        });
      }
      const text = decode(file.bytes);
      if (typeof text !== 'string') finding ??= { ...text, file: file.path };
      const source = typeof text === 'string' ? text : '';

      let config: ResolvedConfig = projectConfig(project.models, projectName, [...dirs, name]);
      let enabled = renderedBoolean(config.enabled, (value) => renderValue(value, false));
      const props = propsByModel.get(name);
      if (props?.config !== undefined) {
        const before = config.enabled;
        config = applyConfig(config, props.config);
        if (config.enabled !== before)
          enabled = renderedBoolean(config.enabled, (value) => renderValue(value, true));
      }
      const rendered = harness.render(source, resolver, {
        withMacros: true,
        withProjectVars: true,
        self: modelRelation(name),
      });
      for (const inline of rendered.record.configs) {
        const before = config.enabled;
        config = applyConfig(config, inline);
        if (config.enabled !== before)
          enabled = renderedBoolean(config.enabled, (value) => renderValue(value, true));
      }
      if (typeof enabled === 'string') finding ??= draft(enabled, here);
      if (!rendered.ok) finding ??= renderFinding(rendered, file.path, source, modelNames, sourceNames);
      return {
        name,
        path: file.path,
        fqn,
        enabled: enabled === true || enabled === undefined,
        materialized: config.materialized ?? 'view',
        tags: config.tags,
        relation: modelRelation(name),
        sql: rendered.ok ? rendered.text : undefined,
        source,
        refs: [...new Set(rendered.record.refs)].sort(byString),
        sources: uniqueSources(rendered.record.sources),
        finding,
      };
    })
    .sort((a, b) => byString(a.name, b.name) || byString(a.path, b.path));

  const enabledModels = new Map(models.filter((model) => model.enabled).map((model) => [model.name, model]));
  const checked = models.map((model): PlannedModel => {
    if (!model.enabled || model.finding !== undefined) return model;
    const disabledRef = model.refs.find((ref) => !enabledModels.has(ref));
    if (disabledRef !== undefined)
      return {
        ...model,
        finding: draft('ref_to_disabled_model', {
          file: model.path,
          ...callPlace(model.source, 'ref', disabledRef),
          hint: `'${disabledRef}' is disabled for this target and vars`,
        }),
      };
    const read = model.sources.map((key) => ({
      key,
      planned: sourceByKey.get(`${key.source}.${key.table}`),
    }));
    const off = read.find((entry) => entry.planned?.enabled !== true);
    if (off !== undefined) {
      const label = `${off.key.source}.${off.key.table}`;
      return {
        ...model,
        finding: draft('source_disabled', {
          file: model.path,
          hint: `the source table '${label}' is disabled for this target and vars`,
        }),
      };
    }
    const broken = read.find((entry) => entry.planned?.finding !== undefined)?.planned?.finding;
    return broken === undefined ? model : { ...model, finding: broken };
  });

  const { order, cyclic } = buildOrder(checked.filter((model) => model.enabled));
  const cycleHint =
    cyclic.size === 0 ? undefined : `the models in the cycle: ${[...cyclic].sort(byString).join(', ')}`;
  const planned = checked.map((model) =>
    cyclic.has(model.name) && model.finding === undefined
      ? {
          ...model,
          finding: draft('dependency_cycle', {
            file: model.path,
            ...(cycleHint === undefined ? {} : { hint: cycleHint }),
          }),
        }
      : model,
  );

  // Properties for models that do not exist.
  for (const props of properties.models) {
    if (modelCounts.has(props.name)) continue;
    const index = fileResults.findIndex((result) => result.path === props.file);
    const existing = fileResults[index];
    if (existing === undefined) continue;
    const hint = didYouMean(props.name, modelNames);
    const found = draft('properties_without_model', {
      file: props.file,
      ...props.at,
      ...(hint === undefined ? {} : { hint }),
    });
    if (existing.finding === undefined) fileResults[index] = { ...existing, finding: found };
    else if (existing.finding.code === 'properties_without_model')
      fileResults[index] = { ...existing, also: [...(existing.also ?? []), found] };
  }

  const sourceProps = new Map(properties.sources.map((table) => [`${table.source}.${table.table}`, table]));
  const tests = planTests(planned, sources, propsByModel, sourceProps, harness, enabledModels, sourceByKey);
  fileResults.sort((a, b) => byString(a.path, b.path));
  return {
    projectDir: files.projectDir,
    projectName,
    secrets: harness.secrets,
    target: options.target,
    files: fileResults,
    models: planned,
    sources,
    buildOrder: order,
    tests,
  };
}

/**
 * A schema outcome: every problem dbt's schema finds in the file, each a
 * `yaml_schema` finding at its own place (check/schema-problems.ts), in file
 * order; the first is the file's finding, the others its `also`.
 */
function schemaOutcome(
  violations: readonly SchemaViolation[],
  file: string,
  node: YamlNode | undefined,
): {
  readonly finding: FindingDraft | undefined;
  readonly also?: readonly FindingDraft[];
  readonly violations: readonly SchemaViolation[];
} {
  if (violations.length === 0) return { finding: undefined, violations };
  const drafts = schemaProblems(violations, node).map((problem) =>
    draft('yaml_schema', {
      file,
      ...(problem.line === undefined ? {} : { line: problem.line }),
      ...(problem.column === undefined ? {} : { column: problem.column }),
      ...(problem.pointer === undefined ? {} : { pointer: problem.pointer }),
      hint: problem.hint,
    }),
  );
  const [first, ...rest] = drafts;
  if (first === undefined) return { finding: draft('yaml_schema', { file }), violations };
  return { finding: first, ...(rest.length > 0 ? { also: rest } : {}), violations };
}

/** A model or macro file's text: strict UTF-8 without a BOM, or the finding that says where it is not. */
function decode(bytes: Uint8Array): string | FindingDraft {
  const decoded = decodeUtf8Strict(bytes);
  if (decoded.ok) return decoded.text;
  return draft('file_not_utf8', {
    line: decoded.line,
    column: decoded.column,
    hint:
      decoded.reason === 'bom'
        ? 'the file starts with a byte order mark; save it as UTF-8 without BOM'
        : 'the bytes here are not UTF-8; save the file as UTF-8',
  });
}

/** Line and column of the first `name('subject'` call in a template, when it is written literally. */
function callPlace(text: string, name: string, subject: string): { line?: number; column?: number } {
  const escaped = subject.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = new RegExp(`\\b${name}\\s*\\(\\s*(?:['"][A-Za-z0-9_]+['"]\\s*,\\s*)?['"]${escaped}['"]`);
  const match = pattern.exec(text);
  if (match === null) return {};
  return positionAt(text, match.index);
}

function positionAt(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const column = [...before.slice(before.lastIndexOf('\n') + 1)].length + 1;
  return { line, column };
}

/** nunjucks names no line when the template ends inside a tag. */
const UNCLOSED_HINT = 'the file ends inside a tag: look for a {{, {% or {# that is never closed';

/** A failed render as a finding: the name it is about, where it is called, and the nearest name known. */
function renderFinding(
  rendered: Extract<RenderOutcome, { readonly ok: false }>,
  file: string,
  text: string,
  modelNames: readonly string[],
  sourceNames: readonly string[],
): FindingDraft {
  const subject = rendered.subject;
  const base = {
    file,
    ...(rendered.line === undefined ? {} : { line: rendered.line }),
    ...(rendered.column === undefined ? {} : { column: rendered.column }),
  };
  if (rendered.code === 'jinja_syntax' && rendered.line === undefined)
    return draft('jinja_syntax', { ...base, hint: UNCLOSED_HINT });
  if (subject === undefined) return draft(rendered.code, base);
  switch (rendered.code) {
    case 'undefined_ref': {
      const near = didYouMean(subject, modelNames);
      return draft('undefined_ref', {
        ...base,
        ...callPlace(text, 'ref', subject),
        hint: `ref('${subject}')${near === undefined ? ' is not a model of this project' : `: ${near}`}`,
      });
    }
    case 'undefined_source': {
      const [source = '', table = ''] = subject.split('.');
      const near = didYouMean(subject, sourceNames);
      const place = callPlace(text, 'source', source);
      return draft('undefined_source', {
        ...base,
        ...place,
        hint: `source('${source}', '${table}')${near === undefined ? ' is not defined in a properties file' : `: ${near}`}`,
      });
    }
    case 'undefined_var':
      return draft('undefined_var', {
        ...base,
        ...callPlace(text, 'var', subject),
        hint: `var('${subject}') has no value: give it a default or pass --vars '{${subject}: …}'`,
      });
    case 'undefined_macro':
      return draft('undefined_macro', { ...base, hint: `no macro implements '${subject}' for duckdb` });
    default:
      return draft(rendered.code, base);
  }
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
  const here = { file: table.file, ...table.at };
  const at = (code: FindingCode): FindingDraft => draft(code, here);
  let finding: FindingDraft | undefined;
  if (![table.source, table.table].every((name) => IDENTIFIER.test(name)))
    finding = at('invalid_resource_name');
  if ((counts.get(`${table.source}.${table.table}`) ?? 0) > 1) finding ??= at('duplicate_source');
  const dirs = modelPathOf(table.file).dirs;
  const fromProject = projectConfig(project.sources, projectName, [...dirs, table.source, table.table]);
  let enabled = renderedBoolean(fromProject.enabled, (text) => renderValue(text, false));
  for (const raw of [table.sourceEnabled, table.tableEnabled]) {
    if (raw !== undefined) enabled = renderedBoolean(raw, (text) => renderValue(text, true));
  }
  if (typeof enabled === 'string') finding ??= at(enabled);
  const schema = renderIfJinja(table.schema);
  const identifier = renderIfJinja(table.identifier);
  if (!schema.ok) finding ??= at(schema.code);
  if (!identifier.ok) finding ??= at(identifier.code);
  const schemaText = schema.ok ? schema.text.trim() : undefined;
  const identifierText = identifier.ok ? identifier.text.trim() : undefined;
  if (schemaText === '' || identifierText === '') finding ??= at('invalid_resource_name');
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
    owner: {
      readonly models: readonly string[];
      readonly sources: readonly SourceKey[];
      /** The properties file the tests are written in. */
      readonly file: string;
    },
    columns: ModelProperties['columns'],
  ): void => {
    for (const column of columns) {
      for (const { spec, at } of column.tests) {
        const label = spec.kind === 'unsupported' ? spec.label : spec.kind;
        const safeLabel = IDENTIFIER.test(label) ? label : 'test';
        let name = `${safeLabel}_${attachedTo.replaceAll('.', '_')}_${column.name}`;
        const here = { file: owner.file, ...at };
        let code: FindingCode | undefined;
        let hint: string | undefined;
        let to: string | undefined;
        const deps = { models: [...owner.models], sources: [...owner.sources] };
        if (spec.kind === 'unsupported') code = 'unsupported_test';
        else if (!IDENTIFIER.test(column.name)) code = 'test_target_invalid';
        if (spec.kind === 'relationships' && code === undefined) {
          const rendered = harness.render(`{{ ${spec.to} }}`, resolver, {
            withMacros: false,
            withProjectVars: true,
          });
          if (!rendered.ok) {
            code = rendered.code;
            if (rendered.subject !== undefined)
              hint = `${spec.to} names '${rendered.subject}', which the project does not define`;
          } else if (!IDENTIFIER.test(spec.field)) code = 'test_target_invalid';
          else {
            to = rendered.text;
            for (const ref of rendered.record.refs) {
              if (!enabledModels.has(ref)) code ??= 'ref_to_disabled_model';
              deps.models.push(ref);
              name = `${name}__${spec.field}__${ref}`;
            }
            for (const [source, table] of rendered.record.sources) {
              if (sourceByKey.get(`${source}.${table}`)?.enabled !== true) code ??= 'source_disabled';
              deps.sources.push({ source, table });
              name = `${name}__${spec.field}__${source}_${table}`;
            }
          }
        }
        const sql = code === undefined ? testQuery(spec, relation, column.name, to) : undefined;
        const rowsSql =
          sql === undefined ? undefined : failingRowsQuery(spec, relation, column.name, MAX_FAILING_ROWS, to);
        if (code === undefined && sql === undefined) code = 'test_target_invalid';
        tests.push({
          name: uniqueName(name),
          kind: safeLabel,
          attachedTo,
          column: column.name,
          sql,
          rowsSql,
          models: [...new Set(deps.models)].sort(byString),
          sources: uniqueSources(deps.sources.map((key) => [key.source, key.table] as const)),
          at: here,
          finding:
            code === undefined
              ? undefined
              : draft(code, { ...here, ...(hint === undefined ? {} : { hint }) }),
        });
      }
    }
  };

  for (const model of models) {
    if (!model.enabled) continue;
    const props = propsByModel.get(model.name);
    if (props === undefined) continue;
    const owner = { models: [model.name], sources: [], file: props.file };
    attach(model.name, model.relation, owner, props.columns);
    // Model-level tests (e.g. from packages) are listed as unsupported, never dropped.
    attach(model.name, model.relation, owner, [{ name: 'model', tests: props.modelTests }]);
  }
  for (const source of sources) {
    if (!source.enabled || source.relation === undefined) continue;
    const columns = sourceProps.get(`${source.source}.${source.table}`)?.columns ?? [];
    const owner = { models: [], sources: [source], file: source.path };
    attach(`${source.source}.${source.table}`, source.relation, owner, columns);
  }
  return tests;
}
