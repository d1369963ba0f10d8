// `npm run demo`: a short tour of the jobs sealkit does, on embedded defaults,
// writing only under a temporary folder that it prints first. Every step is
// printed as a command you can paste (after the `DEMO=…` line and the `cd`
// lines), with its input shown before it is used. The tour stays short enough
// to read (about 320 lines): long outputs are cut to the lines that matter and
// each cut says how many lines it left out (blank lines are simply dropped); a
// SHA-256 printed a second time is shortened to its first 12 digits and "…";
// values a later command reuses are set once as shell variables. Each part
// lives in scripts/demo/<part>.mjs and exports `title` and `run(ctx)`.
// `npm run demo -- --full` prints outputs whole.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const workDir = mkdtempSync(join(tmpdir(), 'sealkit-demo-'));
const full = process.argv.includes('--full');
const bin = join(root, 'bin', 'sealkit.js');
const parts = readdirSync(join(root, 'scripts', 'demo'))
  .filter((name) => /^\d+-.*\.mjs$/.test(name))
  .sort();

const WIDTH = 160;
/** SHA-256 digests already printed in full: later ones are shortened. */
const seenDigests = new Set();
/** Values set as shell variables (value → name), printed as "$NAME" in commands. */
const variables = new Map();
let cwd = workDir;

function shortenDigests(line) {
  if (full) return line;
  return line.replaceAll(/\b[0-9a-f]{64}\b/g, (hex) => {
    if (seenDigests.has(hex)) return `${hex.slice(0, 12)}…`;
    seenDigests.add(hex);
    return hex;
  });
}

const out = (text) => process.stdout.write(text);

/** Said after the command it is about, as a shell comment, so the line stays pasteable. */
const exitNote = (status) => (status === 0 ? '' : `  # exit ${status}`);

/** A word as a shell would need it: bare when safe, else quoted. */
function shellWord(word) {
  const variable = variables.get(word);
  if (variable !== undefined) return `"$${variable}"`;
  const shown = word.startsWith(workDir) ? `$DEMO${word.slice(workDir.length)}` : word;
  if (/^[A-Za-z0-9_./:=@%+,-]+$/.test(shown)) return shown;
  if (shown.startsWith('$DEMO') && /^[$A-Za-z0-9_./:=@%+,-]+$/.test(shown)) return `"${shown}"`;
  return `'${shown.replaceAll("'", "'\\''")}'`;
}

/**
 * Prints the lines of `text` that `keep(line, index, all)` selects, each cut at
 * `width` characters, without blank lines. A run of left-out lines is said as
 * "… (N more lines)", unless it is a single line (then it is shown: the note
 * would take its place).
 */
function printSome(text, keep, width = WIDTH) {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  let gap = [];
  const flushGap = () => {
    const text = gap.filter((line) => line.trim() !== '');
    if (text.length === 1) printLine(text[0], width);
    else if (text.length > 1) out(`  … (${text.length} more lines)\n`);
    gap = [];
  };
  lines.forEach((line, index) => {
    if (full || keep(line, index, lines)) {
      flushGap();
      if (full || line.trim() !== '') printLine(line, width);
    } else gap.push(line);
  });
  flushGap();
}

function printLine(line, width = WIDTH) {
  const shown = shortenDigests(line);
  out(full || shown.length <= width ? `${shown}\n` : `${shown.slice(0, width)} …\n`);
}

/** Which lines to show: `pick` (a predicate), else the last `tail`, else the first `lines` (default 8). */
function selector({ pick, tail, lines = 8 }) {
  if (pick !== undefined) return pick;
  if (tail !== undefined) return (_line, index, all) => index >= all.length - tail;
  return (_line, index) => index < lines;
}

/**
 * One JSON object on one line with only `keys` (in the object's own order); a
 * "…" marks keys left out, and an array of more than two entries is said as
 * its count.
 */
function jsonSome(text, keys) {
  const value = JSON.parse(text);
  const shown = [];
  let skipped = false;
  for (const key of Object.keys(value)) {
    if (!keys.includes(key)) {
      if (!skipped) shown.push('…');
      skipped = true;
      continue;
    }
    skipped = false;
    const item = value[key];
    const json = Array.isArray(item) && item.length > 2 ? `[… ${item.length} entries]` : JSON.stringify(item);
    shown.push(`${JSON.stringify(key)}:${json}`);
  }
  return `{${shown.join(',')}}\n`;
}

const ctx = {
  root,
  workDir,
  /** Moves to `dir` (printed as a `cd` a user can paste) for the commands that follow. */
  cd(dir) {
    cwd = dir;
    out(`$ cd ${shellWord(dir)}\n`);
  },
  /** Shows a file the next command reads, as `cat` would (`limit` lines of it). */
  show(path, limit = 12) {
    out(`$ cat ${shellWord(relative(cwd, path))}\n`);
    printSome(readFileSync(path, 'utf8'), selector({ lines: limit }));
  },
  /** Sets a shell variable that later commands use in place of `value`. */
  variable(name, value, command) {
    variables.set(value, name);
    out(`$ ${name}=${command ?? value}\n`);
    for (const hex of value.match(/[0-9a-f]{64}/g) ?? []) seenDigests.add(hex);
  },
  /**
   * Runs the real CLI in the current folder and prints the command line, the
   * lines of its stdout that `lines` / `tail` / `pick` select (or, with `json`,
   * those keys of the one JSON object it prints) and up to `errors` lines of
   * its stderr; the exit code, when it is not 0, and `comment` follow the
   * command line as shell comments. `input` is shown as the printf
   * that feeds it; `unset` names environment variables the command runs without.
   * `status`, when given, is the exit code the tour says the command ends
   * with: any other stops the demo, so its words never drift from what
   * sealkit does.
   */
  sealkit(args, options = {}) {
    const words = args.map((a) => shellWord(a.startsWith(`${cwd}/`) ? relative(cwd, a) : a)).join(' ');
    const feed = options.input === undefined ? '' : `printf '%s' ${shellWord(options.input)} | `;
    const env = { ...process.env, NO_COLOR: '1', ...(options.env ?? {}) };
    for (const name of options.unset ?? []) delete env[name];
    const result = spawnSync(process.execPath, [bin, ...args], { cwd, input: options.input ?? '', env });
    const comment = options.comment === undefined ? '' : `  # ${options.comment}`;
    out(`$ ${feed}sealkit ${words}${exitNote(result.status)}${comment}\n`);
    if (options.status !== undefined && result.status !== options.status)
      throw new Error(
        `'sealkit ${words}' exited ${result.status}, not ${options.status}: ${result.stderr.toString()}`,
      );
    const stdout = result.stdout.toString();
    if (options.json !== undefined && !full) printSome(jsonSome(stdout, options.json), () => true);
    else printSome(stdout, selector(options));
    // Refusals are what the tour is about: never cut across.
    printSome(result.stderr.toString(), selector({ lines: options.errors ?? 8 }), Infinity);
    return result;
  },
  /**
   * Runs a plain shell command in the current folder (an edit a user would
   * make), printed as typed, with up to 8 lines of its stdout. It must exit 0,
   * or `status` when given (then its stderr is shown too).
   */
  shell(command, { status = 0 } = {}) {
    const result = spawnSync('sh', ['-c', command], { cwd, encoding: 'utf8' });
    if (result.status !== status) throw new Error(`'${command}' exited ${result.status}: ${result.stderr}`);
    out(`$ ${command}${exitNote(result.status)}\n`);
    printSome(result.stdout, selector({}));
    if (status !== 0) printSome(result.stderr, selector({}), Infinity);
  },
  /** A comment of the tour's own: what the next steps show. */
  say(text) {
    for (const line of text.split('\n')) printLine(`# ${line}`, Infinity);
  },
};

out(`sealkit demo: ${parts.length} jobs. It writes only under $DEMO; to paste its commands, first run:\n`);
out(`$ DEMO=${workDir}; alias sealkit="node ${bin}"\n`);
let failed = false;
for (const [index, name] of parts.entries()) {
  const part = await import(pathToFileURL(join(root, 'scripts', 'demo', name)).href);
  out(`\n=== ${index + 1}. ${part.title} ===\n`);
  try {
    cwd = workDir;
    await part.run(ctx);
  } catch (error) {
    failed = true;
    out(`demo part ${name} failed: ${error instanceof Error ? error.message : String(error)}\n`);
  }
}
out(`\n${failed ? 'Failed' : 'Done'}. Everything the demo wrote is under ${workDir}\n`);
process.exitCode = failed ? 1 : 0;
