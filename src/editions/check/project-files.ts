import { Dir, isFsError } from '../../core/fs/index.js';
import { guardRefusals } from '../../core/refusal/index.js';
import { refuseEdition } from '../refusals.js';
import { readTree, type TreeFile, TreeReadError } from '../tree.js';
import { isMapping, parseYaml, type YamlMapping } from './yaml.js';

/** A project file with its path relative to the project root. */
export type ProjectFile = TreeFile;

/** Everything of a dbt project the offline check reads, loaded once; planning does no I/O. */
export interface ProjectFiles {
  readonly project: YamlMapping;
  readonly modelPaths: readonly string[];
  readonly macroPaths: readonly string[];
  /** `.sql` files under the model paths. */
  readonly models: readonly ProjectFile[];
  /** `.yml` / `.yaml` files under the model paths. */
  readonly properties: readonly ProjectFile[];
  /** `.sql` files under the macro paths. */
  readonly macros: readonly ProjectFile[];
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
      try {
        const project = readProjectFile(root);
        const modelPaths = projectPaths(project['model-paths'], ['models']);
        const macroPaths = projectPaths(project['macro-paths'], ['macros']);
        const budget = { files: 0, bytes: 0 };
        const modelFiles = modelPaths.flatMap((path) =>
          readUnder(root, path, (name) => /\.(sql|ya?ml)$/.test(name), budget),
        );
        const macros = macroPaths.flatMap((path) =>
          readUnder(root, path, (name) => name.endsWith('.sql'), budget),
        );
        return {
          project,
          modelPaths,
          macroPaths,
          models: modelFiles.filter((file) => file.path.endsWith('.sql')),
          properties: modelFiles.filter((file) => !file.path.endsWith('.sql')),
          macros,
        };
      } finally {
        root.close();
      }
    },
    () => refuseEdition('project_invalid'),
  );
}

function openProject(projectDir: string): Dir {
  try {
    return Dir.open(projectDir);
  } catch (error: unknown) {
    if (isFsError(error, 'ENOENT')) throw refuseEdition('project_missing');
    throw refuseEdition('project_invalid');
  }
}

function readProjectFile(root: Dir): YamlMapping {
  let bytes: Uint8Array;
  try {
    const stat = root.stat(PROJECT_FILE);
    if (stat.type !== 'file') throw refuseEdition('project_file_invalid');
    const file = root.openFile(PROJECT_FILE);
    try {
      bytes = file.readUpTo(PROJECT_LIMITS.maxFileBytes + 1);
    } finally {
      file.close();
    }
  } catch (error: unknown) {
    if (isFsError(error, 'ENOENT')) throw refuseEdition('project_file_missing');
    if (isFsError(error)) throw refuseEdition('project_file_invalid');
    throw error;
  }
  if (bytes.length > PROJECT_LIMITS.maxFileBytes) throw refuseEdition('project_too_large');
  const parsed = parseYaml(bytes);
  if (!parsed.ok || !isMapping(parsed.value) || typeof parsed.value.name !== 'string')
    throw refuseEdition('project_file_invalid');
  return parsed.value;
}

/** model-paths / macro-paths: relative, inside the project, no `.` or `..` parts. */
function projectPaths(value: unknown, fallback: readonly string[]): readonly string[] {
  if (value === undefined) return fallback;
  if (!Array.isArray(value)) throw refuseEdition('project_path_invalid');
  const paths: string[] = [];
  for (const item of value) {
    if (typeof item !== 'string') throw refuseEdition('project_path_invalid');
    const parts = item.replace(/\/+$/, '').split('/');
    if (parts.some((part) => part === '' || part === '.' || part === '..' || part.includes('\0')))
      throw refuseEdition('project_path_invalid');
    paths.push(parts.join('/'));
  }
  return [...new Set(paths)].sort();
}

function readUnder(
  root: Dir,
  path: string,
  wanted: (name: string) => boolean,
  budget: { files: number; bytes: number },
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
          throw refuseEdition('project_entry_invalid');
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
    });
    budget.files += tree.files.length;
    for (const file of tree.files) budget.bytes += file.bytes.length;
    return tree.files.map((file) => ({ path: `${path}/${file.path}`, bytes: file.bytes }));
  } catch (error: unknown) {
    if (error instanceof TreeReadError)
      throw refuseEdition(error.problem === 'too_large' ? 'project_too_large' : 'project_entry_invalid');
    throw error;
  } finally {
    for (const held of opened) held.close();
  }
}
