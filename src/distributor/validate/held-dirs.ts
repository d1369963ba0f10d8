import type { Dir } from '../../core/fs/index.js';

/**
 * The chain of directories below a root that the last lookup opened, kept
 * open for the next one. Bundles are visited in sorted order, so consecutive
 * bundles share their parents (`reports/2026/a`, `reports/2026/b`): each
 * parent is opened once per run of neighbours instead of once per bundle and
 * phase. At most one descriptor per path segment is held.
 *
 * Holding a directory is the race-free reading: lookups keep resolving in the
 * directory that was opened, never through a name that may have been swapped
 * since. A failed open leaves the chain at the part that did open.
 */
export class HeldDirs {
  readonly #root: Dir;
  readonly #names: string[] = [];
  readonly #dirs: Dir[] = [];

  constructor(root: Dir) {
    this.#root = root;
  }

  /** The root itself; unlike `open([])`, it keeps the held chain. */
  get root(): Dir {
    return this.#root;
  }

  /** The directory at `segments` below the root (the root for none); owned by this chain: do not close it. */
  open(segments: readonly string[]): Dir {
    let common = 0;
    while (
      common < this.#names.length &&
      common < segments.length &&
      this.#names[common] === segments[common]
    ) {
      common += 1;
    }
    this.#truncate(common);
    let current = common === 0 ? this.#root : (this.#dirs[common - 1] ?? this.#root);
    for (const segment of segments.slice(common)) {
      current = current.openDir(segment);
      this.#dirs.push(current);
      this.#names.push(segment);
    }
    return current;
  }

  /** Closes every held directory (not the root). */
  close(): void {
    this.#truncate(0);
  }

  #truncate(length: number): void {
    const dropped = this.#dirs.splice(length);
    this.#names.length = length;
    for (const dir of dropped.reverse()) dir.close();
  }
}
