import { untilAborted } from '../core/steps/index.js';
import { type FaultCall, type FaultPoint, Faults, type ScaffoldFaults } from './faults.js';
import { refuseScaffold } from './refusals.js';
import type { ScaffoldStage } from './result.js';

/**
 * What one run carries between its steps: the stage it is in (for the
 * result), the armed test faults if any, and the interruption signal. Every
 * checkpoint yields to the event loop so that a SIGINT/SIGTERM handler can
 * run; before the rename an interruption stops the run there, between two
 * complete steps, and nothing is unsealed, renamed or deleted.
 */
export class RunContext {
  stage: ScaffoldStage = 'preflight';
  readonly #faults: Faults | undefined;
  readonly #signal: AbortSignal | undefined;

  constructor(signal: AbortSignal | undefined, faults: ScaffoldFaults | undefined) {
    this.#signal = signal;
    this.#faults = faults === undefined ? undefined : new Faults(faults);
  }

  get crossDeviceFault(): boolean {
    return this.#faults?.crossDevice ?? false;
  }

  errnoFor(call: FaultCall): string | undefined {
    return this.#faults?.errnoFor(call);
  }

  /** A checkpoint before publication: interruption stops the run here. */
  async checkpoint(point: FaultPoint): Promise<void> {
    await yieldToEventLoop();
    this.#throwIfInterrupted();
    await this.#faults?.at(point, (wait) => this.#waitOrInterrupt(wait));
    this.#throwIfInterrupted();
  }

  /** A checkpoint after the rename: the output is visible, so the run completes whatever arrives. */
  async checkpointPublished(point: FaultPoint): Promise<void> {
    await this.#faults?.at(point, (wait) => wait);
  }

  #throwIfInterrupted(): void {
    if (this.#signal?.aborted === true) throw refuseScaffold('interrupted');
  }

  async #waitOrInterrupt(wait: Promise<void>): Promise<void> {
    await untilAborted(this.#signal, wait);
    this.#throwIfInterrupted();
  }
}

/** A macrotask turn: pending signals are dispatched in the event loop's poll phase, before it. */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
