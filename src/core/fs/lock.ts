import { LOCK_EX, LOCK_NB, LOCK_UN } from './constants.js';
import type { Dir } from './dir.js';
import { FsError, isFsError } from './errors.js';
import { closeQuietly, libc } from './libc.js';
import { type EntryName, encodeName } from './names.js';
import { openChild } from './open-child.js';
import { statAt } from './stat.js';

/** An exclusive flock held until `release()` or until the process dies (the kernel frees it then). */
export interface HeldLock {
  release(): void;
}

export type LockResult = { readonly kind: 'acquired'; readonly lock: HeldLock } | { readonly kind: 'busy' };

/** What `probeLock` found: the lock file is absent, held by someone, or present and free. */
export type LockProbe = 'absent' | 'held' | 'free';

/**
 * Opens (creating 0600 if absent) the lock file `name` in `dir` without
 * following a symlink, and takes an exclusive flock without waiting. Another
 * holder, in this or any process, gives `busy`. The lock file is never
 * deleted: unlinking a lock file lets two processes lock different inodes.
 */
export function lockExclusiveNonBlocking(dir: Dir, name: EntryName): LockResult {
  const { O_CREAT } = libc().flags;
  return tryLock(dir, name, O_CREAT);
}

/**
 * Tells whether the lock file `name` in `dir` is held, without creating it:
 * a plan-only run must write nothing, not even a lock file, so it opens
 * without O_CREAT and gives `absent` for a missing file. A free lock is taken
 * and released at once.
 */
export function probeLock(dir: Dir, name: EntryName): LockProbe {
  let attempt: LockResult;
  try {
    attempt = tryLock(dir, name, 0);
  } catch (error: unknown) {
    if (isFsError(error, 'ENOENT')) return 'absent';
    throw error;
  }
  if (attempt.kind === 'busy') return 'held';
  attempt.lock.release();
  return 'free';
}

function tryLock(dir: Dir, name: EntryName, createFlag: number): LockResult {
  const c = libc();
  const { O_RDONLY, O_NONBLOCK, O_NOCTTY } = c.flags;
  const fd = openChild(
    dir.fd,
    encodeName(name, 'openat'),
    O_RDONLY | createFlag | O_NONBLOCK | O_NOCTTY,
    0o600,
  );
  try {
    if (statAt(fd).type !== 'file') throw FsError.synthetic('EINVAL', 'flock');
    c.flock(fd, LOCK_EX | LOCK_NB);
  } catch (error: unknown) {
    closeQuietly(fd);
    if (isFsError(error, 'EWOULDBLOCK') || isFsError(error, 'EAGAIN')) return { kind: 'busy' };
    throw error;
  }
  return { kind: 'acquired', lock: new FlockHandle(fd) };
}

class FlockHandle implements HeldLock {
  #fd: number | undefined;

  constructor(fd: number) {
    this.#fd = fd;
  }

  release(): void {
    const fd = this.#fd;
    if (fd === undefined) return;
    this.#fd = undefined;
    try {
      libc().flock(fd, LOCK_UN);
    } finally {
      // Closing the only descriptor of the open file description releases the lock anyway.
      closeQuietly(fd);
    }
  }
}
