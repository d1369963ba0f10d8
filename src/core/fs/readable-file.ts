import { readSync } from 'node:fs';
import { nodeCall } from './node-call.js';
import { OpenDescriptor } from './open-descriptor.js';

/** A file opened for reading through a no-follow, non-blocking open. */
export class ReadableFile extends OpenDescriptor {
  /** @internal Use `Dir.openFile`. */
  static adopt(fd: number): ReadableFile {
    return new ReadableFile(fd);
  }

  /**
   * Reads from the current offset until end of file or until `limit` bytes,
   * whichever comes first; never reads more than `limit`. A caller that must
   * detect "larger than N" passes N + 1.
   */
  readUpTo(limit: number): Uint8Array {
    if (!Number.isSafeInteger(limit) || limit < 0)
      throw new RangeError('limit must be a non-negative integer');
    const chunk = 64 * 1024;
    const parts: Buffer[] = [];
    let total = 0;
    while (total < limit) {
      const buffer = Buffer.allocUnsafe(Math.min(chunk, limit - total));
      const count = nodeCall('read', () => readSync(this.fd, buffer, 0, buffer.length, null));
      if (count === 0) break;
      parts.push(buffer.subarray(0, count));
      total += count;
    }
    return Buffer.concat(parts, total);
  }

  /**
   * `readUpTo(size + 1)` for a regular file expected to hold `size` bytes,
   * in one read when it does: asked for `size + 1` bytes, a regular file
   * returns fewer only at end of file, so exactly `size` bytes is the whole
   * file (a file grown before the read returns `size + 1`, as with
   * `readUpTo`). Any other count falls back to reading to end of file.
   */
  readExpected(size: number): Uint8Array {
    if (!Number.isSafeInteger(size) || size < 0) throw new RangeError('size must be a non-negative integer');
    const buffer = Buffer.allocUnsafe(size + 1);
    const count = nodeCall('read', () => readSync(this.fd, buffer, 0, size + 1, null));
    if (count === size || count === 0) return buffer.subarray(0, count);
    const rest = this.readUpTo(size + 1 - count);
    return Buffer.concat([buffer.subarray(0, count), rest]);
  }
}
