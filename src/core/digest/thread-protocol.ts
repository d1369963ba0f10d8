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
 * (docs/performance.md, "A chunk hashed twice").
 */
export function nextRequestSource(control: string, index: number): string {
  return `function nextRequest(seen) {
  for (;;) {
    const now = Atomics.load(${control}, ${index});
    if (now !== seen) return now;
    Atomics.wait(${control}, ${index}, seen);
  }
}`;
}

/** A hashing thread that does not answer in this long is taken as broken: its work fails (never hangs). */
export const ANSWER_TIMEOUT_MS = 60_000;
/** A hashing thread not running after this long is not used: the caller hashes in line instead. */
const START_TIMEOUT_MS = 10_000;

/**
 * Starts a hashing thread from CommonJS `source` (no file to resolve at run
 * time, in the build or under a test runner) and blocks until it stores 1 at
 * `control[ready]`. It never keeps the process alive; `onError` is told when
 * it fails later. Undefined when it did not start in time (it is ended).
 */
export function startHashWorker(
  source: string,
  workerData: unknown,
  control: Int32Array,
  ready: number,
  onError: () => void,
): Worker | undefined {
  // No flags of the parent (`--input-type=module` would make the source a module without `require`).
  const worker = new Worker(source, { eval: true, execArgv: [], workerData });
  worker.unref();
  worker.on('error', onError);
  // Blocking is what the callers do anyway; the thread starts on its own.
  if (Atomics.wait(control, ready, 0, START_TIMEOUT_MS) !== 'timed-out') return worker;
  void worker.terminate();
  return undefined;
}
