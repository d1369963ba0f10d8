// `npm run demo`: a short tour of the jobs sealkit does, on embedded defaults,
// writing only under a temporary folder that it prints first. Every step is
// printed as a command you can paste (after `DEMO=…` and the `cd` lines), with
// its input shown before it is used. Long outputs are cut to their first lines
// (the cut is said). Each part lives in scripts/demo/<part>.mjs and exports
// `title` and `run(ctx)`. `npm run demo -- --full` prints outputs whole.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const workDir = mkdtempSync(join(tmpdir(), 'sealkit-demo-'));
const full = process.argv.includes('--full');
const out = (text) => process.stdout.write(text);
out(`sealkit demo: everything is written under ${workDir}\n`);
out(
  `To paste the commands below: DEMO=${workDir}; alias sealkit="node ${join(root, 'bin', 'sealkit.js')}"\n`,
);

const bin = join(root, 'bin', 'sealkit.js');
let cwd = workDir;

/** A word as a shell would need it: bare when safe, else single-quoted. */
function shellWord(word) {
  const shown = word.startsWith(workDir) ? `$DEMO${word.slice(workDir.length)}` : word;
  if (/^[A-Za-z0-9_./:=@%+,-]+$/.test(shown)) return shown;
  if (shown.startsWith('$DEMO') && /^[$A-Za-z0-9_./:=@%+,-]+$/.test(shown)) return `"${shown}"`;
  return `'${shown.replaceAll("'", "'\\''")}'`;
}

const WIDTH = 160;

/**
 * Prints at most `limit` lines of `text` (the last ones with `fromEnd`), each
 * cut at WIDTH characters, and says how much was left out.
 */
function printCut(text, limit, fromEnd = false) {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const shown = full ? lines : fromEnd ? lines.slice(-limit) : lines.slice(0, limit);
  const left = lines.length - shown.length;
  const skipped = left > 0 ? `  … (${left} more ${left === 1 ? 'line' : 'lines'})\n` : '';
  if (fromEnd) out(skipped);
  for (const line of shown) out(full || line.length <= WIDTH ? `${line}\n` : `${line.slice(0, WIDTH)} …\n`);
  if (!fromEnd) out(skipped);
}

const ctx = {
  root,
  workDir,
  /** Moves to `dir` (printed as a `cd` a user can paste) for the commands that follow. */
  cd(dir) {
    cwd = dir;
    out(`\n$ cd ${shellWord(dir)}\n`);
  },
  /** Shows a file the next command reads, as `cat` would. */
  show(path, limit = 12) {
    out(`$ cat ${shellWord(relative(cwd, path))}\n`);
    printCut(readFileSync(path, 'utf8'), limit);
  },
  /**
   * Runs the real CLI in the current folder, prints the command line, up to
   * `lines` lines of its stdout (the last `tail` lines instead, when given),
   * up to `errors` lines of its stderr, and the exit code when it is not 0.
   * `input` is shown as the printf that feeds it.
   */
  sealkit(args, options = {}) {
    const words = args.map((a) => shellWord(a.startsWith(`${cwd}/`) ? relative(cwd, a) : a)).join(' ');
    const feed = options.input === undefined ? '' : `printf '%s' ${shellWord(options.input)} | `;
    out(`$ ${feed}sealkit ${words}\n`);
    const result = spawnSync(process.execPath, [bin, ...args], {
      cwd,
      input: options.input ?? '',
      env: { ...process.env, NO_COLOR: '1', ...(options.env ?? {}) },
    });
    const stdout = result.stdout.toString();
    if (options.tail !== undefined) printCut(stdout, options.tail, true);
    else printCut(stdout, options.lines ?? 8);
    printCut(result.stderr.toString(), options.errors ?? 8);
    if (result.status !== 0) out(`# exit ${result.status}\n`);
    return result;
  },
  /** Runs a plain shell command in the current folder (an edit a user would make), printed as typed. */
  shell(command) {
    out(`$ ${command}\n`);
    const result = spawnSync('sh', ['-c', command], { cwd, encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`'${command}' exited ${result.status}: ${result.stderr}`);
    if (result.stdout !== '') printCut(result.stdout, 8);
  },
  say(text) {
    out(`\n# ${text.replaceAll('\n', '\n# ')}\n`);
  },
  /** A line of the tour's own (not a command's output). */
  note(text) {
    out(`${text}\n`);
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
  out(`\n=== ${part.title} ===\n`);
  try {
    cwd = workDir;
    await part.run(ctx);
  } catch (error) {
    failed = true;
    out(`demo part ${name} failed: ${error instanceof Error ? error.message : String(error)}\n`);
  }
}
out(`\nDone. Everything the demo wrote is under ${workDir}\n`);
process.exitCode = failed ? 1 : 0;
