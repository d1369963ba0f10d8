import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import type { HashedCopy } from './copy.js';
import type { Sha256Hex } from './sha256.js';
import { ANSWER_TIMEOUT_MS, nextRequestSource, startHashWorker } from './thread-protocol.js';

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
/** Control words: request and done sequence numbers, started, the descriptor, the outcome. */
const CONTROL_WORDS = 8;
const REQUEST = 0;
const DONE = 1;
const READY = 2;
const FD = 3;
const STATUS = 4;
const NUMBER_OFFSET = CONTROL_WORDS * 4;
/** Two float64 after the control words: the byte bound, and the bytes seen. */
const MAX = 0;
const BYTES = 1;
const DIGEST_OFFSET = NUMBER_OFFSET + 2 * 8;
const DIGEST_BYTES = 32;
const SHARED_BYTES = DIGEST_OFFSET + DIGEST_BYTES;

const STATUS_OK = 1;
const STATUS_EXCEEDED = 2;
const STATUS_READ_FAILED = 3;

/** The worker, as CommonJS source (see `startHashWorker`). */
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const { readSync } = require('node:fs');
const { shared, chunk } = workerData;
const control = new Int32Array(shared, 0, ${CONTROL_WORDS});
const numbers = new Float64Array(shared, ${NUMBER_OFFSET}, 2);
const digest = new Uint8Array(shared, ${DIGEST_OFFSET}, ${DIGEST_BYTES});
const buffer = Buffer.allocUnsafe(chunk);
let seen = 0;
${nextRequestSource('control', REQUEST)}
Atomics.store(control, ${READY}, 1);
Atomics.notify(control, ${READY});
for (;;) {
  seen = nextRequest(seen);
  let status = ${STATUS_OK};
  let bytes = 0;
  try {
    const fd = control[${FD}];
    const max = numbers[${MAX}];
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
    digest.set(hash.digest());
  } catch {
    status = ${STATUS_READ_FAILED};
  }
  numbers[${BYTES}] = bytes;
  Atomics.store(control, ${STATUS}, status);
  Atomics.store(control, ${DONE}, seen);
  Atomics.notify(control, ${DONE});
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

/** Exported for the regression test of a late wake-up; files go through `startHashFd`. */
export class FileHashThread {
  readonly #control: Int32Array;
  readonly #numbers: Float64Array;
  readonly #digest: Uint8Array;
  readonly #worker: Worker | undefined;
  #sequence = 0;
  #broken = false;
  busy = false;

  constructor() {
    const shared = new SharedArrayBuffer(SHARED_BYTES);
    this.#control = new Int32Array(shared, 0, CONTROL_WORDS);
    this.#numbers = new Float64Array(shared, NUMBER_OFFSET, 2);
    this.#digest = new Uint8Array(shared, DIGEST_OFFSET, DIGEST_BYTES);
    this.#worker = startHashWorker(WORKER_SOURCE, { shared, chunk: CHUNK }, this.#control, READY, () => {
      this.#broken = true;
    });
    if (this.#worker === undefined) this.#broken = true;
  }

  get broken(): boolean {
    return this.#broken;
  }

  start(fd: number, maxBytes: number): void {
    this.busy = true;
    this.#control[FD] = fd;
    this.#numbers[MAX] = maxBytes;
    this.#sequence = (this.#sequence + 1) | 0;
    Atomics.store(this.#control, REQUEST, this.#sequence);
    Atomics.notify(this.#control, REQUEST);
  }

  /** Blocks until the file started last is hashed; throws `HashReadFailed` when it could not be. */
  result(): HashedCopy {
    const control = this.#control;
    const deadline = Date.now() + ANSWER_TIMEOUT_MS;
    try {
      for (;;) {
        const done = Atomics.load(control, DONE);
        if (done === this.#sequence) break;
        if (this.#broken || Date.now() > deadline) {
          this.#giveUp();
          throw new HashReadFailed('the hashing thread did not answer');
        }
        Atomics.wait(control, DONE, done, 100);
      }
    } finally {
      this.busy = false;
    }
    const status = Atomics.load(control, STATUS);
    if (status === STATUS_READ_FAILED) throw new HashReadFailed('reading the file failed');
    const hex = Buffer.from(this.#digest).toString('hex') as Sha256Hex;
    return { hex, bytes: this.#numbers[BYTES] ?? 0, exceeded: status === STATUS_EXCEEDED };
  }

  /** A notify with no new request (see `HashThread.wakeWithoutRequest` in overlapped.ts). */
  wakeWithoutRequest(): void {
    Atomics.notify(this.#control, REQUEST);
  }

  #giveUp(): void {
    this.#broken = true;
    void this.#worker?.terminate();
  }
}

/** A file being hashed on another thread; `result` blocks until it is done. */
export interface PendingHash {
  readonly result: () => HashedCopy;
}

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

function freeThread(): FileHashThread | undefined {
  for (let at = threads.length - 1; at >= 0; at -= 1) {
    if (threads[at]?.broken === true && threads[at]?.busy === false) threads.splice(at, 1);
  }
  const idle = threads.slice(0, wanted).find((thread) => !thread.busy && !thread.broken);
  if (idle !== undefined) return idle;
  if (threads.length >= wanted) return undefined;
  const started = new FileHashThread();
  threads.push(started);
  return started.broken ? undefined : started;
}

/** Starts the threads `setHashThreads` asks for, if they are not running yet. */
export function startHashThreads(): void {
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
 * Starts hashing the regular file open as `fd` (from offset 0, up to the
 * first chunk beyond `maxBytes`: a longer file shows as `exceeded`) on a
 * free thread and returns at once; undefined when no thread is free (the
 * caller hashes it itself). The descriptor must stay open until `result`
 * returned.
 */
export function startHashFd(fd: number, maxBytes: number): PendingHash | undefined {
  const thread = freeThread();
  if (thread === undefined) return undefined;
  thread.start(fd, maxBytes);
  return { result: () => thread.result() };
}

/** How many hashing threads are running (for tests bounding them). */
export function hashThreadsRunning(): number {
  return threads.filter((thread) => !thread.broken).length;
}
