import { Descriptor } from './descriptor.js';
import { libc } from './libc.js';
import { checkMode } from './mode.js';

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
