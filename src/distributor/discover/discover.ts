import {
  type Dir,
  type DirEntry,
  type DirEntryType,
  didYouMeanPath,
  type FileStat,
  isFsError,
  nearPath,
} from '../../core/fs/index.js';
import type { Refusal } from '../../core/refusal/index.js';
import type { BundleDir } from '../model/types.js';
import { compareUtf8, toBundleDir, unicodeTwins } from '../path/bundle-path.js';
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
 * Called for each regular file inside a bundle (manifest.json aside) that
 * `distribute manifest` would list by default: every name on its way below
 * the bundle folder UTF-8 and not hidden. `bundle` is the bundle's path
 * (`''` when the root is the bundle), `path` the file's under it, `stat`
 * reads the file's inode when asked. Called after that bundle's `OnBundle`.
 */
export type OnBundleFile = (bundle: string, path: string, stat: () => FileStat) => void;

/** One thing the walk refuses, with the bundle it lies in. */
export interface DiscoveryProblem {
  /** The bundle holding the problem, or null when it lies outside every bundle (or `rootIsBundle`). */
  readonly bundle: BundleDir | null;
  /** Located at the entry, relative to that bundle (or to the root when `bundle` is null). */
  readonly refusal: Refusal;
}

export interface Discovery {
  /** Every bundle found, sorted by UTF-8 bytes, those with problems included. */
  readonly bundles: readonly BundleDir[];
  readonly problems: readonly DiscoveryProblem[];
  /**
   * Folders below the root and outside every bundle that hold files of
   * their own, sorted by UTF-8 bytes: where an operator most likely meant a
   * bundle and wrote no manifest. Only those `worthNaming` keeps, and none
   * that `distribute manifest` could not take as written: hidden files and
   * folders aside (`.git/`, `.DS_Store`), as that command leaves them out,
   * and no name that is not UTF-8. Never a problem; a run says so when it
   * found no bundle at all.
   */
  readonly dirsWithoutManifest: readonly string[];
  /**
   * Files directly in the source root (hidden ones and names that are not
   * UTF-8 aside), sorted by UTF-8 bytes: never published, as a bundle is a
   * folder below the root. Empty when the root is itself the bundle.
   */
  readonly filesAtRoot: readonly string[];
}

/**
 * Every bundle under a source root: each directory holding `manifest.json`.
 * The walk never follows a symbolic link: every symlink it meets (to a file
 * or a directory, listed or not) and every FIFO, socket or device is a
 * problem at its relative path, as is a directory it cannot read; nothing
 * under the root is skipped silently. It continues below a bundle to find
 * nested manifests, which refuse the outer bundle naming the inner one
 * (docs/distributor.md#source-bundles), as does a manifest at the source
 * root itself. Every problem is collected (the walk goes on);
 * only the walk's size limits throw. A linked `manifest.json` is left to
 * the manifest reader, which refuses it as `manifest_not_regular`.
 */
/** Said of a problem outside every bundle, which refuses the whole pipeline. */
const OUTSIDE_EVERY_BUNDLE = 'it lies outside every bundle, so no bundle of this source root is published';

export function discoverBundles(
  root: Dir,
  options: {
    readonly rootIsBundle?: boolean;
    readonly onBundle?: OnBundle;
    readonly onBundleFile?: OnBundleFile;
  } = {},
): Discovery {
  const found: string[] = [];
  const problems: DiscoveryProblem[] = [];
  const withoutManifest: string[] = [];
  const filesAtRoot: string[] = [];
  let seen = 0;
  /** `bundle`: the enclosing bundle's path and segment count, or undefined outside every bundle. */
  const problem = (
    bundle: { readonly path: string; readonly depth: number } | undefined,
    segments: readonly string[],
    make: (path: string) => Refusal,
  ): void => {
    const inBundle = bundle !== undefined && options.rootIsBundle !== true;
    const relative = (inBundle ? segments.slice(bundle.depth) : segments).join('/');
    problems.push({ bundle: inBundle ? toBundleDir(bundle.path) : null, refusal: make(relative) });
  };
  const walk = (
    dir: Dir,
    segments: readonly DirEntry[],
    bundle: { readonly path: string; readonly depth: number } | undefined,
  ): void => {
    if (segments.length > DISCOVERY_LIMITS.maxDepth) throw refuseDistributor('discovery_too_large');
    const entries = dir.list();
    seen += entries.length;
    if (seen > DISCOVERY_LIMITS.maxEntries) throw refuseDistributor('discovery_too_large');
    const names = segments.map((segment) => segment.name);
    const path = names.join('/');
    const manifest = entries.find((entry) => entry.utf8 && entry.name === MANIFEST_FILE);
    let inside = bundle;
    if (manifest !== undefined) {
      if (segments.length === 0 && options.rootIsBundle === true) {
        inside = { path: '', depth: 0 };
      } else if (segments.length === 0) {
        problem(undefined, [MANIFEST_FILE], (at) =>
          refuseDistributor('bundle_at_source_root', {
            role: 'bundle',
            location: { path: at },
            hint: 'move the bundle into a subdirectory of the source root',
          }),
        );
      } else if (bundle !== undefined) {
        problem(bundle, [...names, MANIFEST_FILE], (at) =>
          refuseDistributor('bundle_nested', {
            role: 'bundle',
            location: { path: at },
            hint: `${
              bundle.path === ''
                ? `the bundle holds another bundle, '${path}'`
                : `bundle '${bundle.path}' holds another bundle, '${path}'`
            }: move one of them so that neither lies inside the other`,
            details: { bundle_dir: bundle.path === '' ? '.' : bundle.path, nested_bundle_dir: path },
          }),
        );
      } else if (segments.some((segment) => !segment.utf8)) {
        problem(undefined, names, (at) =>
          refuseDistributor('bundle_dir_invalid', {
            role: 'bundle',
            location: { path: at },
            hint: 'a bundle directory name must be valid UTF-8',
          }),
        );
      } else if (segments.length > 0) {
        found.push(path);
        inside = { path, depth: segments.length };
        options.onBundle?.(dir, path, manifest.type);
      }
    }
    let holdsFiles = false;
    for (const entry of entries) {
      if (entry === manifest) continue;
      const type = typeOf(dir, entry);
      const at = [...names, entry.name];
      if (type === 'file' && entry.utf8 && !entry.name.startsWith('.')) {
        holdsFiles = true;
        if (segments.length === 0 && options.rootIsBundle !== true) filesAtRoot.push(entry.name);
        const below = inside === undefined ? undefined : segments.slice(inside.depth);
        if (below?.every((segment) => segment.utf8 && !segment.name.startsWith('.')) === true)
          options.onBundleFile?.(
            inside?.path ?? '',
            [...below.map((segment) => segment.name), entry.name].join('/'),
            () => dir.stat(entry.bytes),
          );
      }
      if (type === 'symlink') {
        problem(inside, at, (where) =>
          refuseDistributor('source_symlink', {
            role: 'bundle',
            location: { path: where },
            hint:
              inside === undefined
                ? `${OUTSIDE_EVERY_BUNDLE}: remove the link, or move it out of the source root (a link such as latest -> 2026-W03 belongs beside the source root, not in it)`
                : 'put the file or directory itself here, or move the link out of the source root',
          }),
        );
        continue;
      }
      if (type === 'fifo' || type === 'socket' || type === 'char_device' || type === 'block_device') {
        problem(inside, at, (where) =>
          refuseDistributor('source_not_regular', {
            role: 'bundle',
            location: { path: where },
            hint: `${inside === undefined ? `${OUTSIDE_EVERY_BUNDLE}; ` : ''}a FIFO, socket or device cannot be published: move it out of the source root`,
          }),
        );
        continue;
      }
      if (type !== 'directory') continue;
      let child: Dir;
      try {
        child = dir.openDir(entry.bytes);
      } catch (error: unknown) {
        // Removed since the listing: nothing to walk.
        if (isFsError(error, 'ENOENT')) continue;
        const code = isFsError(error, 'ELOOP') ? 'source_symlink' : 'source_dir_unreadable';
        problem(inside, at, (where) =>
          refuseDistributor(code, {
            role: 'bundle',
            location: { path: where },
            hint:
              code === 'source_symlink'
                ? 'the directory was replaced by a link while the source root was read'
                : `${inside === undefined ? `${OUTSIDE_EVERY_BUNDLE}; ` : ''}give the account running sealkit read and search permission on it`,
          }),
        );
        continue;
      }
      try {
        walk(child, [...segments, entry], inside);
      } finally {
        child.close();
      }
    }
    const nameable = segments.every((segment) => segment.utf8 && !segment.name.startsWith('.'));
    if (holdsFiles && inside === undefined && path !== '' && nameable) withoutManifest.push(path);
  };
  walk(root, [], undefined);
  const bundles =
    options.rootIsBundle === true ? [] : found.sort(compareUtf8).map((path) => toBundleDir(path));
  return {
    bundles,
    problems: [...problems, ...twinBundles(bundles)],
    dirsWithoutManifest: worthNaming(withoutManifest, found).sort(compareUtf8),
    filesAtRoot: filesAtRoot.sort(compareUtf8),
  };
}

/**
 * The folders worth naming: none with a bundle below it (a manifest there
 * would nest that bundle) and none below another one named (a manifest
 * there covers the folders below).
 */
function worthNaming(folders: readonly string[], bundles: readonly string[]): string[] {
  const aboveBundles = new Set<string>();
  for (const bundle of bundles) for (const ancestor of ancestorsOf(bundle)) aboveBundles.add(ancestor);
  const kept = folders.filter((folder) => !aboveBundles.has(folder));
  const listed = new Set(kept);
  return kept.filter((folder) => !ancestorsOf(folder).some((ancestor) => listed.has(ancestor)));
}

/** `a/b/c` → `a`, `a/b`. */
function ancestorsOf(path: string): string[] {
  const ancestors: string[] = [];
  for (let slash = path.indexOf('/'); slash !== -1; slash = path.indexOf('/', slash + 1))
    ancestors.push(path.slice(0, slash));
  return ancestors;
}

/**
 * Bundle folders whose paths differ only in Unicode normalization (`été`
 * written precomposed and decomposed): most filesystems outside Linux, and
 * most readers, take them for one folder, so publishing both would let one
 * overwrite the other wherever they are read. Each one after the first is
 * refused, as two such files inside one bundle are.
 */
function twinBundles(bundles: readonly BundleDir[]): DiscoveryProblem[] {
  const seen = new Map<string, BundleDir>();
  const twins: DiscoveryProblem[] = [];
  for (const bundle of bundles) {
    const nfc = bundle.normalize('NFC');
    const first = seen.get(nfc);
    if (first === undefined) {
      seen.set(nfc, bundle);
      continue;
    }
    const named = unicodeTwins(bundle, first);
    twins.push({
      bundle,
      refusal: refuseDistributor('path_unicode_twin', {
        role: 'bundle',
        hint: `bundle folders ${named.text} are one folder on macOS and to many object-store clients: rename one of them`,
        details: named.details,
      }),
    });
  }
  return twins;
}

/** The entry's type, by a no-follow stat when the listing did not say; undefined when it is gone. */
function typeOf(dir: Dir, entry: DirEntry): DirEntryType | undefined {
  if (entry.type !== 'unknown') return entry.type;
  try {
    return dir.stat(entry.bytes).type;
  } catch {
    return undefined;
  }
}

/**
 * The refusal for a source root that cannot be opened: missing, reached
 * through a link, not a directory, or unreadable. A missing root named as
 * `shown` gets the folder beside it that is near enough to be a typo;
 * `opened` is the path the open used, when it was resolved from `shown`;
 * `suggest`, when given, makes that suggestion instead (in the terms a
 * configuration writes the root).
 */
export function sourceRootProblem(
  error: unknown,
  shown?: string,
  opened?: string,
  suggest?: () => string | undefined,
): Refusal {
  if (isFsError(error, 'ENOENT')) {
    const near =
      suggest !== undefined
        ? suggest()
        : shown === undefined
          ? undefined
          : didYouMeanPath(shown, 'folder', opened);
    return refuseDistributor('source_root_missing', {
      role: 'source',
      hint: near ?? 'create it, or fix the path',
    });
  }
  if (isFsError(error, 'ELOOP'))
    return refuseDistributor('source_root_symlink', { role: 'source', hint: NO_LINK_HINT });
  if (isFsError(error, 'ENOTDIR'))
    return refuseDistributor('source_root_not_directory', { role: 'source', hint: 'name a directory' });
  return refuseDistributor('source_root_unavailable', { role: 'source', hint: UNREADABLE_HINT });
}

/**
 * The same for the bundle folder `distribute verify` and `distribute
 * manifest` are given: a folder holding one bundle, not a source root, so
 * the codes and messages say so.
 */
export function bundleDirProblem(error: unknown, path?: string): Refusal {
  if (isFsError(error, 'ENOENT')) {
    const near = path === undefined ? undefined : nearPath(path, 'folder');
    return refuseDistributor('bundle_dir_missing', {
      role: 'bundle',
      hint:
        near === undefined
          ? 'no such bundle folder: create it, or fix the path'
          : `no such bundle folder: did you mean '${near}'?`,
    });
  }
  if (isFsError(error, 'ELOOP'))
    return refuseDistributor('bundle_dir_symlink', { role: 'bundle', hint: NO_LINK_HINT });
  if (isFsError(error, 'ENOTDIR'))
    return refuseDistributor('bundle_dir_not_directory', {
      role: 'bundle',
      hint: 'name the folder that holds the bundle, not a file in it',
    });
  return refuseDistributor('bundle_dir_unavailable', { role: 'bundle', hint: UNREADABLE_HINT });
}

const NO_LINK_HINT =
  'name the real directory: sealkit opens every component of the path without following links';
const UNREADABLE_HINT =
  'give the account running sealkit read and search permission on it and on every directory above it';
