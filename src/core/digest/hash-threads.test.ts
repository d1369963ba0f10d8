import { createHash, randomBytes } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  FILES_PER_THREAD,
  FileHashThread,
  HashReadFailed,
  hashThreadsRunning,
  setHashThreads,
} from './hash-threads.js';
import { hashThreadFree, hashThreadUpAndFree, startHashFd } from './overlapped.js';
import { startHashWorker } from './thread-protocol.js';

const dir = mkdtempSync(join(tmpdir(), 'sealkit-hash-threads-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => setHashThreads(1));

const MIB = 1 << 20;
let counter = 0;
const sha = (data: Uint8Array): string => createHash('sha256').update(data).digest('hex');

function file(data: Uint8Array): string {
  counter += 1;
  const path = join(dir, `in-${counter}`);
  writeFileSync(path, data);
  return path;
}

describe('startHashFd', () => {
  it('regression: a late wake-up does not hash the last file again (its descriptor may be closed by then)', () => {
    const thread = new FileHashThread();
    expect(thread.broken).toBe(false);
    const data = randomBytes(MIB + 1);
    const source = openSync(file(data), 'r');
    thread.start(source, data.byteLength);
    const first = thread.result();
    closeSync(source);
    for (let late = 0; late < 3; late += 1) thread.wakeWithoutRequest();
    // Time for a thread that took the wake-up as a request to read the closed descriptor and fail.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    expect(first).toEqual({ hex: sha(data), bytes: data.byteLength, exceeded: false });
    expect(thread.result()).toEqual(first);
  });

  it('regression: a file done frees its slot before its result is asked for, and keeps its own digest', () => {
    const thread = new FileHashThread();
    const files = Array.from({ length: 2 * FILES_PER_THREAD }, (_, at) => randomBytes(MIB + at));
    const fds = files.map((data) => openSync(file(data), 'r'));
    try {
      const first = fds.slice(0, FILES_PER_THREAD).map((fd, at) => thread.start(fd, files[at]?.length ?? 0));
      expect(thread.busy).toBe(true);
      const deadline = Date.now() + 30_000;
      while (!first.every((pending) => pending.ready()) && Date.now() < deadline) {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
      }
      // Every slot free again although no result was asked for: the same slots take the next files.
      expect(thread.busy).toBe(false);
      const second = fds
        .slice(FILES_PER_THREAD)
        .map((fd, at) => thread.start(fd, files[FILES_PER_THREAD + at]?.length ?? 0));
      expect([...first, ...second].map((pending) => pending.result().hex)).toEqual(files.map(sha));
    } finally {
      for (const fd of fds) closeSync(fd);
    }
  });

  it('settled waits without blocking: the event loop turns while the thread hashes, and it resolves once the file is done', async () => {
    const thread = new FileHashThread();
    // Endless zeros bounded at 512 MiB: a few hundred milliseconds of hashing, far longer than one turn of the loop.
    const zeros = openSync('/dev/zero', 'r');
    try {
      const pending = thread.start(zeros, 512 * MIB);
      const order: string[] = [];
      const settled = pending.settled().then(() => order.push('settled'));
      await new Promise((resolve) => setImmediate(resolve));
      order.push('turned');
      await settled;
      expect(order).toEqual(['turned', 'settled']);
      expect(pending.ready()).toBe(true);
      const hashed = pending.result();
      expect(hashed.exceeded).toBe(true);
      expect(hashed.bytes).toBeGreaterThan(512 * MIB);
    } finally {
      closeSync(zeros);
    }
  });

  it('hashes exactly the bytes of the file, at every chunk boundary', () => {
    setHashThreads(1);
    for (const size of [0, 1, MIB - 1, MIB, MIB + 1, 3 * MIB + 5]) {
      const data = randomBytes(size);
      const source = openSync(file(data), 'r');
      try {
        expect({ size, result: startHashFd(source, size)?.result() }).toEqual({
          size,
          result: { hex: sha(data), bytes: size, exceeded: false },
        });
      } finally {
        closeSync(source);
      }
    }
  });

  it('reads from offset 0 without moving the descriptor offset, so the caller could read the file again', () => {
    const data = randomBytes(MIB + 17);
    const source = openSync(file(data), 'r');
    try {
      expect(startHashFd(source, data.length)?.result().hex).toBe(sha(data));
      expect(startHashFd(source, data.length)?.result().hex).toBe(sha(data));
    } finally {
      closeSync(source);
    }
  });

  it('shows a file longer than its bound as exceeded', () => {
    const data = randomBytes(3 * MIB);
    const source = openSync(file(data), 'r');
    try {
      expect(startHashFd(source, 2 * MIB - 1)?.result().exceeded).toBe(true);
      expect(startHashFd(source, 3 * MIB)?.result().exceeded).toBe(false);
    } finally {
      closeSync(source);
    }
  });

  it('reports a failing read as HashReadFailed, and serves the next file', () => {
    const writeOnly = openSync(join(dir, `w-${counter}`), 'wx');
    try {
      expect(() => startHashFd(writeOnly, 2 * MIB)?.result()).toThrow(HashReadFailed);
    } finally {
      closeSync(writeOnly);
    }
    const data = randomBytes(MIB + 3);
    const next = openSync(file(data), 'r');
    try {
      expect(startHashFd(next, data.length)?.result().hex).toBe(sha(data));
    } finally {
      closeSync(next);
    }
  });

  it('hands out no more files than its threads have slots: a full pool says so and the caller hashes itself', () => {
    setHashThreads(2);
    // Sparse files: large enough that no thread is done with its first before the pool is full.
    const size = 128 * MIB;
    const slots = 2 * FILES_PER_THREAD;
    const fds = Array.from({ length: slots + 1 }, () => {
      const path = file(new Uint8Array(0));
      truncateSync(path, size);
      return openSync(path, 'r');
    });
    try {
      const started = fds.slice(0, slots).map((fd) => startHashFd(fd, size));
      expect(started.map((pending) => pending !== undefined)).toEqual(Array(slots).fill(true));
      expect(hashThreadFree()).toBe(false);
      expect(startHashFd(fds[slots] ?? -1, size)).toBeUndefined();
      const zeros = sha(new Uint8Array(size));
      expect(started.map((pending) => pending?.result().hex)).toEqual(Array(slots).fill(zeros));
      expect(hashThreadFree()).toBe(true);
      expect(hashThreadsRunning()).toBe(2);
    } finally {
      for (const fd of fds) closeSync(fd);
    }
    setHashThreads(0);
    expect(hashThreadFree()).toBe(false);
  });
});

describe('asking whether a hashing thread is up, without waiting for it', () => {
  it('says no while a thread boots, and never blocks: a thread that never starts stays "not yet"', () => {
    const control = new Int32Array(new SharedArrayBuffer(8));
    // A thread that never stores its ready flag: `running()` would block until the start timeout.
    const never = startHashWorker('setInterval(() => {}, 1000);', null, control, 0, () => {});
    try {
      for (let asked = 0; asked < 3; asked += 1) expect(never.startedYet()).toBe(false);
    } finally {
      never.terminate();
    }
    const ready = new Int32Array(new SharedArrayBuffer(8));
    const source = `const { workerData } = require('node:worker_threads');
      const control = new Int32Array(workerData);
      Atomics.store(control, 0, 1);
      Atomics.notify(control, 0);`;
    const started = startHashWorker(source, ready.buffer, ready, 0, () => {});
    try {
      expect(started.running()).toBe(true);
      expect(started.startedYet()).toBe(true);
    } finally {
      started.terminate();
    }
  });

  it('regression: hashThreadUpAndFree answers for the threads that are up, and starts none', () => {
    setHashThreads(0);
    const before = hashThreadsRunning();
    expect(hashThreadUpAndFree()).toBe(false);
    expect(hashThreadsRunning()).toBe(before);
    setHashThreads(1);
    // Up and idle once a file went through it (startHashFd waits for the thread to start).
    const data = randomBytes(MIB);
    const fd = openSync(file(data), 'r');
    try {
      expect(startHashFd(fd, data.length)?.result().hex).toBe(sha(data));
    } finally {
      closeSync(fd);
    }
    expect(hashThreadUpAndFree()).toBe(true);
  });
});
