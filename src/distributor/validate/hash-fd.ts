import { readSync } from 'node:fs';
import { type HashedLength, Sha256Accumulator } from '../../core/digest/index.js';

const CHUNK = 1 << 20;
const buffer = Buffer.allocUnsafe(CHUNK);

/**
 * Hashes a descriptor from its current offset without keeping the bytes
 * (dry runs and `distribute verify` write nothing). Stops after `maxBytes + 1`
 * bytes so a file larger than its manifest size is detected without reading
 * all of it.
 */
export function hashFd(fd: number, maxBytes: number): HashedLength & { readonly exceeded: boolean } {
  const accumulator = new Sha256Accumulator();
  for (;;) {
    const read = readSync(fd, buffer, 0, CHUNK, null);
    if (read === 0) return { ...accumulator.finish(), exceeded: false };
    accumulator.update(buffer.subarray(0, read));
    if (accumulator.bytes > maxBytes) return { ...accumulator.finish(), exceeded: true };
  }
}
