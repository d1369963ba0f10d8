// What the benchmarks that time child processes share: a private copy of the
// build for the children to run, and `node` run to its end.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const distRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = join(distRoot, '..');

/**
 * A fresh folder `sealkit-bench-NAME-…` under TMPDIR holding a copy of dist/
 * and a link to node_modules. The children run that copy, so a rebuild of
 * dist/ during a (long) benchmark cannot change the code being measured.
 */
export function privateBuild(name: string): string {
  const base = mkdtempSync(join(tmpdir(), `sealkit-bench-${name}-`));
  cpSync(distRoot, join(base, 'dist'), { recursive: true });
  symlinkSync(join(repoRoot, 'node_modules'), join(base, 'node_modules'));
  return base;
}

/** Runs `node ...args` to its end and returns its stdout; a failure throws, naming `what`. */
export function runNode(args: readonly string[], what: string, env?: NodeJS.ProcessEnv): string {
  const result = spawnSync(process.execPath, [...args], {
    encoding: 'utf8',
    ...(env === undefined ? {} : { env }),
  });
  if (result.status !== 0)
    throw new Error(`${what} failed (exit ${String(result.status)}): ${result.stdout} ${result.stderr}`);
  return result.stdout;
}
