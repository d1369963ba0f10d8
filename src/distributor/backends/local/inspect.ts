import { join } from 'node:path';
import { sha256Prefixed } from '../../../core/digest/index.js';
import { type Dir, type DirEntryType, FsError, isFsError, readFailureCause } from '../../../core/fs/index.js';
import { Refusal } from '../../../core/refusal/index.js';
import type { DestinationSnapshot } from '../../backend.js';
import { parseState, STATE_FILE, STATE_MAX_BYTES } from '../../model/state.js';
import type { BundleDir, DestinationState } from '../../model/types.js';
import { compareUtf8, parentDirs } from '../../path/bundle-path.js';
import type { StateToken } from '../../plan/types.js';
import { refuseDistributor } from '../../refusals.js';
import type { HeldDirs } from '../../validate/held-dirs.js';
import { openRegular } from '../../validate/open-source.js';
import { destinationWriteFailed, FolderWriteFailure } from '../../write-failure.js';
import { type ContentComparison, startCompareContent, type UnreadableOutput } from './content.js';
import { destinationProblem, listTree, type TreeListing } from './tree.js';

/**
 * An inspection begun by `startInspectLocal`: `settled` resolves (never
 * rejects, never blocks) once nothing is left but to `finish` it, which
 * gives the snapshot; call `finish` exactly once, it closes the files still
 * open.
 */
export interface LocalInspection {
  readonly settled: () => Promise<void>;
  readonly finish: () => DestinationSnapshot;
}

/**
 * Reads one destination bundle path, changing nothing; the directories above
 * it are looked up through `parents`, held across the run's sorted bundle
 * paths (see `HeldDirs`). Every directory above
 * it (the root included) must be a real directory that is not itself a
 * managed bundle; the path itself is empty (absent or no entries), unmanaged
 * (entries, no state), or managed (a valid state, with a note of unlisted
 * entries and missing outputs).
 *
 * Everything but hashing outputs (`checksum`) is done before this returns,
 * and no directory is held after it: the next bundle path can be inspected
 * while a hashing thread finishes the outputs of this one.
 */
export function startInspectLocal(
  parents: HeldDirs,
  bundleDir: BundleDir,
  ancestors: Map<string, boolean> = new Map(),
  shownRoot = '.',
  checksum: boolean | 'readable' = false,
): LocalInspection {
  const segments = bundleDir.split('/');
  const leaf = segments[segments.length - 1] ?? '';
  let dir: Dir | undefined;
  try {
    // The root via `root`, not `open([])`: that would close the held chain,
    // and every bundle would reopen the directories it shares with the last.
    let parent = parents.root;
    let reached: readonly string[] = [];
    if (holdsStateCached(parent, '', ancestors)) {
      return found(invalid(refuseDistributor('destination_nested_bundle', { role: 'destination' })));
    }
    for (let depth = 1; depth < segments.length; depth += 1) {
      const above = segments.slice(0, depth);
      try {
        parent = parents.open(above);
      } catch (error: unknown) {
        if (isFsError(error, 'ENOENT'))
          return found(writableAt(parent, reached, shownRoot, { kind: 'empty', residue: [] }));
        return found(invalid(destinationProblem(error)));
      }
      reached = above;
      if (holdsStateCached(parent, above.join('/'), ancestors)) {
        return found(
          invalid(
            refuseDistributor('destination_nested_bundle', {
              role: 'destination',
              hint: `'${join(shownRoot, ...above)}' is a published bundle (it holds a ${STATE_FILE}), and this bundle's folder lies inside it: publishing here would leave that bundle unreplaceable, so nothing was written; move this bundle's folder in the source out of the published one's, or publish it to another root`,
            }),
          ),
        );
      }
    }
    try {
      dir = parent.openDir(leaf);
    } catch (error: unknown) {
      if (isFsError(error, 'ENOENT'))
        return found(writableAt(parent, reached, shownRoot, { kind: 'empty', residue: [] }));
      return found(invalid(destinationProblem(error)));
    }
    const compare =
      checksum === false
        ? undefined
        : { shownBundle: join(shownRoot, bundleDir), unreadableBySize: checksum === 'readable' };
    // Asked first: `parent` and `dir` are let go of before the outputs are
    // hashed, and nothing may throw once files are handed to a thread.
    const unwritable = unwritableAt(parent, reached, shownRoot, { dir, leaf });
    const inspected = startInspectBundleDir(dir, compare);
    return then(inspected, (snapshot) => withUnwritable(snapshot, unwritable));
  } catch (error: unknown) {
    return found(unexpected(error));
  } finally {
    dir?.close();
  }
}

function unexpected(error: unknown): DestinationSnapshot {
  return invalid(
    error instanceof Refusal ? error : refuseDistributor('destination_unreachable', { role: 'destination' }),
  );
}

/** An inspection (or a comparison) with nothing left to wait for. */
function found<T = DestinationSnapshot>(
  value: T,
): { readonly settled: () => Promise<void>; readonly finish: () => T } {
  return { settled: () => Promise.resolve(), finish: () => value };
}

/** What `inFlight` finishes with, turned into a snapshot by `next` (an exception an invalid snapshot, as at the start). */
function then<T>(
  inFlight: { readonly settled: () => Promise<void>; readonly finish: () => T },
  next: (value: T) => DestinationSnapshot,
): LocalInspection {
  return {
    settled: inFlight.settled,
    finish: () => {
      try {
        return next(inFlight.finish());
      } catch (error: unknown) {
        return unexpected(error);
      }
    },
  };
}

/**
 * A publication is renamed into the nearest directory that exists above
 * its bundle path (first publish, creating the folders between) or into
 * the bundle path's parent (replacement): when this account may not write
 * there, the write would fail with the kernel's errno, so the snapshot
 * says so, and the plan refuses the write as the run would, in a dry run
 * too (docs/distributor.md#commands). The folder is named as the operator
 * wrote the root. A bundle directory that exists (`bundle`) is moved out by
 * the exchange and its old outputs removed from it, which needs write
 * permission on it as well: without it, the folder named is the bundle's.
 */
function writableAt(
  parent: Dir,
  reached: readonly string[],
  shownRoot: string,
  snapshot: DestinationSnapshot,
): DestinationSnapshot {
  return withUnwritable(snapshot, unwritableAt(parent, reached, shownRoot));
}

/** The refusal a write into `parent` (or into the existing `bundle` below it) would meet; undefined when allowed. */
function unwritableAt(
  parent: Dir,
  reached: readonly string[],
  shownRoot: string,
  bundle?: { readonly dir: Dir; readonly leaf: string },
): Refusal | undefined {
  const named = (segments: readonly string[]): string =>
    segments.length === 0 ? shownRoot : `${shownRoot}/${segments.join('/')}`;
  const parentCode = parent.writeDenied();
  const bundleCode = parentCode === undefined ? bundle?.dir.writeDenied() : undefined;
  const code = parentCode ?? bundleCode;
  if (code === undefined) return undefined;
  const folder =
    parentCode === undefined && bundle !== undefined ? named([...reached, bundle.leaf]) : named(reached);
  return destinationWriteFailed(new FolderWriteFailure(FsError.synthetic(code, 'faccessat'), folder));
}

/** Only a path sealkit would write to (empty or managed) is refused for not being writable. */
function withUnwritable(snapshot: DestinationSnapshot, unwritable: Refusal | undefined): DestinationSnapshot {
  if (unwritable === undefined || (snapshot.kind !== 'empty' && snapshot.kind !== 'managed')) return snapshot;
  return { ...snapshot, unwritable };
}

/**
 * `byContent`: `--checksum` — outputs of the size the state records are
 * read too, and compared by SHA-256 (named in a refusal as `shownBundle`);
 * with `unreadableBySize`, an output this account may not read is compared
 * by size alone, as without it (the read before a replacement).
 */
function startInspectBundleDir(
  dir: Dir,
  byContent?: { readonly shownBundle: string; readonly unreadableBySize: boolean },
): LocalInspection {
  const entries = dir.list();
  if (entries.length === 0) return found({ kind: 'empty', residue: [] });
  const stateEntry = entries.find((entry) => entry.utf8 && entry.name === STATE_FILE);
  if (stateEntry === undefined) {
    const [first] = entries
      .filter((entry) => entry.utf8)
      .map((entry) => entry.name)
      .sort(compareUtf8);
    return found(first === undefined ? { kind: 'unmanaged' } : { kind: 'unmanaged', firstEntry: first });
  }
  const read = readStateOrWhy(dir, stateEntry.type);
  if ('refusal' in read) return found(invalid(read.refusal));
  const listed = new Set<string>(read.state.outputs.map((output) => output.path));
  const listing = listTree(dir, entries, listed);
  listed.add(STATE_FILE);
  // A directory is ours only when a listed output lies below it: a foreign
  // directory, empty or not, is unlisted like a foreign file (never swept).
  const parents = new Set(read.state.outputs.flatMap((output) => parentDirs(output.path)));
  // A link, a FIFO or a device is foreign wherever it stands, at an
  // output's own name too, and is named like a foreign file.
  const foreign = [
    ...[...listing.files].filter((file) => !listed.has(file)),
    ...[...listing.dirs].filter((path) => !parents.has(path)),
    ...listing.others,
  ].sort(compareUtf8);
  // An output there with another size than the state records was written
  // over (edited by hand, or by another tool): like a deleted one, it makes
  // the bundle destination_incomplete, so no run replaces or skips over
  // bytes sealkit did not write (as on S3; docs/distributor.md).
  // With --checksum, an output of the recorded size with other bytes is
  // written over just the same (docs/distributor.md#comparing-by-content---checksum).
  const content =
    byContent === undefined
      ? found<ContentComparison>(SIZES_ONLY)
      : startCompareContent(
          dir,
          read.state.outputs.filter((output) => listing.sizes.get(output.path) === output.size),
          byContent.shownBundle,
          byContent.unreadableBySize,
        );
  return then(content, (compared) => judged(read, listing, foreign, compared));
}

/** The snapshot of a managed bundle path, once its outputs are compared (by size, or by content too). */
function judged(
  read: { readonly state: DestinationState; readonly token: StateToken },
  listing: TreeListing,
  foreign: readonly string[],
  content: ContentComparison | UnreadableOutput,
): DestinationSnapshot {
  if ('refusal' in content) return { kind: 'invalid', refusal: content.refusal, entryPath: content.path };
  const { changed, gone } = content;
  const absent = read.state.outputs
    .filter(
      (output) =>
        listing.sizes.get(output.path) !== output.size || changed.has(output.path) || gone.has(output.path),
    )
    .map((output) => output.path)
    .sort(compareUtf8);
  // The first written over is named before the first deleted: it is the
  // one whose bytes would be lost. A folder, a link or a special file that
  // stands where an output was is there too, and named for what it is
  // (docs/distributor.md#outcomes): "gone" would send the operator to
  // remove the bundle folder, and the folder with it.
  const overwritten = absent.filter(
    (path) => (listing.sizes.has(path) || listing.kinds.has(path)) && !gone.has(path),
  );
  const first = overwritten[0] ?? absent[0];
  const firstKind = first === undefined || listing.sizes.has(first) ? undefined : listing.kinds.get(first);
  const sameSize = first !== undefined && changed.has(first);
  const firstSize = first === undefined || sameSize || gone.has(first) ? undefined : listing.sizes.get(first);
  const generated =
    first !== undefined &&
    read.state.outputs.some((output) => output.path === first && output.kind === 'generated');
  // Counted as the operator moves them: a foreign folder with what it holds is one.
  const foreignDirs = new Set(foreign.filter((path) => listing.dirs.has(path)));
  const unlistedCount =
    foreign.filter((path) => !parentDirs(path).some((dir) => foreignDirs.has(dir))).length + listing.unnamed;
  const firstForeignKind = foreign[0] === undefined ? undefined : listing.kinds.get(foreign[0]);
  return {
    kind: 'managed',
    state: read.state,
    token: read.token,
    unlisted: listing.other || foreign.length > 0,
    ...(foreign[0] === undefined ? {} : { firstUnlisted: foreign[0] }),
    ...(unlistedCount === 0 ? {} : { unlistedCount }),
    ...(firstForeignKind === undefined ? {} : { firstUnlistedKind: firstForeignKind }),
    missing: absent.length > 0,
    ...(first === undefined ? {} : { firstMissing: first }),
    ...(absent.length === 0 ? {} : { missingCount: absent.length }),
    ...(firstKind === undefined ? {} : { firstMissingKind: firstKind }),
    ...(generated ? { firstMissingGenerated: true } : {}),
    ...(firstSize === undefined ? {} : { firstMissingSize: firstSize }),
    ...(sameSize ? { firstMissingContent: true } : {}),
    ...(overwritten.length > 0 ? { writtenOver: true } : {}),
    residue: [],
  };
}

/** Without --checksum: nothing read, nothing found changed (one object for every bundle). */
const SIZES_ONLY: ContentComparison = { changed: new Set(), gone: new Set() };

/** The state at a bundle directory and its token (the SHA-256 of its bytes); undefined when invalid. */
export function readState(
  dir: Dir,
  listedAs?: DirEntryType,
): { readonly state: DestinationState; readonly token: StateToken } | undefined {
  const read = readStateOrWhy(dir, listedAs);
  return 'refusal' in read ? undefined : read;
}

/**
 * `readState`, or the `destination_state_invalid` refusal saying what is
 * wrong with the file (its hint: `unknown key 'note' at line 40, column
 * 3`, `a symbolic link`), for the report to name it.
 */
function readStateOrWhy(
  dir: Dir,
  listedAs?: DirEntryType,
): { readonly state: DestinationState; readonly token: StateToken } | { readonly refusal: Refusal } {
  const why = (hint: string) => ({
    refusal: refuseDistributor('destination_state_invalid', { role: 'state', hint }),
  });
  const opened = openRegular(dir, [STATE_FILE], listedAs);
  if (!opened.ok) {
    switch (opened.problem) {
      case 'symlink':
        return why('it is a symbolic link');
      case 'not_regular':
      case 'missing':
        return why('it is not a regular file');
      case 'unreadable':
        return why(opened.errno === undefined ? 'it cannot be read' : readFailureCause(opened.errno));
    }
  }
  try {
    if (opened.stat.size > BigInt(STATE_MAX_BYTES)) return why('larger than a state sealkit writes');
    const bytes = opened.file.readExpected(Number(opened.stat.size));
    if (bytes.length !== Number(opened.stat.size)) return why('it changed while it was read');
    return { state: parseState(bytes), token: sha256Prefixed(bytes) as string as StateToken };
  } catch (error: unknown) {
    return error instanceof Refusal ? { refusal: error } : why('it cannot be read');
  } finally {
    opened.file.close();
  }
}

/**
 * Directories above bundle paths are shared by many bundles; under the run's
 * lock whether one holds a state does not change (sealkit only adds plain
 * directories), so each is checked once per run.
 */
function holdsStateCached(dir: Dir, path: string, cache: Map<string, boolean>): boolean {
  const known = cache.get(path);
  if (known !== undefined) return known;
  const holds = holdsState(dir);
  cache.set(path, holds);
  return holds;
}

function holdsState(dir: Dir): boolean {
  try {
    dir.stat(STATE_FILE);
    return true;
  } catch (error: unknown) {
    if (isFsError(error, 'ENOENT')) return false;
    throw error;
  }
}

function invalid(refusal: Refusal): DestinationSnapshot {
  return { kind: 'invalid', refusal };
}
