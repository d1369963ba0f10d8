import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/cli.js';

// The module boundaries of docs/architecture.md#rules-between-modules and the
// distributor's own (docs/distributor.md#code-layout), checked over the real
// import graph of every src/**/*.ts, tests included (static imports,
// re-exports and dynamic import()).

const SRC = join(REPO_ROOT, 'src');
const DOMAINS = ['contracts', 'distributor', 'editions', 'migration', 'owner', 'scaffold'] as const;
/** The one allowed cross-domain import: the scaffolder reads migration evidence, its input contract. */
const ALLOWED_CROSS: ReadonlySet<string> = new Set(['scaffold->migration']);

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(path));
    else if (entry.name.endsWith('.ts')) out.push(path);
  }
  return out;
}

const IMPORT =
  /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*(?:\/\*[^*]*\*\/\s*)?['"]([^'"]+)['"]\s*\)/gm;

interface ImportEdge {
  readonly from: string;
  readonly to: string;
}

function edges(): readonly ImportEdge[] {
  const out: ImportEdge[] = [];
  for (const file of sourceFiles(SRC)) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(IMPORT)) {
      const specifier = match[1] ?? match[2];
      if (specifier === undefined || !specifier.startsWith('.')) continue;
      const target = resolve(dirname(file), specifier).replace(/\.js$/, '.ts');
      out.push({ from: relative(SRC, file), to: relative(SRC, target) });
    }
  }
  return out;
}

/** `core`, a domain name, `cli`, `root` for src/index.ts, or `outside` for test/ helpers. */
function areaOf(path: string): string {
  if (path.startsWith('../')) return 'outside';
  const [first] = path.split('/');
  if (first === undefined || !path.includes('/')) return 'root';
  return first;
}

const isTest = (path: string): boolean => path.endsWith('.test.ts');

const graph = edges();

function coreLeaks(all: readonly ImportEdge[]): readonly ImportEdge[] {
  return all.filter((edge) => areaOf(edge.from) === 'core' && !['core', 'outside'].includes(areaOf(edge.to)));
}

/**
 * A domain imports only core, itself and (the scaffolder) the migration
 * evidence. A test may also import another domain through its public entry
 * (`<domain>/index.ts`), as a library user would, to check that two domains
 * compose; never that domain's internals.
 */
function crossDomainImports(all: readonly ImportEdge[]): readonly ImportEdge[] {
  return all.filter((edge) => {
    const from = areaOf(edge.from);
    const to = areaOf(edge.to);
    if (!(DOMAINS as readonly string[]).includes(from)) return false;
    if (to === from || to === 'core' || ALLOWED_CROSS.has(`${from}->${to}`)) return false;
    if (to === 'outside') return !isTest(edge.from);
    return !(isTest(edge.from) && edge.to === `${to}/index.ts`);
  });
}

/** The one module of the distributor's backends the run may import: the registry of backends by kind. */
const BACKEND_ENTRIES = /^distributor\/backends\/registry\.ts$/;

/**
 * The distributor's run layer reaches a backend only through the registry
 * of backends by destination kind, never a backend's own modules
 * (docs/distributor.md#code-layout); its tests alike.
 */
function runIntoBackends(all: readonly ImportEdge[]): readonly ImportEdge[] {
  return all.filter(
    (edge) =>
      edge.from.startsWith('distributor/run/') &&
      edge.to.startsWith('distributor/backends/') &&
      !BACKEND_ENTRIES.test(edge.to),
  );
}

describe('module boundaries', () => {
  it('the import graph was read (a broken pattern would make every rule pass)', () => {
    expect(graph.length).toBeGreaterThan(1000);
    expect(graph).toContainEqual({ from: 'cli/main.ts', to: 'cli/commands/index.ts' });
    expect(graph).toContainEqual({ from: 'distributor/run/run.ts', to: 'distributor/plan/plan-run.ts' });
    expect(graph).toContainEqual({
      from: 'distributor/run/run.test.ts',
      to: '../test/helpers/cli.ts',
    });
  });

  it('core imports nothing of the domains, the CLI or the package root', () => {
    expect(coreLeaks(graph)).toEqual([]);
  });

  it('a domain imports only core and itself (and the scaffolder the migration evidence)', () => {
    expect(crossDomainImports(graph)).toEqual([]);
  });

  it('no domain imports the CLI', () => {
    expect(graph.filter((edge) => areaOf(edge.from) !== 'cli' && areaOf(edge.to) === 'cli')).toEqual([]);
  });

  it('the distributor run layer imports no backend internals', () => {
    expect(runIntoBackends(graph)).toEqual([]);
  });
});

type Rule = (all: readonly ImportEdge[]) => readonly ImportEdge[];

/** For each rule, the violations planted into the real graph: a name, and the edge as `from → to`. */
const PLANTED: readonly (readonly [Rule, Readonly<Record<string, string>>])[] = [
  [
    coreLeaks,
    {
      'core → domain': 'core/json/parse.ts → distributor/refusals.ts',
      'core → CLI': 'core/fs/index.ts → cli/main.ts',
    },
  ],
  [
    crossDomainImports,
    {
      'domain → domain': 'distributor/run/run.ts → contracts/index.ts',
      'migration → scaffold (the allowance is one way)': 'migration/index.ts → scaffold/run.ts',
      'a test → another domain’s internals': 'scaffold/dbt-check.test.ts → editions/check/project.ts',
      'production code → test helpers': 'owner/codec.ts → ../test/helpers/cli.ts',
    },
  ],
  [
    runIntoBackends,
    {
      'run → a backend internal': 'distributor/run/sources.ts → distributor/backends/local/tree.ts',
      'run → a backend beside the registry': 'distributor/run/run.ts → distributor/backends/local/index.ts',
    },
  ],
];

const plantedRows = PLANTED.flatMap(([rule, planted]) =>
  Object.entries(planted).map(([name, edge]) => {
    const [from, to, ...rest] = edge.split(' → ');
    if (from === undefined || to === undefined || rest.length > 0) throw new Error(`planted edge: ${edge}`);
    return [name, rule, { from, to }] as const;
  }),
);

describe('each rule reports a planted violation', () => {
  it.each(plantedRows)('%s', (_name, rule, planted) => {
    expect(rule([...graph, planted])).toEqual([planted]);
  });
});
