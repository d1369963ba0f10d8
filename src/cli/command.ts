import type { StopSignal } from './exit-codes.js';
import type { JsonObjectOut } from './output.js';

export type Disclosure = 'located' | 'private';

export interface CliIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly stdin: AsyncIterable<Uint8Array | string>;
}

/**
 * What a successful command produced: `text` is printed in human mode
 * (bytes exactly as given: no newline is added), `json` under `--json`.
 */
export interface CommandResult {
  readonly text: string | Uint8Array;
  readonly json: JsonObjectOut;
  /**
   * Human mode only: the refusals of a command that reports many items
   * (formatted with `formatRefusal`), printed on stderr after `text`, so
   * that `>/dev/null` in a cron job hides the report but never a failure.
   */
  readonly errors?: string;
  /**
   * Set by a command that reports many items and printed its full report, but
   * refused some of them (e.g. `distribute run` with a conflict): exit 2
   * after the report instead of 0.
   */
  readonly refused?: boolean;
  /**
   * Set by `scaffold` only: it published, but with a condition (exit 3) or
   * the visible tree is not the one it verified (exit 4).
   */
  readonly publication?: 'with_condition' | 'unverified';
  /**
   * Set by a command that stopped early on a signal after reporting what it
   * did (`distribute run`): exit 130 (SIGINT), 143 (SIGTERM) or 129 (SIGHUP).
   */
  readonly interrupted?: StopSignal;
  /**
   * Set by a command that already wrote its one JSON object on stdout
   * (`scaffold`, which prints it before releasing its lock): `--json` then
   * prints nothing more.
   */
  readonly printed?: boolean;
  /**
   * Awaited after the result is printed, before the exit code is returned:
   * the test-only `pause@after_result` fault of the commands that write
   * (src/cli/fault-hooks.ts), which holds the process where only a signal
   * handler stands between the printed result and its exit.
   */
  readonly afterOutput?: () => Promise<void>;
}

export interface Command {
  /** Words after `sealkit`, e.g. `['json', 'canonicalize']`. */
  readonly path: readonly string[];
  readonly usage: string;
  run(args: readonly string[], io: CliIo): Promise<CommandResult>;
}

/**
 * One line of `sealkit --help` and the way to load the command behind it.
 * Commands are imported only when run: importing every domain (DuckDB,
 * PGlite, the AWS SDK, markdown-it) on each start made `sealkit --version`
 * several times slower than starting Node.
 */
export interface CommandEntry {
  readonly path: readonly string[];
  readonly summary: string;
  /**
   * Whose data the command reads, which decides what its refusals may show
   * (docs/refusals.md#two-policies): `located` for the operator's own files
   * (path, line, column, key, hint), `private` for migration evidence, the
   * scaffolder and the owner codec (code, role and allowlisted field only).
   */
  readonly disclosure: Disclosure;
  /**
   * Whether the command runs without the Linux primitives (openat, renameat2,
   * flock, statx through libc). A command that needs them refuses at once
   * with `platform_unsupported` where they cannot be loaded
   * (docs/development.md#platforms), before reading anything.
   */
  readonly portable: boolean;
  load(): Promise<Command>;
}
