// The CLI as `bin/sealkit.js` loads it: the compiled modules of dist/src and
// their pure-JavaScript dependencies joined into a few files under
// dist/bundle/, one chunk per lazily loaded command. Loading ~300 small
// modules one by one was a quarter of a short command's time
// (docs/performance.md, "Starting the CLI"). Run after `tsc`; the library
// (`dist/src/index.js`) is not bundled.
import { existsSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'bundle');

// Kept as installed packages: they load native code, WebAssembly or files
// beside themselves, or are large and loaded only by the S3 backend.
const EXTERNAL = [/^@electric-sql\//, /^@duckdb\/node-bindings/, /^koffi(\/|$)/, /^@aws-sdk\//];

// DuckDB's JavaScript API is required at run time, not imported (an ESM
// import of that CommonJS package is slower unbundled: see
// src/contracts/sql/parser.ts); in the bundle the same require becomes a
// dynamic import of a bundled chunk, so its 69 files are not loaded one by
// one, and a command whose SQL parses all come from the cache does not even
// load that chunk (400 KB). The require sits in an async function. Its
// native binding stays an installed package.
const BUNDLED_REQUIRES = {
  name: 'sealkit-bundled-requires',
  transform(code) {
    const lazy = "createRequire(import.meta.url)('@duckdb/node-api')";
    const bundled = "((module) => module.default ?? module)(await import('@duckdb/node-api'))";
    return code.includes(lazy) ? code.replaceAll(lazy, bundled) : null;
  },
};

// The Markdown renderer's packages do nothing when imported but define
// functions and tables. Said so, a chunk that imports the distributor's
// entry and renders no page does not carry them: a run loads them only
// when some destination wants pages (src/distributor/transform/renderer.ts).
const PURE_PACKAGES =
  /[\\/]node_modules[\\/](markdown-it|markdown-it-footnote|github-slugger|linkify-it|mdurl|uc\.micro|punycode\.js|entities)[\\/]/;

// Written beside the bundle, then swapped in with two renames: a CLI started
// while the bundle is rebuilt (a test run, a second terminal) finds the old
// bundle or the new one, never a folder being written.
const next = `${out}.next-${process.pid}`;
const old = `${out}.old-${process.pid}`;
rmSync(next, { recursive: true, force: true });
const bundle = await rolldown({
  input: { sealkit: join(root, 'dist', 'src', 'cli', 'main.js') },
  platform: 'node',
  external: EXTERNAL,
  plugins: [BUNDLED_REQUIRES],
  treeshake: { moduleSideEffects: (id) => (PURE_PACKAGES.test(id) ? false : undefined) },
  logLevel: 'warn',
});
try {
  await bundle.write({
    dir: next,
    format: 'esm',
    entryFileNames: '[name].js',
    chunkFileNames: 'chunks/[name]-[hash].js',
  });
} finally {
  await bundle.close();
}
if (existsSync(out)) renameSync(out, old);
renameSync(next, out);
rmSync(old, { recursive: true, force: true });
