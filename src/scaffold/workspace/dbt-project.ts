import type { Dir } from '../../core/fs/index.js';
import { plainOf, readStrictYaml, type YamlPlain } from '../../core/input/index.js';
import { refuseInternal } from '../../core/refusal/index.js';

/** dbt_project.yml is small; a larger file is not an edition's and is not parsed. */
const MAX_PROJECT_FILE_BYTES = 1024 * 1024;

/** Every dbt path key and dbt's default when the key is unset (legacy names included). */
const DBT_PATH_DEFAULTS: { readonly [key: string]: readonly string[] } = {
  'model-paths': ['models'],
  'seed-paths': ['seeds'],
  'test-paths': ['tests'],
  'analysis-paths': ['analyses'],
  'macro-paths': ['macros'],
  'snapshot-paths': ['snapshots'],
  'source-paths': [],
  'data-paths': [],
};

export interface DbtProjectFacts {
  readonly name: string;
  /**
   * Every configured dbt path, or undefined when one cannot be proven to be
   * a plain project-relative path (not a list of strings, Jinja, absolute,
   * '..'): the staging check then fails closed.
   */
  readonly paths: readonly string[] | undefined;
}

/**
 * Reads `dbt_project.yml` through the held project descriptor (no-follow
 * open, regular file, bounded) and returns its name and dbt paths, or
 * undefined when it is missing, not a regular file, too large, not UTF-8 or
 * not one strict YAML mapping with a string name. Strict YAML through the
 * core reader, as the offline check reads it (docs/refusals.md#text-inputs).
 * The scaffolder is a private domain: a fault is only ever `undefined` here,
 * never a located refusal; the caller fails closed with its own code.
 */
export function readDbtProject(project: Dir): DbtProjectFacts | undefined {
  let bytes: Uint8Array;
  try {
    const file = project.openFile('dbt_project.yml');
    try {
      const stat = file.stat();
      if (stat.type !== 'file' || stat.size > BigInt(MAX_PROJECT_FILE_BYTES)) return undefined;
      bytes = file.readUpTo(MAX_PROJECT_FILE_BYTES + 1);
    } finally {
      file.close();
    }
  } catch {
    return undefined;
  }
  if (bytes.length > MAX_PROJECT_FILE_BYTES) return undefined;
  let value: YamlPlain;
  try {
    // Whatever the fault and wherever it is, only its absence matters here.
    value = plainOf(readStrictYaml(bytes, { refuse: () => refuseInternal('internal_error') }));
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const record = value as Readonly<Record<string, unknown>>;
  const name = record.name;
  if (typeof name !== 'string') return undefined;
  return { name, paths: dbtPaths(record) };
}

function dbtPaths(record: Readonly<Record<string, unknown>>): readonly string[] | undefined {
  const paths: string[] = [];
  for (const [key, fallback] of Object.entries(DBT_PATH_DEFAULTS)) {
    const configured = Object.hasOwn(record, key) ? record[key] : fallback;
    if (!Array.isArray(configured)) return undefined;
    for (const entry of configured as unknown[]) {
      if (typeof entry !== 'string') return undefined;
      const normalized = normalizeRelative(entry);
      if (normalized === undefined) return undefined;
      paths.push(normalized);
    }
  }
  return paths;
}

/** A plain relative path with '.' segments and slashes folded, or undefined for anything unprovable. */
function normalizeRelative(path: string): string | undefined {
  if (path.startsWith('/') || path.includes('{') || path.includes('\\') || path.includes('\0'))
    return undefined;
  const segments = path.split('/').filter((segment) => segment !== '' && segment !== '.');
  if (segments.some((segment) => segment === '..')) return undefined;
  return segments.join('/');
}

/**
 * Whether the staging root (`<project>/<stagingRoot>`) lies outside every dbt
 * path: a path that is the project itself ('' after normalizing '.') or
 * starts with the staging root contains it.
 */
export function stagingOutsideDbtPaths(paths: readonly string[] | undefined, stagingRoot: string): boolean {
  if (paths === undefined) return false;
  return paths.every((path) => path !== '' && path.split('/')[0] !== stagingRoot);
}
