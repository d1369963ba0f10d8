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
 * Filesystems whose syncfs(2) writes out every dirty file and directory
 * entry of theirs and commits their journal (or log, or transaction) before
 * it returns 0, as an fsync of each file would. On any other (network
 * filesystems, FUSE, overlays) a syncfs may return before the data is safe
 * where it is stored, so sealkit fsyncs each file there.
 */
const SYNCFS_FLUSHES_EVERY_FILE: ReadonlySet<number> = new Set([
  0xef53, // ext2, ext3 and ext4 (one driver)
  0x58465342, // XFS
  0x9123683e, // btrfs
  0x01021994, // tmpfs (nothing to write; a syncfs returns at once)
]);

/** Whether one syncfs of the descriptor's filesystem makes every file on it durable (see above). */
export function syncfsFlushesEveryFile(descriptor: OpenDescriptor): boolean {
  try {
    return SYNCFS_FLUSHES_EVERY_FILE.has(libc().filesystemMagic(descriptor.fd));
  } catch {
    return false;
  }
}

/**
 * syncfs of the descriptor's filesystem, off the main thread: true when it
 * returned 0; false when it failed, and the caller fsyncs instead (which
 * reports the error with its cause).
 */
export function syncFilesystemOf(descriptor: OpenDescriptor): Promise<boolean> {
  return libc().syncFilesystem(descriptor.fd);
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
