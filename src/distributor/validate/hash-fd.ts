import { readSync } from 'node:fs';
import { type HashedLength, Sha256Accumulator, sha256Hex } from '../../core/digest/index.js';

const CHUNK = 1 << 20;
const buffer = Buffer.allocUnsafe(CHUNK);

type Hashed = HashedLength & { readonly exceeded: boolean };

/**
 * Hashes a descriptor from its current offset without keeping the bytes
 * (dry runs and `distribute verify` write nothing). Stops after `maxBytes + 1`
 * bytes so a file larger than its manifest size is detected without reading
 * all of it.
 */
export function hashFd(fd: number, maxBytes: number): Hashed {
  // Most files fit one chunk. The read that sees end of file is needed either
  // way; when it comes right after the first, the bytes are hashed in one
  // shot, without a streaming Hash object (the no-op rerun's per-file cost).
  const first = readSync(fd, buffer, 0, CHUNK, null);
  let held = first;
  if (first > 0 && first < CHUNK && first <= maxBytes) {
    const more = readSync(fd, buffer, first, CHUNK - first, null);
    if (more === 0) return { hex: sha256Hex(buffer.subarray(0, first)), bytes: first, exceeded: false };
    held += more;
  }
  const accumulator = new Sha256Accumulator();
  let read = held;
  for (;;) {
    if (read === 0) return { ...accumulator.finish(), exceeded: false };
    accumulator.update(buffer.subarray(0, read));
    if (accumulator.bytes > maxBytes) return { ...accumulator.finish(), exceeded: true };
    read = readSync(fd, buffer, 0, CHUNK, null);
  }
}
