import { Dir } from '../../core/fs/index.js';
import { guardRefusals, Refusal, refuseAll } from '../../core/refusal/index.js';
import { discoverBundles } from '../discover/discover.js';
import type { SourceManifest } from '../model/types.js';
import { refuseDistributor } from '../refusals.js';
import { locatedUnder, readManifest, verifyFiles } from '../validate/validate-bundle.js';

export interface VerifiedBundle {
  readonly manifest: SourceManifest;
  readonly files: number;
  readonly bytes: number;
}

/**
 * `sealkit distribute verify`: validates one source bundle in place —
 * manifest, every path, each file's size and SHA-256, the bundle digest, and
 * that no subdirectory holds another manifest — reading each byte once and
 * writing nothing. Throws one Refusal listing every independent failure;
 * each names its file under `path` as given (docs/distributor.md#reading-an-error).
 */
export function verifyBundle(path: string): VerifiedBundle {
  try {
    return guardRefusals(
      () => verifyIn(path),
      () => refuseDistributor('file_unreadable', { role: 'bundle' }),
    );
  } catch (error: unknown) {
    throw error instanceof Refusal ? locatedUnder(error, path) : error;
  }
}

function verifyIn(path: string): VerifiedBundle {
  let dir: Dir;
  try {
    dir = Dir.open(path);
  } catch {
    throw refuseDistributor('source_root_unavailable', { role: 'bundle' });
  }
  try {
    // The manifest stops everything (no file is read before it passed); the
    // listed files and the nested-manifest scan are independent of each other.
    const manifest = readManifest(dir);
    const problems: Refusal[] = [];
    const collect = (work: () => unknown): void => {
      try {
        work();
      } catch (error: unknown) {
        if (!(error instanceof Refusal)) throw error;
        problems.push(error);
      }
    };
    collect(() => verifyFiles(dir, manifest, { renderHtml: false }));
    collect(() => discoverBundles(dir, { rootIsBundle: true }));
    if (problems.length > 0) throw refuseAll(problems);
    return {
      manifest,
      files: manifest.files.length,
      bytes: manifest.files.reduce((sum, file) => sum + file.size, 0),
    };
  } finally {
    dir.close();
  }
}
