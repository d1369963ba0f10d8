import { fsyncSync, writeSync } from 'node:fs';
import { Descriptor } from './descriptor.js';
import { libc } from './libc.js';
import { checkMode } from './mode.js';
import { nodeCall } from './node-call.js';

/** A file sealkit created exclusively and holds open for writing. */
export class WritableFile extends Descriptor {
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

  fsync(): void {
    nodeCall('fsync', () => fsyncSync(this.fd));
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

  chmod(mode: number): void {
    checkMode(mode, 'fchmod');
    libc().fchmod(this.fd, mode);
  }
}
