import { Descriptor } from './descriptor.js';

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
}
