import { fsyncSync, writeSync } from 'node:fs';
import { Descriptor } from './descriptor.js';
import { libc } from './libc.js';
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

  chmod(mode: number): void {
    libc().fchmod(this.fd, mode);
  }
}
