/**
 * SIGINT, SIGTERM and SIGHUP (a terminal or ssh session that went away)
 * for the commands that write (`edition new`, `evidence synth`,
 * `scaffold`, `distribute run`), in two phases (docs/cli.md#signals):
 *
 * - **While the command works**, the first signal aborts `signal`: the
 *   library stops at its next step boundary before its commit point, undoes
 *   only what it made, and reports the interruption; the CLI turns that
 *   into exit 130 (SIGINT), 143 (SIGTERM) or 129 (SIGHUP). A further signal changes
 *   nothing, except for a command that asks for it (`distribute run`, whose
 *   in-flight uploads may take a while), where it ends the process at once
 *   with one line on stderr; a repeat within `REPEAT_WINDOW_MS` is the same
 *   signal delivered twice and changes nothing.
 * - **Once the outcome is decided** (`finish`), a signal no longer changes
 *   it: the command prints its real result and exits with that result's
 *   code; the first such signal only prints a one-line note on stderr. The
 *   handlers stay installed until the process ends, so the default action
 *   (death by the signal, which a shell reports as 130 or 143) can never
 *   strike between the publication and the exit. A second signal then ends
 *   the process at once, with the result's exit code once it is known.
 */

import { setMaxListeners } from 'node:events';
import type { Refusal } from '../core/refusal/index.js';
import type { CliIo, CommandResult, Disclosure } from './command.js';
import { SIGNAL_EXIT, type StopSignal } from './exit-codes.js';
import { releaseHungUpTerminal } from './hung-up-terminal.js';
import { formatRefusal, refusalJson } from './output.js';

export type { StopSignal } from './exit-codes.js';

export interface InterruptionOptions {
  /** Where the note about a signal that came after the outcome goes; undefined for none (`--json`, `-q`). */
  readonly note: NodeJS.WritableStream | undefined;
  /**
   * A second signal while the command works ends the process at once
   * (`distribute run`), after one line on this stream saying so.
   */
  readonly secondSignalEnds?: {
    readonly stderr: NodeJS.WritableStream;
    readonly left: string;
    /**
     * Under `--json`: the refusal printed on stdout as the command's one
     * JSON object, so that a caller parsing stdout still finds one.
     */
    readonly json?: {
      readonly stdout: NodeJS.WritableStream;
      readonly object: (signal: StopSignal) => unknown;
    };
  };
}

/**
 * A repeat within this many milliseconds is the same signal delivered twice,
 * not a second request: `timeout -s INT` sends one to the process and one
 * to its process group, microseconds apart, as does a wrapper that forwards
 * a signal to the group it belongs to; a person pressing Ctrl-C twice is
 * well over a tenth of a second apart.
 */
export const REPEAT_WINDOW_MS = 100;

export class Interruption {
  readonly #controller = new AbortController();
  readonly #options: InterruptionOptions;
  #received: StopSignal | undefined;
  /** When the first signal came (performance.now()). */
  #receivedAt = 0;
  #phase: 'working' | 'finished' = 'working';
  /** What had completed, for the note: set by `completed`. */
  #done = 'the run finished';
  #noted = false;
  #late = 0;

  private constructor(options: InterruptionOptions) {
    this.#options = options;
    // The run's one signal reaches every request and step in flight, many at
    // once; Node's warning past ten listeners would reach stderr as a false
    // "memory leak" alarm.
    setMaxListeners(0, this.#controller.signal);
  }

  /** Installs the handlers; they stay until the process ends. */
  static start(options: InterruptionOptions): Interruption {
    const interruption = new Interruption(options);
    for (const name of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
      process.on(name, () => interruption.#on(name));
    return interruption;
  }

  /** Aborted by the first signal while the command works; the library stops at its next step boundary. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** The first signal that came while the command worked, if any (whether or not it stopped anything). */
  get received(): StopSignal | undefined {
    return this.#received;
  }

  /**
   * The outcome is decided: lets a signal that is already pending be
   * delivered (it counts as received while working), then switches to the
   * second phase, where a signal changes nothing.
   */
  async finish(): Promise<StopSignal | undefined> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.#phase = 'finished';
    return this.#received;
  }

  /**
   * The command completed although a signal may have come: `done` says what
   * had completed (`the publication completed`). If a signal came while
   * it worked but after its commit point, the note is printed now;
   * a later one prints it then.
   */
  completed(done: string): void {
    this.#done = done;
    if (this.#received !== undefined) this.#note(this.#received);
  }

  #on(name: StopSignal): void {
    if (name === 'SIGHUP') releaseHungUpTerminal();
    if (this.#phase === 'working') {
      if (this.#received === undefined) {
        this.#received = name;
        this.#receivedAt = performance.now();
        this.#controller.abort();
        return;
      }
      const ends = this.#options.secondSignalEnds;
      if (ends === undefined || performance.now() - this.#receivedAt < REPEAT_WINDOW_MS) return;
      ends.stderr.write(`sealkit: a second ${name}: stopped at once; ${ends.left}\n`);
      if (ends.json !== undefined) ends.json.stdout.write(`${JSON.stringify(ends.json.object(name))}\n`);
      process.exit(SIGNAL_EXIT[name]);
    }
    this.#late += 1;
    if (this.#late === 1) {
      this.#note(name);
      return;
    }
    // Asked twice: stop waiting for output to drain. The outcome is the result's, once main has decided it.
    process.exit(
      decidedExitCode ?? (typeof process.exitCode === 'number' ? process.exitCode : SIGNAL_EXIT[name]),
    );
  }

  #note(name: StopSignal): void {
    if (this.#noted || this.#options.note === undefined) return;
    this.#noted = true;
    this.#options.note.write(`sealkit: ${name} came after ${this.#done}; the result stands\n`);
  }
}

/**
 * The exit code of the result being printed, recorded by `main` before it
 * prints: a second late signal while the report is written (or held by a
 * full pipe) ends the process with it, not with 130 or 143, which would say
 * that the signal stopped something (docs/cli.md#signals).
 */
let decidedExitCode: number | undefined;

export function decideExitCode(code: number): void {
  decidedExitCode = code;
}

/** The exit-code field of a command result for a signal that stopped the command (docs/cli.md#exit-codes). */
export function interruptedBy(signal: StopSignal | undefined): { readonly interrupted?: StopSignal } {
  return signal === undefined ? {} : { interrupted: signal };
}

/** How `runInterruptible` reports a run: stopped by a signal (the refusal, ready to print), or its value. */
export type Interruptible<T> =
  | { readonly kind: 'interrupted'; readonly result: CommandResult }
  | { readonly kind: 'done'; readonly value: T };

export interface InterruptibleRun<T> {
  readonly io: CliIo;
  /** `--json`: the refusal goes out as the one JSON object, and no note is printed. */
  readonly json: boolean;
  readonly disclosure: Disclosure;
  /** Whether a refusal is the library's own "stopped by the signal" (`workspace_interrupted`, …). */
  readonly stoppedBy: (error: unknown) => error is Refusal;
  /** What had completed when the value came, for the note (`the workspace was published`). */
  readonly done: (value: T) => string;
}

/**
 * Runs `work` with SIGINT, SIGTERM and SIGHUP wired to its abort signal,
 * for a command with one commit point: a signal before it ends the run
 * with the library's interruption refusal, which becomes the printed
 * refusal and exit 130, 143 or 129; after it the value stands. Any other failure is
 * thrown, as without a signal.
 */
export async function runInterruptible<T>(
  run: InterruptibleRun<T>,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<Interruptible<T>> {
  const interruption = Interruption.start({ note: run.json ? undefined : run.io.stderr });
  let value: T;
  try {
    value = await work(interruption.signal);
  } catch (error: unknown) {
    const received = await interruption.finish();
    if (received === undefined || !run.stoppedBy(error)) throw error;
    return {
      kind: 'interrupted',
      result: {
        text: '',
        json: { status: 'refused', ...refusalJson(error, run.disclosure) },
        errors: formatRefusal(error, run.disclosure),
        refused: true,
        interrupted: received,
      },
    };
  }
  await interruption.finish();
  interruption.completed(run.done(value));
  return { kind: 'done', value };
}
