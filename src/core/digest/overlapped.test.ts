import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../test/helpers/cli.js';
import { copyFdHashing } from './copy.js';
import {
  copyFdHashingOverlapped,
  HashThread,
  OVERLAP_CHUNK_BYTES,
  overlappedHashingAvailable,
  startCopyFdHashingOverlapped,
} from './overlapped.js';

const dir = mkdtempSync(join(tmpdir(), 'sealkit-overlap-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const MIB = 1 << 20;
let counter = 0;

function copyWith(copy: typeof copyFdHashing, data: Uint8Array, maxBytes?: number) {
  counter += 1;
  const from = join(dir, `in-${counter}`);
  const to = join(dir, `out-${counter}`);
  writeFileSync(from, data);
  const source = openSync(from, 'r');
  const target = openSync(to, 'wx');
  try {
    const result = copy(source, target, maxBytes === undefined ? {} : { maxBytes });
    return { result, written: readFileSync(to) };
  } finally {
    closeSync(source);
    closeSync(target);
  }
}

describe('startCopyFdHashingOverlapped', () => {
  it('regression: a copy whose result is asked for after the next copies started keeps its own digest, and theirs stay theirs', () => {
    const sizes = [MIB + 7, 2 * MIB + 1, 65_536, 3 * MIB];
    const files = sizes.map((size) => {
      counter += 1;
      const data = randomBytes(size);
      const from = join(dir, `in-${counter}`);
      writeFileSync(from, data);
      return { data, from, to: join(dir, `out-${counter}`) };
    });
    const fds = files.map((file) => ({ source: openSync(file.from, 'r'), target: openSync(file.to, 'wx') }));
    try {
      // Every copy begun before any result is asked for; results asked for in reverse.
      const started = fds.map((fd, at) =>
        startCopyFdHashingOverlapped(fd.source, fd.target, { maxBytes: sizes[at] ?? 0 }),
      );
      const results = started.map((_, at) => started[started.length - 1 - at]?.()).reverse();
      expect(results).toEqual(
        files.map((file) => ({
          hex: createHash('sha256').update(file.data).digest('hex'),
          bytes: file.data.byteLength,
          exceeded: false,
        })),
      );
      // Asked again: the same answer, not a hash of nothing.
      expect(started[0]?.()).toEqual(results[0]);
      expect(files.map((file) => Buffer.compare(readFileSync(file.to), file.data))).toEqual([0, 0, 0, 0]);
    } finally {
      for (const fd of fds) {
        closeSync(fd.source);
        closeSync(fd.target);
      }
    }
  });
});

describe('copyFdHashingOverlapped', () => {
  it('writes every byte and hashes exactly them, at every chunk boundary, as the in-line copy does', () => {
    for (const size of [0, 1, 65_535, MIB - 1, MIB, MIB + 1, 2 * MIB, 3 * MIB + 5]) {
      const data = randomBytes(size);
      const expected = createHash('sha256').update(data).digest('hex');
      const { result, written } = copyWith(copyFdHashingOverlapped, data);
      expect({ size, result, same: Buffer.compare(written, data) === 0 }).toEqual({
        size,
        result: { hex: expected, bytes: size, exceeded: false },
        same: true,
      });
      expect(copyWith(copyFdHashing, data).result).toEqual(result);
    }
  });

  it('stops at the first chunk beyond maxBytes, and the next copy starts from an empty hash (regression: state carried over)', () => {
    const data = randomBytes(3 * OVERLAP_CHUNK_BYTES);
    const { result } = copyWith(copyFdHashingOverlapped, data, 2 * OVERLAP_CHUNK_BYTES - 1);
    expect({ exceeded: result.exceeded, bytes: result.bytes }).toEqual({
      exceeded: true,
      bytes: OVERLAP_CHUNK_BYTES,
    });
    const next = randomBytes(5000);
    expect(copyWith(copyFdHashingOverlapped, next).result.hex).toBe(
      createHash('sha256').update(next).digest('hex'),
    );
  });

  it('reports a failing write as the error it is, and the thread serves the next copy', () => {
    counter += 1;
    const from = join(dir, `in-${counter}`);
    writeFileSync(from, randomBytes(2 * MIB));
    const source = openSync(from, 'r');
    // A descriptor open for reading only: the first write fails with EBADF.
    const target = openSync(from, 'r');
    try {
      expect(() => copyFdHashingOverlapped(source, target)).toThrow(
        expect.objectContaining({ code: 'EBADF' }),
      );
    } finally {
      closeSync(source);
      closeSync(target);
    }
    const data = randomBytes(MIB + 3);
    expect(copyWith(copyFdHashingOverlapped, data).result.hex).toBe(
      createHash('sha256').update(data).digest('hex'),
    );
  });

  it('regression: a late wake-up after a chunk was hashed does not hash it again', () => {
    // A caller preempted between storing a request and notifying it wakes the
    // thread after the request is done; the chunk was then hashed twice and a
    // valid file refused as changed.
    const thread = new HashThread();
    expect(thread.broken).toBe(false);
    const data = randomBytes(OVERLAP_CHUNK_BYTES);
    thread.slots[0]?.set(data);
    thread.update(0, data.byteLength);
    thread.wait();
    for (let late = 0; late < 3; late += 1) thread.wakeWithoutRequest();
    // Time for a thread that took the wake-up as a request to act on it.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    expect(thread.finish()).toBe(createHash('sha256').update(data).digest('hex'));
  });

  it('hashes chunks queued in every slot of the ring, more of them than its queue holds, in order', () => {
    const thread = new HashThread();
    const chunks = Array.from({ length: 3 * thread.slots.length + 5 }, (_, at) =>
      randomBytes(at % 3 === 0 ? OVERLAP_CHUNK_BYTES : 1000 + at),
    );
    chunks.forEach((chunk, at) => {
      const slot = at % thread.slots.length;
      thread.waitForSlot(slot);
      thread.slots[slot]?.set(chunk);
      thread.update(slot, chunk.byteLength);
    });
    expect(thread.finish()).toBe(createHash('sha256').update(Buffer.concat(chunks)).digest('hex'));
    // The hash started over: the next digest covers only what came after.
    thread.slots[0]?.set(chunks[1] as Buffer);
    thread.update(0, (chunks[1] as Buffer).byteLength);
    expect(thread.finish()).toBe(
      createHash('sha256')
        .update(chunks[1] as Buffer)
        .digest('hex'),
    );
  });

  it('runs its thread in this process', () => {
    expect(overlappedHashingAvailable()).toBe(true);
  });

  it('runs its thread in a process started with --input-type=module (regression: the flag made the thread fail)', () => {
    const built = join(REPO_ROOT, 'dist', 'src', 'core', 'digest', 'index.js');
    const child = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { overlappedHashingAvailable } = await import(${JSON.stringify(built)});
         process.stdout.write(String(overlappedHashingAvailable()));`,
      ],
      { encoding: 'utf8' },
    );
    expect({ stdout: child.stdout, stderr: child.stderr }).toEqual({ stdout: 'true', stderr: '' });
  });
});
