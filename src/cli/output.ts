import { Refusal } from '../core/refusal/index.js';
import type { CliIo } from './command.js';
import { UsageError } from './usage-error.js';

export interface JsonObjectOut {
  readonly [key: string]: string | number | boolean | null | readonly unknown[] | JsonObjectOut | undefined;
}

export function writeJson(io: CliIo, value: JsonObjectOut): void {
  io.stdout.write(`${JSON.stringify(value)}\n`);
}

/**
 * Prints a failure. Refusal messages are fixed per code; an unexpected error
 * prints fixed text only — its message may hold paths or values from the input.
 */
export function reportFailure(io: CliIo, error: unknown, json: boolean): void {
  if (error instanceof UsageError) {
    if (json) writeJson(io, { status: 'usage_error', reason_code: 'usage', message: error.message });
    else io.stderr.write(`sealkit: ${error.message}\n${error.usage}\n`);
    return;
  }
  if (error instanceof Refusal && error.category !== 'internal') {
    if (json) writeJson(io, { status: 'refused', ...error.toJSON() });
    else io.stderr.write(`sealkit: refused (${error.code}): ${error.message}\n`);
    return;
  }
  const message = 'sealkit hit an internal error; nothing was published by the failing step';
  if (json) writeJson(io, { status: 'internal_error', reason_code: 'internal_error', message });
  else io.stderr.write(`sealkit: internal error (internal_error): ${message}\n`);
}
