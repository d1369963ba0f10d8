import { decodeUtf8Strict, type YamlNode } from '../../core/input/index.js';
import { didYouMean, nearest } from '../../core/refusal/index.js';
import { applyConfig, projectConfig, type ResolvedConfig } from './config.js';
import { type CsvTable, readCsv } from './csv.js';
import { type EnabledContext, type EnabledOrigin, enabledFinding } from './enabled.js';
import type { FindingCode } from './findings.js';
import {
  JinjaHarness,
  type MacroCall,
  type MacroProblem,
  type RelationResolver,
  type RenderOutcome,
  renderedBoolean,
  type Unclosed,
} from './jinja.js';
import { PROJECT_LIMITS, type ProjectFile, type ProjectFiles } from './project-files.js';
import {
  collectProperties,
  type ModelProperties,
  type OtherProperties,
  type PlacedTest,
  RUNNABLE_TESTS,
  type SourceTableProperties,
  type TestSpec,
} from './properties.js';
import { draft, type FindingDraft, MAX_FAILING_ROWS } from './report.js';
import { schemaProblems } from './schema-problems.js';
import type { DbtSchemas, SchemaViolation } from './schemas.js';
import {
  failingRowsQuery,
  IDENTIFIER,
  modelRelation,
  sourceRelation,
  testedColumn,
  testedExpression,
  testQuery,
} from './sql.js';
import { entriesWithBothTestKeys } from './test-keys.js';
import { synthesizeTestNames } from './test-names.js';
import {
  type ModelVersion,
  unknownVersionHint,
  type VersionedModels,
  versionedModels,
  versionFileProperties,
} from './versions.js';
import {
  asArray,
  isMapping,
  parseYaml,
  placeIn,
  type YamlMapping,
  type YamlValue,
  yamlFaultHint,
} from './yaml.js';

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
  /**
   * A properties file dbt's schema refuses is not read for models, sources
   * or tests: how many tests are written in it, so the report says they were
   * not run instead of the total silently shrinking (docs/editions.md#reading-an-error).
   */
  readonly testsNotRead?: number;
}

export interface PlannedModel {
  /** The model's name; for a version of a versioned model, `<name>.v<version>` (dbt's name for it in ref lookups). */
  readonly name: string;
  /** The version, as dbt writes it, of a versioned model. */
  readonly version?: string;
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
  /** Seeds and snapshots ref() names: not models, so neither built in order nor gated by `enabled`. */
  readonly seeds: readonly string[];
  readonly snapshots: readonly string[];
  readonly sources: readonly SourceKey[];
  readonly finding: FindingDraft | undefined;
}

/**
 * A CSV data file of the project that ref() names by its file name.
 * With fixtures it is loaded as dbt loads it, each column typed from its
 * values (docs/editions.md#seeds-and-snapshots).
 */
export interface PlannedSeed {
  readonly name: string;
  readonly path: string;
  /** The CSV read; undefined when it is not one the check can load (then `fault` says why). */
  readonly table: CsvTable | undefined;
  /**
   * Why the CSV cannot be loaded, and where: said by the model that reads
   * it when it cannot be built (`dbt parse` does not read a seed's rows, so
   * this is no finding of its own).
   */
  readonly fault: string | undefined;
}

/** A `{% snapshot %}` block under the snapshot paths: ref() names it, the check does not build it. */
export interface PlannedSnapshot {
  readonly name: string;
  readonly path: string;
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
  /** The declared columns and where each `name:` is written, to compare a fixture's header with. */
  readonly declared: readonly DeclaredColumn[];
  readonly finding: FindingDraft | undefined;
}

/** A column a source table declares, and the line and column of its `name:` in the properties file. */
export interface DeclaredColumn {
  readonly name: string;
  readonly line?: number;
  readonly column?: number;
}

export interface PlannedTest {
  readonly name: string;
  /** The name is the test's own `name:`, which findings about it repeat. */
  readonly given?: true;
  readonly kind: string;
  /** The model or `source.table` the test is attached to. */
  readonly attachedTo: string;
  /** The column, or a model's or source table's test's `column_name:` as written; empty when there is none. */
  readonly column: string;
  /**
   * A model's or source table's test's `column_name:`, which DuckDB's parser
   * reads before the test runs (fixtures or not), and where it is written.
   */
  readonly expression?: { readonly text: string; readonly at: Omit<FindingDraft, 'code'> };
  readonly sql: string | undefined;
  /** The query listing the first failing rows, run only when the count is not 0. */
  readonly rowsSql: string | undefined;
  readonly models: readonly string[];
  readonly sources: readonly SourceKey[];
  /** Where the test is written: properties file and position, or a singular test's file. */
  readonly at: Omit<FindingDraft, 'code'>;
  /**
   * A singular test (a `.sql` file under the test paths): its file's text,
   * to place a parse error on its line (never reported). It fails when its
   * query returns rows.
   */
  readonly singular?: {
    readonly path: string;
    readonly source: string;
    /** The rendered query, for DuckDB's parser; undefined when rendering failed. */
    readonly sql: string | undefined;
  };
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
  readonly seeds: readonly PlannedSeed[];
  readonly snapshots: readonly PlannedSnapshot[];
  /**
   * Properties files that do not parse or that dbt's schema refuses: none
   * of their sources, models or tests are read, so a fixture or a
   * source() of a table defined there names nothing the check knows.
   */
  readonly unreadProperties: readonly UnreadProperties[];
}

/** A properties file that was not read, where its first fault is, and the names it seems to define. */
export interface UnreadProperties {
  readonly path: string;
  readonly code: FindingCode;
  readonly line?: number;
  readonly column?: number;
  /** Every plain `name:` value written in it (a line scan: the file does not parse as a whole). */
  readonly names: readonly string[];
}

const byString = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * One check of a model, source or test. Each carries one finding: the first
 * of its checks, in the order listed, that finds something; the later ones
 * are not evaluated (docs/editions.md#one-finding-per-item).
 */
type Check = () => FindingDraft | undefined;

function firstFinding(checks: readonly Check[]): FindingDraft | undefined {
  for (const check of checks) {
    const found = check();
    if (found !== undefined) return found;
  }
  return undefined;
}

interface ModelPath {
  readonly dirs: readonly string[];
  readonly base: string;
}

/** What planning a source or a model reads of the project, and the harness that renders its Jinja. */
interface Planning {
  readonly project: YamlMapping;
  readonly projectName: string;
  readonly harness: JinjaHarness;
  readonly modelPathOf: (path: string) => ModelPath;
  /** Where an `enabled` finding is placed and what its hint can say. */
  readonly enabledContext: EnabledContext;
}

/** The model files by name: their paths (more than one is a duplicate) and the first properties entry. */
interface ModelIndex {
  readonly paths: ReadonlyMap<string, readonly string[]>;
  readonly props: ReadonlyMap<string, ModelProperties>;
}

interface ModelScope {
  readonly planning: Planning;
  readonly index: ModelIndex;
  /** Seeds and snapshots by name: ref() reads them, and they are not models. */
  readonly others: ReadonlyMap<string, 'seed' | 'snapshot'>;
  /** The model configs dbt knows, to name a misspelt one in config(). */
  readonly configKeys: ReadonlySet<string>;
  readonly versions: VersionedModels;
  readonly resolver: RelationResolver;
  /** The names a finding may suggest instead of a misspelt ref() or source(). */
  readonly modelNames: readonly string[];
  readonly sourceNames: readonly string[];
  /** Properties files that were not read: a source() of a table defined there is named with them. */
  readonly unread: readonly UnreadProperties[];
  /** Macro files that were not read: a call of a macro defined there is named with them. */
  readonly unreadMacros: readonly UnreadProperties[];
}

/** What a failed render's hint may name: the project's models, sources and versions. */
type Known = Pick<ModelScope, 'modelNames' | 'sourceNames' | 'unread' | 'unreadMacros' | 'versions'> & {
  readonly harness: JinjaHarness;
  readonly projectName: string;
};

/** A model's config so far and its `enabled`, rendered. */
interface ModelConfig {
  readonly config: ResolvedConfig;
  readonly enabled: boolean | FindingCode | undefined;
}

export function planCheck(files: ProjectFiles, schemas: DbtSchemas, options: CheckOptions): CheckPlan {
  const project = files.project;
  const projectName = String(project.name);
  const projectResult: FileResult = {
    path: 'dbt_project.yml',
    kind: 'project',
    ...schemaOutcome(schemas.project(project), 'dbt_project.yml', files.projectNode),
  };
  const propertiesFiles = readPropertiesFiles(files.properties, schemas);
  const macros = readMacros(files.macros);
  const harness = new JinjaHarness(macros.texts, {
    projectName,
    target: options.target,
    cliVars: options.vars,
    projectVars: projectVars(project, projectName),
    env: options.env,
  });
  const planning: Planning = {
    project,
    projectName,
    harness,
    modelPathOf: modelPathIn(files.modelPaths),
    enabledContext: {
      projectNode: files.projectNode,
      cliVars: options.vars,
      render: (text, withProjectVars) => renderValue(harness, text, withProjectVars),
    },
  };
  const properties = collectProperties(propertiesFiles.docs);
  const plannedSources = planSources(properties.sources, planning);
  const sourceByKey = new Map(plannedSources.map((source) => [keyOf(source), source]));
  const index = modelIndex(files.models, properties.models, planning.modelPathOf);
  const versions = versionedModels(index.props.values(), index.paths);
  const seeds = planSeeds(files.seeds ?? []);
  const snapshots = planSnapshots(files.snapshots ?? []);
  // A model of the same name wins: dbt refuses the project then, and the check reads the model.
  const others = new Map<string, 'seed' | 'snapshot'>([
    ...snapshots.map((snapshot) => [snapshot.name, 'snapshot'] as const),
    ...seeds.map((seed) => [seed.name, 'seed'] as const),
  ]);
  for (const name of index.paths.keys()) others.delete(name);
  const resolver = modelResolver(index, versions, sourceByKey, others);
  const scope: ModelScope = {
    planning,
    index,
    configKeys: schemas.configKeys.models,
    others,
    versions,
    resolver,
    // What ref() can name: a version's file is named by its model, not by itself.
    modelNames: [
      ...new Set([...index.paths.keys()].filter((name) => !versions.byFile.has(name))),
      ...versions.byName.keys(),
      ...others.keys(),
    ],
    sourceNames: [...sourceByKey.keys()],
    unread: propertiesFiles.unread,
    unreadMacros: unreadMacroFiles(files.macros, macros.results, harness.macroProblems),
  };
  const models = files.models
    .map((file) => planModel(file, scope))
    .sort((a, b) => byString(a.name, b.name) || byString(a.path, b.path));
  const enabledModels = new Map(models.filter((model) => model.enabled).map((model) => [model.name, model]));
  const checked = models.map((model) => withInputFinding(model, enabledModels, sourceByKey));
  const ordered = orderModels(checked);
  const order = ordered.order;
  const [planned, sources] = sharedGateFindings(ordered.planned, plannedSources);
  const unusedPaths = [
    ...unusedConfigPaths(
      'models',
      project,
      files.projectNode,
      schemas.configKeys.models,
      models.map((model) => model.fqn),
    ),
    // A source of a properties file that was not read is unknown: no sources: path is judged then.
    ...(propertiesFiles.unread.length > 0
      ? []
      : unusedConfigPaths(
          'sources',
          project,
          files.projectNode,
          schemas.configKeys.sources,
          sources.map((source) => [
            projectName,
            ...planning.modelPathOf(source.path).dirs,
            source.source,
            source.table,
          ]),
        )),
  ];
  // A seed's and a snapshot's path: the project, its folders under the seed or snapshot path, its name.
  const underPath = (paths: readonly string[], path: string): string[] => {
    const root = paths.find((candidate) => path.startsWith(`${candidate}/`));
    const parts = (root === undefined ? path : path.slice(root.length + 1)).split('/');
    return parts.slice(0, -1);
  };
  // Judged only when the project has seeds (snapshots): with none read, nothing tells a typo from a path.
  if (seeds.length > 0)
    unusedPaths.push(
      ...unusedConfigPaths(
        'seeds',
        project,
        files.projectNode,
        schemas.configKeys.seeds,
        seeds.map((seed) => [projectName, ...underPath(files.seedPaths ?? ['seeds'], seed.path), seed.name]),
      ),
    );
  if (snapshots.length > 0)
    unusedPaths.push(
      ...unusedConfigPaths(
        'snapshots',
        project,
        files.projectNode,
        schemas.configKeys.snapshots,
        // dbt files a snapshot under its file's name too (a file may hold several).
        snapshots.map((snapshot) => [
          projectName,
          ...underPath(files.snapshotPaths ?? ['snapshots'], snapshot.path),
          (snapshot.path.split('/').pop() ?? '').replace(/\.sql$/, ''),
          snapshot.name,
        ]),
      ),
    );
  const fileResults = withFileFindings(
    withDuplicateProperties(
      withPropertiesWithoutModel(
        [
          withFindings(projectResult, [...unusedPaths, ...projectTestConfigs(project, files.projectNode)]),
          ...propertiesFiles.results,
          ...macros.results,
          ...macroResults(harness.macroProblems),
        ],
        properties.models,
        index.paths,
        versions,
      ),
      properties.models,
    ),
    // In file order, as every other finding of a file: the first is the one a reader meets first.
    [
      ...versions.findings,
      ...versionFileProperties(properties.models, versions),
      ...propertiesConfigTypos(propertiesFiles.docs, schemas.configKeys.models),
      ...undefinedDocs(propertiesFiles.docs, docsBlocks(files.docs ?? []), projectName),
      // A source of a properties file that was not read is unknown: no source is judged then.
      ...unitTestTargets(
        propertiesFiles.docs,
        scope.modelNames,
        propertiesFiles.unread.length > 0 ? undefined : scope.sourceNames,
      ),
    ].sort(
      (a, b) =>
        byString(a.file ?? '', b.file ?? '') ||
        (a.line ?? 0) - (b.line ?? 0) ||
        (a.column ?? 0) - (b.column ?? 0),
    ),
  );
  const sourceProps = new Map(properties.sources.map((table) => [keyOf(table), table]));
  // Names are dbt's own, never made unique: dbt refuses a repeat (duplicate_test) or runs both under one name.
  const tests = [
    ...planTests(planned, sources, index.props, sourceProps, { ...scope, enabledModels, sourceByKey }),
    ...planOtherTests(properties.others ?? [], others, { ...scope, enabledModels, sourceByKey }),
    ...refuseSameNames(
      files.tests.flatMap((file) =>
        planSingularTest(file, scope, new Set(models.map((model) => model.name)), enabledModels, sourceByKey),
      ),
    ),
  ];
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
    seeds,
    snapshots,
    unreadProperties: propertiesFiles.unread,
  };
}

/**
 * One `enabled` expression of dbt_project.yml gates many models and sources:
 * each still carries its finding, and every finding at one key reads alike,
 * naming all the items it gates, so a report shows the key once.
 */
function sharedGateFindings(
  models: readonly PlannedModel[],
  sources: readonly PlannedSource[],
): [PlannedModel[], PlannedSource[]] {
  const at = (found: FindingDraft): string => `${found.code} ${found.file}:${found.line}:${found.column}`;
  const groups = new Map<string, string[]>();
  for (const item of [...models, ...sources]) {
    const found = item.finding;
    if (found?.gated === undefined) continue;
    groups.set(at(found), [...new Set([...(groups.get(at(found)) ?? []), found.gated.item])]);
  }
  const shared = (found: FindingDraft | undefined): FindingDraft | undefined => {
    if (found?.gated === undefined) return found;
    const items = groups.get(at(found)) ?? [];
    const { gated, ...rest } = found;
    if (items.length < 2) return rest;
    const named = `for ${items.length} items: ${items.join(', ')}`;
    return { ...rest, hint: gated.hint === undefined ? named : `${gated.hint} (${named})` };
  };
  return [
    models.map((model) => ({ ...model, finding: shared(model.finding) })),
    sources.map((source) => ({ ...source, finding: shared(source.finding) })),
  ];
}

/** A file's result with more findings: the first becomes its finding when it has none, the rest `also`. */
function withFindings(result: FileResult, more: readonly FindingDraft[]): FileResult {
  if (more.length === 0) return result;
  const [first, ...rest] = result.finding === undefined ? more : [result.finding, ...more];
  const also = [...(result.also ?? []), ...rest];
  return { ...result, finding: first, ...(also.length > 0 ? { also } : {}) };
}

/**
 * Every path of dbt_project.yml's `models:` or `sources:` tree that applies
 * to no resource, as dbt warns ("Configuration paths exist in your
 * dbt_project.yml file which do not apply to any resources"): its configs
 * are dropped without a word, so a renamed project loses its
 * materializations, tags and the migration gate. A key is a path unless
 * dbt's schema knows it as a config; only the shortest unused path is named.
 * `fqns` are every resource's fully qualified name, enabled or not, as dbt
 * counts them.
 */
function unusedConfigPaths(
  tree: 'models' | 'sources' | 'seeds' | 'snapshots',
  project: YamlMapping,
  projectNode: YamlNode | undefined,
  configKeys: ReadonlySet<string>,
  fqns: readonly (readonly string[])[],
): FindingDraft[] {
  const root = project[tree];
  if (!isMapping(root)) return [];
  const projectName = String(project.name);
  const kind = { models: 'model', sources: 'source table', seeds: 'seed', snapshots: 'snapshot' }[tree];
  const found: FindingDraft[] = [];
  const walk = (level: YamlMapping, path: readonly string[]): void => {
    for (const [key, value] of Object.entries(level)) {
      if (key.startsWith('+') || configKeys.has(key)) continue;
      if (value !== null && !isMapping(value)) continue;
      const here = [...path, key];
      const applies = fqns.some((fqn) => here.every((part, index) => fqn[index] === part));
      if (applies) {
        if (isMapping(value)) walk(value, here);
        continue;
      }
      const siblings = [
        ...new Set(
          fqns
            .filter((fqn) => path.every((part, index) => fqn[index] === part))
            .map((fqn) => fqn[path.length])
            .filter((part): part is string => part !== undefined),
        ),
      ];
      const near = didYouMean(key, siblings) ?? deeperMatch(key, path, fqns);
      const why =
        path.length === 0 && key === projectName
          ? noResourcesOfKind(project, tree, kind)
          : path.length === 0
            ? `'${key}' is not this project's name ('${projectName}'): dbt files every ${kind} under its project's name, so none of the configs here apply; rename the key to ${projectName}`
            : `${[tree, ...here].join('.')} applies to no ${kind} (dbt warns that the configuration path applies to no resource), so its configs are not applied${near === undefined ? '' : `; ${near}`}`;
      found.push(
        draft('config_path_unused', {
          file: 'dbt_project.yml',
          ...placeIn(projectNode, [tree, ...here]),
          hint: why,
        }),
      );
    }
  };
  walk(root, []);
  return found;
}

/**
 * Where dbt looks for each kind of resource (dbt's models, sources, seeds
 * and snapshots), and the folders it reads when the key is not set
 * (docs/editions.md#finding-codes, `config_path_unused`).
 */
const RESOURCE_PATHS = {
  models: ['model-paths', 'models'],
  sources: ['model-paths', 'models'],
  seeds: ['seed-paths', 'seeds'],
  snapshots: ['snapshot-paths', 'snapshots'],
} as const;

/**
 * The key under `models:` (or `sources:` …) is the project's name, and still
 * applies to nothing: the project has no resource of that kind at all,
 * which is what to say (a misspelt `model-paths: ["model"]`), never "rename
 * the key to" the name it already has.
 */
function noResourcesOfKind(project: YamlMapping, tree: keyof typeof RESOURCE_PATHS, kind: string): string {
  const [key, fallback] = RESOURCE_PATHS[tree];
  const written = asArray(project[key]).flatMap((folder) => (typeof folder === 'string' ? [folder] : []));
  const folders = (written.length > 0 ? written : [fallback]).map((folder) => `'${folder}'`).join(', ');
  const source =
    written.length > 0
      ? `its ${key} (${folders})`
      : `${folders}, where dbt reads them when ${key} is not set`;
  return `the project has no ${kind} at all, so none of the configs here apply: dbt finds them in ${source}; check that ${written.length > 1 ? 'those folders exist and hold' : 'this folder exists and holds'} the project's ${tree === 'sources' ? 'properties files with sources:' : `${kind} files`}`;
}

/**
 * Test configs set in the `data_tests:` (or `tests:`) tree of
 * dbt_project.yml that change whether a test fails or runs (`severity`
 * other than error, `warn_if`, `error_if`, `fail_calc`, `where`, `enabled`
 * other than true): the check does not apply them there, so it says so at
 * the key rather than fail a test dbt only warns about, or does not run
 * (docs/editions.md#limits-and-choices).
 */
function projectTestConfigs(project: YamlMapping, projectNode: YamlNode | undefined): FindingDraft[] {
  const found: FindingDraft[] = [];
  const outcome = (name: string, value: YamlValue): boolean =>
    ['warn_if', 'error_if', 'fail_calc', 'where'].includes(name) ||
    (name === 'severity' && !(typeof value === 'string' && value.toLowerCase() === 'error')) ||
    (name === 'enabled' && value !== true);
  const shown = (name: string, value: YamlValue): string =>
    (typeof value === 'string' || typeof value === 'boolean') && String(value).length <= 40
      ? `${name}: ${String(value)}`
      : name;
  const walk = (tree: string, level: YamlMapping, path: readonly string[]): void => {
    for (const [key, value] of Object.entries(level)) {
      const name = key.startsWith('+') ? key.slice(1) : key;
      if (outcome(name, value) && (key.startsWith('+') || !isMapping(value))) {
        const under = path.length === 0 ? 'every test' : `the tests under ${[tree, ...path].join('.')}`;
        found.push(
          draft('unsupported_test', {
            file: 'dbt_project.yml',
            ...placeIn(projectNode, [tree, ...path, key]),
            hint: `dbt_project.yml sets ${shown(name, value)} for ${under}, which the offline check does not apply from here: those tests run and fail as if it were not set; set it in each test's own config: to have it named there`,
          }),
        );
        continue;
      }
      if (!key.startsWith('+') && isMapping(value)) walk(tree, value, [...path, key]);
    }
  };
  for (const tree of ['data_tests', 'tests'] as const) {
    const root = project[tree];
    if (isMapping(root)) walk(tree, root, []);
  }
  return found;
}

/**
 * A key near no name at its level may name one a level or more deeper, with
 * the folders between left out (`sources.<project>.migration_bronze_typo`
 * for the source `migration_bronze`, filed under the folder `migration`):
 * the path to write from this level, as every other level offers its near
 * name (docs/editions.md#renaming-the-project).
 */
function deeperMatch(
  key: string,
  path: readonly string[],
  fqns: readonly (readonly string[])[],
): string | undefined {
  const pathsTo = new Map<string, Set<string>>();
  for (const fqn of fqns) {
    if (!path.every((part, index) => fqn[index] === part)) continue;
    for (let depth = path.length + 1; depth < fqn.length; depth += 1) {
      const name = fqn[depth];
      if (name === undefined) continue;
      const to = pathsTo.get(name) ?? new Set<string>();
      to.add(fqn.slice(path.length, depth + 1).join('.'));
      pathsTo.set(name, to);
    }
  }
  // A name found under two paths is not offered: which one was meant is a guess.
  const only = new Map(
    [...pathsTo].flatMap(([name, paths]) =>
      paths.size === 1 ? [[name, [...paths][0] ?? name] as const] : [],
    ),
  );
  const name = nearest(key, only.keys());
  const to = name === undefined ? undefined : only.get(name);
  return name === undefined || to === undefined
    ? undefined
    : `did you mean '${to}'? '${name}' is under '${to.slice(0, -name.length - 1)}' in dbt's path`;
}

function keyOf(key: SourceKey): string {
  return `${key.source}.${key.table}`;
}

/** Each properties file's result; the documents that parse and pass dbt's schema, to read properties from. */
function readPropertiesFiles(
  files: readonly ProjectFile[],
  schemas: DbtSchemas,
): {
  readonly results: FileResult[];
  readonly docs: { path: string; value: YamlValue; node: YamlNode }[];
  readonly unread: UnreadProperties[];
} {
  const results: FileResult[] = [];
  const docs: { path: string; value: YamlValue; node: YamlNode }[] = [];
  const unread: UnreadProperties[] = [];
  const notRead = (file: ProjectFile, finding: FindingDraft): void => {
    unread.push({
      path: file.path,
      code: finding.code,
      ...(finding.line === undefined ? {} : { line: finding.line }),
      ...(finding.column === undefined ? {} : { column: finding.column }),
      names: namesWritten(file.bytes),
    });
  };
  for (const file of files) {
    const parsed = parseYaml(file.bytes);
    if (!parsed.ok) {
      const place = parsed.place;
      const finding = draft('yaml_syntax', {
        file: file.path,
        ...(place.line === undefined ? {} : { line: place.line }),
        ...(place.column === undefined ? {} : { column: place.column }),
        ...(place.pointer === undefined ? {} : { pointer: place.pointer }),
        hint: yamlFaultHint(parsed.fault, place),
      });
      results.push({ path: file.path, kind: 'properties', finding, violations: [] });
      notRead(file, finding);
      continue;
    }
    // An empty file (or only comments) is skipped by dbt, which reads no properties from it.
    if (parsed.value === null) {
      results.push({ path: file.path, kind: 'properties', finding: undefined, violations: [] });
      continue;
    }
    const outcome = withBothTestKeys(
      schemaOutcome(schemas.properties(parsed.value), file.path, parsed.node),
      file.path,
      parsed.node,
    );
    const doc = { path: file.path, value: parsed.value, node: parsed.node };
    if (outcome.finding === undefined) {
      results.push({ path: file.path, kind: 'properties', ...outcome });
      docs.push(doc);
    } else {
      results.push({ path: file.path, kind: 'properties', ...outcome, testsNotRead: testsWrittenIn(doc) });
      notRead(file, outcome.finding);
    }
  }
  return { results, docs, unread };
}

/** `name: x` / `- name: 'x'` as written on a line of a YAML file, whether or not the file parses. */
const NAME_LINE = /^[ \t-]*name:[ \t]*["']?([A-Za-z_][A-Za-z0-9_]*)["']?[ \t]*(?:#.*)?$/;

/** The plain names a properties file writes, read line by line (never reported, only matched). */
function namesWritten(bytes: Uint8Array): string[] {
  // Lenient on purpose (a BOM, a stray byte): only plain ASCII names are matched.
  const text = new TextDecoder('utf-8').decode(bytes);
  const names = new Set<string>();
  for (const line of text.split(/\r?\n/)) {
    const match = NAME_LINE.exec(line);
    if (match?.[1] !== undefined) names.add(match[1]);
  }
  return [...names];
}

/**
 * What a name the project does not define has to do with the properties
 * files that were not read: the file that writes it, when one does, else
 * every such file (the definition may be in one of them).
 */
export function unreadHint(name: string, unread: readonly UnreadProperties[]): string | undefined {
  if (unread.length === 0) return undefined;
  const at = (file: UnreadProperties): string =>
    file.line === undefined ? '' : `:${file.line}${file.column === undefined ? '' : `:${file.column}`}`;
  const why = (file: UnreadProperties): string =>
    file.code === 'yaml_syntax' ? 'does not parse' : "does not pass dbt's schema";
  const writing = unread.filter((file) => file.names.includes(name));
  if (writing.length > 0)
    return writing
      .map(
        (file) =>
          `'${name}' is written in ${file.path}, which ${why(file)} (${file.code}${file.line === undefined ? '' : ` at line ${file.line}`}) and so was not read`,
      )
      .join('; ');
  return `${unread.map((file) => `${file.path}${at(file)} (${file.code})`).join(', ')} ${unread.length === 1 ? 'was' : 'were'} not read: fix ${unread.length === 1 ? 'it' : 'them'} first`;
}

/** The tests written in a properties document, read as far as its shape allows. */
function testsWrittenIn(doc: { path: string; value: YamlValue; node: YamlNode }): number {
  const { models, sources } = collectProperties([doc]);
  const ofColumns = (columns: readonly { readonly tests: readonly unknown[] }[]): number =>
    columns.reduce((sum, column) => sum + column.tests.length, 0);
  return (
    models.reduce((sum, model) => sum + ofColumns(model.columns) + model.modelTests.length, 0) +
    sources.reduce((sum, table) => sum + ofColumns(table.columns) + table.tests.length, 0)
  );
}

const MACRO_DEFINED = /\{%-?\s*macro\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(/g;

/**
 * The macro files the harness could not read (not UTF-8, a template that
 * does not compile), each with the macros it seems to define, read with a
 * lenient decoder (never reported, only matched): a call of one of them is
 * unknown because its file was not read, not because it is misspelt.
 */
function unreadMacroFiles(
  files: readonly ProjectFile[],
  notUtf8: readonly FileResult[],
  problems: readonly MacroProblem[],
): UnreadProperties[] {
  const faults = [
    ...notUtf8.flatMap((result) =>
      result.finding === undefined ? [] : [{ path: result.path, finding: result.finding }],
    ),
    ...problems
      .filter((problem) => problem.code === 'jinja_syntax')
      .map((problem) => ({ path: problem.path, finding: problem })),
  ];
  return faults.map(({ path, finding }) => {
    const text = new TextDecoder('utf-8').decode(
      files.find((file) => file.path === path)?.bytes ?? new Uint8Array(),
    );
    return {
      path,
      code: finding.code,
      ...(finding.line === undefined ? {} : { line: finding.line }),
      ...(finding.column === undefined ? {} : { column: finding.column }),
      names: [
        ...new Set(
          [...text.matchAll(MACRO_DEFINED)].flatMap((match) => (match[1] === undefined ? [] : [match[1]])),
        ),
      ],
    };
  });
}

/** The macro files' texts, and a result for each that is not UTF-8. */
function readMacros(files: readonly ProjectFile[]): {
  readonly texts: { path: string; text: string }[];
  readonly results: FileResult[];
} {
  const texts: { path: string; text: string }[] = [];
  const results: FileResult[] = [];
  for (const file of files) {
    const text = decode(file.bytes);
    if (typeof text === 'string') texts.push({ path: file.path, text });
    else
      results.push({
        path: file.path,
        kind: 'macros',
        finding: { ...text, file: file.path },
        violations: [],
      });
  }
  return { texts, results };
}

function macroResults(problems: readonly MacroProblem[]): FileResult[] {
  return problems.map((problem) => ({
    path: problem.path,
    kind: 'macros',
    finding: draft(problem.code, {
      file: problem.path,
      ...(problem.line === undefined ? {} : { line: problem.line }),
      ...(problem.column === undefined ? {} : { column: problem.column }),
      ...(problem.subject === undefined
        ? {}
        : {
            hint:
              problem.other === undefined
                ? `the macro '${problem.subject}' is defined twice`
                : `the macro '${problem.subject}' is also defined at ${problem.other.path}:${problem.other.line}; dbt allows one macro per name: rename or remove one`,
          }),
      ...(problem.code === 'jinja_syntax' && problem.line === undefined
        ? unclosedFinding(problem.unclosed)
        : {}),
      ...(problem.code === 'jinja_syntax' && problem.syntax !== undefined ? { hint: problem.syntax } : {}),
    }),
    violations: [],
  }));
}

/** A file's folders and name under the model path that holds it. */
function modelPathIn(modelPaths: readonly string[]): (path: string) => ModelPath {
  return (path) => {
    const root = modelPaths.find((prefix) => path.startsWith(`${prefix}/`)) ?? '';
    const rest = path.slice(root.length + 1).split('/');
    return { dirs: rest.slice(0, -1), base: rest[rest.length - 1] ?? '' };
  };
}

const NO_RELATIONS: RelationResolver = { model: () => undefined, source: () => undefined };

/** A config value: no ref(), source() or macros; project vars only where dbt gives them. */
function renderValue(harness: JinjaHarness, text: string, withProjectVars: boolean): RenderOutcome {
  return harness.render(text, NO_RELATIONS, { withMacros: false, withProjectVars });
}

function renderIfJinja(harness: JinjaHarness, text: string): RenderOutcome {
  return /\{[{%#]/.test(text)
    ? renderValue(harness, text, true)
    : { ok: true, text, record: { refs: [], sources: [], configs: [] } };
}

function planSources(tables: readonly SourceTableProperties[], planning: Planning): PlannedSource[] {
  const counts = new Map<string, SourceTableProperties[]>();
  for (const table of tables) counts.set(keyOf(table), [...(counts.get(keyOf(table)) ?? []), table]);
  return tables
    .map((table) => planSource(table, counts, planning))
    .sort((a, b) => byString(keyOf(a), keyOf(b)));
}

function modelIndex(
  files: readonly ProjectFile[],
  props: readonly ModelProperties[],
  modelPathOf: (path: string) => ModelPath,
): ModelIndex {
  const paths = new Map<string, string[]>();
  for (const file of files) {
    const name = modelPathOf(file.path).base.replace(/\.sql$/, '');
    paths.set(name, [...(paths.get(name) ?? []), file.path]);
  }
  const propsByModel = new Map<string, ModelProperties>();
  for (const entry of props) if (!propsByModel.has(entry.name)) propsByModel.set(entry.name, entry);
  return { paths, props: propsByModel };
}

/**
 * ref() and source() while rendering a model: a source that did not render
 * reads as a placeholder. A versioned model's ref() reads its latest
 * version, or the one it pins; the file of a version is no model of its own
 * name, as dbt renames it.
 */
function modelResolver(
  index: ModelIndex,
  versions: VersionedModels,
  sourceByKey: ReadonlyMap<string, PlannedSource>,
  others: ReadonlyMap<string, 'seed' | 'snapshot'>,
): RelationResolver {
  return {
    model: (name, version) => {
      const versioned = versions.byName.get(name);
      if (versioned !== undefined) {
        const found =
          version === undefined
            ? versioned.latest
            : versioned.versions.find((candidate) => candidate.props.v.text === version);
        return found === undefined ? undefined : { relation: found.relation, node: found.node };
      }
      if (version !== undefined || versions.byFile.has(name)) return undefined;
      // A seed or a snapshot is read by ref() as a model is, from the same schema.
      return (index.paths.has(name) || others.has(name)) && IDENTIFIER.test(name)
        ? { relation: modelRelation(name), node: name }
        : undefined;
    },
    source: (source, table) => {
      const planned = sourceByKey.get(`${source}.${table}`);
      return planned === undefined ? undefined : (planned.relation ?? '"unresolved"."unresolved"');
    },
  };
}

function planModel(file: ProjectFile, scope: ModelScope): PlannedModel {
  const { harness, project, projectName } = scope.planning;
  const { dirs, base } = scope.planning.modelPathOf(file.path);
  const fileName = base.replace(/\.sql$/, '');
  // A version's file is the model `<name>` with that version (dbt renames it); any other file is the model it names.
  const version: ModelVersion | undefined = scope.versions.byFile.get(fileName);
  const name = version?.model ?? fileName;
  // dbt files a version under its model's name, then `v<version>`; dbt_project.yml configs follow that path.
  const fqn =
    version === undefined
      ? [projectName, ...dirs, name]
      : [projectName, ...dirs, name, `v${version.props.v.text}`];
  const relation = version?.relation ?? modelRelation(name);
  const here = { file: file.path };
  const text = decode(file.bytes);
  const source = typeof text === 'string' ? text : '';
  const fromProject = projectConfig(project.models, projectName, fqn.slice(1));
  const start = {
    config: fromProject,
    enabled: renderedBoolean(fromProject.enabled, (value) => renderValue(harness, value, false)),
  };
  const entry = scope.index.props.get(name);
  // A versioned model's properties are its versions'; a file of its name that is none of them gets none.
  const props =
    version === undefined ? (entry?.versions.length === 0 ? entry.config : undefined) : version.config;
  const configured = props === undefined ? start : layered(start, props, harness);
  const rendered = harness.render(source, scope.resolver, {
    withMacros: true,
    withProjectVars: true,
    self: relation,
  });
  const { config, enabled } = rendered.record.configs.reduce(
    (state, inline) => layered(state, inline, harness),
    configured,
  );
  const finding = firstFinding([
    () => (IDENTIFIER.test(name) ? undefined : draft('invalid_resource_name', here)),
    () => duplicateModel(fileName, file.path, scope.index),
    () => unversionedTwin(name, version, here, scope.versions),
    () => (typeof text === 'string' ? undefined : { ...text, file: file.path }),
    () =>
      typeof enabled === 'string'
        ? enabledFinding(
            enabled,
            { expression: config.enabled, enabledAt: config.enabledAt },
            { kind: 'model', name, here },
            'models',
            scope.planning.enabledContext,
          )
        : undefined,
    () =>
      rendered.ok
        ? undefined
        : renderFinding(rendered, file.path, source, { ...scope, harness, projectName }),
    () => inlineConfigTypo(rendered.record.configs, source, file.path, scope.configKeys),
  ]);
  return {
    name: version?.node ?? name,
    ...(version === undefined ? {} : { version: version.props.v.text }),
    path: file.path,
    fqn,
    enabled: enabled === true || enabled === undefined,
    materialized: config.materialized ?? 'view',
    tags: config.tags,
    relation,
    sql: rendered.ok ? rendered.text : undefined,
    source,
    refs: refsOf(rendered.record.refs, scope.others, undefined),
    seeds: refsOf(rendered.record.refs, scope.others, 'seed'),
    snapshots: refsOf(rendered.record.refs, scope.others, 'snapshot'),
    sources: uniqueSources(rendered.record.sources),
    finding,
  };
}

/**
 * A config key dbt does not know, close to one it does (`materialised`):
 * dbt keeps it as a custom config (1.10 warns, CustomKeyInConfigDeprecation)
 * and the config meant is not set, so the model is built otherwise than
 * written. Keys close to no config are left alone: adapters add configs
 * dbt's schema does not list (docs/editions.md#misspelt-configs).
 */
function configTypo(key: string, known: ReadonlySet<string>): string | undefined {
  if (known.has(key) || WELL_KNOWN_CONFIGS.has(key) || key.startsWith('+')) return undefined;
  return nearest(key, [...known, ...WELL_KNOWN_CONFIGS]);
}

/**
 * Configs dbt and its common adapters read that dbt's JSON schema for
 * dbt_project.yml does not list (incremental, snapshot, seed and adapter
 * configs; hooks written with `_`, as config() takes them): never taken
 * for a misspelling, and offered when one is close.
 */
const WELL_KNOWN_CONFIGS: ReadonlySet<string> = new Set([
  'unique_key',
  'pre_hook',
  'post_hook',
  'partition_by',
  'cluster_by',
  'partitions',
  'require_partition_filter',
  'partition_expiration_days',
  'event_time',
  'batch_size',
  'lookback',
  'begin',
  'concurrent_batches',
  'incremental_predicates',
  'merge_update_columns',
  'merge_exclude_columns',
  'sort',
  'dist',
  'sort_type',
  'indexes',
  'unlogged',
  'query_tag',
  'tmp_relation_type',
  'automatic_clustering',
  'table_type',
  'external_volume',
  'clustered_by',
  'buckets',
  'location_root',
  'liquid_clustered_by',
  'zorder',
  'options',
  'description',
  'strategy',
  'updated_at',
  'check_cols',
  'target_schema',
  'target_database',
  'invalidate_hard_deletes',
  'hard_deletes',
  'column_types',
  'delimiter',
  'quote_columns',
  'quoting',
  'freshness',
  'submission_method',
  'python_version',
  'packages',
  'imports',
  'max_staleness',
  'enable_refresh',
  'refresh_interval_minutes',
  'resource_tags',
  // Adapter configs one edit from another config: Snowflake's Iceberg tables
  // (table_format, base_location_root, base_location_subpath), its tags and
  // row access policies, BigQuery's Python batch id, Athena's table properties.
  'table_format',
  'base_location_root',
  'base_location_subpath',
  'table_tag',
  'row_access_policy',
  'batch_id',
  'table_properties',
]);

function configTypoHint(key: string, near: string, where: string): string {
  return `dbt knows no config '${key}' ${where}: it keeps it as a custom config and sets nothing with it; did you mean '${near}'? (a setting of your own goes under meta)`;
}

/** Misspelt keys of `config:` in the models of properties files, and of their versions, at each key. */
function propertiesConfigTypos(
  docs: readonly { readonly path: string; readonly value: YamlValue; readonly node: YamlNode }[],
  known: ReadonlySet<string>,
): FindingDraft[] {
  const found: FindingDraft[] = [];
  const check = (
    doc: (typeof docs)[number],
    config: YamlValue | undefined,
    at: readonly (string | number)[],
  ) => {
    if (!isMapping(config)) return;
    for (const key of Object.keys(config)) {
      const near = configTypo(key, known);
      if (near === undefined) continue;
      found.push(
        draft('config_key_unknown', {
          file: doc.path,
          ...placeIn(doc.node, [...at, 'config', key]),
          hint: configTypoHint(key, near, 'in a model'),
        }),
      );
    }
  };
  for (const doc of docs) {
    if (!isMapping(doc.value) || !Array.isArray(doc.value.models)) continue;
    for (const [index, model] of (doc.value.models as readonly YamlValue[]).entries()) {
      if (!isMapping(model)) continue;
      check(doc, model.config, ['models', index]);
      if (!Array.isArray(model.versions)) continue;
      for (const [v, version] of (model.versions as readonly YamlValue[]).entries())
        if (isMapping(version)) check(doc, version.config, ['models', index, 'versions', v]);
    }
  }
  return found;
}

/** A misspelt key in a model's config() call, at the key where the file writes it. */
function inlineConfigTypo(
  configs: readonly YamlMapping[],
  source: string,
  file: string,
  known: ReadonlySet<string>,
): FindingDraft | undefined {
  for (const config of configs)
    for (const key of Object.keys(config)) {
      const near = configTypo(key, known);
      if (near === undefined) continue;
      const written = new RegExp(`\\b${key}\\s*=`).exec(source);
      return draft('config_key_unknown', {
        file,
        ...(written === null ? macroCallPlace(source, 'config') : positionAt(source, written.index)),
        hint: configTypoHint(key, near, 'in config()'),
      });
    }
  return undefined;
}

/**
 * A unit test's `model:` and its `given:` inputs name models and sources
 * dbt must find, or it refuses the project; each one the project lacks is
 * `undefined_ref` / `undefined_source` at its key, with the name it is
 * close to. The check does not run unit tests (docs/editions.md#unit-tests).
 */
function unitTestTargets(
  docs: readonly { readonly path: string; readonly value: YamlValue; readonly node: YamlNode }[],
  modelNames: readonly string[],
  sourceNames: readonly string[] | undefined,
): FindingDraft[] {
  const found: FindingDraft[] = [];
  const models = new Set(modelNames);
  for (const doc of docs) {
    if (!isMapping(doc.value) || !Array.isArray(doc.value.unit_tests)) continue;
    for (const [index, test] of (doc.value.unit_tests as readonly YamlValue[]).entries()) {
      if (!isMapping(test)) continue;
      const at = ['unit_tests', index];
      const name = typeof test.name === 'string' ? test.name : `unit_tests[${index}]`;
      if (typeof test.model === 'string' && !models.has(test.model)) {
        const near = didYouMean(test.model, modelNames);
        found.push(
          draft('undefined_ref', {
            file: doc.path,
            ...placeIn(doc.node, [...at, 'model']),
            hint: `the unit test ${name} is on the model '${test.model}', which the project does not have${near === undefined ? '' : `: ${near}`}`,
          }),
        );
      }
      for (const [g, given] of asArray(test.given).entries()) {
        if (!isMapping(given) || typeof given.input !== 'string') continue;
        const place = { file: doc.path, ...placeIn(doc.node, [...at, 'given', g, 'input']) };
        const ref = /^\s*ref\(\s*(['"])([^'"]+)\1\s*(?:,[^)]*)?\)\s*$/.exec(given.input);
        const source = /^\s*source\(\s*(['"])([^'"]+)\1\s*,\s*(['"])([^'"]+)\3\s*\)\s*$/.exec(given.input);
        if (ref?.[2] !== undefined && !models.has(ref[2])) {
          const near = didYouMean(ref[2], modelNames);
          found.push(
            draft('undefined_ref', {
              ...place,
              hint: `ref('${ref[2]}') in the unit test ${name} names no model of this project${near === undefined ? '' : `: ${near}`}`,
            }),
          );
        }
        const key = source?.[2] === undefined ? undefined : `${source[2]}.${source[4]}`;
        if (key !== undefined && sourceNames !== undefined && !sourceNames.includes(key)) {
          const near = didYouMean(key, sourceNames);
          found.push(
            draft('undefined_source', {
              ...place,
              hint: `source('${source?.[2]}', '${source?.[4]}') in the unit test ${name} is not defined in a properties file${near === undefined ? '' : `: ${near}`}`,
            }),
          );
        }
      }
    }
  }
  return found;
}

/** The names of the `{% docs name %}` blocks of the project's `.md` files. */
function docsBlocks(files: readonly ProjectFile[]): ReadonlySet<string> {
  const names = new Set<string>();
  for (const file of files) {
    const text = decode(file.bytes);
    if (typeof text !== 'string') continue;
    for (const match of text.matchAll(/\{%-?\s*docs\s+([A-Za-z_][A-Za-z0-9_]*)\s*-?%\}/g))
      if (match[1] !== undefined) names.add(match[1]);
  }
  return names;
}

/**
 * A `description:` that calls doc() for a docs block the project lacks:
 * `dbt parse` fails on it ("… depends on doc 'x' which was not found").
 * Placed at the description, with a block of a close name. A doc() of
 * another package (`doc('pkg', 'name')`) is left alone.
 */
function undefinedDocs(
  docs: readonly { readonly path: string; readonly value: YamlValue; readonly node: YamlNode }[],
  blocks: ReadonlySet<string>,
  projectName: string,
): FindingDraft[] {
  const found: FindingDraft[] = [];
  const call = /\bdoc\(\s*(['"])([^'"]*)\1\s*(?:,\s*(['"])([^'"]*)\3\s*)?\)/g;
  const visit = (doc: (typeof docs)[number], value: YamlValue, at: readonly (string | number)[]): void => {
    if (Array.isArray(value)) {
      for (const [index, item] of (value as readonly YamlValue[]).entries()) visit(doc, item, [...at, index]);
      return;
    }
    if (!isMapping(value)) return;
    for (const [key, item] of Object.entries(value)) {
      if (key !== 'description' || typeof item !== 'string') {
        visit(doc, item, [...at, key]);
        continue;
      }
      // Only inside {{ }} is doc() a call: dbt renders a description as Jinja, the rest is text.
      const calls = [...item.matchAll(/\{\{([\s\S]*?)\}\}/g)].flatMap((block) => [
        ...(block[1] ?? '').matchAll(call),
      ]);
      for (const match of calls) {
        const [package_, name] = match[4] === undefined ? [undefined, match[2]] : [match[2], match[4]];
        if (name === undefined || blocks.has(name)) continue;
        if (package_ !== undefined && package_ !== projectName) continue;
        const near = didYouMean(name, [...blocks]);
        found.push(
          draft('undefined_doc', {
            file: doc.path,
            ...placeIn(doc.node, [...at, key]),
            hint: `doc('${name}') names no docs block of this project (a {% docs ${name} %} … {% enddocs %} in a .md file)${near === undefined ? '' : `: ${near}`}`,
          }),
        );
      }
    }
  };
  for (const doc of docs) visit(doc, doc.value, []);
  return found;
}

/** The names a model's ref() calls read, each once, sorted: its models (kind undefined), or its seeds or snapshots. */
function refsOf(
  refs: readonly string[],
  others: ReadonlyMap<string, 'seed' | 'snapshot'>,
  kind: 'seed' | 'snapshot' | undefined,
): string[] {
  return [...new Set(refs.filter((ref) => others.get(ref) === kind))].sort(byString);
}

/** Each seed CSV by its file name; one that does not read as CSV carries why, at its place. */
function planSeeds(files: readonly ProjectFile[]): PlannedSeed[] {
  return files
    .map((file) => {
      const name = (file.path.split('/').pop() ?? '').replace(/\.csv$/, '');
      if (file.oversized !== undefined)
        return {
          name,
          path: file.path,
          table: undefined,
          fault:
            file.oversized === 'file'
              ? `${file.path} is larger than the ${PROJECT_LIMITS.maxFileBytes / (1024 * 1024)} MiB the check loads of a seed`
              : `${file.path} was not read: the seeds before it in name order already hold the ${PROJECT_LIMITS.maxTotalBytes / (1024 * 1024)} MiB the check loads of seeds in all`,
        };
      const read = readCsv(file.bytes, { seed: true });
      return {
        name,
        path: file.path,
        table: read.ok ? read.table : undefined,
        fault: read.ok
          ? undefined
          : `${file.path}:${read.line}${read.column === undefined ? '' : `:${read.column}`}: ${read.hint}`,
      };
    })
    .sort((a, b) => byString(a.name, b.name) || byString(a.path, b.path));
}

/** Every `{% snapshot name %}` block of the snapshot files: the name ref() reads it by. */
function planSnapshots(files: readonly ProjectFile[]): PlannedSnapshot[] {
  const found: PlannedSnapshot[] = [];
  for (const file of files) {
    const text = decode(file.bytes);
    if (typeof text !== 'string') continue;
    for (const match of text.matchAll(/\{%-?\s*snapshot\s+([A-Za-z_][A-Za-z0-9_]*)\s*-?%\}/g))
      if (match[1] !== undefined) found.push({ name: match[1], path: file.path });
  }
  return found.sort((a, b) => byString(a.name, b.name) || byString(a.path, b.path));
}

/** A config layer over a model's config; `enabled` is rendered again only when the layer changed it. */
function layered(state: ModelConfig, layer: YamlMapping, harness: JinjaHarness): ModelConfig {
  const config = applyConfig(state.config, layer);
  if (config.enabled === state.config.enabled) return { config, enabled: state.enabled };
  return { config, enabled: renderedBoolean(config.enabled, (value) => renderValue(harness, value, true)) };
}

/**
 * A file named like a versioned model that defines none of its versions:
 * dbt refuses a project with a versioned and an unversioned model of one
 * name.
 */
function unversionedTwin(
  name: string,
  version: ModelVersion | undefined,
  here: { readonly file: string },
  versions: VersionedModels,
): FindingDraft | undefined {
  const versioned = versions.byName.get(name);
  if (version !== undefined || versioned === undefined) return undefined;
  const files = versioned.versions.map((each) => `${each.fileBase}.sql`);
  return draft('duplicate_model', {
    ...here,
    hint: `'${name}' is a versioned model (${files.length === 0 ? 'none of its versions has a file' : `its versions are in ${files.join(', ')}`}), and dbt refuses an unversioned model of the same name: rename this file to the version it holds (${name}_v<version>.sql) or remove it`,
  });
}

function duplicateModel(name: string, path: string, index: ModelIndex): FindingDraft | undefined {
  const paths = index.paths.get(name) ?? [];
  if (paths.length <= 1) return undefined;
  const other = paths.find((candidate) => candidate !== path);
  return draft('duplicate_model', {
    file: path,
    ...(other === undefined ? {} : { hint: `another model file has the same name: ${other}` }),
  });
}

/** An enabled model without a finding gets the first one of what it reads: a disabled ref or source, a broken source. */
function withInputFinding(
  model: PlannedModel,
  enabledModels: ReadonlyMap<string, PlannedModel>,
  sourceByKey: ReadonlyMap<string, PlannedSource>,
): PlannedModel {
  if (!model.enabled || model.finding !== undefined) return model;
  const read = model.sources.map((key) => ({ key, planned: sourceByKey.get(keyOf(key)) }));
  const found = firstFinding([
    () => disabledRef(model, enabledModels),
    () => {
      const off = read.find((entry) => entry.planned?.enabled !== true);
      if (off === undefined) return undefined;
      return draft('source_disabled', {
        file: model.path,
        hint: `the source table '${keyOf(off.key)}' is disabled for this target and vars`,
      });
    },
    () => read.find((entry) => entry.planned?.finding !== undefined)?.planned?.finding,
  ]);
  return found === undefined ? model : { ...model, finding: found };
}

function disabledRef(
  model: PlannedModel,
  enabledModels: ReadonlyMap<string, PlannedModel>,
): FindingDraft | undefined {
  const ref = model.refs.find((name) => !enabledModels.has(name));
  if (ref === undefined) return undefined;
  const disabled = `'${ref}' is disabled for this target and vars`;
  const dot = ref.indexOf('.');
  if (dot < 0)
    return draft('ref_to_disabled_model', {
      file: model.path,
      ...callPlace(model.source, 'ref', ref),
      hint: disabled,
    });
  // A version `<name>.v<version>` is read by ref('<name>', v=<version>), or, the latest, by ref('<name>').
  const name = ref.slice(0, dot);
  const pinned = refCallPlace(model.source, name, ref.slice(dot + 2));
  const unpinned = pinned === undefined ? refCallPlace(model.source, name, undefined) : undefined;
  const enabled = [...enabledModels.keys()]
    .filter((node) => node.startsWith(`${name}.v`))
    .map((node) => `v=${node.slice(name.length + 2)}`);
  return draft('ref_to_disabled_model', {
    file: model.path,
    ...(pinned ?? unpinned ?? callPlace(model.source, 'ref', name)),
    hint:
      unpinned === undefined
        ? disabled
        : `ref('${name}') reads its latest version, '${ref}', which is disabled for this target and vars: enable it${enabled.length === 0 ? '' : `, or pin one that is enabled (${enabled.join(', ')})`}`,
  });
}

/** The build order of the enabled models; each model in a ref() cycle without a finding gets dependency_cycle. */
function orderModels(models: readonly PlannedModel[]): { planned: PlannedModel[]; order: string[] } {
  const { order, cyclic } = buildOrder(models.filter((model) => model.enabled));
  const hint = `the models in the cycle: ${[...cyclic].sort(byString).join(', ')}`;
  const planned = models.map((model) => {
    if (!cyclic.has(model.name) || model.finding !== undefined) return model;
    // At the ref() that leads into the cycle, where an edit breaks it.
    const into = model.refs.find((ref) => cyclic.has(ref));
    const place = into === undefined ? {} : callPlace(model.source, 'ref', into);
    return { ...model, finding: draft('dependency_cycle', { file: model.path, ...place, hint }) };
  });
  return { planned, order };
}

/**
 * dbt refuses a project that describes one model twice (in one file or two):
 * each of its entries is a finding at its own `name:`, naming where the
 * others are (paths in the project), so no entry's tests are dropped without
 * a word. Added like `properties_without_model`: the file's finding, or one
 * more `also`.
 */
function withDuplicateProperties(
  results: readonly FileResult[],
  props: readonly ModelProperties[],
): FileResult[] {
  const out = [...results];
  const byName = new Map<string, ModelProperties[]>();
  for (const entry of props) byName.set(entry.name, [...(byName.get(entry.name) ?? []), entry]);
  const placeOf = (entry: ModelProperties) =>
    `${entry.file}${entry.at.line === undefined ? '' : `:${entry.at.line}`}`;
  for (const entries of byName.values()) {
    if (entries.length < 2) continue;
    for (const entry of entries) {
      const index = out.findIndex((result) => result.path === entry.file);
      const existing = out[index];
      if (existing === undefined) continue;
      const others = entries.filter((other) => other !== entry).map(placeOf);
      const found = draft('duplicate_properties', {
        file: entry.file,
        ...entry.at,
        hint: `model '${entry.name}' is also described at ${others.join(', ')}: dbt allows one entry per model; merge them`,
      });
      if (existing.finding === undefined) out[index] = { ...existing, finding: found };
      else out[index] = { ...existing, also: [...(existing.also ?? []), found] };
    }
  }
  return out;
}

/**
 * A properties entry for a model that does not exist is its file's finding,
 * or one more `also` when the file's finding is already one of those.
 */
function withPropertiesWithoutModel(
  results: readonly FileResult[],
  props: readonly ModelProperties[],
  paths: ModelIndex['paths'],
  versions: VersionedModels,
): FileResult[] {
  const out = [...results];
  const modelNames = [...paths.keys()];
  for (const entry of props) {
    // A versioned model is its versions, each with its own file (version_file_missing when one has none).
    if (paths.has(entry.name) || entry.versions.length > 0 || versions.byFile.has(entry.name)) continue;
    const index = out.findIndex((result) => result.path === entry.file);
    const existing = out[index];
    if (existing === undefined) continue;
    const hint = didYouMean(entry.name, modelNames);
    const found = draft('properties_without_model', {
      file: entry.file,
      ...entry.at,
      ...(hint === undefined ? {} : { hint }),
    });
    if (existing.finding === undefined) out[index] = { ...existing, finding: found };
    else if (existing.finding.code === 'properties_without_model')
      out[index] = { ...existing, also: [...(existing.also ?? []), found] };
  }
  return out;
}

/** Findings of properties files: each its file's finding, or one more `also`. */
function withFileFindings(results: readonly FileResult[], found: readonly FindingDraft[]): FileResult[] {
  const out = [...results];
  for (const finding of found) {
    const index = out.findIndex((result) => result.path === finding.file);
    const existing = out[index];
    if (existing === undefined) continue;
    out[index] =
      existing.finding === undefined
        ? { ...existing, finding }
        : { ...existing, also: [...(existing.also ?? []), finding] };
  }
  return out;
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

/**
 * A properties file dbt's schema passes can still be one dbt refuses: an
 * entry with both `data_tests:` and `tests:`. Each is a finding at the later
 * key, after the schema's own (check/test-keys.ts).
 */
function withBothTestKeys(
  outcome: ReturnType<typeof schemaOutcome>,
  file: string,
  node: YamlNode | undefined,
): ReturnType<typeof schemaOutcome> {
  const drafts = entriesWithBothTestKeys(node).map((both) =>
    draft('tests_and_data_tests', {
      file,
      line: both.line,
      column: both.column,
      pointer: both.pointer,
      hint: `dbt stops at this entry ("cannot have both 'tests' and 'data_tests' defined"): tests: is the older name of data_tests:, so ${both.empty ? 'delete this empty key' : `move the tests listed under ${both.key} into ${both.key === 'tests' ? 'data_tests' : 'tests'}: and delete this key`}`,
    }),
  );
  const [first, ...rest] = drafts;
  if (first === undefined) return outcome;
  if (outcome.finding === undefined)
    return { ...outcome, finding: first, ...(rest.length > 0 ? { also: rest } : {}) };
  return { ...outcome, also: [...(outcome.also ?? []), ...drafts] };
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
export function callPlace(text: string, name: string, subject: string): { line?: number; column?: number } {
  const escaped = subject.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = new RegExp(`\\b${name}\\s*\\(\\s*(?:['"][A-Za-z0-9_]+['"]\\s*,\\s*)?['"]${escaped}['"]`);
  const match = pattern.exec(text);
  if (match === null) return {};
  return positionAt(text, match.index);
}

/**
 * Where `ref('<name>', v=<version>)` is called, or with `version`
 * undefined an unpinned `ref('<name>')`: a model that reads two versions
 * of one model is placed at the call that reads the one meant. A pin Python
 * holds false (`v=0`, `v=''`) pins nothing, as in dbt; `version=` is read
 * before `v=`.
 */
function refCallPlace(
  text: string,
  name: string,
  version: string | undefined,
): { line: number; column: number } | undefined {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const calls = new RegExp(
    `\\bref\\s*\\(\\s*(?:['"][A-Za-z0-9_]+['"]\\s*,\\s*)?['"]${escaped}['"]([^)]*)\\)`,
    'g',
  );
  for (const call of text.matchAll(calls)) {
    const args = call[1] ?? '';
    const keyword =
      /\bversion\s*=\s*(['"]?)([^'",)\s]*)\1/.exec(args) ?? /\bv\s*=\s*(['"]?)([^'",)\s]*)\1/.exec(args);
    const written = keyword?.[2];
    const pin =
      written === undefined || written === '' || (keyword?.[1] === '' && Number(written) === 0)
        ? undefined
        : written;
    const same =
      pin === undefined || version === undefined
        ? pin === version
        : pin === version || (keyword?.[1] === '' && Number(pin) === Number(version));
    if (same) return positionAt(text, call.index);
  }
  return undefined;
}

export function positionAt(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const column = [...before.slice(before.lastIndexOf('\n') + 1)].length + 1;
  return { line, column };
}

/** nunjucks names no line when the template ends while a tag or block is still expected. */
const ENDS_EARLY_HINT =
  'the template ends where more is expected: check that every {% if %}, {% for %} and {% macro %} has its end tag, and every {{, {% and {# is closed';

/** Where a template's end leaves a block tag or a delimiter open, and what closes it. */
function unclosedFinding(unclosed: Unclosed | undefined): { line?: number; column?: number; hint: string } {
  if (unclosed === undefined) return { hint: ENDS_EARLY_HINT };
  const { line, column } = unclosed;
  if (unclosed.kind === 'delimiter')
    return {
      line,
      column,
      hint: `this ${unclosed.open} is never closed: add ${CLOSING[unclosed.open] ?? '}}'}`,
    };
  const end = unclosed.tag === 'raw' ? 'endraw' : `end${unclosed.tag}`;
  return {
    line,
    column,
    hint: `this {% ${unclosed.tag} %} is never closed: add {% ${end} %} where it should end`,
  };
}

const CLOSING: Readonly<Record<string, string>> = { '{{': '}}', '{%': '%}', '{#': '#}' };

/** Names a template can call besides the project's macros. */
/** Namespaces of dbt's own context (dbt.date_spine, adapter.get_relation, modules.datetime): no package's. */
const DBT_NAMESPACES = new Set(['dbt', 'adapter', 'modules', 'api', 'exceptions']);

const CONTEXT_FUNCTIONS = ['ref', 'source', 'config', 'var', 'env_var', 'is_incremental', 'log', 'run_query'];

/** The first `name(` call in a template, preferring one whose first argument is `first`. */
function macroCallPlace(text: string, name: string, first?: string): { line?: number; column?: number } {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const patterns = [
    ...(first === undefined
      ? []
      : [new RegExp(`\\b${escaped}\\s*\\(\\s*${first.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`)]),
    new RegExp(`\\b${escaped}\\s*\\(`),
  ];
  for (const pattern of patterns) {
    const match = pattern.exec(text);
    if (match !== null) return positionAt(text, match.index);
  }
  return {};
}

/** How a failed macro call reads in a hint: `starter_cast('country', 'text')`. */
function callText(call: MacroCall): string {
  return `${call.name}(${call.args ?? '…'})`;
}

/** A failed render as a finding: the name it is about, where it is called, and the nearest name known. */
function renderFinding(
  rendered: Extract<RenderOutcome, { readonly ok: false }>,
  file: string,
  text: string,
  known: Known,
): FindingDraft {
  const { modelNames, sourceNames, unread, harness } = known;
  const subject = rendered.subject;
  const base = {
    file,
    ...(rendered.line === undefined ? {} : { line: rendered.line }),
    ...(rendered.column === undefined ? {} : { column: rendered.column }),
  };
  const call = rendered.call;
  // The project macro the template called, where it calls it (with the same first argument when literal).
  const atCall = call === undefined ? {} : macroCallPlace(text, call.name, call.args?.split(', ')[0]);
  const through = call === undefined || call.name === subject ? '' : ` (called through ${callText(call)})`;
  if (rendered.code === 'jinja_syntax' && rendered.line === undefined)
    return draft('jinja_syntax', { ...base, ...unclosedFinding(rendered.unclosed) });
  if (rendered.code === 'jinja_syntax')
    return draft('jinja_syntax', {
      ...base,
      ...(rendered.syntax === undefined ? {} : { hint: rendered.syntax }),
    });
  if (rendered.code === 'compiler_error')
    return draft('compiler_error', {
      ...base,
      ...atCall,
      ...(rendered.raised === undefined
        ? call === undefined
          ? {}
          : { hint: `${callText(call)} raised a compiler error` }
        : { hint: `${call === undefined ? 'the template' : callText(call)} raised: ${rendered.raised}` }),
    });
  if (subject === undefined) return draft(rendered.code, base);
  switch (rendered.code) {
    case 'undefined_ref': {
      const place =
        (rendered.version === undefined ? undefined : refCallPlace(text, subject, rendered.version)) ??
        callPlace(text, 'ref', subject);
      if (rendered.version !== undefined)
        return draft('undefined_ref', {
          ...base,
          ...place,
          hint: unknownVersionHint(subject, rendered.version, known.versions, modelNames.includes(subject)),
        });
      const version = known.versions.byFile.get(subject);
      if (version !== undefined)
        return draft('undefined_ref', {
          ...base,
          ...place,
          hint: `ref('${subject}'): ${subject}.sql is version ${version.props.v.text} of '${version.model}', which dbt names ${version.node}: write ref('${version.model}', v=${version.props.v.text})`,
        });
      // The project has it, under a name no relation is built for: no did-you-mean of itself.
      if (modelNames.includes(subject) && !IDENTIFIER.test(subject))
        return draft('undefined_ref', {
          ...base,
          ...place,
          hint: `ref('${subject}') names a model, seed or snapshot of this project whose name is not letters, digits and _ alone: the offline check builds no relation under such a name; rename its file (docs/editions.md#limits-and-choices)`,
        });
      const near = didYouMean(subject, modelNames);
      return draft('undefined_ref', {
        ...base,
        ...place,
        hint: `ref('${subject}')${near === undefined ? ' is not a model of this project' : `: ${near}`}`,
      });
    }
    case 'undefined_source': {
      const [source = '', table = ''] = subject.split('.');
      const near = didYouMean(subject, sourceNames);
      const place = callPlace(text, 'source', source);
      // A source written in a file that was not read is unknown for that reason, not misspelt.
      const writtenInUnread = unread.some((other) => other.names.includes(source));
      const notRead = unreadHint(source, unread);
      const why =
        notRead !== undefined && (writtenInUnread || near === undefined)
          ? ` is not defined in a properties file that was read: ${notRead}`
          : near === undefined
            ? ' is not defined in a properties file'
            : `: ${near}`;
      return draft('undefined_source', { ...base, ...place, hint: `source('${source}', '${table}')${why}` });
    }
    case 'undefined_var':
      return draft('undefined_var', {
        ...base,
        ...callPlace(text, 'var', subject),
        hint: `var('${subject}') has no value: give it a default or pass --vars '{${subject}: …}'`,
      });
    case 'undefined_macro': {
      if (rendered.namespace !== undefined) {
        const written = harness.dispatchPlace(subject, rendered.namespace);
        const dispatch = `adapter.dispatch('${subject}', '${rendered.namespace}')${written === undefined ? '' : ` in ${written.path}:${written.line}`}`;
        return draft('undefined_macro', {
          ...base,
          ...(call === undefined ? macroCallPlace(text, subject) : atCall),
          hint: `${dispatch}${through} looks for ${subject} in the namespace '${rendered.namespace}' alone, and this project is '${known.projectName}': write adapter.dispatch('${subject}') (dbt then searches this project), or name '${known.projectName}'`,
        });
      }
      if (rendered.dispatch === true)
        return draft('undefined_macro', {
          ...base,
          ...(call === undefined ? macroCallPlace(text, subject) : atCall),
          hint: `no macro implements '${subject}' for duckdb (duckdb__${subject} or default__${subject})${through}`,
        });
      const inModel = macroCallPlace(text, subject);
      const dot = subject.indexOf('.');
      if (dot > 0 && subject.slice(0, dot) !== known.projectName) {
        // A package's macro (dbt_utils.star) or dbt's own (dbt.date_spine): nothing this project defines.
        const namespace = subject.slice(0, dot);
        const whose = DBT_NAMESPACES.has(namespace)
          ? "is part of dbt's own context, which the offline check stubs only in part (ref, source, config, var, env_var, target, adapter.dispatch, …)"
          : `is a macro of the package '${namespace}', and the offline check installs no packages (packages.yml, dbt_packages/)`;
        return draft('undefined_macro', {
          ...base,
          ...(inModel.line === undefined ? atCall : inModel),
          hint: `'${subject}' ${whose}: it renders only this project's macros, so this file cannot be checked offline`,
        });
      }
      // Called through the project's name: the macro is the name after it.
      const own = dot > 0 ? subject.slice(dot + 1) : subject;
      const near = didYouMean(own, [...harness.macroNames, ...(dot > 0 ? [] : CONTEXT_FUNCTIONS)]);
      // Not called by the template itself: a macro it called did.
      const caller = inModel.line === undefined && call !== undefined ? ` (called in ${callText(call)})` : '';
      // Defined in a macro file that was not read: that file is what to fix, not the call.
      const definedIn = known.unreadMacros.filter((file) => file.names.includes(own));
      const unreadWhy = (file: UnreadProperties): string =>
        `${file.path}, which was not read (${file.code}${file.line === undefined ? '' : ` at line ${file.line}`})`;
      return draft('undefined_macro', {
        ...base,
        ...(inModel.line === undefined ? atCall : inModel),
        hint:
          definedIn.length > 0
            ? `'${subject}' is defined in ${definedIn.map(unreadWhy).join(' and in ')}: fix that file first${caller}`
            : `'${subject}' is not a macro of this project${caller}${near === undefined ? '' : `: ${near}`}${near === undefined && known.unreadMacros.length > 0 ? `; ${known.unreadMacros.map(unreadWhy).join(', ')} may define it` : ''}`,
      });
    }
    case 'undefined_variable':
      return draft('undefined_variable', {
        ...base,
        hint: subject.includes('.')
          ? `'${subject}' is not defined here`
          : `'${subject}' is not defined here: set it with {% set ${subject} = … %}, or read a project variable with var('${subject}')`,
      });
    case 'undefined_filter': {
      const near = didYouMean(subject, harness.filterNames);
      const match = new RegExp(`\\|\\s*${subject}\\b`).exec(text);
      return draft('undefined_filter', {
        ...base,
        ...(match === null ? {} : positionAt(text, match.index)),
        hint: `no filter '${subject}'${near === undefined ? ": the check knows nunjucks' built-in filters (join, upper, lower, trim, …)" : `: ${near}`}`,
      });
    }
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
  counts: ReadonlyMap<string, readonly SourceTableProperties[]>,
  planning: Planning,
): PlannedSource {
  const here = { file: table.file, ...table.at };
  const at = (code: FindingCode): FindingDraft => draft(code, here);
  const { enabled, origin } = sourceEnabled(table, planning);
  const schema = renderIfJinja(planning.harness, table.schema);
  const identifier = renderIfJinja(planning.harness, table.identifier);
  const schemaText = schema.ok ? schema.text.trim() : undefined;
  const identifierText = identifier.ok ? identifier.text.trim() : undefined;
  const finding = firstFinding([
    () =>
      [table.source, table.table].every((name) => IDENTIFIER.test(name))
        ? undefined
        : at('invalid_resource_name'),
    () => {
      const others = (counts.get(keyOf(table)) ?? []).filter((other) => other !== table);
      if (others.length === 0) return undefined;
      const where = others.map((other) =>
        other.at.line === undefined ? other.file : `${other.file}:${other.at.line}`,
      );
      return draft('duplicate_source', {
        ...here,
        hint: `${keyOf(table)} is defined at ${where.join(' and at ')} too, and dbt allows one definition of a source table: remove one`,
      });
    },
    () =>
      typeof enabled === 'string'
        ? enabledFinding(
            enabled,
            origin,
            { kind: 'source', name: keyOf(table), here },
            'sources',
            planning.enabledContext,
          )
        : undefined,
    () => (schema.ok ? undefined : at(schema.code)),
    () => (identifier.ok ? undefined : at(identifier.code)),
    () => (schemaText === '' || identifierText === '' ? at('invalid_resource_name') : undefined),
  ]);
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
    declared: table.columns.map((column) => ({
      name: column.name,
      ...(column.at?.line === undefined ? {} : { line: column.at.line }),
      ...(column.at?.line === undefined || column.at.column === undefined
        ? {}
        : { column: column.at.column }),
    })),
    finding,
  };
}

/**
 * `enabled` of a source table: the project's `sources:` config, then the
 * source's, then the table's; with the expression it came from and, when
 * dbt_project.yml set it last, where.
 */
function sourceEnabled(
  table: SourceTableProperties,
  planning: Planning,
): { readonly enabled: boolean | FindingCode | undefined; readonly origin: EnabledOrigin } {
  const { harness, project, projectName } = planning;
  const dirs = planning.modelPathOf(table.file).dirs;
  const fromProject = projectConfig(project.sources, projectName, [...dirs, table.source, table.table]);
  let enabled = renderedBoolean(fromProject.enabled, (text) => renderValue(harness, text, false));
  let origin: EnabledOrigin = { expression: fromProject.enabled, enabledAt: fromProject.enabledAt };
  for (const raw of [table.sourceEnabled, table.tableEnabled]) {
    if (raw === undefined) continue;
    enabled = renderedBoolean(raw, (text) => renderValue(harness, text, true));
    origin = { expression: raw };
  }
  return { enabled, origin };
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

/** What planning a test reads: the harness and the relations a relationships test may name. */
interface TestScope {
  readonly harness: JinjaHarness;
  readonly resolver: RelationResolver;
  /** Seeds and snapshots: a relationships test may read them, and they are never disabled models. */
  readonly others: ReadonlyMap<string, 'seed' | 'snapshot'>;
  readonly enabledModels: ReadonlyMap<string, PlannedModel>;
  readonly sourceByKey: ReadonlyMap<string, PlannedSource>;
  /** The first generic test of each name and identity, where it is written: a second is `duplicate_test`. */
  readonly firstTests: Map<string, Omit<FindingDraft, 'code'>>;
}

/** The model or source table tests are attached to. */
interface TestOwner {
  /** The model or `source.table`. */
  readonly attachedTo: string;
  /** dbt names a source's tests `source_<test>_<source>_<table>_…`. */
  readonly isSource: boolean;
  /** The target in a test's name: the model, `<source>_<table>`, or a version's `<name>_v<version>`. */
  readonly nameTarget: string;
  readonly relation: string;
  readonly models: readonly string[];
  readonly sources: readonly SourceKey[];
  /** The properties file the tests are written in. */
  readonly file: string;
}

/** What a relationships test's `to:` renders to, and what it reads. */
interface Relationship {
  /** The relation; undefined when `to:` did not render or `field:` is not an identifier. */
  readonly to: string | undefined;
  readonly models: readonly string[];
  readonly sources: readonly SourceKey[];
  readonly finding: FindingDraft | undefined;
}

type RelationshipsSpec = Extract<TestSpec, { readonly kind: 'relationships' }>;

/** What every test of one check is planned against; a source is resolved to its planned relation. */
function testScope(planning: Parameters<typeof planTests>[4]): TestScope {
  const { resolver, sourceByKey } = planning;
  return {
    harness: planning.planning.harness,
    resolver: {
      model: resolver.model,
      source: (source, table) => sourceByKey.get(`${source}.${table}`)?.relation,
    },
    others: planning.others,
    enabledModels: planning.enabledModels,
    sourceByKey,
    firstTests: new Map(),
  };
}

function planTests(
  models: readonly PlannedModel[],
  sources: readonly PlannedSource[],
  propsByModel: ReadonlyMap<string, ModelProperties>,
  sourceProps: ReadonlyMap<string, SourceTableProperties>,
  planning: {
    readonly planning: Planning;
    readonly resolver: RelationResolver;
    readonly versions: VersionedModels;
    readonly others: ReadonlyMap<string, 'seed' | 'snapshot'>;
    readonly enabledModels: ReadonlyMap<string, PlannedModel>;
    readonly sourceByKey: ReadonlyMap<string, PlannedSource>;
  },
): PlannedTest[] {
  const { versions } = planning;
  const scope = testScope(planning);
  const tests: PlannedTest[] = [];
  for (const model of models) {
    if (!model.enabled) continue;
    const version = versions.byNode.get(model.name);
    const entry = propsByModel.get(model.name);
    // A versioned model's tests are its versions' (their columns, their own tests or the model's).
    const props =
      version !== undefined
        ? { file: version.entry.file, columns: version.props.columns, modelTests: version.props.modelTests }
        : entry?.versions.length === 0
          ? entry
          : undefined;
    if (props === undefined) continue;
    const owner = {
      attachedTo: model.name,
      isSource: false,
      // dbt names a version's tests after `<name>_v<version>` (the name alone for a version Python holds false, 0).
      nameTarget:
        version === undefined || version.props.v.number === 0
          ? (version?.model ?? model.name)
          : `${version.model}_v${version.props.v.text}`,
      relation: model.relation,
      models: [model.name],
      sources: [],
      file: props.file,
    };
    tests.push(...columnTests(owner, props.columns, scope));
    tests.push(...props.modelTests.map((test) => planTest(owner, undefined, test, scope)));
  }
  for (const source of sources) {
    if (!source.enabled || source.relation === undefined) continue;
    const key = keyOf(source);
    const owner = {
      attachedTo: key,
      isSource: true,
      nameTarget: key.replaceAll('.', '_'),
      relation: source.relation,
      models: [],
      sources: [source],
      file: source.path,
    };
    const table = sourceProps.get(key);
    // dbt reads a source table's own tests before its columns' (the order a repeat is found in).
    tests.push(...(table?.tests ?? []).map((test) => planTest(owner, undefined, test, scope)));
    tests.push(...columnTests(owner, table?.columns ?? [], scope));
  }
  return tests;
}

/**
 * The tests of `seeds:` and `snapshots:` entries, on the seed or snapshot
 * of that name, named as dbt names a model's. A seed's run on its CSV rows
 * (with fixtures); a snapshot's are listed and, the snapshot not being
 * built, reported as not built rather than dropped. An entry for a seed or
 * snapshot the project lacks describes nothing, as dbt sees it: no tests.
 */
function planOtherTests(
  entries: readonly OtherProperties[],
  others: ReadonlyMap<string, 'seed' | 'snapshot'>,
  planning: Parameters<typeof planTests>[4],
): PlannedTest[] {
  const scope = testScope(planning);
  const seen = new Set<string>();
  return entries.flatMap((entry) => {
    if (others.get(entry.name) !== entry.kind || seen.has(entry.name)) return [];
    seen.add(entry.name);
    const owner = {
      attachedTo: entry.name,
      isSource: false,
      nameTarget: entry.name,
      relation: modelRelation(entry.name),
      models: [entry.name],
      sources: [],
      file: entry.file,
    };
    return [
      ...columnTests(owner, entry.columns, scope),
      ...entry.tests.map((test) => planTest(owner, undefined, test, scope)),
    ];
  });
}

/** The configs a singular test may set that change nothing the check decides. */
const SINGULAR_LABEL_CONFIGS = new Set(['tags', 'meta', 'description', 'enabled']);

/**
 * A singular test: its Jinja rendered as a model's is (ref, source, macros,
 * var), so an undefined macro or ref is a finding at the test file; the
 * query it renders to must return no rows. One that reads a disabled model
 * or source, or sets `enabled` false, is left out, as dbt disables it (and
 * as a generic test of a disabled model is not listed).
 */
function planSingularTest(
  file: ProjectFile,
  scope: ModelScope,
  modelNodes: ReadonlySet<string>,
  enabledModels: ReadonlyMap<string, PlannedModel>,
  sourceByKey: ReadonlyMap<string, PlannedSource>,
): PlannedTest[] {
  const { harness, projectName } = scope.planning;
  const base = file.path.slice(file.path.lastIndexOf('/') + 1).replace(/\.sql$/, '');
  const here = { file: file.path };
  const text = decode(file.bytes);
  const source = typeof text === 'string' ? text : '';
  const rendered =
    typeof text === 'string'
      ? harness.render(source, scope.resolver, { withMacros: true, withProjectVars: true })
      : undefined;
  const refs = [...new Set(rendered?.record.refs ?? [])].sort(byString);
  const reads = uniqueSources(rendered?.record.sources ?? []);
  const configs = rendered?.record.configs ?? [];
  const enabled = configs.reduce<YamlValue | undefined>((last, config) => config.enabled ?? last, undefined);
  if (rendered?.ok === true) {
    if (enabled === false || enabled === 'false' || enabled === 'False') return [];
    if (refs.some((ref) => modelNodes.has(ref) && !enabledModels.has(ref))) return [];
    if (reads.some((key) => sourceByKey.get(keyOf(key))?.enabled === false)) return [];
  }
  const extra = [...new Set(configs.flatMap((config) => Object.keys(config)))].filter(
    (key) => !SINGULAR_LABEL_CONFIGS.has(key),
  );
  const finding = firstFinding([
    () => (typeof text === 'string' ? undefined : { ...text, file: file.path }),
    () =>
      rendered === undefined || rendered.ok
        ? undefined
        : renderFinding(rendered, file.path, source, { ...scope, harness, projectName }),
    () => {
      // dbt wraps the query in a count: a `;` at its end ends that statement early.
      const end = rendered?.ok === true ? /;\s*$/.exec(rendered.text) : null;
      if (end === null) return undefined;
      const at = source.lastIndexOf(';');
      return draft('sql_parse_error', {
        ...here,
        ...(at === -1 ? {} : positionAt(source, at)),
        hint: 'a singular test is one query, which dbt runs inside a count: drop the ; at its end',
      });
    },
    () =>
      extra.length === 0
        ? undefined
        : draft('unsupported_test', {
            ...here,
            ...macroCallPlace(source, 'config'),
            hint: `the singular test sets the config ${extra.map((key) => `'${key}'`).join(', ')}, which the offline check does not apply: it runs singular tests only without configs (severity, where, warn_if, …)`,
          }),
    () =>
      reads
        .map((key) => sourceByKey.get(keyOf(key))?.finding)
        .find((found): found is FindingDraft => found !== undefined),
  ]);
  const sql = rendered?.ok === true && finding === undefined ? rendered.text : undefined;
  return [
    {
      name: IDENTIFIER.test(base) ? base : 'singular_test',
      kind: 'singular',
      attachedTo: [...refs, ...reads.map(keyOf)].join(', '),
      column: '',
      sql: sql === undefined ? undefined : `select count(*) from (\n${sql}\n) as singular_test`,
      rowsSql:
        sql === undefined
          ? undefined
          : `select * from (\n${sql}\n) as singular_test limit ${MAX_FAILING_ROWS}`,
      models: refs,
      sources: reads,
      at: here,
      singular: { path: file.path, source, sql },
      finding: finding ?? (sql === undefined ? draft('render_error', here) : undefined),
    },
  ];
}

function columnTests(owner: TestOwner, columns: ModelProperties['columns'], scope: TestScope): PlannedTest[] {
  return columns.flatMap((column) => column.tests.map((test) => planTest(owner, column.name, test, scope)));
}

/**
 * Two singular tests of one name (`tests/dup.sql`, `tests/sub/dup.sql`):
 * dbt refuses the project, so the second is a finding naming the first,
 * not run under a name dbt would never give it.
 */
function refuseSameNames(tests: readonly PlannedTest[]): PlannedTest[] {
  const first = new Map<string, string>();
  return tests.map((test) => {
    const path = test.singular?.path ?? '';
    const earlier = first.get(test.name);
    if (earlier === undefined) {
      first.set(test.name, path);
      return test;
    }
    if (test.finding !== undefined) return test;
    return {
      ...test,
      sql: undefined,
      rowsSql: undefined,
      finding: draft('duplicate_test', {
        file: path,
        hint: `${earlier} is a singular test of the name '${test.name}' too, and dbt refuses two tests of one name: rename one of the files`,
      }),
    };
  });
}

/**
 * A generic test that repeats an earlier one: the same name, test,
 * arguments and column on the same model or source table (configs aside).
 * dbt gives both one id and refuses the project ("dbt found two tests with
 * the name …"), so the second is a finding at its entry naming the first.
 * Tests of one name that differ otherwise are two tests to dbt, both run
 * under that name (docs/editions.md, "Test names").
 */
function repeatOf(
  owner: TestOwner,
  name: string,
  { identity, entry }: PlacedTest,
  scope: TestScope,
): FindingDraft | undefined {
  if (identity === undefined) return undefined;
  const key = JSON.stringify([name, owner.isSource, owner.attachedTo, identity]);
  const here = { file: owner.file, ...entry };
  const first = scope.firstTests.get(key);
  if (first === undefined) {
    scope.firstTests.set(key, here);
    return undefined;
  }
  // The same written test, planned again for a second model file of its model's name: that is
  // duplicate_model's finding, not a test written twice.
  if (first.file === here.file && first.line === here.line && first.column === here.column) return undefined;
  const where = first.line === undefined ? first.file : `${first.file}:${first.line}`;
  return draft('duplicate_test', {
    ...here,
    hint: `${where} is a test of the name '${name}' too, with the same arguments, and dbt refuses two tests of one name: remove one, or give one a name: of its own`,
  });
}

/**
 * Why a generic test is not run: what testSpec found (a config, an argument
 * missing or misspelt, a package), a misspelt test name with the one it is
 * close to, or else that it is none of the four.
 */
function unsupportedTest(
  spec: Extract<TestSpec, { readonly kind: 'unsupported' }>,
  here: Omit<FindingDraft, 'code'>,
  given: string | undefined,
): FindingDraft {
  const near = didYouMean(spec.label, RUNNABLE_TESTS);
  const hint =
    spec.hint ??
    (near === undefined
      ? `'${spec.label}' is not one of the generic tests the offline check runs (${RUNNABLE_TESTS.join(', ')})`
      : near);
  return draft('unsupported_test', {
    ...here,
    hint: given === undefined ? hint : `the test ${given}: ${hint}`,
  });
}

/** A test's name as dbt forms it from a package test too (`dbt_utils.accepted_range` → `dbt_utils_accepted_range`). */
const TEST_LABEL = /^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)?$/;

/**
 * A generic test's plan. `column` is the column it is declared on; a
 * model's or source table's own test (undefined) tests its `column_name:`,
 * pasted into the query as dbt pastes it.
 */
function planTest(
  owner: TestOwner,
  column: string | undefined,
  placed: PlacedTest,
  scope: TestScope,
): PlannedTest {
  const { spec, at, name, nameParts } = placed;
  const label = spec.kind === 'unsupported' ? spec.label : spec.kind;
  // A package test keeps its dotted name as its kind; its name puts the package first, as dbt does.
  const safeLabel = TEST_LABEL.test(label) ? label : 'test';
  const dot = safeLabel.indexOf('.');
  const [namespace, test] =
    dot === -1 ? [undefined, safeLabel] : [safeLabel.slice(0, dot), safeLabel.slice(dot + 1)];
  const testType = `${namespace === undefined ? '' : `${namespace}_`}${owner.isSource ? 'source_' : ''}${test}`;
  // dbt names a test its own `name:` when it has one; one that is not an identifier is refused by testSpec.
  const given = name !== undefined && IDENTIFIER.test(name) ? name : undefined;
  // dbt's name, not its shortened alias: the one `dbt test` prints (docs/editions.md, "Test names").
  const testName = given ?? synthesizeTestNames(testType, owner.nameTarget, nameParts).full;
  const here = { file: owner.file, ...at };
  const columnName = spec.kind === 'unsupported' || column !== undefined ? undefined : spec.columnName;
  const tested =
    column !== undefined
      ? testedColumn(column)
      : columnName === undefined
        ? undefined
        : testedExpression(columnName.text);
  const columnValid = column === undefined || IDENTIFIER.test(column);
  const repeat = repeatOf(owner, testName, placed, scope);
  const related =
    spec.kind === 'relationships' && columnValid && repeat === undefined
      ? relationship(spec, here, scope)
      : undefined;
  const planned = firstFinding([
    // dbt refuses the repeat while parsing, before it looks at anything else.
    () => repeat,
    () => (spec.kind === 'unsupported' ? unsupportedTest(spec, here, given) : undefined),
    () => (columnValid ? undefined : draft('test_target_invalid', here)),
    () => related?.finding,
  ]);
  const to = related?.to;
  // `where`: dbt reads the model through `(select * from … where …) dbt_subquery`; the `to:` of a
  // relationships test is not filtered. Its Jinja is rendered as dbt renders a config value.
  const where = spec.kind === 'unsupported' || spec.where === undefined ? undefined : spec.where;
  const whereRendered = where === undefined ? undefined : renderIfJinja(scope.harness, where.text);
  const whereFinding =
    whereRendered === undefined || whereRendered.ok
      ? undefined
      : draft(whereRendered.code, {
          file: owner.file,
          ...(placed.whereAt ?? at),
          hint: `the where config of this test does not render (${whereRendered.code})`,
        });
  const relation =
    whereRendered?.ok === true
      ? `(select * from ${owner.relation} where ${whereRendered.text}) as dbt_subquery`
      : owner.relation;
  const sql =
    planned === undefined && whereFinding === undefined && tested !== undefined
      ? testQuery(spec, relation, tested, to)
      : undefined;
  const rowsSql =
    sql === undefined || tested === undefined
      ? undefined
      : failingRowsQuery(spec, relation, tested, MAX_FAILING_ROWS, to);
  const sources = [...owner.sources, ...(related?.sources ?? [])];
  return {
    name: testName,
    ...(given === undefined ? {} : { given: true }),
    kind: safeLabel,
    attachedTo: owner.attachedTo,
    column: column ?? columnName?.text ?? '',
    ...(columnName === undefined || planned !== undefined
      ? {}
      : { expression: { text: columnName.text, at: { file: owner.file, ...(placed.columnNameAt ?? at) } } }),
    sql,
    rowsSql,
    models: [...new Set([...owner.models, ...(related?.models ?? [])])].sort(byString),
    sources: uniqueSources(sources.map((key) => [key.source, key.table] as const)),
    at: here,
    finding: planned ?? whereFinding ?? (sql === undefined ? draft('test_target_invalid', here) : undefined),
  };
}

function relationship(
  spec: RelationshipsSpec,
  here: Omit<FindingDraft, 'code'>,
  scope: TestScope,
): Relationship {
  const rendered = scope.harness.render(`{{ ${spec.to} }}`, scope.resolver, {
    withMacros: false,
    withProjectVars: true,
  });
  const none = { to: undefined, models: [], sources: [] };
  if (!rendered.ok) {
    // The names a misspelt to: may mean, as a misspelt ref() or source() in SQL gets.
    const known =
      rendered.code === 'undefined_source'
        ? [...scope.sourceByKey.keys()]
        : [...scope.enabledModels.keys(), ...scope.others.keys()];
    // Never the name itself (a ref() with a version the model does not have names a model that exists).
    const near =
      rendered.subject === undefined
        ? undefined
        : didYouMean(
            rendered.subject,
            known.filter((name) => name !== rendered.subject),
          );
    const hint =
      rendered.subject === undefined
        ? {}
        : {
            hint: `${spec.to} names '${rendered.subject}', which the project does not define${near === undefined ? '' : `; ${near}`}`,
          };
    return { ...none, finding: draft(rendered.code, { ...here, ...hint }) };
  }
  if (!IDENTIFIER.test(spec.field)) return { ...none, finding: draft('test_target_invalid', here) };
  const refs = rendered.record.refs;
  const sources = rendered.record.sources.map(([source, table]) => ({ source, table }));
  const off = refs.find((ref) => !scope.enabledModels.has(ref) && !scope.others.has(ref));
  const finding = firstFinding([
    () =>
      off === undefined
        ? undefined
        : draft('ref_to_disabled_model', {
            ...here,
            hint: `${spec.to} reads '${off}', which is disabled for this target and vars`,
          }),
    () =>
      sources.some((key) => scope.sourceByKey.get(keyOf(key))?.enabled !== true)
        ? draft('source_disabled', here)
        : undefined,
  ]);
  return { to: rendered.text, models: refs, sources, finding };
}
