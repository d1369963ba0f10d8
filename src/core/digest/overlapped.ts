import { readSync, writeSync } from 'node:fs';
import { type CopyLimits, CopyTargetFailed, copyFdHashing, type HashedCopy } from './copy.js';
import {
  type PendingHash,
  startHashFd as poolStart,
  hashThreadFree as poolThreadFree,
  hashThreadUpAndFree as poolThreadUpAndFree,
  startHashThreads,
} from './hash-threads.js';
import type { Sha256Hex } from './sha256.js';
import {
  ANSWER_TIMEOUT_MS,
  nextRequestSource,
  SPIN_LOADS,
  type StartedWorker,
  startHashWorker,
} from './thread-protocol.js';

/**
 * `copyFdHashing` with the SHA-256 on a second thread: while the calling
 * thread writes a chunk (and reads the next), a worker thread hashes the
 * same chunk from shared memory. Four 128 KiB slots go round in turn, each
 * chunk queued for the thread as it is read; a slot is refilled only after
 * the worker is done with it, so the digest still describes
 * exactly the bytes written and no byte is read twice. The call stays
 * synchronous (the caller blocks with `Atomics.wait`, which Node allows on
 * the main thread). One worker serves the process, started on first use and
 * never keeping the process alive. Measured faster than hashing in line on
 * two cores (docs/performance.md, "Hashing beside writing").
 */
// 128 KiB: the slots stay in a core's L2 cache, so the read's copy into a
// slot, the write's copy out of it and the hash all hit the cache; with 1 MiB
// slots each went to memory, and a publication to tmpfs took 1.15× as long
// (docs/performance.md, "Smaller slots").
export const OVERLAP_CHUNK_BYTES = 1 << 17;
const CHUNK = OVERLAP_CHUNK_BYTES;
/**
 * Slots in the ring: the caller reads and writes one while the thread hashes
 * the chunks before it, so a chunk that hashes late (the thread preempted, a
 * write that went fast) does not stop the copy at once. With two slots the
 * caller waited after every chunk (docs/performance.md, "Waking the hashing
 * thread"). Four stay within a core's L2 cache.
 */
export const OVERLAP_SLOTS = 4;
/** Below this size a copy hashes in line: the round trip to the thread would cost more than it saves. */
export const OVERLAP_MIN_BYTES = 64 * 1024;
/**
 * Requests the caller may have queued and not yet seen done. A power of two,
 * so a request's queue entry (its number modulo the queue) stays the same
 * for both threads when the number wraps around.
 */
const QUEUE = 8;
const ENTRY_WORDS = 3;
/** Control words: request and done sequence numbers, started, failed; then the queue of requests. */
const REQUEST = 0;
const DONE = 1;
const READY = 2;
const FAILED = 3;
const QUEUE_AT = 4;
const CONTROL_WORDS = QUEUE_AT + QUEUE * ENTRY_WORDS;
const DIGEST_BYTES = 32;
const OP_UPDATE = 1;
const OP_FINISH = 2;
/** The worker, as CommonJS source (see `startHashWorker`). */
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const { buffer, chunk, slots } = workerData;
const control = new Int32Array(buffer, slots * chunk, ${CONTROL_WORDS});
const digest = new Uint8Array(buffer, slots * chunk + ${CONTROL_WORDS * 4}, ${DIGEST_BYTES});
let hash = createHash('sha256');
let seen = 0;
${nextRequestSource('control', REQUEST)}
Atomics.store(control, ${READY}, 1);
Atomics.notify(control, ${READY});
for (;;) {
  const upto = nextRequest(seen);
  while (seen !== upto) {
    seen = (seen + 1) | 0;
    const entry = ${QUEUE_AT} + (seen & ${QUEUE - 1}) * ${ENTRY_WORDS};
    try {
      if (control[entry] === ${OP_UPDATE}) {
        hash.update(new Uint8Array(buffer, control[entry + 1] * chunk, control[entry + 2]));
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
}
`;

/** Exported for the regression test of a late wake-up; copies use the one thread `hashThread` returns. */
export class HashThread {
  readonly #control: Int32Array;
  readonly #digest: Uint8Array;
  readonly slots: readonly Buffer[];
  readonly #worker: StartedWorker;
  /** The number of the last request made, and of the last update each slot was given to. */
  #sequence = 0;
  readonly #slotRequest: number[];
  #broken = false;

  constructor() {
    const slotBytes = OVERLAP_SLOTS * CHUNK;
    const buffer = new SharedArrayBuffer(slotBytes + CONTROL_WORDS * 4 + DIGEST_BYTES);
    this.#control = new Int32Array(buffer, slotBytes, CONTROL_WORDS);
    this.#digest = new Uint8Array(buffer, slotBytes + CONTROL_WORDS * 4, DIGEST_BYTES);
    this.slots = Array.from({ length: OVERLAP_SLOTS }, (_, slot) => Buffer.from(buffer, slot * CHUNK, CHUNK));
    this.#slotRequest = this.slots.map(() => 0);
    this.#worker = startHashWorker(
      WORKER_SOURCE,
      { buffer, chunk: CHUNK, slots: OVERLAP_SLOTS },
      this.#control,
      READY,
      () => {
        this.#broken = true;
      },
    );
  }

  /** The thread failed, or did not start (asking blocks until it started or timed out). */
  get broken(): boolean {
    return this.#broken || !this.#worker.running();
  }

  /** Asks for `slots[slot][0..length)` to be hashed; returns at once. */
  update(slot: number, length: number): void {
    this.#slotRequest[slot] = this.#request(OP_UPDATE, slot, length);
  }

  /** Waits until the slot's last update is hashed, so the slot may be filled again. */
  waitForSlot(slot: number): void {
    this.#waitFor(this.#slotRequest[slot] ?? this.#sequence);
  }

  /** Waits for every request made to be done. */
  wait(): void {
    this.#waitFor(this.#sequence);
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

  /** Whether request `sequence` is done; numbers wrap, so compared by their difference. */
  #done(sequence: number): boolean {
    return ((Atomics.load(this.#control, DONE) - sequence) | 0) >= 0;
  }

  #waitFor(sequence: number): void {
    const control = this.#control;
    // Spin before sleeping: the answer usually comes within the hash of one
    // chunk, and in a virtual machine a sleep and a wake-up across cores
    // cost about as much (docs/performance.md, "Waking the hashing thread").
    for (let spin = 0; spin < SPIN_LOADS; spin += 1) if (this.#done(sequence)) break;
    const deadline = Date.now() + ANSWER_TIMEOUT_MS;
    for (;;) {
      const done = Atomics.load(control, DONE);
      if (((done - sequence) | 0) >= 0) {
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

  #request(op: number, slot: number, length: number): number {
    const control = this.#control;
    const sequence = (this.#sequence + 1) | 0;
    // The queue entry this request takes is free once the request QUEUE before it is done.
    this.#waitFor((sequence - QUEUE) | 0);
    const entry = QUEUE_AT + (sequence & (QUEUE - 1)) * ENTRY_WORDS;
    control[entry] = op;
    control[entry + 1] = slot;
    control[entry + 2] = length;
    this.#sequence = sequence;
    Atomics.store(control, REQUEST, sequence);
    Atomics.notify(control, REQUEST);
    return sequence;
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
  let slot = 0;
  let bytes = 0;
  let pending = false;
  try {
    for (;;) {
      // The slot's earlier chunk was hashed while the later ones were read and written.
      hasher.waitForSlot(slot);
      const buffer = hasher.slots[slot] as Buffer;
      const read = readSync(sourceFd, buffer, 0, CHUNK, null);
      if (read === 0) break;
      if (bytes + read > max) {
        pending = false;
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
      slot = (slot + 1) % hasher.slots.length;
    }
  } catch (error: unknown) {
    // Leave the thread idle and its hash empty for the next copy.
    if (pending && !hasher.broken) {
      try {
        hasher.finish();
      } catch {
        // Broken: the next copy starts a new thread.
      }
    }
    throw error;
  }
  const copy = outstandingCopy(hasher, bytes);
  outstanding = copy;
  return () => copy.result();
}

/** A copy whose last chunk may still be hashing; `result` waits for it and finishes the hash once. */
interface OutstandingCopy {
  readonly result: () => HashedCopy;
}

let outstanding: OutstandingCopy | undefined;

function outstandingCopy(hasher: HashThread, bytes: number): OutstandingCopy {
  let settled: { readonly copy: HashedCopy } | { readonly error: unknown } | undefined;
  const copy: OutstandingCopy = {
    result: () => {
      if (settled === undefined) {
        if (outstanding === copy) outstanding = undefined;
        try {
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

/** `hashThreadFree` that never waits for a thread to start and starts none (see hash-threads.ts). */
export function hashThreadUpAndFree(): boolean {
  return !unavailable && poolThreadUpAndFree();
}

/** Hands a file to a whole-file hashing thread (see hash-threads.ts); undefined when none is free. */
export function startHashFd(fd: number, maxBytes: number): PendingHash | undefined {
  hashThread();
  return poolStart(fd, maxBytes);
}
