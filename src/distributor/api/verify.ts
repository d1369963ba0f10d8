import { Dir } from '../../core/fs/index.js';
import { guardRefusals } from '../../core/refusal/index.js';
import { discoverBundles } from '../discover/discover.js';
import type { SourceManifest } from '../model/types.js';
import { refuseDistributor } from '../refusals.js';
import { validateBundleDir } from '../validate/validate-bundle.js';

export interface VerifiedBundle {
  readonly manifest: SourceManifest;
  readonly files: number;
  readonly bytes: number;
}

/**
 * `sealkit distribute verify`: validates one source bundle in place —
 * manifest, every path, each file's size and SHA-256, the bundle digest, and
 * that no subdirectory holds another manifest — reading each byte once and
 * writing nothing. Throws the Refusal of the first failure.
 */
export function verifyBundle(path: string): VerifiedBundle {
  return guardRefusals(
    () => {
      let dir: Dir;
      try {
        dir = Dir.open(path);
      } catch {
        throw refuseDistributor('source_root_unavailable', { role: 'bundle' });
      }
      try {
        const { manifest } = validateBundleDir(dir, { renderHtml: false });
        discoverBundles(dir, { rootIsBundle: true });
        return {
          manifest,
          files: manifest.files.length,
          bytes: manifest.files.reduce((sum, file) => sum + file.size, 0),
        };
      } finally {
        dir.close();
      }
    },
    () => refuseDistributor('file_unreadable', { role: 'bundle' }),
  );
}
