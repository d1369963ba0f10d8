import { Refusal } from '../core/refusal/index.js';
import { UsageError } from './usage-error.js';

/** Exit codes are decided here and nowhere else. */
export const EXIT = { ok: 0, usage: 1, refused: 2, internal: 70 } as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** The exit code of a command that completed and printed its result. */
export function exitCodeForResult(result: { readonly refused?: boolean }): ExitCode {
  return result.refused === true ? EXIT.refused : EXIT.ok;
}

export function exitCodeFor(error: unknown): ExitCode {
  if (error instanceof UsageError) return EXIT.usage;
  if (error instanceof Refusal) return error.category === 'internal' ? EXIT.internal : EXIT.refused;
  return EXIT.internal;
}
