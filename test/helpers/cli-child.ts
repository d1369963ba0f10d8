import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from './cli.js';

const BIN = join(REPO_ROOT, 'bin', 'sealkit.js');

export interface ChildOutcome {
  readonly status: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * The built CLI as a live process, for what only a separate process shows:
 * a real SIGINT/SIGTERM, a SIGKILL, a lock another process holds. With a
 * test-only fault variable set to `pause@POINT`, the run stops at POINT and
 * says so on stderr (`… paused at POINT#N`); `release` lets it go on.
 */
export class CliChild {
  readonly #child: ChildProcess;
  #stdout = '';
  #stderr = '';
  readonly #exit: Promise<ChildOutcome>;
  #waiters: { readonly text: string; readonly resolve: () => void }[] = [];

  constructor(
    args: readonly string[],
    options: { readonly env?: NodeJS.ProcessEnv; readonly cwd?: string } = {},
  ) {
    this.#child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd ?? REPO_ROOT,
      env: { ...process.env, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.#child.stdout?.on('data', (chunk: Buffer) => {
      this.#stdout += chunk.toString('utf8');
    });
    this.#child.stderr?.on('data', (chunk: Buffer) => {
      this.#stderr += chunk.toString('utf8');
      this.#waiters = this.#waiters.filter((waiter) => {
        if (!this.#stderr.includes(waiter.text)) return true;
        waiter.resolve();
        return false;
      });
    });
    this.#exit = new Promise((resolve) => {
      this.#child.on('close', (status, signal) =>
        resolve({ status, signal, stdout: this.#stdout, stderr: this.#stderr }),
      );
    });
  }

  /** Resolves once stderr holds `text`; rejects if the process exits first. */
  stderrHas(text: string): Promise<void> {
    if (this.#stderr.includes(text)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.#waiters.push({ text, resolve });
      void this.#exit.then((outcome) =>
        reject(
          new Error(
            `the process exited (${String(outcome.status)}) before printing ${JSON.stringify(text)}: ${outcome.stdout}${outcome.stderr}`,
          ),
        ),
      );
    });
  }

  /** Resolves once the run announced it is paused at `point` (e.g. `after_seal#1`). */
  paused(point: string): Promise<void> {
    return this.stderrHas(`paused at ${point}\n`);
  }

  /** Lets a paused run go on. */
  release(): void {
    this.#child.stdin?.write('\n');
  }

  kill(signal: NodeJS.Signals): void {
    this.#child.kill(signal);
  }

  /** Waits for the process to end, closing its stdin first so a pause never waits forever. */
  finished(): Promise<ChildOutcome> {
    this.#child.stdin?.end();
    return this.#exit;
  }

  /** The outcome without closing stdin: for a process that is expected to end on its own. */
  exited(): Promise<ChildOutcome> {
    return this.#exit;
  }
}
