import { FsError } from '../fs/index.js';

/**
 * Step boundaries for a write that SIGINT or SIGTERM may stop, and the
 * test-only faults that can be armed at them. A domain names its points;
 * a run passes each one in order. At every boundary the event loop turns
 * (a pending signal's handler runs), then an aborted run stops with the
 * domain's own refusal, so an interruption lands between two complete
 * steps and the domain can remove exactly what it created
 * (docs/editions.md#the-test-only-fault-hook).
 */

/** One armed fault: fail at a point (an I/O error) or pause there until released; `nth` picks the Nth time. */
export interface StepFault<P extends string> {
  readonly action: 'fail' | 'pause';
  readonly point: P;
  readonly nth?: number | undefined;
}

/** Called at a `pause` fault; the run goes on when it settles. `done` aborts once the run goes on without it. */
export type StepPause<P extends string> = (point: P, nth: number, done: AbortSignal) => Promise<void> | void;

/** The `faults` option of a domain's interruptible write. Production callers leave it out. */
export interface StepFaults<P extends string> {
  readonly rules: readonly StepFault<P>[];
  /** Without it a `pause` fault goes on at once. */
  readonly pause?: StepPause<P> | undefined;
}

const RULE = /^(fail|pause)@([a-z_]+)(?:#([1-9][0-9]{0,3}))?$/;

/**
 * The text form of faults: comma-separated `fail@POINT[#N]` and
 * `pause@POINT[#N]`, POINT one of `points`. Undefined when a rule cannot be
 * read (the caller says why, in its own terms); empty rules are skipped.
 */
export function parseStepFaults<P extends string>(
  spec: string,
  points: readonly P[],
): readonly StepFault<P>[] | undefined {
  const rules: StepFault<P>[] = [];
  for (const token of spec.split(',').map((part) => part.trim())) {
    if (token === '') continue;
    const match = RULE.exec(token);
    const action = match?.[1];
    const point = points.find((known) => known === match?.[2]);
    if (point === undefined || (action !== 'fail' && action !== 'pause')) return undefined;
    const nth = match?.[3] === undefined ? undefined : Number(match[3]);
    rules.push({ action, point, nth });
  }
  return rules;
}

/** Whether `value` has the shape of `StepFaults` over `points` (the library boundary is strict). */
export function isStepFaults<P extends string>(value: unknown, points: readonly P[]): value is StepFaults<P> {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return (
    Object.keys(record).every((key) => key === 'rules' || key === 'pause') &&
    Array.isArray(record.rules) &&
    record.rules.every((rule: unknown) => isRule(rule, points)) &&
    (record.pause === undefined || typeof record.pause === 'function')
  );
}

function isRule<P extends string>(value: unknown, points: readonly P[]): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const rule = value as Record<string, unknown>;
  return (
    (rule.action === 'fail' || rule.action === 'pause') &&
    (points as readonly unknown[]).includes(rule.point) &&
    (rule.nth === undefined || (Number.isSafeInteger(rule.nth) && Number(rule.nth) >= 1))
  );
}

export interface StepsOptions<P extends string> {
  /** Aborting stops the run at its next boundary. */
  readonly signal?: AbortSignal | undefined;
  readonly faults?: StepFaults<P> | undefined;
  /** The refusal an interrupted run stops with: the domain's own code. */
  readonly interrupted: () => Error;
}

/** One run's boundaries: interruption, and the armed faults with how often each point was reached. */
export class Steps<P extends string> {
  readonly #signal: AbortSignal | undefined;
  readonly #faults: StepFaults<P> | undefined;
  readonly #interrupted: () => Error;
  readonly #counts = new Map<P, number>();

  constructor(options: StepsOptions<P>) {
    this.#signal = options.signal;
    this.#faults = options.faults;
    this.#interrupted = options.interrupted;
  }

  /** Whether the run was asked to stop. */
  get aborted(): boolean {
    return this.#signal?.aborted === true;
  }

  /**
   * A boundary: lets a pending signal be delivered, stops an interrupted
   * run, then fails or pauses where a fault says so (a pause ends early
   * when the run is interrupted meanwhile).
   */
  async at(point: P): Promise<void> {
    await yieldToEventLoop();
    this.#stopIfInterrupted();
    const nth = (this.#counts.get(point) ?? 0) + 1;
    this.#counts.set(point, nth);
    for (const rule of this.#faults?.rules ?? []) {
      if (rule.point !== point || (rule.nth !== undefined && rule.nth !== nth)) continue;
      if (rule.action === 'fail') throw FsError.synthetic('EIO', 'fault');
      const done = new AbortController();
      try {
        await untilAborted(this.#signal, Promise.resolve(this.#faults?.pause?.(point, nth, done.signal)));
      } finally {
        // The pause's own listeners go too, so nothing keeps the process alive.
        done.abort();
      }
      this.#stopIfInterrupted();
    }
  }

  #stopIfInterrupted(): void {
    if (this.aborted) throw this.#interrupted();
  }
}

/** A macrotask turn: pending signals are dispatched in the event loop's poll phase, before it. */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Waits for `wait`, or until `signal` aborts, whichever comes first: a
 * paused step must not hold an interruption back. The listener is removed
 * either way, so a long run does not gather one per wait.
 */
export async function untilAborted(signal: AbortSignal | undefined, wait: Promise<void>): Promise<void> {
  if (signal === undefined) return wait;
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<void>((resolve) => {
    onAbort = () => resolve();
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    await Promise.race([wait, aborted]);
  } finally {
    if (onAbort !== undefined) signal.removeEventListener('abort', onAbort);
  }
}

/**
 * The step boundaries of a tree published through one staging folder and one
 * rename (`edition new`, `evidence synth`), in run order: preflight, the
 * staging folder made, each folder and file written, everything fsynced, and
 * just before the rename. One list, so that the two commands' fault hooks
 * and interruption points stay the same protocol (docs/editions.md and
 * docs/evidence.md, "the test-only fault hook").
 */
export const STAGED_TREE_STEPS = [
  'after_preflight',
  'after_staging',
  'after_dir',
  'after_file',
  'after_fsync',
  'before_rename',
] as const;
export type StagedTreeStep = (typeof STAGED_TREE_STEPS)[number];
