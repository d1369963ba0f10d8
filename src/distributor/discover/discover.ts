import { type Dir, type DirEntry, type DirEntryType, isFsError } from '../../core/fs/index.js';
import type { BundleDir } from '../model/types.js';
import { compareUtf8, toBundleDir } from '../path/bundle-path.js';
import { refuseDistributor } from '../refusals.js';

export const MANIFEST_FILE = 'manifest.json';
/** Bounds on the walk: a source tree deeper or larger than this is refused, not half-scanned. */
export const DISCOVERY_LIMITS = { maxDepth: 64, maxEntries: 2_000_000 } as const;

/**
 * Called for each bundle as the walk finds it, with the bundle directory held
 * open and the type the listing gave `manifest.json`; the directory is closed
 * when it returns. The walk's own checks on the bundle path have passed.
 */
export type OnBundle = (bundleDir: Dir, path: string, manifestListedAs: DirEntryType) => void;

/**
 * Every bundle under a source root: each directory holding `manifest.json`.
 * The walk never follows a symbolic link (a linked directory is not entered;
 * a linked `manifest.json` still marks a bundle and is refused when read). It
 * continues below a bundle to find nested manifests, which refuse the whole
 * pipeline (seed: "If nested manifests are found, the MVP should fail"), as
 * does a manifest at the source root itself. Sorted by UTF-8 bytes.
 */
export function discoverBundles(
  root: Dir,
  options: { readonly rootIsBundle?: boolean; readonly onBundle?: OnBundle } = {},
): readonly BundleDir[] {
  const found: string[] = [];
  let seen = 0;
  const walk = (dir: Dir, segments: readonly DirEntry[], insideBundle: boolean): void => {
    if (segments.length > DISCOVERY_LIMITS.maxDepth) throw refuseDistributor('discovery_too_large');
    const entries = dir.list();
    seen += entries.length;
    if (seen > DISCOVERY_LIMITS.maxEntries) throw refuseDistributor('discovery_too_large');
    const manifest = entries.find((entry) => entry.utf8 && entry.name === MANIFEST_FILE);
    const isBundle = manifest !== undefined;
    if (isBundle) {
      if (segments.length === 0 && options.rootIsBundle !== true) {
        throw refuseDistributor('bundle_at_source_root', { role: 'bundle' });
      }
      if (insideBundle) throw refuseDistributor('bundle_nested', { role: 'bundle' });
      if (segments.some((segment) => !segment.utf8))
        throw refuseDistributor('bundle_dir_invalid', { role: 'bundle' });
      if (segments.length > 0) {
        const path = segments.map((segment) => segment.name).join('/');
        found.push(path);
        options.onBundle?.(dir, path, manifest.type);
      }
    }
    for (const entry of entries) {
      if (!isDirectory(dir, entry)) continue;
      let child: Dir;
      try {
        child = dir.openDir(entry.bytes);
      } catch (error: unknown) {
        // Replaced by a symlink or removed since the listing: not a directory to enter.
        if (isFsError(error, 'ELOOP') || isFsError(error, 'ENOENT') || isFsError(error, 'ENOTDIR')) continue;
        throw refuseDistributor('source_root_unavailable');
      }
      try {
        walk(child, [...segments, entry], insideBundle || isBundle);
      } finally {
        child.close();
      }
    }
  };
  walk(root, [], false);
  if (options.rootIsBundle === true) return [];
  return found.sort(compareUtf8).map((path) => toBundleDir(path));
}

function isDirectory(dir: Dir, entry: DirEntry): boolean {
  if (entry.type === 'directory') return true;
  if (entry.type !== 'unknown') return false;
  try {
    return dir.stat(entry.bytes).type === 'directory';
  } catch {
    return false;
  }
}
