import { Refusal } from '../core/refusal/index.js';
import { UsageError } from './usage-error.js';

/**
 * Exit codes are decided here and nowhere else. 3 and 4 are `scaffold`'s
 * only (docs/cli.md#exit-codes): published with a condition
 * (permissions not normalized, durability unknown), and published but
 * unverified (the visible tree is not the one the run verified).
 */
export const EXIT = {
  ok: 0,
  usage: 1,
  refused: 2,
  publishedWithCondition: 3,
  publishUnverified: 4,
  internal: 70,
  /** 128 + the signal number, as a shell reports a process the signal ended: SIGINT. */
  interrupted: 130,
  /** SIGTERM. */
  terminated: 143,
  /** SIGHUP: the terminal or the ssh session the command ran in went away. */
  hangup: 129,
  /** The reader of stdout or stderr went away (EPIPE), as a shell reports a program SIGPIPE ended. */
  brokenPipe: 141,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** The signals that stop a command that writes, before its commit point (docs/cli.md#signals). */
export type StopSignal = 'SIGINT' | 'SIGTERM' | 'SIGHUP';

/** The exit code of a command a signal stopped, as a shell reports a process that signal ended. */
export const SIGNAL_EXIT: { readonly [S in StopSignal]: ExitCode } = {
  SIGINT: EXIT.interrupted,
  SIGTERM: EXIT.terminated,
  SIGHUP: EXIT.hangup,
};

/** The exit code of a command that completed and printed its result. */
export function exitCodeForResult(result: {
  readonly refused?: boolean;
  readonly publication?: 'with_condition' | 'unverified';
  readonly interrupted?: StopSignal;
}): ExitCode {
  if (result.interrupted !== undefined) return SIGNAL_EXIT[result.interrupted];
  if (result.refused === true) return EXIT.refused;
  if (result.publication === 'with_condition') return EXIT.publishedWithCondition;
  if (result.publication === 'unverified') return EXIT.publishUnverified;
  return EXIT.ok;
}

export function exitCodeFor(error: unknown): ExitCode {
  if (error instanceof UsageError) return EXIT.usage;
  if (error instanceof Refusal) return error.category === 'internal' ? EXIT.internal : EXIT.refused;
  return EXIT.internal;
}
