import { readSync, writeSync } from 'node:fs';
import { type HashedLength, Sha256Accumulator } from './sha256.js';

const CHUNK = 1 << 16;

export interface CopyLimits {
  /** The copy stops with `exceeded: true` as soon as more than this many bytes were seen. */
  readonly maxBytes?: number;
}

export interface HashedCopy extends HashedLength {
  /** True when the source held more than `maxBytes`; the destination then holds a truncated prefix. */
  readonly exceeded: boolean;
}

/**
 * Copies one descriptor into another and hashes each chunk between the read
 * and the write, so the digest describes exactly the bytes written and no byte
 * is read twice (a second read could see a file changed in between).
 */
export function copyFdHashing(sourceFd: number, targetFd: number, limits: CopyLimits = {}): HashedCopy {
  const accumulator = new Sha256Accumulator();
  const buffer = Buffer.allocUnsafe(CHUNK);
  const max = limits.maxBytes ?? Number.POSITIVE_INFINITY;
  for (;;) {
    const read = readSync(sourceFd, buffer, 0, CHUNK, null);
    if (read === 0) break;
    if (accumulator.bytes + read > max) return { ...accumulator.finish(), exceeded: true };
    const chunk = buffer.subarray(0, read);
    accumulator.update(chunk);
    let written = 0;
    while (written < read) written += writeSync(targetFd, chunk, written, read - written);
  }
  return { ...accumulator.finish(), exceeded: false };
}

/** The streaming form: each chunk is hashed, then handed to `write`, in order. */
export async function copyStreamHashing(
  source: AsyncIterable<Uint8Array>,
  write: (chunk: Uint8Array) => Promise<void> | void,
  limits: CopyLimits = {},
): Promise<HashedCopy> {
  const accumulator = new Sha256Accumulator();
  const max = limits.maxBytes ?? Number.POSITIVE_INFINITY;
  for await (const chunk of source) {
    if (accumulator.bytes + chunk.byteLength > max) return { ...accumulator.finish(), exceeded: true };
    accumulator.update(chunk);
    await write(chunk);
  }
  return { ...accumulator.finish(), exceeded: false };
}
