import { readFileSync } from 'node:fs';
import { LOCK_EX, LOCK_NB, LOCK_SH, LOCK_UN } from './constants.js';
import type { Dir } from './dir.js';
import { FsError, isFsError } from './errors.js';
import { closeFdQuietly, libc } from './libc.js';
import { type EntryName, encodeName } from './names.js';
import { openChild } from './open-child.js';
import { statAt } from './stat.js';

/** An flock held until `release()` or until the process dies (the kernel frees it then). */
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
  return tryLock(dir, name, 'create');
}

/**
 * `lockExclusiveNonBlocking`, but a shared flock: any number of shared
 * holders at once, none while an exclusive one holds it (and the other way
 * round). For readers that only copy what the exclusive holder writes.
 */
export function lockSharedNonBlocking(dir: Dir, name: EntryName): LockResult {
  return tryLock(dir, name, 'create', LOCK_SH);
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
    attempt = tryLock(dir, name, 'existing');
  } catch (error: unknown) {
    if (isFsError(error, 'ENOENT')) return 'absent';
    throw error;
  }
  if (attempt.kind === 'busy') return 'held';
  attempt.lock.release();
  return 'free';
}

/** What `peekLock` found; `unknown` when the kernel's lock table cannot be read. */
export type LockPeek = 'absent' | 'held' | 'free' | 'unknown';

/**
 * Tells whether another process holds an flock on the lock file `name` in
 * `dir` without taking it, even for an instant, and without creating it:
 * the file is opened read-only and looked up by device and inode in the
 * kernel's lock table (`/proc/locks`). Unlike `probeLock`, a concurrent run
 * asking for the lock at that moment can never find it busy because of this
 * look. A lock held from another PID namespace (a container) is not listed
 * there, so it reads as `free`; without `/proc/locks` the answer is `unknown`.
 */
export function peekLock(dir: Dir, name: EntryName): LockPeek {
  let fd: number;
  try {
    fd = openLockFile(dir, name, 0);
  } catch (error: unknown) {
    if (isFsError(error, 'ENOENT')) return 'absent';
    throw error;
  }
  let table: string;
  let dev: bigint;
  let ino: bigint;
  try {
    const stat = statAt(fd);
    if (stat.type !== 'file') throw FsError.synthetic('EINVAL', 'flock');
    dev = stat.dev;
    ino = stat.ino;
  } finally {
    closeFdQuietly(fd);
  }
  try {
    table = readFileSync('/proc/locks', 'latin1');
  } catch {
    return 'unknown';
  }
  // glibc's gnu_dev_major / gnu_dev_minor; the table prints them in hex.
  const major = ((dev >> 8n) & 0xfffn) | ((dev >> 32n) & ~0xfffn);
  const minor = (dev & 0xffn) | ((dev >> 12n) & ~0xffn & 0xffffffffn);
  const device = `${major.toString(16).padStart(2, '0')}:${minor.toString(16).padStart(2, '0')}:${ino}`;
  for (const line of table.split('\n')) {
    // `1: FLOCK  ADVISORY  WRITE 1234 fd:01:5678 0 EOF` (a shared READ lock blocks ours too);
    // a `->` line is a waiter, which holds nothing (its fields are shifted).
    const fields = line.trim().split(/\s+/);
    if (fields[1] === 'FLOCK' && fields[5] === device) return 'held';
  }
  return 'free';
}

function tryLock(
  dir: Dir,
  name: EntryName,
  open: 'create' | 'existing',
  mode: typeof LOCK_EX | typeof LOCK_SH = LOCK_EX,
): LockResult {
  const c = libc();
  const fd = open === 'create' ? openOrCreate(dir, name) : openLockFile(dir, name, 0);
  try {
    if (statAt(fd).type !== 'file') throw FsError.synthetic('EINVAL', 'flock');
    c.flock(fd, mode | LOCK_NB);
  } catch (error: unknown) {
    closeFdQuietly(fd);
    if (isFsError(error, 'EWOULDBLOCK') || isFsError(error, 'EAGAIN')) return { kind: 'busy' };
    throw error;
  }
  return { kind: 'acquired', lock: new FlockHandle(fd) };
}

const LOCK_FILE_MODE = 0o600;

function openLockFile(dir: Dir, name: EntryName, extra: number): number {
  const { O_RDONLY, O_NONBLOCK, O_NOCTTY } = libc().flags;
  return openChild(
    dir.fd,
    encodeName(name, 'openat'),
    O_RDONLY | extra | O_NONBLOCK | O_NOCTTY,
    LOCK_FILE_MODE,
  );
}

/**
 * Opens the lock file, creating it when absent. A file this call creates
 * gets exactly 0600 through its descriptor, whatever the umask (a umask of
 * 0277 would leave it 0400, and every later run would find a lock file with
 * the wrong mode). An existing file is opened as it is: its mode is its
 * owner's business and the caller checks it.
 */
function openOrCreate(dir: Dir, name: EntryName): number {
  const { O_CREAT, O_EXCL } = libc().flags;
  // Created and removed by others in between at most a few times: then give up.
  for (let attempt = 0; attempt < 3; attempt += 1) {
    let fd: number;
    try {
      fd = openLockFile(dir, name, O_CREAT | O_EXCL);
    } catch (error: unknown) {
      if (!isFsError(error, 'EEXIST')) throw error;
      try {
        return openLockFile(dir, name, 0);
      } catch (reopen: unknown) {
        if (isFsError(reopen, 'ENOENT')) continue;
        throw reopen;
      }
    }
    try {
      libc().fchmod(fd, LOCK_FILE_MODE);
    } catch (error: unknown) {
      closeFdQuietly(fd);
      throw error;
    }
    return fd;
  }
  throw FsError.synthetic('ESTALE', 'openat');
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
      closeFdQuietly(fd);
    }
  }
}
