import { guardRefusals, guardRefusalsAsync, type RefusalFallback } from '../core/refusal/index.js';

/**
 * The library boundary of a private domain (migration evidence, and the
 * scaffolder that reads it): core `guardRefusals` lets only refusals leave
 * `work`, and every refusal leaves redacted, without a location or a hint,
 * whatever a core reader attached. The evidence describes a customer's
 * source schema, so no line, column, key or file name may be shown
 * (docs/refusals.md#two-policies, docs/evidence.md#privacy).
 */
export function guardPrivate<T>(work: () => T, fallback?: RefusalFallback): T {
  return guardRefusals(work, { ...(fallback === undefined ? {} : { fallback }), redact: true });
}

/** The asynchronous form of `guardPrivate`. */
export async function guardPrivateAsync<T>(work: () => Promise<T>, fallback?: RefusalFallback): Promise<T> {
  return guardRefusalsAsync(work, { ...(fallback === undefined ? {} : { fallback }), redact: true });
}
