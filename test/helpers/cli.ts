import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = join(REPO_ROOT, 'bin', 'sealkit.js');

export interface CliRun {
  readonly status: number | null;
  readonly stdout: Buffer;
  readonly stderr: Buffer;
}

/** Runs the built CLI (`dist/`, built by `npm test` before the suite) as a real process. */
export function runCli(
  args: readonly string[],
  options: {
    readonly input?: Uint8Array | string;
    /** An open file descriptor to give the CLI as its standard input instead of `input`. */
    readonly stdinFd?: number;
    readonly cwd?: string;
    readonly env?: NodeJS.ProcessEnv;
  } = {},
): CliRun {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? REPO_ROOT,
    env: options.env ?? process.env,
    ...(options.stdinFd === undefined
      ? { input: options.input ?? '' }
      : { stdio: [options.stdinFd, 'pipe', 'pipe'] as ['pipe' | number, 'pipe', 'pipe'] }),
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}
