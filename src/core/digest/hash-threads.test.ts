import { createHash, randomBytes } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { CopyTargetFailed } from './copy.js';
import { HashReadFailed, hashThreadsRunning, setHashThreads } from './hash-threads.js';
import { hashThreadFree, startHashFd } from './overlapped.js';

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
  it('hashes and copies exactly the bytes of the file, at every chunk boundary', () => {
    setHashThreads(1);
    for (const size of [0, 1, MIB - 1, MIB, MIB + 1, 3 * MIB + 5]) {
      const data = randomBytes(size);
      const source = openSync(file(data), 'r');
      const targetPath = join(dir, `out-${counter}`);
      const target = openSync(targetPath, 'wx');
      try {
        const pending = startHashFd(source, size, target);
        expect(pending).toBeDefined();
        expect({ size, result: pending?.result() }).toEqual({
          size,
          result: { hex: sha(data), bytes: size, exceeded: false },
        });
      } finally {
        closeSync(source);
        closeSync(target);
      }
      expect(Buffer.compare(readFileSync(targetPath), data)).toBe(0);
      const hashOnly = openSync(file(data), 'r');
      try {
        expect(startHashFd(hashOnly, size)?.result()).toEqual({
          hex: sha(data),
          bytes: size,
          exceeded: false,
        });
      } finally {
        closeSync(hashOnly);
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

  it('shows a file longer than its bound as exceeded and copies nothing beyond the bound', () => {
    const data = randomBytes(3 * MIB);
    const source = openSync(file(data), 'r');
    const targetPath = join(dir, `out-${counter}`);
    const target = openSync(targetPath, 'wx');
    try {
      expect(startHashFd(source, 2 * MIB - 1, target)?.result().exceeded).toBe(true);
    } finally {
      closeSync(source);
      closeSync(target);
    }
    expect(readFileSync(targetPath).length).toBe(MIB);
  });

  it('reports a failing write as CopyTargetFailed with its errno name, a failing read as HashReadFailed, and serves the next file', () => {
    const path = file(randomBytes(2 * MIB));
    const source = openSync(path, 'r');
    // Open for reading only: writing to it fails with EBADF.
    const readOnly = openSync(path, 'r');
    const writeOnly = openSync(join(dir, `w-${counter}`), 'wx');
    try {
      expect(() => startHashFd(source, 2 * MIB, readOnly)?.result()).toThrow(CopyTargetFailed);
      expect(() => startHashFd(source, 2 * MIB, readOnly)?.result()).toThrow(
        expect.objectContaining({ code: 'EBADF' }),
      );
      expect(() => startHashFd(writeOnly, 2 * MIB)?.result()).toThrow(HashReadFailed);
    } finally {
      closeSync(source);
      closeSync(readOnly);
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

  it('hands out no more files than it has threads: a busy pool says so and the caller hashes itself', () => {
    setHashThreads(2);
    const data = randomBytes(4 * MIB);
    const fds = [0, 1, 2].map(() => openSync(file(data), 'r'));
    try {
      const first = fds[0] === undefined ? undefined : startHashFd(fds[0], data.length);
      const second = fds[1] === undefined ? undefined : startHashFd(fds[1], data.length);
      expect({ first: first !== undefined, second: second !== undefined }).toEqual({
        first: true,
        second: true,
      });
      expect(hashThreadFree()).toBe(false);
      expect(fds[2] === undefined ? 'no fd' : startHashFd(fds[2], data.length)).toBeUndefined();
      expect([first?.result().hex, second?.result().hex]).toEqual([sha(data), sha(data)]);
      expect(hashThreadFree()).toBe(true);
      expect(hashThreadsRunning()).toBe(2);
    } finally {
      for (const fd of fds) closeSync(fd);
    }
    setHashThreads(0);
    expect(hashThreadFree()).toBe(false);
  });
});
