import { join } from 'node:path';
import { Dir, didYouMeanPath, isFsError } from '../../core/fs/index.js';
import { type RecordIssue, refuseInput, type YamlFaultPlace, type YamlNode } from '../../core/input/index.js';
import { guardRefusals, type Refusal, refuseAll } from '../../core/refusal/index.js';
import { refuseEdition } from '../refusals.js';
import { symlinkHint } from '../symlink-on-path.js';
import { readTree, type TreeFile, TreeReadError } from '../tree.js';
import { schemaProblems } from './schema-problems.js';
import { loadDbtSchemas, type SchemaViolation } from './schemas.js';
import { isMapping, parseYaml, placeIn, type YamlMapping, type YamlPlace, yamlFaultHint } from './yaml.js';

/** A project file with its path relative to the project root. */
export type ProjectFile = TreeFile;

/** Everything of a dbt project the offline check reads, loaded once; planning does no I/O. */
export interface ProjectFiles {
  /** The project folder as the user named it (relative stays relative): findings name files under it. */
  readonly projectDir: string;
  readonly project: YamlMapping;
  /** dbt_project.yml with positions, to place its schema findings. */
  readonly projectNode?: YamlNode;
  readonly modelPaths: readonly string[];
  readonly macroPaths: readonly string[];
  readonly testPaths: readonly string[];
  /** `seed-paths` and `snapshot-paths` (defaults `seeds`, `snapshots`): a seed's or snapshot's folders are under them. */
  readonly seedPaths?: readonly string[];
  readonly snapshotPaths?: readonly string[];
  /** `.sql` files under the model paths. */
  readonly models: readonly ProjectFile[];
  /** `.yml` / `.yaml` files under the model, seed and snapshot paths. */
  readonly properties: readonly ProjectFile[];
  /** `.sql` files under the macro paths. */
  readonly macros: readonly ProjectFile[];
  /**
   * Singular tests: `.sql` files under the test paths, except their
   * `generic/` folders (which define generic tests, not tests to run).
   */
  readonly tests: readonly ProjectFile[];
  /**
   * Seeds: `.csv` files under the seed paths (default `seeds`). ref() names
   * them as it names models, and with fixtures they are loaded as dbt seed
   * loads them (docs/editions.md#seeds-and-snapshots).
   */
  readonly seeds?: readonly ProjectFile[];
  /** `.sql` files under the snapshot paths (default `snapshots`): their `{% snapshot %}` blocks. */
  readonly snapshots?: readonly ProjectFile[];
  /**
   * `.md` files with `{% docs %}` blocks: under every path read, or only
   * under `docs-paths` when it is set, as dbt finds them.
   */
  readonly docs?: readonly ProjectFile[];
}

export const PROJECT_LIMITS = {
  maxFiles: 10_000,
  maxTotalBytes: 64 * 1024 * 1024,
  maxFileBytes: 4 * 1024 * 1024,
  maxDepth: 32,
} as const;

const PROJECT_FILE = 'dbt_project.yml';

/**
 * Reads dbt_project.yml and every model, properties and macro file of the
 * project through held no-follow descriptors. Only the model and macro paths
 * are read, so a leftover `.scaffold-staging/` or `target/` is never parsed.
 */
export function readProjectFiles(projectDir: string): ProjectFiles {
  return guardRefusals(
    () => {
      const root = openProject(projectDir);
      const projectFile = join(projectDir, PROJECT_FILE);
      try {
        const { project, node, modelPaths, macroPaths, testPaths, seedPaths, snapshotPaths } =
          readProjectFile(root, projectFile);
        const budget = { files: 0, bytes: 0 };
        // dbt finds docs blocks (`.md`) in every resource path, unless docs-paths names others.
        const docsPaths = projectPaths(project['docs-paths'], [], 'docs-paths', node, projectFile, []);
        const withDocs = docsPaths.length === 0;
        const md = (name: string): boolean => withDocs && name.endsWith('.md');
        const modelFiles = modelPaths.flatMap((path) =>
          readUnder(root, path, (name) => /\.(sql|ya?ml)$/.test(name) || md(name), budget, projectDir),
        );
        const macroFiles = macroPaths.flatMap((path) =>
          readUnder(root, path, (name) => name.endsWith('.sql') || md(name), budget, projectDir),
        );
        const macros = macroFiles.filter((file) => file.path.endsWith('.sql'));
        // `<test path>/generic/` defines generic tests (`{% test %}` blocks): not tests to run.
        const testFiles = testPaths.flatMap((path) =>
          readUnder(
            root,
            path,
            (name) => (name.endsWith('.sql') && !name.startsWith('generic/')) || md(name),
            budget,
            projectDir,
          ),
        );
        const tests = testFiles.filter((file) => file.path.endsWith('.sql'));
        // dbt reads properties files under the seed and snapshot paths too (a seeds/_seeds.yml).
        // Seeds are data, often larger than code: their own budget, and a CSV over the
        // per-file limit is listed unread (its seed is then not loaded) rather than refusing the check.
        const seedFiles = seedPaths.flatMap((path) =>
          readUnder(
            root,
            path,
            (name) => /\.(csv|ya?ml)$/.test(name) || md(name),
            { files: 0, bytes: 0 },
            projectDir,
            true,
          ),
        );
        const snapshotFiles = snapshotPaths.flatMap((path) =>
          readUnder(root, path, (name) => /\.(sql|ya?ml)$/.test(name) || md(name), budget, projectDir),
        );
        const docs = uniqueByPath([
          ...[...modelFiles, ...macroFiles, ...testFiles, ...seedFiles, ...snapshotFiles].filter((file) =>
            file.path.endsWith('.md'),
          ),
          ...docsPaths.flatMap((path) =>
            readUnder(root, path, (name) => name.endsWith('.md'), budget, projectDir),
          ),
        ]);
        const seeds = seedFiles.filter((file) => file.path.endsWith('.csv'));
        const snapshots = snapshotFiles.filter((file) => file.path.endsWith('.sql'));
        const isProperties = (file: ProjectFile): boolean =>
          /\.ya?ml$/.test(file.path) && file.oversized === undefined;
        const properties = uniqueByPath([...modelFiles, ...seedFiles, ...snapshotFiles].filter(isProperties));
        return {
          projectDir,
          project,
          projectNode: node,
          modelPaths,
          macroPaths,
          testPaths,
          seedPaths,
          snapshotPaths,
          models: modelFiles.filter((file) => file.path.endsWith('.sql')),
          properties,
          macros,
          tests,
          seeds,
          snapshots,
          docs,
        };
      } finally {
        root.close();
      }
    },
    () => refuseEdition('project_invalid', { location: { path: projectDir } }),
  );
}

/** Files read through two paths that overlap, once each, in path order. */
function uniqueByPath(files: readonly ProjectFile[]): ProjectFile[] {
  return [...new Map(files.map((file) => [file.path, file] as const)).values()].sort((a, b) =>
    a.path < b.path ? -1 : a.path > b.path ? 1 : 0,
  );
}

function openProject(projectDir: string): Dir {
  try {
    return Dir.open(projectDir);
  } catch (error: unknown) {
    const location = { path: projectDir };
    if (isFsError(error, 'ENOENT')) {
      const hint = didYouMeanPath(projectDir, 'folder');
      throw refuseEdition('project_missing', { location, ...(hint === undefined ? {} : { hint }) });
    }
    // No link is followed on the way to the project, as `edition new` follows
    // none on the way to the workspace it creates: say which one it is.
    const hint = isFsError(error, 'ELOOP') ? symlinkHint(projectDir, 'the project') : undefined;
    throw refuseEdition('project_invalid', { location, ...(hint === undefined ? {} : { hint }) });
  }
}

interface ProjectFileContents {
  readonly project: YamlMapping;
  readonly node: YamlNode;
  readonly modelPaths: readonly string[];
  readonly macroPaths: readonly string[];
  readonly testPaths: readonly string[];
  readonly seedPaths: readonly string[];
  readonly snapshotPaths: readonly string[];
}

/**
 * Reads and checks dbt_project.yml. A file that is not one well-formed YAML
 * document (`project_file_yaml`) or not a mapping stops at once; otherwise
 * every fault the check cannot plan around (no project name, a model or
 * macro path that leaves the project) is reported together, with every
 * fault dbt's own schema finds in the file, each at its key
 * (docs/editions.md#reading-an-error).
 */
function readProjectFile(root: Dir, path: string): ProjectFileContents {
  let bytes: Uint8Array;
  const location = { path };
  try {
    const stat = root.stat(PROJECT_FILE);
    if (stat.type !== 'file')
      throw refuseEdition('project_file_invalid', {
        location,
        hint: 'dbt_project.yml is not a regular file',
      });
    const file = root.openFile(PROJECT_FILE);
    try {
      bytes = file.readUpTo(PROJECT_LIMITS.maxFileBytes + 1);
    } finally {
      file.close();
    }
  } catch (error: unknown) {
    if (isFsError(error, 'ENOENT'))
      throw refuseEdition('project_file_missing', {
        location,
        hint: 'is this the folder that holds dbt_project.yml? (for the snowflake edition it is kit/)',
      });
    // The file is there and is a regular file: failing to open or read it
    // says nothing about its contents (docs/editions.md#refusal-codes-exit-2-nothing-checked).
    if (isFsError(error)) throw unreadable(path, false);
    throw error;
  }
  if (bytes.length > PROJECT_LIMITS.maxFileBytes) throw refuseEdition('project_too_large', { location });
  const parsed = parseYaml(bytes);
  if (!parsed.ok)
    throw refuseEdition('project_file_yaml', {
      location: { ...location, ...placeOfFault(parsed.place) },
      hint: yamlFaultHint(parsed.fault, parsed.place),
    });
  if (!isMapping(parsed.value))
    throw refuseEdition('project_file_invalid', {
      location: { ...location, line: parsed.node.at.line, column: parsed.node.at.column },
      hint: 'the file must be a mapping of keys (name:, version:, …)',
    });
  const project = parsed.value;
  const node = parsed.node;
  const faults: Refusal[] = [];
  const own: RecordIssue[] = [];
  if (project.name === undefined) own.push({ kind: 'missing_key', path: [], key: 'name' });
  else if (typeof project.name !== 'string')
    own.push({ kind: 'wrong_type', path: ['name'], expected: ['string'] });
  const modelPaths = projectPaths(project['model-paths'], ['models'], 'model-paths', node, path, faults);
  const macroPaths = projectPaths(project['macro-paths'], ['macros'], 'macro-paths', node, path, faults);
  const testPaths = projectPaths(project['test-paths'], ['tests'], 'test-paths', node, path, faults);
  const seedPaths = projectPaths(project['seed-paths'], ['seeds'], 'seed-paths', node, path, faults);
  const snapshotPaths = projectPaths(
    project['snapshot-paths'],
    ['snapshots'],
    'snapshot-paths',
    node,
    path,
    faults,
  );
  if (own.length === 0 && faults.length === 0)
    return { project, node, modelPaths, macroPaths, testPaths, seedPaths, snapshotPaths };
  // The check stops here: say everything that is wrong with the file at once.
  const taken = faults.flatMap((fault) =>
    fault.location?.pointer === undefined ? [] : [fault.location.pointer],
  );
  for (const problem of schemaProblems(projectViolations(project), node, own)) {
    if (problem.pointer !== undefined && taken.some((pointer) => within(problem.pointer ?? '', pointer)))
      continue;
    const isOwn = problem.pointer === 'name' && problem.kind !== 'unknown_key' && problem.kind !== 'rule';
    faults.push(
      refuseEdition(isOwn ? 'project_file_invalid' : 'project_file_schema', {
        location: {
          path,
          ...(problem.line === undefined ? {} : { line: problem.line }),
          ...(problem.column === undefined ? {} : { column: problem.column }),
          ...(problem.pointer === undefined ? {} : { pointer: problem.pointer }),
        },
        hint:
          isOwn && problem.kind === 'missing_key'
            ? 'give the project a name: `name: my_project`'
            : problem.hint,
      }),
    );
  }
  throw refuseAll(
    faults.sort(
      (a, b) =>
        (a.location?.line ?? 0) - (b.location?.line ?? 0) ||
        (a.location?.column ?? 0) - (b.location?.column ?? 0),
    ),
  );
}

/** dbt's schema on dbt_project.yml, when this installation has it (it is checked again when planning). */
function projectViolations(project: YamlMapping): readonly SchemaViolation[] {
  try {
    return loadDbtSchemas().project(project);
  } catch (error: unknown) {
    if (refuseEdition.is(error, 'check_schemas_unavailable')) return [];
    throw error;
  }
}

function within(pointer: string, parent: string): boolean {
  return pointer === parent || pointer.startsWith(`${parent}.`) || pointer.startsWith(`${parent}[`);
}

function placeOfFault(place: YamlFaultPlace): YamlPlace {
  return {
    ...(place.line === undefined ? {} : { line: place.line }),
    ...(place.column === undefined ? {} : { column: place.column }),
    ...(place.pointer === undefined ? {} : { pointer: place.pointer }),
  };
}

/** model-paths / macro-paths / test-paths / seed-paths / snapshot-paths: relative, inside the project, no `.` or `..` parts; each bad one is a fault. */
function projectPaths(
  value: unknown,
  fallback: readonly string[],
  key: string,
  node: YamlNode,
  path: string,
  faults: Refusal[],
): readonly string[] {
  if (value === undefined) return fallback;
  const refuse = (segments: readonly (string | number)[], hint: string) =>
    faults.push(
      refuseEdition('project_path_invalid', { location: { path, ...placeIn(node, segments) }, hint }),
    );
  const relative = 'use a folder name relative to the project, such as models';
  if (!Array.isArray(value)) {
    refuse([key], `${key} is a list of folders, such as ["${fallback[0] ?? key}"]`);
    return fallback;
  }
  const paths: string[] = [];
  for (const [index, item] of (value as unknown[]).entries()) {
    if (typeof item !== 'string') {
      refuse([key, index], relative);
      continue;
    }
    const parts = item.replace(/\/+$/, '').split('/');
    if (parts.some((part) => part === '' || part === '.' || part === '..' || part.includes('\0'))) {
      refuse([key, index], relative);
      continue;
    }
    paths.push(parts.join('/'));
  }
  return [...new Set(paths)].sort();
}

function readUnder(
  root: Dir,
  path: string,
  wanted: (name: string) => boolean,
  budget: { files: number; bytes: number },
  projectDir: string,
  skipOversized = false,
): ProjectFile[] {
  let dir: Dir | undefined = root;
  const opened: Dir[] = [];
  try {
    for (const part of path.split('/')) {
      try {
        dir = dir.openDir(part);
      } catch (error: unknown) {
        if (isFsError(error, 'ENOENT')) return [];
        if (isFsError(error, 'ELOOP') || isFsError(error, 'ENOTDIR'))
          throw refuseEdition('project_entry_invalid', { location: { path: join(projectDir, path) } });
        if (isFsError(error, 'EACCES') || isFsError(error, 'EPERM'))
          throw unreadable(join(projectDir, ...path.split('/').slice(0, opened.length + 1)), true);
        throw error;
      }
      opened.push(dir);
    }
    const tree = readTree(dir, {
      // The limits hold for the whole project, across every model and macro path.
      limits: {
        ...PROJECT_LIMITS,
        maxFiles: PROJECT_LIMITS.maxFiles - budget.files,
        maxTotalBytes: PROJECT_LIMITS.maxTotalBytes - budget.bytes,
      },
      include: wanted,
      skipOversized,
    });
    budget.files += tree.files.length;
    for (const file of tree.files) budget.bytes += file.bytes.length;
    return tree.files.map((file) => ({
      path: `${path}/${file.path}`,
      bytes: file.bytes,
      ...(file.oversized === undefined ? {} : { oversized: file.oversized }),
    }));
  } catch (error: unknown) {
    if (error instanceof TreeReadError) {
      const location = { path: join(projectDir, path, error.path ?? '') };
      if (error.problem === 'unreadable') throw unreadable(location.path, error.folder);
      throw refuseEdition(error.problem === 'too_large' ? 'project_too_large' : 'project_entry_invalid', {
        location,
      });
    }
    throw error;
  } finally {
    for (const held of opened) held.close();
  }
}

/**
 * A file or folder of the project (or of the fixtures) this account cannot
 * read: the input code every command uses for that, at the entry as found
 * under the folder the user named, never the project as a whole.
 */
export function unreadable(path: string, folder: boolean): Refusal {
  return refuseInput('input_unreadable', {
    location: { path },
    hint: folder
      ? 'this account cannot open or list this folder (its permissions)'
      : 'this account cannot open or read this file (its permissions, or an I/O error)',
  });
}
