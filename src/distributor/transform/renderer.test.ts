import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../test/helpers/cli.js';
import { makeBundle, writeConfig } from '../../../test/helpers/distributor-fixtures.js';

// The installed CLI (bin/sealkit.js and its bundle) run as a user runs it,
// with a module hook that writes down every module Node loads: what a run
// loads is what it costs to start (docs/performance.md, "The page renderer
// loaded on first use").

let work: string;

beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'sealkit-renderer-'));
  writeFileSync(
    join(work, 'hooks.mjs'),
    [
      "import { appendFileSync } from 'node:fs';",
      'export async function load(url, context, nextLoad) {',
      '  appendFileSync(process.env.LOADED_LOG, url + "\\n");',
      '  return nextLoad(url, context);',
      '}',
      '',
    ].join('\n'),
  );
  writeFileSync(
    join(work, 'register.mjs'),
    "import { register } from 'node:module';\nregister('./hooks.mjs', import.meta.url);\n",
  );
  makeBundle(
    join(work, 'reports'),
    'weekly',
    [
      { path: 'summary.md', content: '# Weekly\n\nSee [the notes](notes.md).\n' },
      { path: 'notes.md', content: '# Notes\n' },
    ],
    { id: 'weekly', created: '2026-12-01T00:00:00Z' },
  );
});

afterEach(() => {
  rmSync(work, { recursive: true, force: true });
});

/**
 * Runs `distribute run` with one local destination; which of the bundle's
 * chunks it loaded, and whether one of them holds markdown-it (the bundle
 * keeps its class names).
 */
function loadedBy(html: boolean): {
  readonly status: number | null;
  readonly chunks: readonly string[];
  readonly markdownIt: boolean;
} {
  const site = join(work, html ? 'site-html' : 'site');
  mkdirSync(site);
  const config = writeConfig(work, [
    { id: 'weekly', source: 'reports', destinations: [{ id: 'site', root: site, html }] },
  ]);
  const log = join(work, html ? 'loaded-html.log' : 'loaded.log');
  const run = spawnSync(
    process.execPath,
    [
      '--import',
      pathToFileURL(join(work, 'register.mjs')).href,
      join(REPO_ROOT, 'bin', 'sealkit.js'),
      'distribute',
      'run',
      '--config',
      config,
    ],
    { cwd: work, env: { ...process.env, LOADED_LOG: log }, encoding: 'utf8' },
  );
  expect(run.stderr).toBe('');
  const chunks = readFileSync(log, 'utf8')
    .split('\n')
    .filter((url) => url.includes('/dist/bundle/chunks/'))
    .map((url) => fileURLToPath(url));
  return {
    status: run.status,
    // `markdown-DkVei-QI.js` → `markdown`: the bundler's hash is 8 characters.
    chunks: chunks.map((path) => basename(path).replace(/-[\w-]{8}\.js$/, '')),
    markdownIt: chunks.some((path) =>
      /(function|class) MarkdownIt\b|MarkdownIt = class/.test(readFileSync(path, 'utf8')),
    ),
  };
}

describe('the Markdown renderer, loaded on first use', () => {
  it('regression: a run whose destinations render no page does not load markdown-it', () => {
    const run = loadedBy(false);
    expect(run.status).toBe(0);
    expect(run.chunks).toContain('distribute');
    expect(run.markdownIt).toBe(false);
    expect(existsSync(join(work, 'site', 'weekly', 'summary.md'))).toBe(true);
    expect(existsSync(join(work, 'site', 'weekly', 'summary.html'))).toBe(false);
  });

  it('a run with html: true loads it and renders every page, its links to .html', () => {
    const run = loadedBy(true);
    expect(run.status).toBe(0);
    expect(run.markdownIt).toBe(true);
    const page = readFileSync(join(work, 'site-html', 'weekly', 'summary.html'), 'utf8');
    expect(page).toContain('<a href="notes.html">the notes</a>');
    expect(existsSync(join(work, 'site-html', 'weekly', 'notes.html'))).toBe(true);
  });
});
