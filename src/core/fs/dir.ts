import { AT_REMOVEDIR } from './constants.js';
import { FsError, isFsError } from './errors.js';
import { closeFdQuietly, libc } from './libc.js';
import { type DirEntry, listEntries } from './list.js';
import { checkMode } from './mode.js';
import { type EntryName, encodeName } from './names.js';
import { openChild } from './open-child.js';
import { OpenDescriptor } from './open-descriptor.js';
import { PathHandle } from './path-handle.js';
import { ReadableFile } from './readable-file.js';
import { type FileStat, sameInode, statAt } from './stat.js';
import { walkToDirectory } from './walk.js';
import { WritableFile } from './writable-file.js';

const DOT = Buffer.from('.\0', 'latin1');
const W_OK = 2;
const X_OK = 1;

/**
 * A directory held open by descriptor. Every operation names a single
 * component relative to the held directory (never a path), never follows a
 * symlink, and keeps acting on the same directory even if it is renamed or
 * moved: this is what makes check-then-act sequences race-free.
 *
 * Failures are `FsError`s with the errno name as `code`; a symlink where a
 * directory or file is expected is always ELOOP.
 */
export class Dir extends OpenDescriptor {
  /** Whether the descriptor's read position has moved (a listing ran): the next listing rewinds first. */
  #listed = false;

  /** Opens a directory by path with a no-follow walk (see `walkToDirectory`). */
  static open(path: string): Dir {
    return new Dir(walkToDirectory(path));
  }

  /**
   * Opens a directory for lookups only (O_PATH): `openPath`, `openFile`,
   * `openDir` and `stat` work, `list`, `fsync` and `chmod` fail with EBADF.
   * It needs search permission only, so a 0300 directory can still be checked.
   */
  static openForLookup(path: string): Dir {
    return new Dir(walkToDirectory(path, 'path'));
  }

  openDir(name: EntryName): Dir {
    const c = libc();
    return new Dir(openChild(this.fd, encodeName(name, 'openat'), c.flags.O_RDONLY | c.flags.O_DIRECTORY));
  }

  /**
   * Opens a child for reading. O_NONBLOCK keeps a FIFO from blocking the open
   * and O_NOCTTY keeps a terminal from becoming ours; the caller still checks
   * the type on the returned handle (or first pins it with `openPath`).
   */
  openFile(name: EntryName): ReadableFile {
    const { O_RDONLY, O_NONBLOCK, O_NOCTTY } = libc().flags;
    return ReadableFile.adopt(
      openChild(this.fd, encodeName(name, 'openat'), O_RDONLY | O_NONBLOCK | O_NOCTTY),
    );
  }

  /** Pins a child inode without opening it; a symlink is pinned as the symlink itself. */
  openPath(name: EntryName): PathHandle {
    return PathHandle.adopt(openChild(this.fd, encodeName(name, 'openat'), libc().flags.O_PATH));
  }

  /**
   * Creates a directory that must not exist yet and returns it held. The mode
   * is applied exactly through the held descriptor (the umask does not apply),
   * so published modes do not depend on the environment. It is created with
   * the requested permission bits (the umask can only remove some), so it is
   * never more open than requested, and a process killed between the mkdir
   * and the chmod leaves what a plain `mkdir` would, not a directory closed to
   * everyone else that a later run takes as it is.
   */
  mkdirExclusive(name: EntryName, mode: number): Dir {
    checkMode(mode, 'mkdirat');
    const encoded = encodeName(name, 'mkdirat');
    libc().mkdirat(this.fd, encoded, mode & 0o777);
    const child = this.#openCreated(encoded, mode);
    try {
      applyExactMode(child, mode);
      return child;
    } catch (error: unknown) {
      child.close();
      throw error;
    }
  }

  /**
   * Opens the directory just created. A umask that removes the owner's read
   * or search bit (0277, 0777) leaves it unopenable for reading (EACCES):
   * then it is pinned with O_PATH, which needs no permission on it, given
   * its mode through that pin, and opened again, required to be the same
   * inode. So the mode asked for is applied whatever the umask.
   */
  #openCreated(encoded: Buffer, mode: number): Dir {
    const name = encoded.subarray(0, -1);
    try {
      return this.openDir(name);
    } catch (error: unknown) {
      if (!isFsError(error, 'EACCES')) throw error;
    }
    const c = libc();
    const pinned = PathHandle.adopt(openChild(this.fd, encoded, c.flags.O_PATH | c.flags.O_DIRECTORY));
    try {
      pinned.chmod(mode);
      const child = this.openDir(name);
      if (!sameInode(child.stat(), pinned.stat())) {
        child.close();
        throw FsError.synthetic('ESTALE', 'openat');
      }
      return child;
    } finally {
      pinned.close();
    }
  }

  /**
   * Creates a regular file that must not exist yet (an existing name, even a
   * dangling symlink, gives EEXIST) and returns it open for writing. The mode
   * is applied exactly and the file created with the requested permission
   * bits, as for `mkdirExclusive`. On a failure after creation
   * the empty file is left in place: removing it by name could remove
   * something else.
   */
  createExclusive(name: EntryName, mode: number): WritableFile {
    checkMode(mode, 'openat');
    const { O_WRONLY, O_CREAT, O_EXCL } = libc().flags;
    const fd = openChild(this.fd, encodeName(name, 'openat'), O_WRONLY | O_CREAT | O_EXCL, mode & 0o777);
    const file = WritableFile.adopt(fd);
    try {
      applyExactMode(file, mode);
      return file;
    } catch (error: unknown) {
      file.close();
      throw error;
    }
  }

  /**
   * Whether this account may create, rename and remove entries here, by the
   * kernel's own check (mode bits, ACLs, a read-only mount), changing
   * nothing: the errno name (`EACCES`, `EROFS`, …) when it may not. A plan
   * that writes nothing asks this where a real run would write
   * (docs/distributor.md, "the dry run").
   */
  writeDenied(): string | undefined {
    try {
      libc().faccessat(this.fd, DOT, W_OK | X_OK);
      return undefined;
    } catch (error: unknown) {
      if (error instanceof FsError) return error.code;
      throw error;
    }
  }

  /** statx without following a symlink: of the child `name`, or of this directory when omitted. */
  override stat(name?: EntryName): FileStat {
    return name === undefined ? statAt(this.fd) : statAt(this.fd, encodeName(name, 'statx'));
  }

  /**
   * Changes the mode of a child regular file or directory through a
   * descriptor of its own, never by name: the child is pinned with O_PATH,
   * its type checked, then reopened and required to be the same inode. A
   * symlink gives ELOOP, any other type EINVAL.
   */
  chmodChild(name: EntryName, mode: number): void {
    checkMode(mode, 'fchmod');
    const c = libc();
    const encoded = encodeName(name, 'openat');
    const pinned = this.openPath(encoded.subarray(0, -1));
    try {
      const expected = pinned.stat();
      if (expected.type === 'symlink') throw FsError.synthetic('ELOOP', 'openat');
      if (expected.type !== 'file' && expected.type !== 'directory')
        throw FsError.synthetic('EINVAL', 'fchmod');
      const flags =
        expected.type === 'directory'
          ? c.flags.O_RDONLY | c.flags.O_DIRECTORY
          : c.flags.O_RDONLY | c.flags.O_NONBLOCK | c.flags.O_NOCTTY;
      const fd = openChild(this.fd, encoded, flags);
      try {
        if (!sameInode(statAt(fd), expected)) throw FsError.synthetic('ESTALE', 'openat');
        c.fchmod(fd, mode);
      } finally {
        closeFdQuietly(fd);
      }
    } finally {
      pinned.close();
    }
  }

  list(): readonly DirEntry[] {
    const entries = listEntries(this.fd, this.#listed);
    this.#listed = true;
    return entries;
  }

  /** Removes a non-directory entry (a symlink itself, never its target). */
  unlink(name: EntryName): void {
    libc().unlinkat(this.fd, encodeName(name, 'unlinkat'), 0);
  }

  /** Removes an empty directory. */
  rmdir(name: EntryName): void {
    libc().unlinkat(this.fd, encodeName(name, 'unlinkat'), AT_REMOVEDIR);
  }
}

/**
 * Gives a just-created inode exactly `mode`: a statx first, and the fchmod
 * only when the umask took bits away (or `mode` has bits above 0o777). A
 * statx reads; an fchmod is a journalled metadata change, which on a busy
 * filesystem can wait for a journal commit (docs/performance.md).
 */
function applyExactMode(descriptor: OpenDescriptor, mode: number): void {
  if (descriptor.stat().mode !== mode) descriptor.chmod(mode);
}
