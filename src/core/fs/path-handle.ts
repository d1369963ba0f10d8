import { chmodSync } from 'node:fs';
import { Descriptor } from './descriptor.js';
import { FsError } from './errors.js';
import { checkMode } from './mode.js';
import { nodeCall } from './node-call.js';

/**
 * An O_PATH|O_NOFOLLOW descriptor: it pins an inode (a symlink included)
 * without opening it, so its type can be checked before anything is read
 * and a FIFO or device is never opened.
 */
export class PathHandle extends Descriptor {
  /** @internal Use `Dir.openPath`. */
  static adopt(fd: number): PathHandle {
    return new PathHandle(fd);
  }

  /**
   * chmod of the pinned inode. fchmod refuses an O_PATH descriptor (EBADF),
   * so this goes through the descriptor's own /proc/self/fd entry, which
   * names the pinned inode and nothing looked up again (glibc's no-follow
   * fchmodat does the same). A pinned symlink is refused (ELOOP): its mode
   * means nothing and chmod would follow it.
   */
  chmod(mode: number): void {
    checkMode(mode, 'fchmod');
    if (this.stat().type === 'symlink') throw FsError.synthetic('ELOOP', 'fchmod');
    nodeCall('fchmod', () => chmodSync(`/proc/self/fd/${this.fd}`, mode));
  }
}
