import { writeSync } from 'node:fs';
import { libc } from './libc.js';
import { nodeCall } from './node-call.js';
import { OpenDescriptor } from './open-descriptor.js';

/** A file sealkit created exclusively and holds open for writing. */
export class WritableFile extends OpenDescriptor {
  /** @internal Use `Dir.createExclusive`. */
  static adopt(fd: number): WritableFile {
    return new WritableFile(fd);
  }

  /** Writes every byte, looping over short writes. */
  write(bytes: Uint8Array): void {
    let offset = 0;
    while (offset < bytes.length) {
      const written = nodeCall('write', () => writeSync(this.fd, bytes, offset, bytes.length - offset));
      offset += written;
    }
  }

  /**
   * Asks the kernel to start writing the file's dirty pages now, without
   * waiting (sync_file_range WRITE). It makes nothing durable — only `fsync`
   * does — but a later fsync then finds the data already on its way, so the
   * disk works while the caller goes on (e.g. hashing the next file).
   */
  startWriteback(): void {
    libc().startWriteback(this.fd);
  }
}
