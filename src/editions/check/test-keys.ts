import type { YamlNode } from '../../core/input/index.js';

/** Where an entry writes both `data_tests:` and `tests:`: the later key, which dbt refuses. */
export interface BothTestKeys {
  readonly line: number;
  readonly column: number;
  /** The entry's key path with the later key, e.g. `models[0].columns[2].tests`. */
  readonly pointer: string;
  /** The later key as written: `tests` or `data_tests`. */
  readonly key: 'tests' | 'data_tests';
  /** Whether the later key holds no test (`data_tests: []`): deleting it is the whole fix. */
  readonly empty: boolean;
}

type Path = readonly (string | number)[];

/**
 * Every entry of a properties file that lists tests under both `data_tests:`
 * and `tests:` (the older name of the same key). `dbt parse` refuses such a
 * project, so the check must not pass it. The two rules it follows are
 * restated in the guide's table of finding codes (docs/editions.md): a
 * model, seed or snapshot, a version of a model, and their columns are
 * refused when `tests:` holds something and `data_tests:` is written at
 * all; a source, its tables and their columns when both hold something. A
 * `tests` key under `meta:` or `config:` is the operator's own and is not
 * looked at.
 */
export function entriesWithBothTestKeys(root: YamlNode | undefined): BothTestKeys[] {
  const found: BothTestKeys[] = [];
  const each = (node: YamlNode | undefined, path: Path, visit: (item: YamlNode, at: Path) => void) => {
    if (node?.kind !== 'seq') return;
    node.items.forEach((item, index) => {
      visit(item, [...path, index]);
    });
  };
  const check = (entry: YamlNode, at: Path, rule: 'patch' | 'source' = 'patch') => {
    if (entry.kind !== 'map') return;
    const data = entry.entries.find((candidate) => candidate.key === 'data_tests');
    const tests = entry.entries.find((candidate) => candidate.key === 'tests');
    if (data === undefined || tests === undefined || !holdsSomething(tests.value)) return;
    if (rule === 'source' && !holdsSomething(data.value)) return;
    const later =
      data.keyAt.line > tests.keyAt.line ||
      (data.keyAt.line === tests.keyAt.line && data.keyAt.column > tests.keyAt.column)
        ? data
        : tests;
    found.push({
      line: later.keyAt.line,
      column: later.keyAt.column,
      pointer: pointerOf([...at, later.key]),
      key: later.key as 'tests' | 'data_tests',
      empty: !holdsSomething(later.value),
    });
  };
  const checkSource = (entry: YamlNode, at: Path) => check(entry, at, 'source');
  if (root?.kind !== 'map') return found;
  for (const kind of ['models', 'seeds', 'snapshots'] as const) {
    each(child(root, kind), [kind], (entry, at) => {
      check(entry, at);
      each(child(entry, 'columns'), [...at, 'columns'], check);
      each(child(entry, 'versions'), [...at, 'versions'], (version, versionAt) => {
        check(version, versionAt);
        each(child(version, 'columns'), [...versionAt, 'columns'], check);
      });
    });
  }
  each(child(root, 'sources'), ['sources'], (source, at) => {
    each(child(source, 'tables'), [...at, 'tables'], (table, tableAt) => {
      checkSource(table, tableAt);
      each(child(table, 'columns'), [...tableAt, 'columns'], checkSource);
    });
  });
  return found.sort((a, b) => a.line - b.line || a.column - b.column);
}

/** Python's truth of a YAML value, as dbt-core tests it: an empty list, mapping or string, null, 0 and false hold nothing. */
function holdsSomething(node: YamlNode): boolean {
  switch (node.kind) {
    case 'seq':
      return node.items.length > 0;
    case 'map':
      return node.entries.length > 0;
    case 'string':
      return node.value !== '';
    case 'number':
      return node.value !== 0;
    case 'boolean':
      return node.value;
    default:
      return false;
  }
}

function child(node: YamlNode, key: string): YamlNode | undefined {
  return node.kind === 'map' ? node.entries.find((entry) => entry.key === key)?.value : undefined;
}

function pointerOf(path: Path): string {
  return path
    .map((segment, index) =>
      typeof segment === 'number' ? `[${segment}]` : index === 0 ? segment : `.${segment}`,
    )
    .join('');
}
