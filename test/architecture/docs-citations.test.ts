import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import GithubSlugger from 'github-slugger';
import MarkdownIt from 'markdown-it';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/cli.js';

// Comments point to this repository's docs by section, never to documents
// outside it (docs/development.md#conventions). The planted examples below
// spell the section sign as \u00a7 and split their labels, so that a search
// of the sources for outside citations finds none here either. This file checks both halves
// over every source file: each `docs/<file>.md#<anchor>` names a heading that
// exists, and nothing cites an outside document by its section numbers.

/** The folders whose code is scanned. */
const CODE_ROOTS = ['bench', 'bin', 'scripts', 'src', 'test'] as const;
/** Data, not code: their text is never a comment. */
const SKIPPED_DIRS: ReadonlySet<string> = new Set(['golden', 'node_modules', 'testdata']);
const CODE_FILE = /\.(?:[cm]?js|ts)$/;

/**
 * Files that still cite documents outside the repository. The list only
 * shrinks: a file that no longer does must leave it, and these folders
 * may never appear in it again.
 */
const EXTERNAL_CITATIONS_LEFT: ReadonlySet<string> = new Set([]);

/** Folders already free of outside citations; the list above may not name a file in them. */
const CLEAN_FOLDERS = [
  'bench/',
  'scripts/',
  'src/cli/',
  'src/core/',
  'src/distributor/',
  'src/migration/',
  'src/owner/',
  'src/scaffold/',
  'test/',
] as const;

/**
 * How a reference to an outside document shows: a section sign (an RFC's
 * excepted: RFCs are public standards), a numbered criterion, a `U14`-style
 * decision label, or the product requirements by their working name. A
 * random seed (`seededRandom(seed)`, `--seed N`, `{ seed: 7 }`) is not one,
 * nor is the seed of a graph walk (docs/contracts.md#project-graph-and-affected-dashboards),
 * told apart by its wording ("the seed names a resource", "as the seed"); a
 * parenthetical `(seed…)` counts only after a space, as prose has it.
 */
const EXTERNAL: readonly RegExp[] = [
  /(?<!RFC \d+ )\u00a7/u,
  /\bcriterion \d/,
  /\[U\d+\]|\bU\d+ \(/,
  /\bseed gap\b/,
  /\b[Tt]he specifications?\b/,
];

/** The product requirements by their working name, "seed". */
const SEED_NAMED: readonly RegExp[] = [
  /(?<!as )\b[Tt]he seed\b(?! is what| of graph| for graph| names a resource)/,
  /\bseed's\b/,
  /\s\(seed(?:\)|:|\s[a-z]+-)/,
  /\bseeds\//,
];

/**
 * Where "seed" is dbt's word, a CSV file a project loads (`seeds/`, "the
 * seed status_labels"): the dbt project checker. There only the other
 * patterns apply.
 */
const DBT_SEEDS_SPOKEN = ['src/editions/'] as const;

/** Whether `line` cites an outside document, by the patterns that apply to its file. */
function citesOutside(line: Line): boolean {
  if (EXTERNAL.some((pattern) => pattern.test(line.text))) return true;
  if (DBT_SEEDS_SPOKEN.some((folder) => line.file.startsWith(folder))) return false;
  return SEED_NAMED.some((pattern) => pattern.test(line.text));
}

const CITATION = /\bdocs\/([a-z0-9-]+\.md)(?:#([\p{L}\p{N}_-]+))?/gu;
const COMMENT_LINE = /^\s*(?:\/\/|\/\*|\*)/;
const MARKDOWN_LINK = /\]\(([^)\s#]*)(?:#([^)\s]+))?\)/g;

function codeFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name)) out.push(...codeFiles(path));
    } else if (CODE_FILE.test(entry.name)) out.push(path);
  }
  return out;
}

const markdown = new MarkdownIt();

/** The anchors GitHub gives a Markdown file's headings (fenced `# lines` are code, not headings). */
function headingAnchors(text: string): ReadonlySet<string> {
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  const tokens = markdown.parse(text, {});
  tokens.forEach((token, index) => {
    if (token.type !== 'heading_open') return;
    const inline = tokens.at(index + 1);
    const words = (inline?.children ?? [])
      .filter((child) => child.type === 'text' || child.type === 'code_inline')
      .map((child) => child.content);
    anchors.add(slugger.slug(words.join('')));
  });
  return anchors;
}

const anchorCache = new Map<string, ReadonlySet<string> | undefined>();

/** The anchors of a Markdown file given relative to the repository root, or undefined when there is none. */
function anchorsOf(path: string): ReadonlySet<string> | undefined {
  if (!anchorCache.has(path)) {
    const file = join(REPO_ROOT, path);
    anchorCache.set(path, existsSync(file) ? headingAnchors(readFileSync(file, 'utf8')) : undefined);
  }
  return anchorCache.get(path);
}

interface Line {
  readonly file: string;
  readonly number: number;
  readonly text: string;
}

function linesOf(files: readonly string[]): readonly Line[] {
  return files.flatMap((file) =>
    readFileSync(join(REPO_ROOT, file), 'utf8')
      .split('\n')
      .map((text, index) => ({ file, number: index + 1, text })),
  );
}

/** Every `docs/….md#anchor` (anywhere) and `docs/….md` (in a comment) that names no heading or no file. */
function brokenCitations(lines: readonly Line[]): readonly string[] {
  const broken: string[] = [];
  for (const line of lines) {
    for (const match of line.text.matchAll(CITATION)) {
      const [cited, doc, anchor] = match;
      if (anchor === undefined && !COMMENT_LINE.test(line.text)) continue;
      const anchors = anchorsOf(`docs/${doc ?? ''}`);
      if (anchors === undefined || (anchor !== undefined && !anchors.has(anchor)))
        broken.push(`${line.file}:${line.number} ${cited}`);
    }
  }
  return broken;
}

/** Every file with a line that cites an outside document. */
function externalCiters(lines: readonly Line[]): ReadonlySet<string> {
  return new Set(lines.filter(citesOutside).map((l) => l.file));
}

/** Every Markdown link of README.md and docs/ to a Markdown file or heading that does not exist. */
function brokenDocLinks(): readonly string[] {
  const broken: string[] = [];
  const pages = ['README.md', ...readdirSync(join(REPO_ROOT, 'docs')).map((name) => `docs/${name}`)];
  for (const page of pages.filter((name) => name.endsWith('.md'))) {
    for (const match of readFileSync(join(REPO_ROOT, page), 'utf8').matchAll(MARKDOWN_LINK)) {
      const [link, target = '', anchor] = match;
      if (target !== '' && !target.endsWith('.md')) continue;
      if (/^[a-z]+:/.test(target)) continue;
      const path =
        target === '' ? page : relative(REPO_ROOT, resolve(dirname(join(REPO_ROOT, page)), target));
      const anchors = anchorsOf(path);
      if (anchors === undefined || (anchor !== undefined && !anchors.has(anchor)))
        broken.push(`${page} ${link}`);
    }
  }
  return broken;
}

/** This file: its planted examples are meant to be caught. */
const SELF = 'test/architecture/docs-citations.test.ts';
const files = CODE_ROOTS.flatMap((root) => codeFiles(join(REPO_ROOT, root)))
  .map((file) => relative(REPO_ROOT, file))
  .filter((file) => file !== SELF);
const lines = linesOf(files);

describe('citations of the docs', () => {
  it('the sources were read (a broken walk would make every rule pass)', () => {
    expect(files).toContain('src/cli/main.ts');
    expect(files).toContain('scripts/test.mjs');
    expect(
      lines.filter((line) => line.text.includes('docs/refusals.md#two-policies')).length,
    ).toBeGreaterThan(2);
  });

  it('names headings the way GitHub anchors them', () => {
    const evidence = anchorsOf('docs/evidence.md');
    expect(evidence).toContain('binding-steps-110');
    expect(evidence).toContain('dry-run---inventory-file');
    expect(anchorsOf('docs/filesystem.md')).toContain('private-files');
    expect(headingAnchors('# A\n\n```yaml\n# not a heading\n```\n\n## A\n')).toEqual(new Set(['a', 'a-1']));
  });

  it('every docs/….md#anchor cited in the sources names a heading that exists', () => {
    expect(brokenCitations(lines)).toEqual([]);
  });

  it('reports a citation of a missing heading or file, and leaves a path in code alone', () => {
    const planted: Line[] = [
      { file: 'x.ts', number: 1, text: ' * see docs/owner.md#limits and docs/owner.md#no-such-heading.' },
      { file: 'x.ts', number: 2, text: '// docs/nowhere.md' },
      { file: 'x.ts', number: 3, text: "expect(paths).toContain('docs/migration.md');" },
    ];
    expect(brokenCitations(planted)).toEqual([
      'x.ts:1 docs/owner.md#no-such-heading',
      'x.ts:2 docs/nowhere.md',
    ]);
  });

  it('every link between the docs names a page and heading that exist', () => {
    expect(brokenDocLinks()).toEqual([]);
  });
});

describe('no citation of documents outside the repository', () => {
  const citers = externalCiters(lines);

  it('no file outside the shrinking list cites one', () => {
    expect([...citers].filter((file) => !EXTERNAL_CITATIONS_LEFT.has(file)).sort()).toEqual([]);
  });

  it('the list holds only files that still cite one (remove a file once it is fixed)', () => {
    expect([...EXTERNAL_CITATIONS_LEFT].filter((file) => !citers.has(file)).sort()).toEqual([]);
  });

  it('the folders already cleaned stay out of the list', () => {
    const listed = [...EXTERNAL_CITATIONS_LEFT].filter((file) =>
      CLEAN_FOLDERS.some((folder) => file.startsWith(folder)),
    );
    expect(listed).toEqual([]);
  });

  it.each([
    ['a section sign', 'the lock goes last (\u00a76.2 step 9)'],
    ['a decision label', `5. **U32${' '}(option a)** — a non-root process`],
    ['a bracketed decision label', '- **Bronze namespace** [U14]: the source block'],
    ['a numbered criterion', `as criterion${' '}7 requires`],
    ['a gap by its source', 'selects none (seed gap 10)'],
    ['the requirements by name', "every rule of the seed's limit table"],
    ['the requirements as a subject', '// The seed counts an existing directory without entries as empty'],
    ['a named requirements file', '// Migration evidence (seed: scaffolder-input-contract)'],
    ['a bare mention', '/** only a lowercase `.md` extension is Markdown (seed). */'],
    ['the specifications', 'the digest the specifications name'],
  ])('catches %s', (_label, text) => {
    expect(externalCiters([{ file: 'x.ts', number: 1, text }])).toEqual(new Set(['x.ts']));
  });

  it.each([
    ['an RFC section', '/** RFC 3986 \u00a75.2.4. */'],
    ['a random seed argument', 'const random = seededRandom(seed);'],
    ['a seed parameter', 'export function seededRandom(seed: number): () => number {'],
    ['a traversal seed', 'graph 30000 resources (seed reaches 12 dashboards)'],
    ['a seed option', '  --seed N   picks raw header variants (default 1)'],
    ['a seed field', "  seed: 'sqlserver-dbt',"],
    ['a seed in a comment', ' * literals), all deterministic from `seed`.'],
    ['the seed of a graph walk', '// The seed is what a publication names directly.'],
    ['a graph seed in a test name', "it('refuses a dashboard as the seed instead', () => {"],
  ])('leaves %s alone', (_label, text) => {
    expect(externalCiters([{ file: 'x.ts', number: 1, text }])).toEqual(new Set());
  });

  it("reads 'seed' as dbt's word in the dbt project checker only", () => {
    const dbt = "  hint: 'not built: the seed status (seeds/status.csv)', // a seed's rows";
    expect(externalCiters([{ file: 'src/editions/check/apply.ts', number: 1, text: dbt }])).toEqual(
      new Set(),
    );
    expect(externalCiters([{ file: 'src/distributor/run/run.ts', number: 1, text: dbt }])).toEqual(
      new Set(['src/distributor/run/run.ts']),
    );
    const section = '// dbt seeds (\u00a73.1)';
    expect(externalCiters([{ file: 'src/editions/check/apply.ts', number: 1, text: section }])).toEqual(
      new Set(['src/editions/check/apply.ts']),
    );
  });
});
