import { canonicalizeToBytes } from '../../core/json/index.js';
import type { CanonicalProjection } from '../canonical/canonical.js';
import { PROFILE } from '../projection/payload.js';
import type { OutputFile } from './write-tree.js';

/**
 * The files `contract project --out` writes: each projection's canonical
 * bytes exactly (`resources/<id>.json`, no trailing newline) and an RFC 8785
 * `index.json` listing id, kind, version, compatibility, digest and file,
 * sorted by id. Ids follow the ASCII id rules, so they are safe file names.
 */
export function projectionTree(projections: readonly CanonicalProjection[]): OutputFile[] {
  const sorted = [...projections].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const files: OutputFile[] = sorted.map((projection) => ({
    path: ['resources', `${projection.id}.json`],
    bytes: projection.bytes,
  }));
  const index = {
    profile: PROFILE,
    resources: sorted.map((projection) => ({
      id: projection.id,
      kind: projection.kind,
      version: projection.version,
      compatibility: projection.compatibility,
      digest: projection.digest,
      file: `resources/${projection.id}.json`,
    })),
  };
  files.push({ path: ['index.json'], bytes: canonicalizeToBytes(index) });
  return files;
}
