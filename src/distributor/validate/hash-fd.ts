import { readSync } from 'node:fs';
import { type HashedLength, Sha256Accumulator, sha256Hex } from '../../core/digest/index.js';

const CHUNK = 1 << 20;
const buffer = Buffer.allocUnsafe(CHUNK);

type Hashed = HashedLength & { readonly exceeded: boolean };

/**
 * Hashes a regular file's descriptor from its current offset without keeping
 * the bytes (dry runs and `distribute verify` write nothing). Stops after
 * `maxBytes + 1` bytes so a file larger than its manifest size is detected
 * without reading all of it; callers pass the size they expect.
 */
export function hashFd(fd: number, maxBytes: number): Hashed {
  // Most files fit one chunk. A regular file returns fewer bytes than asked
  // only at end of file, so a first read of exactly the expected size, short
  // of the chunk, is the whole file: hashed in one shot, without a second
  // read or a streaming Hash object (the no-op rerun's per-file cost).
  const first = readSync(fd, buffer, 0, CHUNK, null);
  if (first === maxBytes && first < CHUNK) {
    return { hex: sha256Hex(buffer.subarray(0, first)), bytes: first, exceeded: false };
  }
  const accumulator = new Sha256Accumulator();
  let read = first;
  for (;;) {
    if (read === 0) return { ...accumulator.finish(), exceeded: false };
    accumulator.update(buffer.subarray(0, read));
    if (accumulator.bytes > maxBytes) return { ...accumulator.finish(), exceeded: true };
    read = readSync(fd, buffer, 0, CHUNK, null);
  }
}
