import type { Sha256Hex } from '../core/digest/index.js';
import { canonicalize } from '../core/json/index.js';
import type { IntegrityMarkers } from '../migration/index.js';
import type { EditionProfile } from './editions.js';
import type { SourceId } from './source-id.js';
import { SCAFFOLD_GENERATOR_VERSION } from './version.js';

/** Bumped only when the generated files or this manifest change shape, so golden files stay stable across releases. */
export const MANIFEST_SCHEMA_VERSION = 2;
export const GENERATOR = { name: 'sealkit scaffold', version: SCAFFOLD_GENERATOR_VERSION } as const;

const INTEGRITY_NOTE =
  'unkeyed SHA-256 integrity checks that the evidence agreed; not authentication or proof of who produced it';

/**
 * `.scaffold-manifest.json`, written once inside staging and never read
 * again: what was generated, from evidence with which integrity markers, and
 * each file's project-relative path and SHA-256 at publication, so an
 * operator can see what they have changed since. Pretty-printed for the
 * person reading it (keys sorted as RFC 8785 sorts them, two-space indent,
 * a final LF): no timestamps, no absolute paths, no row values.
 */
export function renderManifest(
  edition: EditionProfile,
  sourceId: SourceId,
  integrity: IntegrityMarkers,
  files: readonly { readonly path: string; readonly sha256: Sha256Hex }[],
): string {
  const document = {
    manifest_schema_version: MANIFEST_SCHEMA_VERSION,
    generator: GENERATOR,
    edition: edition.id,
    project: edition.projectName,
    source_id: sourceId,
    integrity_checks: {
      note: INTEGRITY_NOTE,
      source_mapping_fingerprint: integrity.sourceMappingFingerprint,
      schema_confirmation_fingerprint: integrity.schemaConfirmationFingerprint,
    },
    files: files.map((file) => ({ path: file.path, sha256: file.sha256 })),
  };
  // Sorted through the canonical form, then indented: the same bytes every run.
  return `${JSON.stringify(JSON.parse(canonicalize(document)), null, 2)}\n`;
}
