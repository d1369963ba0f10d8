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
 * The built CLI as a live process with the scaffold fault hook armed, for
 * what only a separate process shows: a lock held by another process, a
 * SIGKILL, a real SIGINT/SIGTERM. A `pause@POINT` rule stops the run at
 * POINT, which it announces on stderr; `release` lets it go on.
 */
export class ScaffoldChild {
  readonly #child: ChildProcess;
  #stdout = '';
  #stderr = '';
  readonly #exit: Promise<ChildOutcome>;
  #waiters: { readonly text: string; readonly resolve: () => void }[] = [];

  constructor(args: readonly string[], faults: string) {
    this.#child = spawn(process.execPath, [BIN, ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, SEALKIT_SCAFFOLD_FAULTS: faults },
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

  /** Resolves once the run announced it is paused at `point` (e.g. `after_seal#1`); rejects if it exits first. */
  paused(point: string): Promise<void> {
    const text = `paused at ${point}`;
    if (this.#stderr.includes(text)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.#waiters.push({ text, resolve });
      void this.#exit.then((outcome) =>
        reject(new Error(`the run exited (${String(outcome.status)}) before pausing: ${outcome.stdout}`)),
      );
    });
  }

  release(): void {
    this.#child.stdin?.write('\n');
  }

  kill(signal: NodeJS.Signals): void {
    this.#child.kill(signal);
  }

  /** Waits for the process to end (closing its stdin first so a pause never waits forever). */
  finished(): Promise<ChildOutcome> {
    this.#child.stdin?.end();
    return this.#exit;
  }

  /** The outcome without closing stdin: for a process that is expected to end on its own. */
  exited(): Promise<ChildOutcome> {
    return this.#exit;
  }
}

/**
 * The test-only variable through which the CLI takes scaffold faults: a
 * scaffold test that runs the CLI sets it (docs/scaffold.md#the-test-only-fault-hook).
 */
export { FAULTS_ENV } from '../../src/cli/commands/scaffold-faults.js';
