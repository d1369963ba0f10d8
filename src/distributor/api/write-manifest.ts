import { randomBytes } from 'node:crypto';
import picomatch from 'picomatch';
import { toPrefixed } from '../../core/digest/index.js';
import {
  Dir,
  type DirEntry,
  exchange,
  FsError,
  isFsError,
  readFailureCause,
  renameNoReplace,
} from '../../core/fs/index.js';
import { guardRefusals, Refusal, refuseAll } from '../../core/refusal/index.js';
import { bundleDigest } from '../digest/bundle-digest.js';
import { bundleDirProblem, MANIFEST_FILE } from '../discover/discover.js';
import { instantOf, parseInstant } from '../model/instant.js';
import { idProblem, MANIFEST_LIMITS, parseManifest, serializeManifest } from '../model/manifest.js';
import type { ManifestFile, SourceManifest } from '../model/types.js';
import {
  compareUtf8,
  pathProblem,
  pathSetProblemsAt,
  toBundlePath,
  twinShown,
  unicodeTwins,
} from '../path/bundle-path.js';
import { type DistributorRefusalCode, refuseDistributor } from '../refusals.js';
import { hashFd } from '../validate/hash-fd.js';
import { openRegular } from '../validate/open-source.js';
import { locatedUnder } from '../validate/validate-bundle.js';
import { errnoName, FolderWriteFailure, writeFailureCause } from '../write-failure.js';

/**
 * How a hint names the `replace` option: a library caller passes an
 * option, not a flag; the CLI shows its `--replace` flag in its place.
 */
export const MANIFEST_REPLACE_OPTION = 'replace: true';

/** How a hint names the `exclude` option; the CLI shows its `--exclude` flag in its place. */
export const MANIFEST_EXCLUDE_OPTION = 'the exclude option';

export interface WriteManifestOptions {
  readonly id: string;
  /** RFC 3339; default now. Written normalized to UTC. */
  readonly created?: string;
  readonly now?: () => Date;
  /**
   * Keep files and folders whose name begins with `.` (`.DS_Store`,
   * `.ipynb_checkpoints/`, `.git/`). Default false: they are left out of
   * the listing, but still looked at for what a run would refuse.
   */
  readonly includeHidden?: boolean;
  /**
   * Globs of what to leave out (docs/distributor.md#producing-a-manifest): a
   * pattern without `/` matches a file or folder name at any depth
   * (`*.tmp`, `scratch`); one with `/` matches the path from the bundle
   * directory (`data/raw/**`, `/notes.txt`); a trailing `/` matches folders
   * only. An empty pattern matches nothing.
   */
  readonly exclude?: readonly string[];
  /** Rewrite an existing `manifest.json` (atomically) instead of refusing. */
  readonly replace?: boolean;
  /**
   * List, hash and check exactly as a real call, refuse what it would
   * refuse, and write nothing: the returned manifest is the one a real call
   * would write (with the same `created`).
   */
  readonly dryRun?: boolean;
}

/** Why a file or folder is not in the manifest. */
export type LeftOutReason = 'hidden' | 'excluded';

export interface LeftOut {
  /** Bundle-relative; a folder ends with `/` and stands for everything in it. */
  readonly path: string;
  readonly reason: LeftOutReason;
}

export interface WrittenManifest {
  readonly manifest: SourceManifest;
  /** Sorted by UTF-8 path. */
  readonly left_out: readonly LeftOut[];
  /** True when an existing `manifest.json` was rewritten (`replace`); in a dry run, would be. */
  readonly replaced: boolean;
  /**
   * The id, digest and `created` of the manifest it replaced (or would),
   * when that one could be read as a manifest: the same digest means the
   * same files, and a new `created` then only makes every destination
   * replace a bundle whose files did not change; another id makes every
   * destination that published the folder refuse it as a conflict.
   */
  readonly previous?: {
    readonly id: SourceManifest['id'];
    readonly digest: SourceManifest['digest'];
    readonly created: SourceManifest['created'];
  };
}

const MAX_FILES = 100_000;

/**
 * `sealkit distribute manifest`: writes `manifest.json` for a producer's
 * bundle directory. Every regular file below it is listed (sorted by UTF-8
 * path) with its size and SHA-256, and the bundle digest is computed over
 * them, except hidden files and folders (unless `includeHidden`) and what
 * `exclude` names. Refused, each naming the file under `path` as given: a
 * folder this account may not write in (`manifest_write_failed`, asked of
 * the kernel first, in a dry run too), a `manifest.json` that is not a
 * regular file, an existing one (unless `replace`), a nested one, a
 * symbolic link or special file anywhere, and any name the path rules
 * refuse. The file
 * appears atomically (written beside, fsynced, then renamed without
 * replacing, or exchanged with the old one under `replace`: a reader sees
 * the old manifest or the new one, never a part) with mode 0644.
 */
export function writeManifest(path: string, options: WriteManifestOptions): WrittenManifest {
  try {
    return guardRefusals(
      () => writeIn(path, options),
      () => refuseDistributor('file_unreadable', { role: 'bundle' }),
    );
  } catch (error: unknown) {
    throw error instanceof Refusal ? locatedUnder(error, path, options.id) : error;
  }
}

function writeIn(path: string, options: WriteManifestOptions): WrittenManifest {
  const badId = idProblem(options.id);
  if (badId !== undefined) throw refuseDistributor('manifest_id_invalid', { role: 'manifest', hint: badId });
  const created =
    options.created === undefined
      ? instantOf((options.now ?? (() => new Date()))())
      : parseInstant(options.created);
  if (created === undefined) throw refuseDistributor('manifest_created_invalid', { role: 'manifest' });
  let dir: Dir;
  try {
    dir = Dir.open(path);
  } catch (error: unknown) {
    throw bundleDirProblem(error, path);
  }
  try {
    // manifest.json is written in this folder: where the kernel would refuse
    // that write (mode bits, ACLs, a read-only mount), say so before any
    // file is hashed, in a dry run as in a real one. Before the listing, so
    // that a refusal never advises --replace, which would fail the same way.
    const denied = dir.writeDenied();
    if (denied !== undefined) throw manifestWriteFailed(FsError.synthetic(denied, 'faccessat'), path);
    const listing = listBundleFiles(dir, options);
    const paths = listing.files;
    const problems = [...listing.problems];
    if (problems.length === 0 && (paths.length === 0 || paths.length > MAX_FILES)) {
      throw refuseDistributor('manifest_files_invalid', {
        role: 'manifest',
        hint:
          paths.length > MAX_FILES
            ? `the folder holds ${paths.length} files; a manifest lists at most ${MAX_FILES}`
            : listing.leftOut.length > 0
              ? 'every file was left out (hidden or excluded)'
              : "the folder holds no file: a manifest lists at least one (put the bundle's files in it first)",
      });
    }
    for (const clash of pathSetProblemsAt(paths)) {
      const path = paths[clash.index] ?? '';
      const other = clash.other === undefined ? undefined : paths[clash.other];
      const file = clash.file === undefined ? undefined : paths[clash.file];
      if (clash.code === 'path_file_dir_clash' && file !== undefined)
        problems.push(
          refuseAt(
            clash.code,
            path,
            `'${twinShown(path)}' runs through '${twinShown(file)}', a file of the same name in another Unicode form: one name on macOS and to many object-store clients; rename one of them, or leave one out with ${MANIFEST_EXCLUDE_OPTION}`,
          ),
        );
      else if (clash.code !== 'path_unicode_twin' || other === undefined)
        problems.push(refuseAt(clash.code, path));
      else {
        // The two names look alike on screen: both are shown, marked, with what to do.
        const twins = unicodeTwins(path, other);
        problems.push(
          refuseDistributor('path_unicode_twin', {
            role: 'bundle',
            location: { path },
            hint: `${twins.text} are one name on macOS and to many object-store clients: rename one of them, or leave one out with ${MANIFEST_EXCLUDE_OPTION}`,
            details: twins.details,
          }),
        );
      }
    }
    // Every listed file is read, so that one that cannot be is named beside
    // the rest; once the call is refused, a file is only opened, not hashed.
    const files: ManifestFile[] = [];
    for (const path of paths) {
      try {
        if (problems.length === 0) files.push(hashListed(dir, path));
        else openListed(dir, path).file.close();
      } catch (error: unknown) {
        if (!(error instanceof Refusal)) throw error;
        problems.push(error);
      }
    }
    // Every problem of the folder at once, in path order (docs/distributor.md#producing-a-manifest).
    if (problems.length > 0)
      throw refuseAll(
        [...problems].sort((a, b) => compareUtf8(a.location?.path ?? '', b.location?.path ?? '')),
      );
    const manifest: SourceManifest = {
      schema_version: 1,
      id: options.id,
      digest: bundleDigest(files),
      created,
      files,
    };
    let replaced = listing.hasManifest;
    const previous = listing.hasManifest ? previousManifest(dir) : undefined;
    if (options.dryRun !== true) {
      try {
        replaced = publishManifest(dir, serializeManifest(manifest), options.replace === true);
      } catch (error: unknown) {
        if (error instanceof Refusal) throw error;
        throw manifestWriteFailed(error, path);
      }
    }
    return {
      manifest,
      left_out: [...listing.leftOut].sort((a, b) => compareUtf8(a.path, b.path)),
      replaced,
      ...(replaced && previous !== undefined ? { previous } : {}),
    };
  } finally {
    dir.close();
  }
}

/**
 * `manifest_write_failed` at the bundle folder, the hint saying what the
 * errno means with the folder as the user named it
 * (`the account running sealkit may not write in 'out/week-22' (EACCES)`).
 */
function manifestWriteFailed(error: unknown, shown: string): Refusal {
  const cause =
    writeFailureCause(new FolderWriteFailure(error, shown)) ??
    `writing in '${shown}' failed (${errnoName(error) ?? 'an unexpected error'})`;
  return refuseDistributor('manifest_write_failed', { role: 'manifest', hint: cause });
}

/** A refusal about one file of the bundle, named by its bundle-relative path. */
function refuseAt(code: DistributorRefusalCode, path: string, hint?: string): Refusal {
  return refuseDistributor(code, {
    role: 'bundle',
    location: { path },
    ...(hint === undefined ? {} : { hint }),
  });
}

/** One `exclude` pattern, compiled: `test` gets the bundle-relative path and the entry's name. */
interface Exclusion {
  readonly test: (path: string, name: string, directory: boolean) => boolean;
}

function compileExclusions(patterns: readonly string[]): readonly Exclusion[] {
  return patterns
    .filter((pattern) => pattern !== '')
    .map((raw) => {
      const foldersOnly = raw.endsWith('/');
      const trimmed = foldersOnly ? raw.slice(0, -1) : raw;
      const anchored = trimmed.includes('/');
      const pattern = trimmed.startsWith('/') ? trimmed.slice(1) : trimmed;
      const matches = picomatch(pattern, { dot: true });
      return {
        test: (path, name, directory) => (directory || !foldersOnly) && matches(anchored ? path : name),
      };
    });
}

/** A name's bytes with every byte outside printable ASCII, and the backslash, as `\xNN`: never printed raw. */
function escapedName(bytes: Uint8Array): string {
  let shown = '';
  for (const byte of bytes) {
    shown +=
      byte >= 0x20 && byte < 0x7f && byte !== 0x5c
        ? String.fromCharCode(byte)
        : `\\x${byte.toString(16).padStart(2, '0')}`;
  }
  return shown;
}

interface Listing {
  readonly files: string[];
  readonly leftOut: LeftOut[];
  /** A `manifest.json` is there (only possible with `replace`). */
  readonly hasManifest: boolean;
  /**
   * Every entry the manifest cannot be written with (a link, a special
   * file, a name the path rules refuse, a folder that cannot be read, a
   * nested manifest), each on its own: the walk goes on past them, so that
   * one call names all of them.
   */
  readonly problems: Refusal[];
}

function listBundleFiles(root: Dir, options: WriteManifestOptions): Listing {
  const files: string[] = [];
  const leftOut: LeftOut[] = [];
  const problems: Refusal[] = [];
  const exclusions = compileExclusions(options.exclude ?? []);
  let hasManifest = false;
  const walk = (dir: Dir, prefix: string, depth: number): void => {
    if (depth > 64) throw refuseAt('discovery_too_large', prefix);
    let entries: readonly DirEntry[];
    try {
      entries = dir.list();
    } catch (error: unknown) {
      problems.push(unreadableFolder(error, prefix === '' ? '.' : prefix));
      return;
    }
    for (const entry of entries) {
      // A name that is not UTF-8 is matched (hidden, --exclude) by its
      // decoded form and shown escaped; it is refused only if it would be listed.
      const shownName = entry.utf8 ? entry.name : escapedName(entry.bytes);
      const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
      const shownPath = prefix === '' ? shownName : `${prefix}/${shownName}`;
      const type = typeOf(dir, entry);
      if (depth === 0 && entry.name === MANIFEST_FILE) {
        // What it is comes first: --replace rewrites a file, and advising it
        // for a folder or a link would only lead to another refusal.
        if (type !== 'file') {
          throw refuseDistributor('manifest_not_regular', {
            role: 'manifest',
            location: { path },
            hint: notRegularHint(type),
          });
        }
        if (options.replace !== true) {
          throw refuseDistributor('manifest_exists', {
            role: 'manifest',
            location: { path: MANIFEST_FILE },
            hint: `pass ${MANIFEST_REPLACE_OPTION} to write it again`,
          });
        }
        hasManifest = true;
        continue;
      }
      const directory = type === 'directory';
      const reason =
        options.includeHidden !== true && entry.name.startsWith('.')
          ? 'hidden'
          : exclusions.some((exclusion) => exclusion.test(path, entry.name, directory))
            ? 'excluded'
            : undefined;
      if (reason !== undefined) {
        leftOut.push({ path: directory ? `${shownPath}/` : shownPath, reason });
        checkLeftOut(dir, entry, type, path, depth, problems);
        continue;
      }
      if (!entry.utf8) {
        problems.push(
          refuseAt(
            'path_not_utf8',
            prefix === '' ? '.' : prefix,
            `the name '${shownName}' in this folder (bytes that are not UTF-8 shown as \\xNN): rename it, or leave it out with ${MANIFEST_EXCLUDE_OPTION}`,
          ),
        );
      } else if (entry.name === MANIFEST_FILE)
        problems.push(
          refuseAt(
            'bundle_nested',
            path,
            `a bundle holds no other bundle: move that bundle out of this folder (${MANIFEST_EXCLUDE_OPTION} is not enough: a run still finds its manifest.json and refuses both)`,
          ),
        );
      else if (type === 'symlink') problems.push(refuseAt('file_symlink', path, LINK_HINT));
      else if (directory) {
        inFolder(dir, entry, path, problems, (child) => walk(child, path, depth + 1));
      } else if (type === 'file') {
        const problem = pathProblem(path);
        if (problem !== undefined) problems.push(refuseAt(problem, path, NAME_HINTS[problem]));
        else files.push(path);
        if (files.length > MAX_FILES) throw refuseDistributor('manifest_files_invalid', { role: 'manifest' });
      } else problems.push(refuseAt('file_not_regular', path, SPECIAL_HINT));
    }
  };
  walk(root, '', 0);
  return { files: files.sort(compareUtf8), leftOut, hasManifest, problems };
}

/**
 * What to do about a file whose name the path rules refuse
 * (docs/distributor.md#path-rules): the producer's own file, so rename it,
 * or leave it out. The other rules (an empty, absolute or `..` path) cannot
 * come from a folder's listing.
 */
const NAME_HINTS: { readonly [code: string]: string } = {
  path_control_char: `its name holds a control character, which reports and logs would print raw: rename it, or leave it out with ${MANIFEST_EXCLUDE_OPTION}`,
  path_backslash: `its name holds a backslash, a folder separator on Windows and to many URL handlers: rename it, or leave it out with ${MANIFEST_EXCLUDE_OPTION}`,
  path_too_long: `a name is at most 255 bytes and a path at most 4,096 (UTF-8): shorten it, or leave it out with ${MANIFEST_EXCLUDE_OPTION}`,
  path_reserved: `manifest.json and names beginning with .distributor are sealkit's own: rename it, or leave it out with ${MANIFEST_EXCLUDE_OPTION}`,
};

// A run walks the whole bundle folder, listed or not, and refuses a link, a
// FIFO or device, an unreadable folder or a nested manifest.json anywhere in
// it (docs/distributor.md, "Discovery"); leaving such an entry out of the
// manifest would only move the refusal to the run, where it stops the
// pipeline. So what is left out is still looked at, and these hints never
// suggest --exclude for them.
const LINK_HINT =
  'links are never followed, and a run refuses a bundle holding one anywhere, listed or left out: put the file or folder itself here, or move the link out of the bundle folder';
const SPECIAL_HINT =
  'a FIFO, socket or device cannot be published, and a run refuses a bundle holding one anywhere, listed or left out: move it out of the bundle folder';

/** A hidden or excluded entry: not listed, but what a run would refuse in it is added to `problems`. */
function checkLeftOut(
  dir: Dir,
  entry: DirEntry,
  type: string,
  path: string,
  depth: number,
  problems: Refusal[],
): void {
  if (type === 'symlink') problems.push(refuseAt('source_symlink', path, LINK_HINT));
  else if (type === 'fifo' || type === 'socket' || type === 'char_device' || type === 'block_device')
    problems.push(refuseAt('source_not_regular', path, SPECIAL_HINT));
  else if (type === 'file' && entry.name === MANIFEST_FILE)
    problems.push(
      refuseAt(
        'bundle_nested',
        path,
        'a bundle holds no other bundle, even in a folder left out of the manifest: a run finds this manifest.json and refuses both; move that bundle out of this folder',
      ),
    );
  if (type !== 'directory') return;
  if (depth + 1 > 64) throw refuseAt('discovery_too_large', path);
  inFolder(dir, entry, path, problems, (child) => {
    let entries: readonly DirEntry[];
    try {
      entries = child.list();
    } catch (error: unknown) {
      // A listing this account may not make: the folder is named with why.
      problems.push(unreadableFolder(error, path));
      return;
    }
    for (const inner of entries) {
      const shown = `${path}/${inner.utf8 ? inner.name : escapedName(inner.bytes)}`;
      let innerType: string;
      try {
        innerType = typeOf(child, inner);
      } catch (error: unknown) {
        problems.push(unreadableFolder(error, path));
        continue;
      }
      checkLeftOut(child, inner, innerType, shown, depth + 1, problems);
    }
  });
}

/**
 * Runs `work` on the folder `entry` of `dir`, closed after; one that cannot
 * be opened is added to `problems` with why, and skipped.
 */
function inFolder(
  dir: Dir,
  entry: DirEntry,
  path: string,
  problems: Refusal[],
  work: (child: Dir) => void,
): void {
  let child: Dir;
  try {
    child = dir.openDir(entry.bytes);
  } catch (error: unknown) {
    problems.push(unreadableFolder(error, path));
    return;
  }
  try {
    work(child);
  } finally {
    child.close();
  }
}

/** A folder below the bundle folder that cannot be opened or listed, with why. */
function unreadableFolder(error: unknown, path: string): Refusal {
  const code = errnoName(error);
  return refuseAt(
    'source_dir_unreadable',
    path,
    `${code === undefined ? 'it could not be read' : readFailureCause(code)} (a run reads every folder of a bundle, listed or left out)`,
  );
}

/** What to do about a `manifest.json` that is not a regular file, by what it is. */
function notRegularHint(type: string): string {
  switch (type) {
    case 'directory':
      return `it is a folder: move it away (sealkit writes manifest.json as a file; ${MANIFEST_REPLACE_OPTION} replaces only a file)`;
    case 'symlink':
      return 'it is a symbolic link, which sealkit never writes through: remove the link, or put the file itself there';
    default:
      return `it is a FIFO, socket or device: move it away (${MANIFEST_REPLACE_OPTION} replaces only a file)`;
  }
}

function typeOf(dir: Dir, entry: DirEntry): string {
  return entry.type === 'unknown' ? dir.stat(entry.bytes).type : entry.type;
}

function hashListed(dir: Dir, path: string): ManifestFile {
  const opened = openListed(dir, path);
  try {
    const size = Number(opened.stat.size);
    const hashed = hashFd(opened.file.fd, size);
    if (hashed.exceeded || hashed.bytes !== size)
      throw refuseAt('file_size_mismatch', path, 'the file changed while it was read');
    return { path: toBundlePath(path), sha256: toPrefixed(hashed.hex), size };
  } finally {
    opened.file.close();
  }
}

/** A listed file, opened for reading (the caller closes it), or its refusal. */
function openListed(dir: Dir, path: string) {
  const opened = openRegular(dir, path.split('/'));
  if (!opened.ok) {
    // The listing saw a regular file; what it is now is said as validation says it.
    const code =
      opened.problem === 'missing'
        ? 'file_missing'
        : opened.problem === 'symlink'
          ? 'file_symlink'
          : opened.problem === 'not_regular'
            ? 'file_not_regular'
            : 'file_unreadable';
    throw refuseAt(
      code,
      path,
      opened.errno === undefined ? 'it changed while the folder was listed' : readFailureCause(opened.errno),
    );
  }
  return opened;
}

/**
 * Writes the manifest beside, fsyncs it, then puts it in place in one step:
 * a rename that never replaces, or (with `replace`, when one exists) an
 * exchange with the old manifest, which is then removed. Returns whether an
 * old manifest was replaced.
 */
function publishManifest(dir: Dir, text: string, replace: boolean): boolean {
  const temporary = `.distributor.manifest-${randomBytes(6).toString('hex')}.tmp`;
  const file = dir.createExclusive(temporary, 0o644);
  let placed = false;
  let replaced = false;
  try {
    file.write(Buffer.from(text, 'utf8'));
    file.fsync();
    file.close();
    if (replace) {
      try {
        exchange(dir, temporary, dir, MANIFEST_FILE);
        replaced = true;
      } catch (error: unknown) {
        if (!isFsError(error, 'ENOENT')) throw error;
      }
    }
    if (!replaced) {
      try {
        renameNoReplace(dir, temporary, dir, MANIFEST_FILE);
      } catch (error: unknown) {
        if (isFsError(error, 'EEXIST'))
          throw refuseDistributor('manifest_exists', { role: 'manifest', location: { path: MANIFEST_FILE } });
        throw error;
      }
    }
    placed = true;
    dir.fsync();
  } finally {
    file.close();
    // After an exchange the temporary name holds the old manifest; before the
    // commit it holds the unfinished new one. Either way it goes.
    if (!placed || replaced) {
      try {
        dir.unlink(temporary);
        if (replaced) dir.fsync();
      } catch {
        // Already gone.
      }
    }
  }
  return replaced;
}

/**
 * The id, digest and `created` of the `manifest.json` in `dir`, when it reads
 * as a manifest; anything else (unreadable, not a manifest) is left to the
 * replacement, which does not need it.
 */
function previousManifest(dir: Dir): WrittenManifest['previous'] {
  try {
    const opened = openRegular(dir, [MANIFEST_FILE]);
    if (!opened.ok) return undefined;
    try {
      const { id, digest, created } = parseManifest(opened.file.readUpTo(MANIFEST_LIMITS.maxBytes + 1));
      return { id, digest, created };
    } finally {
      opened.file.close();
    }
  } catch {
    return undefined;
  }
}
