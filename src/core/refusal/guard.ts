import { defineRefusals, Refusal } from './refusal.js';

export type InternalRefusalCode = 'internal_error';

/**
 * What an unexpected exception was, for a bug report: its class and, for a
 * failed system call, its errno code (`TypeError`, `Error EBUSY`) — never
 * its text, which may hold a path or a value of the input.
 */
export interface InternalErrorDetails {
  readonly error_kind: string;
}

/** Invariant violations: a bug in sealkit, never a property of the input. */
export const refuseInternal = defineRefusals<
  InternalRefusalCode,
  { readonly internal_error: InternalErrorDetails | undefined }
>({
  internal_error: {
    category: 'internal',
    message: 'sealkit hit an internal error; nothing was published by the failing step',
    printDetails: true,
  },
});

const CLASS_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
const ERRNO_CODE = /^E[A-Z0-9_]{1,31}$/;

/**
 * The kind of a thrown value (see InternalErrorDetails): the class name
 * only when it is a plain identifier, the errno code only when it looks
 * like one, so nothing of the input can pass through either.
 */
export function errorKind(error: unknown): string {
  if (!(error instanceof Error)) return error === null ? 'null' : typeof error;
  const name = CLASS_NAME.test(error.name) ? error.name : 'Error';
  const code = (error as { readonly code?: unknown }).code;
  return typeof code === 'string' && ERRNO_CODE.test(code) ? `${name} ${code}` : name;
}

/** The refusal an exception that is not one becomes; it may look at the error's kind, never its text. */
export type RefusalFallback = (error: unknown) => Refusal;

/** How a library boundary lets refusals out (see docs/refusals.md#the-refusal-object). */
export interface GuardOptions {
  /** What any other exception becomes (default: `internal_error`). */
  readonly fallback?: RefusalFallback;
  /**
   * Only refusals this accepts leave as they are; any other refusal becomes
   * `fallback` too (a domain that hands out its own table's codes only).
   */
  readonly accept?: (refusal: Refusal) => boolean;
  /** Private domains: every refusal leaves `redacted()`, without location, hint or printed details. */
  readonly redact?: boolean;
}

const internal: RefusalFallback = (error) =>
  refuseInternal('internal_error', { details: { error_kind: errorKind(error) } });

/**
 * The one conversion of a caught exception into a refusal: a refusal stays
 * itself (when accepted), anything else (a bug, an unexpected errno, a
 * library throwing with a path in its text) becomes the fallback, whose
 * message is fixed. The original error's text is dropped on purpose.
 */
export function toRefusal(error: unknown, options: RefusalFallback | GuardOptions = {}): Refusal {
  const {
    fallback = internal,
    accept,
    redact = false,
  } = typeof options === 'function' ? { fallback: options } : options;
  const refusal =
    error instanceof Refusal && (accept === undefined || accept(error)) ? error : fallback(error);
  return redact ? refusal.redacted() : refusal;
}

/**
 * Runs `work` so that only refusals leave it: any other exception becomes
 * `fallback` (see toRefusal). Given options, it can also keep only a domain's
 * own refusals and redact every one that leaves (the private domains).
 */
export function guardRefusals<T>(work: () => T, options?: RefusalFallback | GuardOptions): T {
  try {
    return work();
  } catch (error: unknown) {
    throw toRefusal(error, options);
  }
}

/** The asynchronous form of `guardRefusals`. */
export async function guardRefusalsAsync<T>(
  work: () => Promise<T>,
  options?: RefusalFallback | GuardOptions,
): Promise<T> {
  try {
    return await work();
  } catch (error: unknown) {
    throw toRefusal(error, options);
  }
}
