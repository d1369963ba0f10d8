import { createReadStream } from 'node:fs';
import type { Dir, WritableFile } from '../../core/fs/index.js';

/**
 * The run's verified copy of its source bundles. Validation streams every
 * source byte once, from the source into this private (0700) directory,
 * hashing on the way; everything published afterwards is read from here, so
 * what reaches a destination is exactly what was verified, and a source file
 * changed mid-run cannot slip through. Pages rendered from Markdown are kept
 * beside the copies. Layout: `b<bundle>/c<file>` (copy of files[file]) and
 * `b<bundle>/p<file>` (page rendered from files[file]).
 */
export class SourceSnapshot {
  readonly #dir: Dir;
  readonly owner: unknown;

  /** `owner` is the backend whose scratch area holds the snapshot (it may move files instead of copying). */
  constructor(dir: Dir, owner: unknown) {
    this.#dir = dir;
    this.owner = owner;
  }

  /** Creates the directory of bundle `index`, held until the caller closes it. */
  bundle(index: number): BundleSnapshot {
    return new BundleSnapshot(this.#dir.mkdirExclusive(`b${index}`, 0o700));
  }

  /** Opens the directory of bundle `index` again (for apply), held until closed. */
  reopen(index: number): BundleSnapshot {
    return new BundleSnapshot(this.#dir.openDir(`b${index}`));
  }

  close(): void {
    this.#dir.close();
  }
}

export class BundleSnapshot {
  readonly dir: Dir;

  constructor(dir: Dir) {
    this.dir = dir;
  }

  static copyName(fileIndex: number): string {
    return `c${fileIndex}`;
  }

  static pageName(fileIndex: number): string {
    return `p${fileIndex}`;
  }

  create(name: string): WritableFile {
    return this.dir.createExclusive(name, 0o600);
  }

  /** Streams a snapshot file in 1 MiB chunks; the descriptor closes when the stream ends or is abandoned. */
  read(name: string): AsyncIterable<Uint8Array> {
    const file = this.dir.openFile(name);
    return createReadStream('', { fd: file.fd, highWaterMark: 1 << 20, autoClose: true });
  }

  close(): void {
    this.dir.close();
  }
}
