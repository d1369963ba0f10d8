import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/cli.js';

// The module boundaries of docs/architecture.md, checked over the real import
// graph of src/ (static imports, re-exports and dynamic import()).

const SRC = join(REPO_ROOT, 'src');
const DOMAINS = ['contracts', 'distributor', 'editions', 'migration', 'owner', 'scaffold'] as const;
/** The one allowed cross-domain import: the scaffolder reads migration evidence, its input contract. */
const ALLOWED_CROSS: ReadonlySet<string> = new Set(['scaffold->migration']);

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) out.push(path);
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

/** `core`, a domain name, `cli`, or `root` for src/index.ts. */
function areaOf(path: string): string {
  const [first] = path.split('/');
  if (first === undefined || !path.includes('/')) return 'root';
  return first;
}

const graph = edges();

function coreLeaks(all: readonly ImportEdge[]): readonly ImportEdge[] {
  return all.filter((edge) => areaOf(edge.from) === 'core' && areaOf(edge.to) !== 'core');
}

function crossDomainImports(all: readonly ImportEdge[]): readonly ImportEdge[] {
  return all.filter((edge) => {
    const from = areaOf(edge.from);
    const to = areaOf(edge.to);
    if (!(DOMAINS as readonly string[]).includes(from)) return false;
    return to !== from && to !== 'core' && !ALLOWED_CROSS.has(`${from}->${to}`);
  });
}

describe('module boundaries', () => {
  it('the import graph was read (a broken pattern would make every rule pass)', () => {
    expect(graph.length).toBeGreaterThan(500);
    expect(graph).toContainEqual({ from: 'cli/main.ts', to: 'cli/commands/index.ts' });
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

  it('the rules catch a violation: a planted core → domain edge is reported', () => {
    const planted: ImportEdge = { from: 'core/json/parse.ts', to: 'distributor/refusals.ts' };
    expect([planted].filter((edge) => areaOf(edge.from) === 'core' && areaOf(edge.to) !== 'core')).toEqual([
      planted,
    ]);
  });
});
