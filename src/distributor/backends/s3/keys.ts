import type { BundleDir, BundlePath } from '../../model/types.js';
import { compareUtf8 } from '../../path/bundle-path.js';

/**
 * Object keys of one destination bundle: `<prefix>/<bundle dir>/<path>`, or
 * `<bundle dir>/<path>` when the destination prefix is empty. The trailing
 * slash of the bundle prefix is what makes "under the bundle" exact: a listing
 * of `a/b/` never sees `a/bc` or `a/b` itself.
 */
export interface BundleKeys {
  /** The key prefix every object of the bundle starts with; ends with `/`. */
  readonly prefix: string;
  key(relative: string): string;
  /**
   * The bundle-relative name of a key under `prefix` (`''` for an object named
   * exactly like the prefix, a console's "folder"), or undefined outside it.
   */
  relative(key: string): string | undefined;
}

export function bundleKeys(destinationPrefix: string, bundleDir: BundleDir): BundleKeys {
  const prefix = destinationPrefix === '' ? `${bundleDir}/` : `${destinationPrefix}/${bundleDir}/`;
  return {
    prefix,
    key: (relative) => `${prefix}${relative}`,
    relative: (key) => (key.startsWith(prefix) ? key.slice(prefix.length) : undefined),
  };
}

/** Paths in UTF-8 byte order without duplicates: the order markers and deletions use. */
export function sortedUnique(paths: Iterable<BundlePath>): BundlePath[] {
  const unique = [...new Set(paths)];
  return unique.sort(compareUtf8);
}
