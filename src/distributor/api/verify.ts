import { basename, resolve } from 'node:path';
import { Dir } from '../../core/fs/index.js';
import { guardRefusals, Refusal, refuseAll } from '../../core/refusal/index.js';
import { bundleDirProblem, discoverBundles, MANIFEST_FILE } from '../discover/discover.js';
import { STATE_FILE } from '../model/state.js';
import type { OutputCategories, SourceManifest } from '../model/types.js';
import { compareUtf8 } from '../path/bundle-path.js';
import { outputCollision } from '../plan/collision.js';
import { type LinkWarning, linkWarnings } from '../plan/links.js';
import { expectedOutputs, noOutputsHint, plannedOutputs } from '../plan/outputs.js';
import { refuseDistributor } from '../refusals.js';
import { renderMarkdown } from '../transform/markdown.js';
import { locatedUnder, type RenderedPage, readManifest, verifyFiles } from '../validate/validate-bundle.js';

export interface VerifiedBundle {
  readonly manifest: SourceManifest;
  readonly files: number;
  readonly bytes: number;
  /** Pages the `html` selection renders (0 without it). */
  readonly pages: number;
  /** With `html`: links of the pages that a destination with these outputs will not hold. */
  readonly link_warnings: readonly LinkWarning[];
  /**
   * Files in the bundle folder that the manifest does not list (hidden ones
   * aside), sorted by UTF-8 bytes: no run publishes them.
   */
  readonly files_not_in_manifest: readonly string[];
}

export interface VerifyOptions {
  /**
   * The outputs a destination would receive. With `html`, every listed `.md`
   * file is rendered as a run would (UTF-8, size limit); with both, the pages
   * are checked against the copied files for collisions. Absent: the bundle
   * itself only.
   */
  readonly outputs?: OutputCategories;
}

/**
 * `sealkit distribute verify`: validates one source bundle in place —
 * manifest, every path, each file's size and SHA-256, the bundle digest, that
 * no subdirectory holds another manifest, symlink or special file, and, for
 * an outputs selection, what a run would check at planning (pages rendered,
 * no output collision) — reading each byte once and writing nothing. Throws one Refusal listing every independent failure;
 * each names its file under `path` as given (docs/distributor.md#reading-an-error).
 */
export function verifyBundle(path: string, options: VerifyOptions = {}): VerifiedBundle {
  // The id, once the manifest is read: a hint to write the manifest again names it.
  const read: { id?: string } = {};
  try {
    return guardRefusals(
      () => verifyIn(path, options.outputs, read),
      () => refuseDistributor('file_unreadable', { role: 'bundle' }),
    );
  } catch (error: unknown) {
    throw error instanceof Refusal ? locatedUnder(error, path, read.id) : error;
  }
}

/**
 * The manifest, or a refusal that says what the folder is when it has none:
 * a source root (bundles below it) or a published copy are common slips, and
 * "write one" would be the wrong advice for both.
 */
function readManifestOrWhy(dir: Dir, onId: (id: string) => void): SourceManifest {
  try {
    // The id as soon as it parses: a manifest refused after that (its
    // digest) is written again with it, not with a placeholder.
    return readManifest(dir, undefined, onId);
  } catch (error: unknown) {
    if (!(error instanceof Refusal) || error.code !== 'manifest_missing') throw error;
    const names = new Set(dir.list().map((entry) => entry.name));
    if (names.has(STATE_FILE))
      throw error.at(
        {},
        `this folder is a published copy (it holds ${STATE_FILE}, no ${MANIFEST_FILE}): verify the source bundle it was published from; to compare what is published with its source, run sealkit distribute run --dry-run --checksum`,
      );
    let below: readonly string[] = [];
    try {
      below = discoverBundles(dir).bundles;
    } catch {
      // A tree too large or unreadable to walk: the plain advice stands.
    }
    if (below.length > 0)
      throw error.at(
        {},
        `this folder holds ${below.length === 1 ? '1 bundle' : `${below.length} bundles`} below it (the first: '${below[0]}'): verify a bundle folder, or check them all with sealkit distribute run --dry-run`,
      );
    throw error;
  }
}

function verifyIn(
  path: string,
  outputs: OutputCategories | undefined,
  read: { id?: string },
): VerifiedBundle {
  let dir: Dir;
  try {
    dir = Dir.open(path);
  } catch (error: unknown) {
    throw bundleDirProblem(error, path);
  }
  try {
    // The manifest stops everything (no file is read before it passed); the
    // listed files and the nested-manifest scan are independent of each other.
    const manifest = readManifestOrWhy(dir, (id) => {
      read.id = id;
    });
    const problems: Refusal[] = [];
    const collect = (work: () => unknown): void => {
      try {
        work();
      } catch (error: unknown) {
        if (!(error instanceof Refusal)) throw error;
        problems.push(error);
      }
    };
    // Loaded with this module: the CLI loads `verify` only for its own command.
    const render = outputs?.html === true ? renderMarkdown : undefined;
    let pages: readonly RenderedPage[] = [];
    collect(() => {
      // Where the bundle lies below a source root is unknown here: its own
      // folder's name is what a link climbing out and back in names.
      pages = verifyFiles(dir, manifest, { render, bundleDir: basename(resolve(path)) });
    });
    const listed = new Set<string>(manifest.files.map((file) => file.path));
    const notInManifest: string[] = [];
    collect(() => {
      const walked = discoverBundles(dir, {
        rootIsBundle: true,
        onBundleFile: (_bundle, file) => {
          if (!listed.has(file)) notInManifest.push(file);
        },
      });
      for (const problem of walked.problems) problems.push(problem.refusal);
    });
    // The same checks as planning a destination with these outputs.
    if (outputs !== undefined && problems.length === 0) {
      const collision = outputCollision(manifest, pages, outputs);
      if (collision !== undefined) problems.push(collision);
      else if (expectedOutputs(manifest, outputs).length === 0)
        problems.push(
          refuseDistributor('outputs_empty', {
            role: 'bundle',
            location: { path: MANIFEST_FILE },
            hint: noOutputsHint(manifest, outputs),
          }),
        );
    }
    if (problems.length > 0) throw refuseAll(problems);
    const planned = outputs === undefined ? undefined : plannedOutputs(manifest, pages, outputs);
    return {
      manifest,
      files: manifest.files.length,
      bytes: manifest.files.reduce((sum, file) => sum + file.size, 0),
      pages: pages.length,
      link_warnings:
        outputs === undefined || planned === undefined ? [] : linkWarnings(manifest, pages, outputs, planned),
      files_not_in_manifest: notInManifest.sort(compareUtf8),
    };
  } finally {
    dir.close();
  }
}
