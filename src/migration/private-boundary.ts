import { guardRefusals, guardRefusalsAsync, Refusal } from '../core/refusal/index.js';

/**
 * The library boundary of a private domain (migration evidence, and the
 * scaffolder that reads it): core `guardRefusals` lets only refusals leave
 * `work`, and every refusal leaves redacted, without a location or a hint,
 * whatever a core reader attached. The evidence describes a customer's
 * source schema, so no line, column, key or file name may be shown
 * (docs/refusals.md#two-policies, docs/evidence.md#privacy).
 */
export function guardPrivate<T>(work: () => T, fallback?: () => Refusal): T {
  try {
    return guardRefusals(work, fallback);
  } catch (error: unknown) {
    throw redact(error);
  }
}

/** The asynchronous form of `guardPrivate`. */
export async function guardPrivateAsync<T>(work: () => Promise<T>, fallback?: () => Refusal): Promise<T> {
  try {
    return await guardRefusalsAsync(work, fallback);
  } catch (error: unknown) {
    throw redact(error);
  }
}

// guardRefusals only ever throws a Refusal; anything else is rethrown as it is.
function redact(error: unknown): unknown {
  return error instanceof Refusal ? error.redacted() : error;
}
