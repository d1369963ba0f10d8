import { Refusal } from '../../core/refusal/index.js';

/**
 * Where the checks after the schema step (references, bindings, typed
 * values, links, SQL) put what they find, so that one run reports every
 * fault of a resource rather than the first (docs/contracts.md#reading-an-error).
 * Each independent check runs through `check`: a refusal it throws is kept
 * and the checks after it go on, with `undefined` in place of what it would
 * have returned (a caller skips what depends on it, so one fault is not
 * reported again as others).
 *
 * A reference that could mean a refused file is not a fault of this
 * resource: `isBlocked`, asked after each refusal, says whether it was one,
 * and `blocked` then tells the project. Anything that is not a refusal, or
 * an internal one, is a bug: it is thrown at once, never kept.
 */
export class Faults {
  readonly #found: Refusal[] = [];
  #blocked = false;

  constructor(private readonly isBlocked: () => boolean = () => false) {}

  check<T>(work: () => T): T | undefined {
    try {
      return work();
    } catch (error: unknown) {
      if (!(error instanceof Refusal) || error.category === 'internal') throw error;
      if (this.isBlocked()) this.#blocked = true;
      else this.#found.push(error);
      return undefined;
    }
  }

  /** The faults kept so far, in the order the checks ran. */
  get found(): readonly Refusal[] {
    return this.#found;
  }

  /** Whether a check met a reference that could mean a refused file. */
  get blocked(): boolean {
    return this.#blocked;
  }
}

/** Where a check that may fault reports: a `Faults`, or nothing (the first refusal is thrown). */
export interface FaultSink {
  check<T>(work: () => T): T | undefined;
}

/** Checks that throw their first refusal, for callers that want exactly that. */
export const THROW_FIRST: FaultSink = { check: (work) => work() };
