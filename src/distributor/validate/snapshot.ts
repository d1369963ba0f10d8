import { createReadStream } from 'node:fs';
import { digestFileOnThread, type FileDigests } from '../../core/digest/index.js';
import type { Dir, WritableFile } from '../../core/fs/index.js';
import { Refusal } from '../../core/refusal/index.js';

/** Reports a snapshot write to the run's fault hook before it happens. */
export type SnapshotStep = (kind: 'mkdir' | 'create') => void;

/**
 * The run's verified copy of its source bundles. Validation streams every
 * source byte once, from the source into this private (0700) directory,
 * hashing on the way; everything published afterwards is read from here, so
 * what reaches a destination is exactly what was verified, and a source file
 * changed mid-run cannot slip through. Pages rendered from Markdown are kept
 * beside the copies. Layout: `b<bundle>/c<file>` (copy of files[file]) and
 * `b<bundle>/p<file>-<sha256 hex>` (a page rendered from files[file]).
 */
export class SourceSnapshot {
  readonly #dir: Dir;
  readonly #step: SnapshotStep;
  readonly #writeback: boolean;

  /**
   * `writeback`: the copies will be made durable where they are (a local
   * destination's work area, fsynced before its commit), so the disk may
   * start writing each one at once. A private temporary directory is only
   * read from and then removed: written back, its copies would cost disk
   * writes nobody needs and a slower removal.
   */
  constructor(dir: Dir, step: SnapshotStep, options: { readonly writeback: boolean }) {
    this.#dir = dir;
    this.#step = step;
    this.#writeback = options.writeback;
  }

  /** Creates the directory of bundle `index`, held until the caller closes it. */
  bundle(index: number): BundleSnapshot {
    return snapshotWrite(() => {
      this.#step('mkdir');
      return new BundleSnapshot(
        this.#dir.mkdirExclusive(SourceSnapshot.bundleName(index), 0o700),
        this.#step,
        { writeback: this.#writeback },
      );
    });
  }

  /** Opens the directory of bundle `index` again (for apply), held until closed. */
  reopen(index: number): BundleSnapshot {
    const name = SourceSnapshot.bundleName(index);
    return new BundleSnapshot(
      this.#dir.openDir(name),
      this.#step,
      { writeback: this.#writeback },
      { parent: this.#dir, name },
    );
  }

  /** The snapshot's directory (bundle `index` is its entry `bundleName(index)`). */
  get dir(): Dir {
    return this.#dir;
  }

  static bundleName(index: number): string {
    return `b${index}`;
  }

  close(): void {
    this.#dir.close();
  }
}

export class BundleSnapshot {
  readonly dir: Dir;
  /** Where the directory sits (the snapshot's root and its entry name), when reopened for apply. */
  readonly location: { readonly parent: Dir; readonly name: string } | undefined;
  /** Whether a copy's writeback may start at once (see `SourceSnapshot`). */
  readonly writeback: boolean;
  readonly #step: SnapshotStep;

  constructor(
    dir: Dir,
    step: SnapshotStep,
    options: { readonly writeback: boolean },
    location?: { readonly parent: Dir; readonly name: string },
  ) {
    this.dir = dir;
    this.#step = step;
    this.writeback = options.writeback;
    this.location = location;
  }

  /**
   * Snapshot file names begin with `.distributor`, which no bundle path
   * segment may use: when a local destination turns this directory into its
   * staging tree, no output name can collide with a snapshot file, and what
   * is left of the snapshot is known by name.
   */
  static copyName(fileIndex: number): string {
    return `.distributor-c${fileIndex}`;
  }

  /** A page rendered from files[fileIndex]; one per distinct page (a `lang` makes another). */
  static pageName(fileIndex: number, sha256Hex: string): string {
    return `.distributor-p${fileIndex}-${sha256Hex}`;
  }

  /**
   * A snapshot file, created with the mode it is published with (0644): it
   * is private through its 0700 directories, and a local destination moves
   * it into place without another chmod.
   */
  create(name: string): WritableFile {
    return snapshotWrite(() => {
      this.#step('create');
      return this.dir.createExclusive(name, 0o644);
    });
  }

  /** Streams a snapshot file in 1 MiB chunks; the descriptor closes when the stream ends or is abandoned. */
  read(name: string): AsyncIterable<Uint8Array> {
    const file = this.dir.openFile(name);
    return createReadStream('', { fd: file.fd, highWaterMark: 1 << 20, autoClose: true });
  }

  /** SHA-256 and MD5 of a snapshot file, read on a thread of its own (see `OutputSource.digest`). */
  digest(name: string, maxBytes: number): Promise<FileDigests | undefined> {
    return digestFileOnThread({ open: () => this.dir.openFile(name), maxBytes });
  }

  close(): void {
    this.dir.close();
  }
}

/**
 * Writing the snapshot failed: the storage that holds it (a destination's
 * work area, or the private temporary directory) is full, read-only or
 * failing. Not a refusal and never a source problem: the run moves the
 * snapshot elsewhere and charges the failure to that storage's destination
 * (docs/distributor.md#a-destination-that-fails).
 */
export class SnapshotWriteFailed extends Error {
  readonly code: string;

  constructor(cause: unknown) {
    const code = typeof cause === 'object' && cause !== null && 'code' in cause ? cause.code : undefined;
    super('writing the source snapshot failed', { cause });
    this.name = 'SnapshotWriteFailed';
    this.code = typeof code === 'string' ? code : 'EUNKNOWN';
  }
}

function snapshotWrite<T>(work: () => T): T {
  try {
    return work();
  } catch (error: unknown) {
    if (error instanceof Refusal) throw error;
    throw new SnapshotWriteFailed(error);
  }
}
