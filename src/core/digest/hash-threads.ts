import { availableParallelism } from 'node:os';
import type { HashedCopy } from './copy.js';
import type { Sha256Hex } from './sha256.js';
import {
  ANSWER_TIMEOUT_MS,
  nextRequestSource,
  type StartedWorker,
  startHashWorker,
} from './thread-protocol.js';

/**
 * Whole files hashed on other threads while the calling thread goes on: a
 * file that is only verified (a no-op rerun, a dry run) is handed to a free
 * hashing thread by descriptor, and the caller opens and checks the next
 * files, hashing them itself when every thread is busy. Files are
 * independent, so two of them use both cores (docs/performance.md, "Hashing
 * on both cores"). The call that waits for a result stays synchronous
 * (`Atomics.wait`), like `copyFdHashingOverlapped`.
 *
 * A thread reads with positional reads from offset 0 and never moves the
 * descriptor's offset, so even a thread given up as broken (and still
 * reading a descriptor whose number was reused) disturbs no other reader.
 * Each thread owns one 1 MiB buffer: memory does not grow with the files.
 */

const CHUNK = 1 << 20;
/**
 * Files a thread holds at once, done in order. More than one keeps it busy
 * while the caller opens the next bundles: a file it finished frees its slot
 * before the caller asks for the result (docs/performance.md, "Hashing on
 * both cores").
 */
export const FILES_PER_THREAD = 3;
/** Control words: requests made, requests done, started. */
const CONTROL_WORDS = 4;
const REQUEST = 0;
const DONE = 1;
const READY = 2;
/** Per slot, after the control words: the descriptor and the outcome. */
const SLOT_WORDS = 2;
const FD = 0;
const STATUS = 1;
const NUMBER_OFFSET = (CONTROL_WORDS + SLOT_WORDS * FILES_PER_THREAD) * 4;
/** Per slot, two float64: the byte bound, and the bytes seen. */
const MAX = 0;
const BYTES = 1;
const DIGEST_OFFSET = NUMBER_OFFSET + 2 * 8 * FILES_PER_THREAD;
const DIGEST_BYTES = 32;
const SHARED_BYTES = DIGEST_OFFSET + DIGEST_BYTES * FILES_PER_THREAD;

const STATUS_OK = 1;
const STATUS_EXCEEDED = 2;
const STATUS_READ_FAILED = 3;

/** The worker, as CommonJS source (see `startHashWorker`). Request n uses slot n % FILES_PER_THREAD. */
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const { readSync } = require('node:fs');
const { shared, chunk } = workerData;
const control = new Int32Array(shared, 0, ${CONTROL_WORDS + SLOT_WORDS * FILES_PER_THREAD});
const numbers = new Float64Array(shared, ${NUMBER_OFFSET}, ${2 * FILES_PER_THREAD});
const digests = new Uint8Array(shared, ${DIGEST_OFFSET}, ${DIGEST_BYTES * FILES_PER_THREAD});
const buffer = Buffer.allocUnsafe(chunk);
${nextRequestSource('control', REQUEST)}
function hashSlot(slot) {
  const words = ${CONTROL_WORDS} + slot * ${SLOT_WORDS};
  let status = ${STATUS_OK};
  let bytes = 0;
  try {
    const fd = control[words + ${FD}];
    const max = numbers[slot * 2 + ${MAX}];
    const hash = createHash('sha256');
    for (;;) {
      const read = readSync(fd, buffer, 0, chunk, bytes);
      if (read === 0) break;
      if (bytes + read > max) {
        bytes += read;
        status = ${STATUS_EXCEEDED};
        break;
      }
      hash.update(buffer.subarray(0, read));
      bytes += read;
    }
    digests.set(hash.digest(), slot * ${DIGEST_BYTES});
  } catch {
    status = ${STATUS_READ_FAILED};
  }
  numbers[slot * 2 + ${BYTES}] = bytes;
  Atomics.store(control, words + ${STATUS}, status);
}
Atomics.store(control, ${READY}, 1);
Atomics.notify(control, ${READY});
let seen = 0;
let done = 0;
for (;;) {
  seen = nextRequest(seen);
  while (done !== seen) {
    done = (done + 1) | 0;
    hashSlot((done >>> 0) % ${FILES_PER_THREAD});
    Atomics.store(control, ${DONE}, done);
    Atomics.notify(control, ${DONE});
  }
}
`;

/**
 * Reading the file failed on its hashing thread (or the thread broke): the
 * caller treats it as it treats a failing read of its own.
 */
export class HashReadFailed extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HashReadFailed';
  }
}

/**
 * One whole-file hashing thread holding up to `FILES_PER_THREAD` files,
 * done in the order given. A file it finished frees its slot at once, before
 * its caller asks for the result: `poll` copies the outcome out of shared
 * memory, so the next file can start while the bundle of the last one waits
 * its turn to be finished (bundles finish in order, several in flight).
 * Exported for the regression tests; files go through `startHashFd`.
 */
export class FileHashThread {
  readonly #control: Int32Array;
  readonly #numbers: Float64Array;
  readonly #digests: Uint8Array;
  readonly #worker: StartedWorker;
  /** The number of the request made last (request n uses slot n % FILES_PER_THREAD). */
  #requested = 0;
  #broken = false;
  /** The files in the worker's hands, oldest first, until their outcomes are copied out. */
  readonly #current: { readonly number: number; readonly outcome: FileOutcome }[] = [];
  /** The file handed over last, once settled: what `result` gives again. */
  #last: FileOutcome = { failure: new HashReadFailed('no file was started') };

  constructor() {
    const shared = new SharedArrayBuffer(SHARED_BYTES);
    this.#control = new Int32Array(shared, 0, CONTROL_WORDS + SLOT_WORDS * FILES_PER_THREAD);
    this.#numbers = new Float64Array(shared, NUMBER_OFFSET, 2 * FILES_PER_THREAD);
    this.#digests = new Uint8Array(shared, DIGEST_OFFSET, DIGEST_BYTES * FILES_PER_THREAD);
    this.#worker = startHashWorker(WORKER_SOURCE, { shared, chunk: CHUNK }, this.#control, READY, () => {
      this.#broken = true;
    });
  }

  /** The thread failed, or did not start (asking blocks until it started or timed out). */
  get broken(): boolean {
    return this.#broken || !this.#worker.running();
  }

  /** Running now, without waiting for it to start: false while it boots. */
  get up(): boolean {
    return !this.#broken && this.#worker.startedYet();
  }

  /** Every slot holds a file not yet done (outcomes of finished ones are copied out first). */
  get busy(): boolean {
    this.poll();
    return this.#current.length >= FILES_PER_THREAD;
  }

  /** Files handed over and not yet done. */
  get holding(): number {
    this.poll();
    return this.#current.length;
  }

  /** Hands the file open as `fd` to the worker; the thread must not be busy. */
  start(fd: number, maxBytes: number): PendingHash {
    if (this.busy) throw new Error('every slot of the hashing thread is taken');
    uncollected += 1;
    const number = (this.#requested + 1) | 0;
    const slot = (number >>> 0) % FILES_PER_THREAD;
    const outcome: FileOutcome = {};
    handedOver.add(outcome);
    this.#current.push({ number, outcome });
    this.#control[CONTROL_WORDS + slot * SLOT_WORDS + FD] = fd;
    this.#numbers[slot * 2 + MAX] = maxBytes;
    this.#requested = number;
    Atomics.store(this.#control, REQUEST, number);
    Atomics.notify(this.#control, REQUEST);
    const ready = (): boolean => {
      this.poll();
      return outcome.hashed !== undefined || outcome.failure !== undefined;
    };
    return {
      result: () => this.#resultOf(outcome),
      ready,
      settled: () => this.#settled(number, ready),
    };
  }

  /**
   * Resolves once request `number` is done, without blocking the calling
   * thread (`Atomics.waitAsync`): it may inspect other bundles meanwhile.
   * Never rejects; a thread that broke or stays silent resolves it too, and
   * `result` then reports the failure as it would have.
   */
  async #settled(number: number, ready: () => boolean): Promise<void> {
    const deadline = Date.now() + ANSWER_TIMEOUT_MS;
    while (!ready() && !this.#broken && Date.now() <= deadline) {
      const done = Atomics.load(this.#control, DONE);
      if (((done - number) | 0) >= 0) continue;
      const waited = waitAsync(this.#control, DONE, done, 100);
      if (!waited.async) continue;
      // A pending `waitAsync` does not keep Node's event loop alive (nor does
      // the thread, unreferenced): a timer does, or the process could end
      // here with the run unfinished.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        waited.value,
        new Promise((resolve) => {
          timer = setTimeout(resolve, 100);
        }),
      ]);
      clearTimeout(timer);
    }
  }

  /** Copies the outcomes of the files the worker is done with out of shared memory; never waits. */
  poll(): void {
    const done = Atomics.load(this.#control, DONE);
    for (;;) {
      const oldest = this.#current[0];
      // Numbers wrap at 2^31: "done" is whether `done` is at or past the request.
      if (oldest === undefined || ((done - oldest.number) | 0) < 0) return;
      this.#collect(oldest.number, oldest.outcome);
    }
  }

  /** Blocks until the file started last is hashed; throws `HashReadFailed` when it could not be. */
  result(): HashedCopy {
    const last = this.#current[this.#current.length - 1];
    return this.#resultOf(last === undefined ? this.#last : last.outcome);
  }

  #resultOf(outcome: FileOutcome): HashedCopy {
    // Asked for: its caller closes the descriptor now (see MAX_UNCOLLECTED).
    if (handedOver.delete(outcome)) uncollected -= 1;
    const held = this.#current.find((file) => file.outcome === outcome);
    if (held !== undefined) this.#await(held.number);
    if (outcome.failure !== undefined) throw outcome.failure;
    if (outcome.hashed === undefined) throw new HashReadFailed('the hashing thread did not answer');
    return outcome.hashed;
  }

  /** Waits until request `number` is done and collects every outcome up to it; a silent thread fails them all. */
  #await(number: number): void {
    const control = this.#control;
    const deadline = Date.now() + ANSWER_TIMEOUT_MS;
    for (;;) {
      const done = Atomics.load(control, DONE);
      if (((done - number) | 0) >= 0) break;
      if (this.#broken || Date.now() > deadline) {
        this.#giveUp();
        for (const file of this.#current.splice(0))
          file.outcome.failure = new HashReadFailed('the hashing thread did not answer');
        return;
      }
      Atomics.wait(control, DONE, done, 100);
    }
    this.poll();
  }

  #collect(number: number, outcome: FileOutcome): void {
    const slot = (number >>> 0) % FILES_PER_THREAD;
    const status = Atomics.load(this.#control, CONTROL_WORDS + slot * SLOT_WORDS + STATUS);
    if (status === STATUS_READ_FAILED) outcome.failure = new HashReadFailed('reading the file failed');
    else
      outcome.hashed = {
        hex: Buffer.from(this.#digests.subarray(slot * DIGEST_BYTES, (slot + 1) * DIGEST_BYTES)).toString(
          'hex',
        ) as Sha256Hex,
        bytes: this.#numbers[slot * 2 + BYTES] ?? 0,
        exceeded: status === STATUS_EXCEEDED,
      };
    this.#current.shift();
    this.#last = outcome;
  }

  /** A notify with no new request (see `HashThread.wakeWithoutRequest` in overlapped.ts). */
  wakeWithoutRequest(): void {
    Atomics.notify(this.#control, REQUEST);
  }

  #giveUp(): void {
    this.#broken = true;
    this.#worker.terminate();
  }
}

/** What became of one file handed to a thread, once copied out of shared memory. */
interface FileOutcome {
  hashed?: HashedCopy;
  failure?: HashReadFailed;
}

/**
 * A file being hashed on another thread; `result` blocks until it is done,
 * `ready` says whether it is (never waits), `settled` resolves when it is
 * (never blocks, never rejects).
 */
export interface PendingHash {
  readonly result: () => HashedCopy;
  readonly ready: () => boolean;
  readonly settled: () => Promise<void>;
}

/**
 * `Atomics.waitAsync` (in Node since 16; the ES2024 library types it, this
 * project's ES2023 does not).
 */
const waitAsync = (
  Atomics as unknown as {
    readonly waitAsync: (
      array: Int32Array,
      index: number,
      value: number,
      timeoutMs: number,
    ) =>
      | { readonly async: false; readonly value: string }
      | { readonly async: true; readonly value: Promise<string> };
  }
).waitAsync;

/**
 * Threads beside the caller's: one fewer than the cores (the caller hashes
 * too when they are all busy), at least one (`setHashThreads` overrides it).
 */
let wanted = Math.max(1, availableParallelism() - 1);
const threads: FileHashThread[] = [];

/** How many hashing threads serve the process from now on (0: every file is hashed by the caller). */
export function setHashThreads(count: number): void {
  wanted = Math.max(0, Math.floor(count));
}

/**
 * Files handed to threads whose callers have not asked for the result yet,
 * at most, across threads: each keeps its descriptor open until then, and a
 * thread takes a new file as soon as its last is done, so without this bound
 * every large file of every bundle in flight could be open at once.
 */
const MAX_UNCOLLECTED = 8;
let uncollected = 0;
/** The outcomes counted in `uncollected`. */
const handedOver = new WeakSet<FileOutcome>();

function freeThread(): FileHashThread | undefined {
  if (uncollected >= MAX_UNCOLLECTED) return undefined;
  for (let at = threads.length - 1; at >= 0; at -= 1) {
    if (threads[at]?.broken === true && threads[at]?.holding === 0) threads.splice(at, 1);
  }
  const room = threads
    .slice(0, wanted)
    .filter((thread) => !thread.broken && !thread.busy)
    .sort((a, b) => a.holding - b.holding)[0];
  if (room !== undefined) return room;
  if (threads.length >= wanted) return undefined;
  const started = new FileHashThread();
  threads.push(started);
  return started.broken ? undefined : started;
}

/**
 * Starts the threads `setHashThreads` asks for, if they are not running yet;
 * without `confirm`, returns before they are up (see `prestartHashThreads`).
 */
export function startHashThreads(confirm = true): void {
  if (!confirm) {
    while (threads.length < wanted) threads.push(new FileHashThread());
    return;
  }
  while (threads.filter((thread) => !thread.broken).length < wanted) {
    const started = new FileHashThread();
    threads.push(started);
    if (started.broken) return;
  }
}

/** Whether `startHashFd` would find a thread now. */
export function hashThreadFree(): boolean {
  return freeThread() !== undefined;
}

/**
 * `hashThreadFree` without waiting for a thread to start: false while the
 * threads boot, and no thread is started. For work that is only worth
 * handing over to a thread that is already there (a small run must not wait
 * 30–50 ms for a thread it may never need).
 */
export function hashThreadUpAndFree(): boolean {
  return (
    uncollected < MAX_UNCOLLECTED && threads.slice(0, wanted).some((thread) => thread.up && !thread.busy)
  );
}

/**
 * Starts hashing the regular file open as `fd` (from offset 0, up to the
 * first chunk beyond `maxBytes`: a longer file shows as `exceeded`) on a
 * free thread and returns at once; undefined when no thread is free (the
 * caller hashes it itself). The descriptor must stay open until `result`
 * returned.
 */
export function startHashFd(fd: number, maxBytes: number): PendingHash | undefined {
  const thread = freeThread();
  if (thread === undefined) return undefined;
  return thread.start(fd, maxBytes);
}

/** How many hashing threads are running (for tests bounding them). */
export function hashThreadsRunning(): number {
  return threads.filter((thread) => !thread.broken).length;
}
