import { join } from 'node:path';
import {
  CopyTargetFailed,
  copyFdHashing,
  type HashedLength,
  OVERLAP_MIN_BYTES,
  type PendingHash,
  type Sha256Hex,
  type Sha256Prefixed,
  sha256Hex,
  startCopyFdHashingOverlapped,
  startHashFd,
  toPrefixed,
} from '../../core/digest/index.js';
import {
  type Dir,
  type DirEntryType,
  type ReadableFile,
  readFailureCause,
  type WritableFile,
} from '../../core/fs/index.js';
import { Refusal, refuseAll } from '../../core/refusal/index.js';
import { shellWord } from '../../core/shell/index.js';
import { bundleDigest } from '../digest/bundle-digest.js';
import { MANIFEST_FILE } from '../discover/discover.js';
import { jsonPlaces } from '../model/json-places.js';
import { MANIFEST_LIMITS, manifestFromJson, manifestIdOf, parseManifestJson } from '../model/manifest.js';
import type { BundleDir, BundlePath, ManifestFile, SourceManifest } from '../model/types.js';
import { pathProblem, toBundlePath } from '../path/bundle-path.js';
import { type DistributorRefusalCode, refuseDistributor } from '../refusals.js';
import type { PageLink } from '../transform/markdown.js';
import type { RenderMarkdown } from '../transform/renderer.js';
import { htmlSidecarPath, MARKDOWN_MAX_BYTES } from '../transform/sidecar.js';
import { hashFd } from './hash-fd.js';
import type { HeldDirs } from './held-dirs.js';
import { type OpenProblem, openRegular } from './open-source.js';
import { BundleSnapshot, SnapshotWriteFailed } from './snapshot.js';

/** A page rendered from one Markdown file of the bundle, for the destinations that want its `lang`. */
export interface RenderedPage {
  readonly source_index: number;
  readonly path: BundlePath;
  readonly sha256: Sha256Prefixed;
  readonly size: number;
  /** The `lang` it was rendered with (absent: none). */
  readonly lang?: string;
  /** Its relative links and images, for the plan to check against a destination's outputs. */
  readonly links?: readonly PageLink[];
}

/** How the pages of some destinations are rendered: one page per Markdown file and variant. */
export interface PageVariant {
  readonly lang?: string;
}

export interface ValidateOptions {
  /** Renders each Markdown file's page (`loadMarkdownRenderer`); undefined: no page is rendered. */
  readonly render: RenderMarkdown | undefined;
  /** With `render`, the variants to render (default one, without `lang`). */
  readonly variants?: readonly PageVariant[];
  /** Where verified copies and pages go; absent for dry runs and `verify` (hash only). */
  readonly snapshot?: BundleSnapshot;
  /**
   * The bundle's folder below its source root, against which a page's link
   * that climbs out and back in (`../W03/chart.png`) resolves inside the
   * bundle (docs/distributor.md#pages). Set by the functions given the
   * bundle's `dir`.
   */
  readonly bundleDir?: string;
}

type Hashed = HashedLength & { readonly exceeded: boolean };

const FILE_PROBLEMS: { readonly [P in OpenProblem]: DistributorRefusalCode } = {
  missing: 'file_missing',
  symlink: 'file_symlink',
  not_regular: 'file_not_regular',
  unreadable: 'file_unreadable',
};

/*
 * Validation in the documented order (docs/distributor.md#source-bundles):
 * the manifest, every path and the bundle digest over the listed records
 * first (no listed file is opened before all of them passed), then each
 * file's size and SHA-256, streamed once (into the snapshot when there is
 * one). Each listed file is checked even when another failed (they are
 * independent), and every failure is refused at once. A refusal's location
 * is bundle-relative (`report.md`, `manifest.json`); `locatedUnder` puts it
 * under the bundle path as the user named it
 * (docs/distributor.md#reading-an-error). Never a digest or a file's content.
 */
/** Checks every listed file of a bundle whose manifest was read (see `validateBundleDir`). */
export function verifyBundleFiles(
  sourceRoot: HeldDirs,
  dir: BundleDir,
  manifest: SourceManifest,
  options: ValidateOptions,
): readonly RenderedPage[] {
  const bundleDir = openBundleDir(sourceRoot, dir);
  try {
    return verifyFiles(bundleDir, manifest, { ...options, bundleDir: dir });
  } finally {
    bundleDir.close();
  }
}

/**
 * `refusal` (and each error it lists) with its bundle-relative path placed
 * under `base`, the bundle as the user named it; `base` itself when the
 * refusal has no path. A hint that offers to write the manifest names
 * `base` and `id` (the bundle's id, when known) in its command.
 */
export function locatedUnder(refusal: Refusal, base: string, id?: string): Refusal {
  const command = `sealkit distribute manifest ${shellWord(base)} --id ${id === undefined ? 'ID' : shellWord(id)}`;
  const place = (one: Refusal): Refusal =>
    one.at(
      { path: one.location?.path === undefined ? base : join(base, one.location.path) },
      one.hint?.replace(MANIFEST_COMMAND, command),
    );
  return place(refusal).withOthers(refusal.also.map(place), refusal.omitted);
}

/**
 * The command that writes a bundle's manifest, as a hint names it where
 * the bundle's folder is not known; `locatedUnder` puts in the folder as
 * the operator wrote it, and the bundle's id when known, so the command
 * can be pasted as it is.
 */
const MANIFEST_COMMAND = 'sealkit distribute manifest BUNDLE_DIR --id ID';

/** Checks every listed file of the bundle held open as `bundleDir`, whose manifest was read. */
export function verifyFiles(
  bundleDir: Dir,
  manifest: SourceManifest,
  options: ValidateOptions,
): readonly RenderedPage[] {
  return startFiles(bundleDir, manifest, options, false).finish();
}

/**
 * `verifyBundleFiles` begun now and finished by the `finish` it returns,
 * which gives the pages or throws what `verifyBundleFiles` would have
 * thrown. Without a snapshot its large files are hashed on other threads
 * meanwhile (`startHashFd`), so the caller can begin the next bundle; each
 * started check must be finished, in the caller's order (docs/performance.md,
 * "Hashing on both cores"). Their descriptors stay open until then; `ready`
 * says whether `finish` would wait for a thread.
 */
export function startVerifyBundleFiles(
  sourceRoot: HeldDirs,
  dir: BundleDir,
  manifest: SourceManifest,
  options: ValidateOptions,
): StartedVerification {
  let bundleDir: Dir;
  try {
    bundleDir = openBundleDir(sourceRoot, dir);
  } catch (error: unknown) {
    return failedAtStart(error);
  }
  try {
    return startFiles(bundleDir, manifest, { ...options, bundleDir: dir }, true);
  } catch (error: unknown) {
    return failedAtStart(error);
  } finally {
    // Each started file holds its own descriptor.
    bundleDir.close();
  }
}

/** A bundle's check begun: `finish` gives its pages or throws its refusals; `ready` says it would not wait. */
export interface StartedVerification {
  readonly finish: () => readonly RenderedPage[];
  readonly ready: () => boolean;
}

function failedAtStart(error: unknown): StartedVerification {
  return {
    finish: () => {
      throw error;
    },
    ready: () => true,
  };
}

/** One listed file's check, begun: the rest of it gives the file's pages or throws its refusal. */
type StartedFile = () => readonly RenderedPage[];

/**
 * Begins every listed file's check, in order; the function returned
 * finishes them in the same order and throws every refusal together. With
 * `defer`, a large file only hashed goes to a hashing thread when one is free.
 */
function startFiles(
  bundleDir: Dir,
  manifest: SourceManifest,
  options: ValidateOptions,
  defer: boolean,
): StartedVerification {
  const listedPaths = new Set<string>(manifest.files.map((file) => file.path));
  const started: { readonly path: string; readonly step: StartedFile | Refusal }[] = [];
  const handedOver: PendingHash[] = [];
  try {
    for (const [index, file] of manifest.files.entries()) {
      try {
        started.push({
          path: file.path,
          step: startFile(bundleDir, file, index, options, listedPaths, defer, handedOver),
        });
      } catch (error: unknown) {
        if (!(error instanceof Refusal)) throw error;
        started.push({ path: file.path, step: error });
      }
    }
  } catch (error: unknown) {
    // What was handed to a thread is waited for, so no descriptor or thread stays taken.
    finishFiles(started);
    throw error;
  }
  return {
    finish: () => finishFiles(started),
    ready: () => handedOver.every((pending) => pending.ready()),
  };
}

function finishFiles(
  started: readonly { readonly path: string; readonly step: StartedFile | Refusal }[],
): readonly RenderedPage[] {
  const pages: RenderedPage[] = [];
  const problems: Refusal[] = [];
  let unexpected: { readonly error: unknown } | undefined;
  for (const { path, step } of started) {
    try {
      if (step instanceof Refusal) throw step;
      pages.push(...step());
    } catch (error: unknown) {
      if (!(error instanceof Refusal)) {
        unexpected ??= { error };
        continue;
      }
      problems.push(error.location?.path === undefined ? error.at({ path }) : error);
    }
  }
  if (unexpected !== undefined) throw unexpected.error;
  if (problems.length > 0) throw refuseAll(problems);
  return pages;
}

function startFile(
  bundleDir: Dir,
  file: ManifestFile,
  index: number,
  options: ValidateOptions,
  listedPaths: ReadonlySet<string>,
  defer: boolean,
  handedOver: PendingHash[],
): StartedFile {
  const listed = `files[${index}]`;
  // The file and its manifest entry say it all; no `field` beside them.
  const refuse = (code: DistributorRefusalCode, hint: string): Refusal =>
    refuseDistributor(code, { role: 'bundle', location: { path: file.path }, hint });
  const changed = `the file changed after manifest.json was written (it lists it as ${listed}): restore it, or, if the change is meant, write the manifest again with ${MANIFEST_COMMAND} --replace`;
  const checkHashed = (hashed: Hashed): void => {
    if (hashed.exceeded || hashed.bytes !== file.size) throw refuse('file_size_mismatch', changed);
    if (toPrefixed(hashed.hex) !== file.sha256) throw refuse('file_digest_mismatch', changed);
  };
  const render = options.render;
  const pagePath = render !== undefined ? htmlSidecarPath(file.path) : undefined;
  // The file's own name may be legal while its page's (`.md` → `.html`, two
  // bytes longer) is not: say so, rather than refuse the name it has.
  if (pagePath !== undefined && pathProblem(pagePath) === 'path_too_long') {
    throw refuse(
      'path_too_long',
      `html: true renders it as a page named with .html for .md, and that name would be over 255 bytes (or its path over 4,096): shorten the file's name (manifest.json lists it as ${listed})`,
    );
  }
  const opened = openRegular(bundleDir, file.path.split('/'));
  if (!opened.ok)
    throw refuse(
      FILE_PROBLEMS[opened.problem],
      opened.problem === 'missing'
        ? `manifest.json lists it as ${listed}: restore it, or, if it was removed on purpose, write the manifest again with ${MANIFEST_COMMAND} --replace`
        : `manifest.json lists it as ${listed}${opened.problem === 'unreadable' && opened.errno !== undefined ? `; ${readFailureCause(opened.errno)}` : ''}`,
    );
  let handed = false;
  try {
    if (opened.stat.size !== BigInt(file.size)) throw refuse('file_size_mismatch', changed);
    if (pagePath !== undefined && file.size > MARKDOWN_MAX_BYTES) {
      throw refuse(
        'markdown_too_large',
        `it holds ${mebibytes(file.size)} of Markdown, and a page is rendered from at most ${mebibytes(MARKDOWN_MAX_BYTES)} (manifest.json lists it as ${listed}): split it into smaller pages, leave it out of the bundle (distribute manifest --exclude), or publish it to destinations with html: false`,
      );
    }
    // Only a file that is not kept: handing copies to the thread measured
    // slower (docs/performance.md, "Hashing on both cores").
    if (defer && pagePath === undefined && options.snapshot === undefined && file.size >= OVERLAP_MIN_BYTES) {
      const pending = startHashFd(opened.file.fd, file.size);
      if (pending !== undefined) {
        handed = true;
        handedOver.push(pending);
        const source = opened.file;
        return () => {
          checkHashed(finishHandedOver(pending, source));
          return [];
        };
      }
    }
    const markdown = pagePath !== undefined ? opened.file.readExpected(file.size) : undefined;
    if (markdown === undefined) {
      // Checked when the bundle is finished: a copy's last chunk may still be hashing.
      const hashed = streamFile(opened.file.fd, file.size, options.snapshot, BundleSnapshot.copyName(index));
      return () => {
        checkHashed(hashed());
        return [];
      };
    }
    checkHashed(keepBytes(markdown, options.snapshot, BundleSnapshot.copyName(index)));
    if (pagePath === undefined || render === undefined) return () => [];
    const title = (file.path.split('/').pop() ?? file.path).slice(0, -3);
    // A page whose front matter names its language is the same bytes in every
    // destination's variant: its snapshot file is one, written once.
    const keptPages = new Map<string, Hashed>();
    const pages = (options.variants ?? [{}]).map((variant): RenderedPage => {
      const { page, links } = render(markdown, title, {
        ...(variant.lang === undefined ? {} : { lang: variant.lang }),
        path: file.path,
        listed: listedPaths,
        ...(options.bundleDir === undefined ? {} : { bundleDir: options.bundleDir }),
      });
      const hex = sha256Hex(page);
      const kept =
        keptPages.get(hex) ?? keepBytes(page, options.snapshot, BundleSnapshot.pageName(index, hex), hex);
      keptPages.set(hex, kept);
      return {
        source_index: index,
        path: toBundlePath(pagePath),
        sha256: toPrefixed(kept.hex),
        size: kept.bytes,
        ...(variant.lang === undefined ? {} : { lang: variant.lang }),
        ...(links.length === 0 ? {} : { links }),
      };
    });
    return () => pages;
  } finally {
    if (!handed) opened.file.close();
  }
}

/** The bundle directory, opened for the caller to close; its parents stay held by `sourceRoot`. */
function openBundleDir(sourceRoot: HeldDirs, dir: BundleDir): Dir {
  const segments = dir.split('/');
  try {
    return sourceRoot.open(segments.slice(0, -1)).openDir(segments[segments.length - 1] ?? '');
  } catch {
    // The source root opened; a bundle folder below it that no longer does
    // is a directory of the source tree, not the root.
    throw refuseDistributor('source_dir_unreadable', { role: 'bundle' });
  }
}

/**
 * Reads and checks the manifest.json of the bundle held as `bundleDir` (every
 * path and the bundle digest included); no listed file is opened. A caller
 * that has just listed the directory passes the type it saw (see `openRegular`).
 * `onId` hears the manifest's id once the JSON is parsed and names a valid
 * one, also when the manifest is then refused, so a report can name the
 * bundle it refuses (docs/distributor.md#outcomes).
 */
export function readManifest(
  bundleDir: Dir,
  listedAs?: DirEntryType,
  onId?: (id: string) => void,
  onModified?: (mtimeNs: bigint) => void,
): SourceManifest {
  try {
    return readManifestFile(bundleDir, listedAs, onId, onModified);
  } catch (error: unknown) {
    if (!(error instanceof Refusal)) throw error;
    const inManifest = (one: Refusal): Refusal => one.at({ path: MANIFEST_FILE });
    throw inManifest(error).withOthers(error.also.map(inManifest), error.omitted);
  }
}

function readManifestFile(
  bundleDir: Dir,
  listedAs: DirEntryType | undefined,
  onId: ((id: string) => void) | undefined,
  onModified: ((mtimeNs: bigint) => void) | undefined,
): SourceManifest {
  const opened = openRegular(bundleDir, [MANIFEST_FILE], listedAs);
  if (!opened.ok) {
    switch (opened.problem) {
      case 'missing':
        throw refuseDistributor('manifest_missing', {
          role: 'manifest',
          hint: `write one with ${MANIFEST_COMMAND}`,
        });
      case 'unreadable':
        // A manifest this account may not read is a regular file all the same: say why it is not read.
        throw refuseDistributor('manifest_unreadable', {
          role: 'manifest',
          ...(opened.errno === undefined ? {} : { hint: readFailureCause(opened.errno) }),
        });
      case 'symlink':
        throw refuseDistributor('manifest_not_regular', {
          role: 'manifest',
          hint: 'it is a symbolic link, which sealkit never follows: put the file itself there',
        });
      case 'not_regular':
        throw refuseDistributor('manifest_not_regular', {
          role: 'manifest',
          hint: `it is a folder, FIFO, socket or device: move it away, then write the manifest with ${MANIFEST_COMMAND}`,
        });
    }
  }
  // When it was written, from the inode already read: a file of the bundle
  // modified later came after it (docs/distributor.md#commands).
  if (opened.stat.mtimeNs !== undefined) onModified?.(opened.stat.mtimeNs);
  try {
    if (opened.stat.size > BigInt(MANIFEST_LIMITS.maxBytes))
      throw refuseDistributor('manifest_too_large', { role: 'manifest' });
    let bytes: Uint8Array;
    try {
      // Sized by the pinned inode (already bounded): one allocation, and a file
      // that grew while being read shows as one byte too many.
      bytes = opened.file.readExpected(Number(opened.stat.size));
    } catch {
      throw refuseDistributor('manifest_unreadable', { role: 'manifest' });
    }
    if (bytes.length !== Number(opened.stat.size))
      throw refuseDistributor('manifest_unreadable', {
        role: 'manifest',
        hint: 'it changed while it was read',
      });
    const value = parseManifestJson(bytes);
    const id = manifestIdOf(value);
    if (id !== undefined) onId?.(id);
    const places = jsonPlaces(bytes);
    const manifest = manifestFromJson(value, 'lenient', { places });
    // The digest covers the declared records; each file must then match its
    // record exactly, so checking it first is the same check, before any byte
    // of the files is read.
    if (bundleDigest(manifest.files) !== manifest.digest) {
      throw refuseDistributor('bundle_digest_mismatch', {
        role: 'bundle',
        field: 'digest',
        location: { pointer: 'digest', ...places.value(['digest']) },
        hint: `the digest does not cover the files listed: the manifest was edited after it was written; if the files in the folder are the ones meant, write it again from them: ${MANIFEST_COMMAND} --replace`,
      });
    }
    return manifest;
  } finally {
    opened.file.close();
  }
}

/**
 * Hashes the file, copying it into the snapshot when there is one. The
 * result comes from the function returned: a large copy's last chunk may
 * still be hashing on the worker thread meanwhile, while the caller goes on
 * with the bundle's next file (docs/performance.md, "Hashing beside
 * writing").
 */
function streamFile(
  fd: number,
  size: number,
  snapshot: BundleSnapshot | undefined,
  name: string,
): () => Hashed {
  try {
    if (snapshot === undefined) {
      const hashed = hashFd(fd, size);
      return () => hashed;
    }
    const target = snapshot.create(name);
    try {
      if (size < OVERLAP_MIN_BYTES) {
        const copied = copyFdHashing(fd, target.fd, { maxBytes: size });
        if (snapshot.writeback) startWriteback(target);
        return () => copied;
      }
      const copied = startCopyFdHashingOverlapped(fd, target.fd, { maxBytes: size });
      if (snapshot.writeback) startWriteback(target);
      return () => settleCopy(copied);
    } finally {
      target.close();
    }
  } catch (error: unknown) {
    throw streamFailure(error);
  }
}

function settleCopy(copied: () => Hashed): Hashed {
  try {
    return copied();
  } catch (error: unknown) {
    throw streamFailure(error);
  }
}

/** What a failed read, copy or hash of a listed file becomes. */
function streamFailure(error: unknown): unknown {
  if (error instanceof Refusal || error instanceof SnapshotWriteFailed) return error;
  // The snapshot's side failed: not the source's fault (see SnapshotWriteFailed).
  if (error instanceof CopyTargetFailed) return new SnapshotWriteFailed(error);
  return refuseDistributor('file_unreadable', { role: 'bundle' });
}

/** The result of a file handed to a hashing thread, its descriptor closed; a failure as `streamFile` reports it. */
function finishHandedOver(pending: PendingHash, source: ReadableFile): Hashed {
  try {
    return pending.result();
  } catch {
    throw refuseDistributor('file_unreadable', { role: 'bundle' });
  } finally {
    source.close();
  }
}

/**
 * The disk starts writing a snapshot copy bound for a local destination
 * while the next file is hashed, so the fsync before the commit rename finds
 * little left to do. Only a hint:
 * durability still comes from that fsync, which reports any write error, so
 * a filesystem that refuses the hint changes nothing.
 */
function startWriteback(file: WritableFile): void {
  try {
    file.startWriteback();
  } catch {
    // See above: the fsync before the commit point is the check.
  }
}

/** Hashes bytes already in memory (a Markdown source or a rendered page) and keeps them in the snapshot. */
function keepBytes(
  bytes: Uint8Array,
  snapshot: BundleSnapshot | undefined,
  name: string,
  hex: Sha256Hex = sha256Hex(bytes),
): Hashed {
  if (snapshot !== undefined) {
    const target = snapshot.create(name);
    try {
      target.write(bytes);
    } catch (error: unknown) {
      throw new SnapshotWriteFailed(error);
    } finally {
      target.close();
    }
  }
  return { hex, bytes: bytes.byteLength, exceeded: false };
}

/** `9,360,007 bytes (8.9 MiB)`: exact, and at a glance. */
function mebibytes(size: number): string {
  return `${size.toLocaleString('en-US')} bytes (${(size / 1024 / 1024).toFixed(1).replace(/\.0$/, '')} MiB)`;
}
