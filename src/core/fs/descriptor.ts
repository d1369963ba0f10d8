import { FsError } from './errors.js';
import { libc } from './libc.js';
import { type FileStat, statAt } from './stat.js';

/**
 * An open file descriptor owned by exactly one object. `close()` is
 * idempotent and a closed handle refuses further use with EBADF, so a number
 * the kernel has since reused for another file is never acted on.
 */
export abstract class Descriptor {
  #fd: number | undefined;

  protected constructor(fd: number) {
    this.#fd = fd;
  }

  /** The raw descriptor, for Node's fd-based calls (`fs.writeSync`, `fs.fsyncSync`, ...). */
  get fd(): number {
    if (this.#fd === undefined) throw FsError.synthetic('EBADF', 'fd');
    return this.#fd;
  }

  get closed(): boolean {
    return this.#fd === undefined;
  }

  /** statx of the held inode itself. */
  stat(): FileStat {
    return statAt(this.fd);
  }

  close(): void {
    const fd = this.#fd;
    if (fd === undefined) return;
    this.#fd = undefined;
    libc().close(fd);
  }
}
