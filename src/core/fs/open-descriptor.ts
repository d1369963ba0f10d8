import { fsync as fsyncAsync } from 'node:fs';
import { Descriptor } from './descriptor.js';
import { libc } from './libc.js';
import { checkMode } from './mode.js';
import { nodeCall } from './node-call.js';

/**
 * A descriptor opened on the inode itself (a directory or a file, not an
 * O_PATH pin): its mode and durability are changed through it, so nothing is
 * looked up by name again and a name swapped meanwhile is never touched.
 */
export abstract class OpenDescriptor extends Descriptor {
  /** fchmod of the held inode, exactly `mode` (permission bits only; anything else is EINVAL). */
  chmod(mode: number): void {
    checkMode(mode, 'fchmod');
    libc().fchmod(this.fd, mode);
  }

  /** fsync of the held inode (Linux accepts a descriptor opened read-only). */
  fsync(): void {
    libc().fsync(this.fd);
  }
}

/**
 * fsync of every descriptor, issued together on Node's thread pool (so the
 * filesystem can fold them into fewer journal commits); resolves when all are
 * durable, rejects with the first failure (as an `FsError`) after all ended.
 */
export async function fsyncAll(descriptors: readonly OpenDescriptor[]): Promise<void> {
  const fds = descriptors.map((descriptor) => descriptor.fd);
  const results = await Promise.allSettled(
    fds.map(
      (fd) =>
        new Promise<void>((resolve, reject) => {
          fsyncAsync(fd, (error) => (error === null ? resolve() : reject(error)));
        }),
    ),
  );
  const failed = results.find((result) => result.status === 'rejected');
  if (failed !== undefined)
    nodeCall('fsync', () => {
      throw failed.reason;
    });
}
