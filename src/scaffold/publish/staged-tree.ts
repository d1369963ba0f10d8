import { sha256Hex } from '../../core/digest/index.js';
import {
  closeQuietly,
  type Dir,
  type FileStat,
  type HeldLock,
  isFsError,
  lockExclusiveNonBlocking,
  type WritableFile,
} from '../../core/fs/index.js';
import { lockFileName, STAGING_ROOT } from '../names.js';
import type { PlannedFile, ScaffoldPlan } from '../plan.js';
import { refuseScaffold } from '../refusals.js';
import type { StagingState } from '../result.js';
import { validLockFile } from '../workspace/collisions.js';
import { currentUid, lookAt, ownedWithout, sameInode } from '../workspace/entry.js';

const STAGED_FILE_MODE = 0o600;
const SEALED_FILE_MODE = 0o400;
const OPEN_DIR_MODE = 0o700;
const SEALED_DIR_MODE = 0o500;

/**
 * The staging side of one run (stage, seal and verify in
 * docs/scaffold.md#the-publication-protocol): the staging root, the
 * per-source lock held to the end, the exclusively created staging
 * directory held by descriptor with its identity, and the write descriptors
 * of the staged files until the seal closes them. Every operation is
 * relative to a held descriptor.
 */
export class StagedTree {
  #root: Dir | undefined;
  #lock: HeldLock | undefined;
  #dir: Dir | undefined;
  #identity: FileStat | undefined;
  readonly #writers = new Map<string, WritableFile>();

  constructor(
    private readonly project: Dir,
    private readonly plan: ScaffoldPlan,
    root: Dir | undefined,
  ) {
    this.#root = root;
  }

  /** The held staging directory once made, which a failed run reports the state of. */
  get dir(): Dir | undefined {
    return this.#dir;
  }

  /** Creates the staging root 0700 if absent; an existing one must pass the root checks (docs/scaffold.md#checks-in-order). */
  ensureRoot(): Dir {
    if (this.#root !== undefined) return this.#root;
    try {
      this.#root = this.project.mkdirExclusive(STAGING_ROOT, OPEN_DIR_MODE);
      return this.#root;
    } catch (error: unknown) {
      if (!isFsError(error, 'EEXIST')) throw error;
    }
    // Another run created it in the meantime: take it only if it is a valid root.
    const entry = lookAt(this.project, STAGING_ROOT);
    if (entry.kind === 'symlink') throw refuseScaffold('symlink_refused');
    if (entry.kind === 'special') throw refuseScaffold('not_regular_file');
    if (entry.kind !== 'directory') throw refuseScaffold('staging_root_invalid');
    const root = this.project.openDir(STAGING_ROOT);
    if (!sameInode(root.stat(), entry.stat) || !ownedWithout(root.stat(), 0o077)) {
      root.close();
      throw refuseScaffold('staging_root_invalid');
    }
    this.#root = root;
    return root;
  }

  /** Opens or creates the empty lock file and takes the non-blocking exclusive lock, held for the whole run. */
  lock(): void {
    const root = this.#requireRoot();
    const name = lockFileName(this.plan.sourceId);
    const before = lookAt(root, name);
    if (before.kind === 'symlink') throw refuseScaffold('symlink_refused');
    if (before.kind === 'special') throw refuseScaffold('not_regular_file');
    if (before.kind === 'directory' || (before.kind === 'file' && !validLockFile(before.stat))) {
      throw refuseScaffold('staging_root_invalid');
    }
    const attempt = lockExclusiveNonBlocking(root, name);
    if (attempt.kind === 'busy') throw refuseScaffold('staging_in_use');
    this.#lock = attempt.lock;
    const after = lookAt(root, name);
    if (after.kind !== 'file' || !validLockFile(after.stat)) throw refuseScaffold('staging_root_invalid');
  }

  /** The exclusive mkdir of .scaffold-staging/<source_id>, 0700, held; an existing entry follows the collision precedence. */
  makeDirectory(): { readonly dir: Dir; readonly identity: FileStat } {
    const root = this.#requireRoot();
    let dir: Dir;
    try {
      dir = root.mkdirExclusive(this.plan.sourceId, OPEN_DIR_MODE);
    } catch (error: unknown) {
      if (!isFsError(error, 'EEXIST')) throw error;
      const entry = lookAt(root, this.plan.sourceId);
      if (entry.kind === 'symlink') throw refuseScaffold('symlink_refused');
      if (entry.kind === 'special') throw refuseScaffold('not_regular_file');
      throw refuseScaffold('staging_exists');
    }
    this.#dir = dir;
    const identity = dir.stat();
    this.#identity = identity;
    return { dir, identity };
  }

  /** Exclusive create (0600, no-follow) and a complete write; the descriptor stays open until the seal. */
  write(file: PlannedFile): void {
    const writer = this.#requireDir().createExclusive(file.name, STAGED_FILE_MODE);
    this.#writers.set(file.name, writer);
    writer.write(Buffer.from(file.text, 'utf8'));
  }

  fsyncFile(file: PlannedFile): void {
    this.#writer(file).fsync();
  }

  /** Re-reads the file through a fresh no-follow open and compares it with the plan. */
  rehash(file: PlannedFile): void {
    const writer = this.#writer(file);
    if (!this.#matches(file, (stat) => sameInode(stat, writer.stat())))
      throw refuseScaffold('staging_modified');
  }

  fsyncDirectory(): void {
    this.#requireDir().fsync();
  }

  sealFile(file: PlannedFile): void {
    this.#writer(file).chmod(SEALED_FILE_MODE);
  }

  /** 0500 on the directory, fsync of it and of the root, then every write descriptor closed. */
  sealDirectory(): void {
    const dir = this.#requireDir();
    dir.chmod(SEALED_DIR_MODE);
    dir.fsync();
    this.#requireRoot().fsync();
    for (const writer of this.#writers.values()) writer.close();
    this.#writers.clear();
  }

  /**
   * The verification (docs/scaffold.md#the-publication-protocol) over the
   * sealed tree: the entry set equals the plan (from the listing, no
   * subdirectory), each entry a regular file of the running
   * user, mode `fileMode`, one link, its bytes (through a fresh no-follow
   * open) hashing as planned; the directory at `dirMode`; the root still a
   * private directory of the running user; the staging name still the held
   * directory. A symlink anywhere is symlink_refused, anything else
   * staging_modified.
   */
  verify(dirMode: number): void {
    const dir = this.#requireDir();
    const root = this.#requireRoot();
    const listing = dir.list();
    if (listing.some((entry) => entry.type === 'symlink')) throw refuseScaffold('symlink_refused');
    const names = listing.map((entry) => (entry.utf8 ? entry.name : undefined));
    const planned = this.plan.files.map((file) => file.name);
    if (names.length !== planned.length || names.some((name, index) => name !== planned[index])) {
      throw refuseScaffold('staging_modified');
    }
    const uid = currentUid();
    for (const file of this.plan.files) {
      const entry = lookAt(dir, file.name);
      if (entry.kind === 'symlink') throw refuseScaffold('symlink_refused');
      if (entry.kind !== 'file') throw refuseScaffold('staging_modified');
      const { stat } = entry;
      if (stat.uid !== uid || stat.mode !== SEALED_FILE_MODE || stat.nlink !== 1) {
        throw refuseScaffold('staging_modified');
      }
      if (!this.#matches(file, (opened) => sameInode(opened, stat))) throw refuseScaffold('staging_modified');
    }
    const self = dir.stat();
    if (self.type !== 'directory' || self.mode !== dirMode || self.uid !== uid) {
      throw refuseScaffold('staging_modified');
    }
    if (!ownedWithout(root.stat(), 0o077)) throw refuseScaffold('staging_modified');
    this.checkIdentity();
  }

  /**
   * Only the staging directory back to 0700, through the held descriptor;
   * files stay 0400: a non-root process cannot move a 0500 directory to
   * another parent (docs/scaffold.md#the-publication-protocol).
   */
  unsealDirectory(): void {
    this.#requireDir().chmod(OPEN_DIR_MODE);
  }

  /** The staging name, looked up without following, is still the held directory; else staging_modified. */
  checkIdentity(): void {
    if (!this.stillAtStagingName()) throw refuseScaffold('staging_modified');
  }

  stillAtStagingName(): boolean {
    const root = this.#root;
    const identity = this.#identity;
    if (root === undefined || identity === undefined) return false;
    try {
      const entry = lookAt(root, this.plan.sourceId);
      return entry.kind === 'directory' && sameInode(entry.stat, identity);
    } catch {
      return false;
    }
  }

  /**
   * The modes a leftover staging directory holds now (read through the held
   * descriptor, metadata only): sealed (0500, files 0400), unsealed (0700,
   * files 0600) or partially_sealed (anything between). Undefined when the
   * staging name no longer leads to this run's directory.
   */
  stagingState(): StagingState | undefined {
    const dir = this.#dir;
    if (dir === undefined || !this.stillAtStagingName()) return undefined;
    try {
      const dirMode = dir.stat().mode;
      const modes = dir.list().map((entry) => lookAt(dir, entry.bytes));
      const fileModes = modes.map((entry) => (entry.kind === 'absent' ? 0 : entry.stat.mode));
      if (
        dirMode === SEALED_DIR_MODE &&
        fileModes.length > 0 &&
        fileModes.every((m) => m === SEALED_FILE_MODE)
      ) {
        return 'sealed';
      }
      if (dirMode === OPEN_DIR_MODE && fileModes.every((m) => m === STAGED_FILE_MODE)) return 'unsealed';
      return 'partially_sealed';
    } catch {
      return undefined;
    }
  }

  /** Closes every descriptor; the lock is released last, by `releaseLock`. */
  closeDescriptors(): void {
    for (const writer of this.#writers.values()) closeQuietly(writer);
    this.#writers.clear();
    if (this.#dir !== undefined) closeQuietly(this.#dir);
    if (this.#root !== undefined) closeQuietly(this.#root);
  }

  releaseLock(): void {
    this.#lock?.release();
    this.#lock = undefined;
  }

  #matches(file: PlannedFile, sameFile: (stat: FileStat) => boolean): boolean {
    const reader = this.#requireDir().openFile(file.name);
    try {
      const stat = reader.stat();
      if (stat.type !== 'file' || !sameFile(stat) || stat.size !== BigInt(file.bytes)) return false;
      return sha256Hex(reader.readUpTo(file.bytes + 1)) === file.sha256;
    } finally {
      reader.close();
    }
  }

  #writer(file: PlannedFile): WritableFile {
    const writer = this.#writers.get(file.name);
    if (writer === undefined)
      throw new Error('a staged file is written before it is synced, rehashed or sealed');
    return writer;
  }

  #requireRoot(): Dir {
    if (this.#root === undefined) throw new Error('the staging root is created first');
    return this.#root;
  }

  #requireDir(): Dir {
    if (this.#dir === undefined) throw new Error('the staging directory is created first');
    return this.#dir;
  }
}
