import type { ObjectLimits } from '../../backend.js';
import type { BundleDir, BundlePath } from '../../model/types.js';
import { compareUtf8 } from '../../path/bundle-path.js';

/**
 * Object keys of one destination bundle: `<prefix>/<bundle dir>/<path>`, or
 * `<bundle dir>/<path>` when the destination prefix is empty. The trailing
 * slash of the bundle prefix is what makes "under the bundle" exact: a listing
 * of `a/b/` never sees `a/bc` or `a/b` itself.
 */
export interface BundleKeys {
  /** The bundle's folder under the destination prefix: how a refusal names it (never the prefix itself). */
  readonly dir: BundleDir;
  /** The destination's prefix the bundle folder is under (`''` for the bucket's root). */
  readonly destinationPrefix: string;
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
    dir: bundleDir,
    destinationPrefix,
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

/** The largest object one PutObject stores (S3's single-upload limit). */
export const MAX_OBJECT_BYTES = 5 * 1024 ** 3;
/** The longest object key S3 accepts, in UTF-8 bytes. */
export const MAX_KEY_BYTES = 1024;

/** The limits the planner checks for a destination under `destinationPrefix`. */
export function s3ObjectLimits(destinationPrefix: string): ObjectLimits {
  return {
    max_object_bytes: MAX_OBJECT_BYTES,
    max_key_bytes: MAX_KEY_BYTES,
    key_prefix_bytes: destinationPrefix === '' ? 0 : Buffer.byteLength(destinationPrefix, 'utf8') + 1,
  };
}
