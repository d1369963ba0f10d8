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
 * A copy failed while writing its target (a full disk, a quota, a read-only
 * or failing device): the source was fine as far as it was read. `code` is
 * the target's errno name; the error carries no path.
 */
export class CopyTargetFailed extends Error {
  readonly code: string;

  constructor(cause: unknown) {
    const code = typeof cause === 'object' && cause !== null && 'code' in cause ? cause.code : undefined;
    super('writing the copy failed', { cause });
    this.name = 'CopyTargetFailed';
    this.code = typeof code === 'string' ? code : 'EUNKNOWN';
  }
}

/**
 * Copies one descriptor into another and hashes each chunk between the read
 * and the write, so the digest describes exactly the bytes written and no byte
 * is read twice (a second read could see a file changed in between). A
 * failing write throws `CopyTargetFailed`, so a caller tells a bad target
 * from a bad source; a failing read throws the read's own error.
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
    try {
      while (written < read) written += writeSync(targetFd, chunk, written, read - written);
    } catch (error: unknown) {
      throw new CopyTargetFailed(error);
    }
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
