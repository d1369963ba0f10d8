import { readSync, writeSync } from 'node:fs';
import { type CopyLimits, CopyTargetFailed, copyFdHashing, type HashedCopy } from './copy.js';
import {
  type PendingHash,
  startHashFd as poolStart,
  hashThreadFree as poolThreadFree,
  startHashThreads,
} from './hash-threads.js';
import type { Sha256Hex } from './sha256.js';
import {
  ANSWER_TIMEOUT_MS,
  nextRequestSource,
  type StartedWorker,
  startHashWorker,
} from './thread-protocol.js';

/**
 * `copyFdHashing` with the SHA-256 on a second thread: while the calling
 * thread writes a chunk (and reads the next), a worker thread hashes the
 * same chunk from shared memory. Two 128 KiB slots alternate; a slot is reused
 * only after the worker is done with it, so the digest still describes
 * exactly the bytes written and no byte is read twice. The call stays
 * synchronous (the caller blocks with `Atomics.wait`, which Node allows on
 * the main thread). One worker serves the process, started on first use and
 * never keeping the process alive. Measured faster than hashing in line on
 * two cores (docs/performance.md, "Hashing beside writing").
 */
// 128 KiB: both slots stay in a core's L2 cache, so the read's copy into a
// slot, the write's copy out of it and the hash all hit the cache; with 1 MiB
// slots each went to memory, and a publication to tmpfs took 1.15× as long
// (docs/performance.md, "Smaller slots").
export const OVERLAP_CHUNK_BYTES = 1 << 17;
const CHUNK = OVERLAP_CHUNK_BYTES;
/** Below this size a copy hashes in line: the round trip to the thread would cost more than it saves. */
export const OVERLAP_MIN_BYTES = 64 * 1024;
/** Control words after the two slots: request and done sequence numbers, the request, started, failed. */
const CONTROL_WORDS = 8;
const DIGEST_BYTES = 32;
const REQUEST = 0;
const DONE = 1;
const OP = 2;
const SLOT = 3;
const LENGTH = 4;
const READY = 5;
const FAILED = 6;
const OP_UPDATE = 1;
const OP_FINISH = 2;
/** The worker, as CommonJS source (see `startHashWorker`). */
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const { buffer, chunk } = workerData;
const control = new Int32Array(buffer, 2 * chunk, ${CONTROL_WORDS});
const digest = new Uint8Array(buffer, 2 * chunk + ${CONTROL_WORDS * 4}, ${DIGEST_BYTES});
let hash = createHash('sha256');
let seen = 0;
${nextRequestSource('control', REQUEST)}
Atomics.store(control, ${READY}, 1);
Atomics.notify(control, ${READY});
for (;;) {
  seen = nextRequest(seen);
  try {
    if (control[${OP}] === ${OP_UPDATE}) {
      const start = control[${SLOT}] * chunk;
      hash.update(new Uint8Array(buffer, start, control[${LENGTH}]));
    } else {
      digest.set(hash.digest());
      hash = createHash('sha256');
    }
  } catch {
    Atomics.store(control, ${FAILED}, 1);
  }
  Atomics.store(control, ${DONE}, seen);
  Atomics.notify(control, ${DONE});
}
`;

/** Exported for the regression test of a late wake-up; copies use the one thread `hashThread` returns. */
export class HashThread {
  readonly #control: Int32Array;
  readonly #digest: Uint8Array;
  readonly slots: readonly [Buffer, Buffer];
  readonly #worker: StartedWorker;
  #sequence = 0;
  #broken = false;

  constructor() {
    const buffer = new SharedArrayBuffer(2 * CHUNK + CONTROL_WORDS * 4 + DIGEST_BYTES);
    this.#control = new Int32Array(buffer, 2 * CHUNK, CONTROL_WORDS);
    this.#digest = new Uint8Array(buffer, 2 * CHUNK + CONTROL_WORDS * 4, DIGEST_BYTES);
    this.slots = [Buffer.from(buffer, 0, CHUNK), Buffer.from(buffer, CHUNK, CHUNK)];
    this.#worker = startHashWorker(WORKER_SOURCE, { buffer, chunk: CHUNK }, this.#control, READY, () => {
      this.#broken = true;
    });
  }

  /** The thread failed, or did not start (asking blocks until it started or timed out). */
  get broken(): boolean {
    return this.#broken || !this.#worker.running();
  }

  /** Asks for `slot[0..length)` to be hashed; returns at once. */
  update(slot: 0 | 1, length: number): void {
    this.#request(OP_UPDATE, slot, length);
  }

  /** Waits for the last request to be done. */
  wait(): void {
    const control = this.#control;
    const deadline = Date.now() + ANSWER_TIMEOUT_MS;
    for (;;) {
      const done = Atomics.load(control, DONE);
      if (done === this.#sequence) {
        if (Atomics.load(control, FAILED) === 0) return;
        this.#broken = true;
        throw new Error('hash thread failed');
      }
      if (Date.now() > deadline) {
        this.#broken = true;
        throw new Error('hash thread did not answer');
      }
      Atomics.wait(control, DONE, done, 100);
    }
  }

  /**
   * Wakes the thread with no new request, as the late notify of an earlier
   * request does when the caller was preempted between its store and its
   * notify: the thread must only wait again (see thread-protocol.ts).
   */
  wakeWithoutRequest(): void {
    Atomics.notify(this.#control, REQUEST);
  }

  /** The digest of every byte hashed since the last finish; the hash starts over. */
  finish(): Sha256Hex {
    this.#request(OP_FINISH, 0, 0);
    this.wait();
    return Buffer.from(this.#digest).toString('hex') as Sha256Hex;
  }

  #request(op: number, slot: number, length: number): void {
    const control = this.#control;
    control[OP] = op;
    control[SLOT] = slot;
    control[LENGTH] = length;
    this.#sequence = (this.#sequence + 1) | 0;
    Atomics.store(control, REQUEST, this.#sequence);
    Atomics.notify(control, REQUEST);
  }
}

let thread: HashThread | undefined;
/** Set when a worker did not start: this process hashes in line from then on. */
let unavailable = false;

function hashThread(): HashThread | undefined {
  if (unavailable) return undefined;
  if (thread === undefined || thread.broken) {
    // The whole-file threads start with this one: a process starts its
    // threads (and their descriptors) once, whichever kind of copy comes first.
    startHashThreads();
    const started = new HashThread();
    if (started.broken) {
      unavailable = true;
      return undefined;
    }
    thread = started;
  }
  return thread;
}

/**
 * Starts every hashing thread of the process now without waiting for any:
 * they boot on the other core while the caller reads its configuration and
 * manifests, and are up when the first file comes (a wait for a thread to
 * start was 50 ms of a no-op rerun's main thread).
 */
export function prestartHashThreads(): void {
  if (unavailable || thread !== undefined) return;
  startHashThreads(false);
  thread = new HashThread();
}

/** Whether copies hash on the worker thread in this process (starting it if needed), or in line. */
export function overlappedHashingAvailable(): boolean {
  return hashThread() !== undefined;
}

/**
 * Copies `sourceFd` into `targetFd`, hashing on the worker thread while
 * writing; same contract as `copyFdHashing` (stops with `exceeded` as soon as
 * more than `maxBytes` were seen; the target then holds a truncated prefix).
 */
export function copyFdHashingOverlapped(
  sourceFd: number,
  targetFd: number,
  limits: CopyLimits = {},
): HashedCopy {
  return startCopyFdHashingOverlapped(sourceFd, targetFd, limits)();
}

/**
 * `copyFdHashingOverlapped` that returns once every byte is written, while
 * the worker may still hash the last chunk: the function it returns gives
 * the result, waiting for the worker then. The caller can meanwhile open
 * and copy a small file in line (a bundle's Markdown beside its data file),
 * instead of waiting (docs/performance.md, "Hashing beside writing"). The
 * next overlapped copy settles an unsettled one first, so the worker's hash
 * and slots are never shared; its result is kept for its caller.
 */
export function startCopyFdHashingOverlapped(
  sourceFd: number,
  targetFd: number,
  limits: CopyLimits = {},
): () => HashedCopy {
  settleOutstanding();
  const hasher = hashThread();
  if (hasher === undefined) {
    const copied = copyFdHashing(sourceFd, targetFd, limits);
    return () => copied;
  }
  const max = limits.maxBytes ?? Number.POSITIVE_INFINITY;
  let slot: 0 | 1 = 0;
  let bytes = 0;
  let pending = false;
  try {
    for (;;) {
      const buffer = hasher.slots[slot];
      const read = readSync(sourceFd, buffer, 0, CHUNK, null);
      if (read === 0) break;
      // The other slot's hash ran while this read (and the previous write) did.
      if (pending) hasher.wait();
      pending = false;
      if (bytes + read > max) {
        const exceeded: HashedCopy = { hex: hasher.finish(), bytes, exceeded: true };
        return () => exceeded;
      }
      bytes += read;
      hasher.update(slot, read);
      pending = true;
      let written = 0;
      try {
        while (written < read) written += writeSync(targetFd, buffer, written, read - written);
      } catch (error: unknown) {
        // The target failed, not the source (see CopyTargetFailed).
        throw new CopyTargetFailed(error);
      }
      slot = slot === 0 ? 1 : 0;
    }
  } catch (error: unknown) {
    // Leave the thread idle and its hash empty for the next copy.
    if (pending && !hasher.broken) {
      try {
        hasher.wait();
        hasher.finish();
      } catch {
        // Broken: the next copy starts a new thread.
      }
    }
    throw error;
  }
  const copy = outstandingCopy(hasher, bytes, pending);
  outstanding = copy;
  return () => copy.result();
}

/** A copy whose last chunk may still be hashing; `result` waits for it and finishes the hash once. */
interface OutstandingCopy {
  readonly result: () => HashedCopy;
}

let outstanding: OutstandingCopy | undefined;

function outstandingCopy(hasher: HashThread, bytes: number, pending: boolean): OutstandingCopy {
  let settled: { readonly copy: HashedCopy } | { readonly error: unknown } | undefined;
  const copy: OutstandingCopy = {
    result: () => {
      if (settled === undefined) {
        if (outstanding === copy) outstanding = undefined;
        try {
          if (pending) hasher.wait();
          settled = { copy: { hex: hasher.finish(), bytes, exceeded: false } };
        } catch (error: unknown) {
          settled = { error };
        }
      }
      if ('error' in settled) throw settled.error;
      return settled.copy;
    },
  };
  return copy;
}

/** Finishes the hash of a copy its caller has not asked for yet, keeping the result (or failure) for it. */
function settleOutstanding(): void {
  try {
    outstanding?.result();
  } catch {
    // Kept for the copy's own caller, who reports it.
  }
}

/**
 * Whether `startHashFd` would find a whole-file hashing thread free now
 * (src/core/digest/hash-threads.ts); starts the copy thread above with them.
 */
export function hashThreadFree(): boolean {
  hashThread();
  return poolThreadFree();
}

/** Hands a file to a whole-file hashing thread (see hash-threads.ts); undefined when none is free. */
export function startHashFd(fd: number, maxBytes: number): PendingHash | undefined {
  hashThread();
  return poolStart(fd, maxBytes);
}
