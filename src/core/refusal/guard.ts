import { defineRefusals, Refusal } from './refusal.js';

export type InternalRefusalCode = 'internal_error';

/** Invariant violations: a bug in sealkit, never a property of the input. */
export const refuseInternal = defineRefusals<InternalRefusalCode>({
  internal_error: {
    category: 'internal',
    message: 'sealkit hit an internal error; nothing was published by the failing step',
  },
});

/**
 * Runs `work` so that only refusals leave it: any other exception (a bug, an
 * unexpected errno, a library throwing with a path in its text) becomes
 * `fallback`, whose message is fixed. The original error is dropped on purpose.
 */
export function guardRefusals<T>(
  work: () => T,
  fallback: () => Refusal = () => refuseInternal('internal_error'),
): T {
  try {
    return work();
  } catch (error: unknown) {
    if (error instanceof Refusal) throw error;
    throw fallback();
  }
}

/** The asynchronous form of `guardRefusals`. */
export async function guardRefusalsAsync<T>(
  work: () => Promise<T>,
  fallback: () => Refusal = () => refuseInternal('internal_error'),
): Promise<T> {
  try {
    return await work();
  } catch (error: unknown) {
    if (error instanceof Refusal) throw error;
    throw fallback();
  }
}
