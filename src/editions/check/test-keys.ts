import type { YamlNode } from '../../core/input/index.js';

/** Where an entry writes both `data_tests:` and `tests:`: the later key, which dbt refuses. */
export interface BothTestKeys {
  readonly line: number;
  readonly column: number;
  /** The entry's key path with the later key, e.g. `models[0].columns[2].tests`. */
  readonly pointer: string;
  /** The later key as written: `tests` or `data_tests`. */
  readonly key: 'tests' | 'data_tests';
}

type Path = readonly (string | number)[];

/**
 * Every entry of a properties file that lists tests under both `data_tests:`
 * and `tests:` (the older name of the same key). dbt refuses such an entry
 * when it parses the project ("cannot have both 'tests' and 'data_tests'
 * defined"), so the check must not pass it (docs/editions.md, "What the
 * check reads"). The entries that take tests: models, seeds and snapshots,
 * their columns and their versions' columns; sources, their tables and the
 * tables' columns. A `tests` key under `meta:` or `config:` is the
 * operator's own and is not looked at.
 */
export function entriesWithBothTestKeys(root: YamlNode | undefined): BothTestKeys[] {
  const found: BothTestKeys[] = [];
  const each = (node: YamlNode | undefined, path: Path, visit: (item: YamlNode, at: Path) => void) => {
    if (node?.kind !== 'seq') return;
    node.items.forEach((item, index) => {
      visit(item, [...path, index]);
    });
  };
  const check = (entry: YamlNode, at: Path) => {
    if (entry.kind !== 'map') return;
    const data = entry.entries.find((candidate) => candidate.key === 'data_tests');
    const tests = entry.entries.find((candidate) => candidate.key === 'tests');
    if (data === undefined || tests === undefined) return;
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
    });
  };
  const withColumns = (entry: YamlNode, at: Path) => {
    check(entry, at);
    each(child(entry, 'columns'), [...at, 'columns'], check);
  };
  if (root?.kind !== 'map') return found;
  for (const kind of ['models', 'seeds', 'snapshots'] as const) {
    each(child(root, kind), [kind], (entry, at) => {
      withColumns(entry, at);
      each(child(entry, 'versions'), [...at, 'versions'], (version, versionAt) => {
        each(child(version, 'columns'), [...versionAt, 'columns'], check);
      });
    });
  }
  each(child(root, 'sources'), ['sources'], (source, at) => {
    check(source, at);
    each(child(source, 'tables'), [...at, 'tables'], withColumns);
  });
  return found.sort((a, b) => a.line - b.line || a.column - b.column);
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
