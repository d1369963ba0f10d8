// `npm run demo`: a short tour of every capability sealkit has, on embedded
// defaults, writing only under a temporary directory that it prints first.
// Each part lives in scripts/demo/<part>.mjs and exports `title` and `run(ctx)`.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const workDir = mkdtempSync(join(tmpdir(), 'sealkit-demo-'));
process.stdout.write(`sealkit demo — everything is written under ${workDir}\n`);

const bin = join(root, 'bin', 'sealkit.js');
const ctx = {
  root,
  workDir,
  /** Runs the real CLI, echoes the command line and its output, returns the result. */
  sealkit(args, options = {}) {
    const shown = args.map((a) => (a.startsWith(workDir) ? `$DEMO${a.slice(workDir.length)}` : a)).join(' ');
    process.stdout.write(`\n$ sealkit ${shown}${options.input !== undefined ? ' < input' : ''}\n`);
    const result = spawnSync(process.execPath, [bin, ...args], {
      cwd: options.cwd ?? workDir,
      input: options.input ?? '',
      env: { ...process.env, ...(options.env ?? {}) },
    });
    process.stdout.write(result.stdout);
    if (result.stdout.length > 0 && result.stdout[result.stdout.length - 1] !== 0x0a)
      process.stdout.write('\n');
    process.stdout.write(result.stderr);
    process.stdout.write(`[exit ${result.status}]\n`);
    return result;
  },
  say(text) {
    process.stdout.write(`\n${text}\n`);
  },
  /** The built library, for capabilities that have no command of their own. */
  library: () => import(pathToFileURL(join(root, 'dist', 'src', 'index.js')).href),
};

const parts = readdirSync(join(root, 'scripts', 'demo'))
  .filter((name) => name.endsWith('.mjs'))
  .sort();
let failed = false;
for (const name of parts) {
  const part = await import(pathToFileURL(join(root, 'scripts', 'demo', name)).href);
  process.stdout.write(`\n=== ${part.title} ===\n`);
  try {
    await part.run(ctx);
  } catch (error) {
    failed = true;
    process.stdout.write(
      `demo part ${name} failed: ${error instanceof Error ? error.message : String(error)}\n`,
    );
  }
}
process.stdout.write(`\nDone. Everything the demo wrote is under ${workDir}\n`);
process.exitCode = failed ? 1 : 0;
