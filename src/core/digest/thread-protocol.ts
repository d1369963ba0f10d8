import { Worker } from 'node:worker_threads';

/**
 * The wait a hashing thread makes for its next request, as source text for
 * the worker scripts (overlapped.ts, hash-threads.ts). The caller stores the
 * request's number, then notifies. When the caller is preempted between the
 * two, the thread may already have seen the number, done the request and
 * gone back to waiting; the late notify then wakes it with the number
 * unchanged. A wake-up is therefore never taken as a request: the thread
 * reads the number again and waits again until it changed. Taking it as one
 * did the same request twice — a chunk hashed twice, a valid file refused
 * (docs/performance.md, "A chunk hashed twice"). It checks `SPIN_LOADS`
 * times before it sleeps: the next request usually comes within that.
 */
export function nextRequestSource(control: string, index: number): string {
  return `function nextRequest(seen) {
  for (;;) {
    for (let spin = 0; ; spin += 1) {
      const now = Atomics.load(${control}, ${index});
      if (now !== seen) return now;
      if (spin >= ${SPIN_LOADS}) break;
    }
    Atomics.wait(${control}, ${index}, seen);
  }
}`;
}

/**
 * How often a waiting thread checks the other's answer before it sleeps
 * (about 75 µs here, the hash of one 128 KiB chunk): a sleep and a wake-up
 * across cores cost a virtual machine tens of microseconds each, more than
 * the wait they end (docs/performance.md, "Waking the hashing thread").
 */
export const SPIN_LOADS = 10_000;
/** A hashing thread that does not answer in this long is taken as broken: its work fails (never hangs). */
export const ANSWER_TIMEOUT_MS = 60_000;
/** A hashing thread not running after this long is not used: the caller hashes in line instead. */
const START_TIMEOUT_MS = 10_000;

/**
 * Starts a hashing thread from CommonJS `source` (no file to resolve at run
 * time, in the build or under a test runner) and returns at once: the thread
 * boots on another core while the caller goes on. `running` tells whether it
 * stored 1 at `control[ready]`, blocking the first time until it did or until
 * the start timeout (then it is ended and never used). It never keeps the
 * process alive; `onError` is told when it fails later.
 */
export function startHashWorker(
  source: string,
  workerData: unknown,
  control: Int32Array,
  ready: number,
  onError: () => void,
): StartedWorker {
  // No flags of the parent (`--input-type=module` would make the source a module without `require`).
  const worker = new Worker(source, { eval: true, execArgv: [], workerData });
  worker.unref();
  worker.on('error', onError);
  const startedAt = Date.now();
  let answer: boolean | undefined;
  return {
    startedYet: () => answer === true || (answer === undefined && Atomics.load(control, ready) === 1),
    running: () => {
      if (answer !== undefined) return answer;
      const left = Math.max(0, START_TIMEOUT_MS - (Date.now() - startedAt));
      // Blocking is what the callers do anyway; by the time one asks, the thread has usually started.
      answer = Atomics.load(control, ready) === 1 || Atomics.wait(control, ready, 0, left) !== 'timed-out';
      if (!answer) void worker.terminate();
      return answer;
    },
    terminate: () => {
      void worker.terminate();
    },
  };
}

/** A hashing thread being started (see `startHashWorker`). */
export interface StartedWorker {
  /** Whether the thread started; blocks on the first call until it did or timed out. */
  readonly running: () => boolean;
  /** Whether the thread has started by now; never waits (false while it boots). */
  readonly startedYet: () => boolean;
  readonly terminate: () => void;
}
