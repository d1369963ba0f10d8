import { type Sha256Hex, sha256Hex } from '../core/digest/index.js';
import type { BoundEvidence } from '../migration/index.js';
import type { EditionProfile, ScaffoldEdition } from './editions.js';
import { MANIFEST_NAME, modelFileName, outputPath, propertiesFileName, stagingPath } from './names.js';
import { renderManifest } from './render-manifest.js';
import { renderModelSql } from './render-sql.js';
import { renderPropertiesYaml } from './render-yaml.js';
import type { ResolvedModel } from './resolve.js';
import type { SourceId } from './source-id.js';

/** One file of the output directory: its name there, its project-relative path once published, its bytes. */
export interface PlannedFile {
  readonly name: string;
  readonly path: string;
  /** UTF-8 text with LF line ends. */
  readonly text: string;
  readonly sha256: Sha256Hex;
  readonly bytes: number;
}

/**
 * Everything a default-mode run will write, decided before any write: pure
 * and serializable. `--dry-run` prints this very plan; apply executes it.
 */
export interface ScaffoldPlan {
  readonly edition: ScaffoldEdition;
  readonly sourceId: SourceId;
  /** The dbt project inside the workspace ('.' or 'kit'). */
  readonly projectDir: '.' | 'kit';
  /** Project-relative. */
  readonly output: string;
  readonly staging: string;
  /** Sorted by name; the manifest (named with a leading dot) sorts first. */
  readonly files: readonly PlannedFile[];
}

function planned(name: string, sourceId: SourceId, text: string): PlannedFile {
  const bytes = Buffer.from(text, 'utf8');
  return {
    name,
    path: `${outputPath(sourceId)}/${name}`,
    text,
    sha256: sha256Hex(bytes),
    bytes: bytes.length,
  };
}

export function planScaffold(
  edition: EditionProfile,
  sourceId: SourceId,
  models: readonly ResolvedModel[],
  integrity: BoundEvidence['integrity'],
): ScaffoldPlan {
  const generated = [
    planned(propertiesFileName(sourceId), sourceId, renderPropertiesYaml(models, sourceId, edition)),
    ...models.map((model) =>
      planned(modelFileName(sourceId, model.table), sourceId, renderModelSql(model, sourceId, edition)),
    ),
  ].sort(byName);
  const manifest = planned(MANIFEST_NAME, sourceId, renderManifest(edition, sourceId, integrity, generated));
  return {
    edition: edition.id,
    sourceId,
    projectDir: edition.projectDir,
    output: outputPath(sourceId),
    staging: stagingPath(sourceId),
    files: [manifest, ...generated].sort(byName),
  };
}

function byName(a: PlannedFile, b: PlannedFile): number {
  return Buffer.compare(Buffer.from(a.name), Buffer.from(b.name));
}
