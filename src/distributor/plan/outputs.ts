import type { BundlePath, OutputCategories, SourceManifest } from '../model/types.js';
import { compareUtf8, pathSetProblem } from '../path/bundle-path.js';
import type { PlannedOutput } from './types.js';

export interface PageInfo {
  readonly source_index: number;
  readonly path: BundlePath;
  readonly sha256: PlannedOutput['sha256'];
  readonly size: number;
}

/**
 * The files a destination receives from one bundle (seed: "Destination Output
 * Contract"): copies of every listed file when `source`, a page per `.md` file
 * when `html`; sorted by UTF-8 path. Undefined when two of them collide
 * (same path, NFC twins, or a file used as a directory) — refused at planning.
 */
export function plannedOutputs(
  manifest: SourceManifest,
  pages: readonly PageInfo[],
  categories: OutputCategories,
): readonly PlannedOutput[] | undefined {
  const outputs: PlannedOutput[] = [];
  if (categories.source) {
    for (const [index, file] of manifest.files.entries()) {
      outputs.push({
        path: file.path,
        kind: 'source',
        source_path: file.path,
        source_index: index,
        sha256: file.sha256,
        size: file.size,
      });
    }
  }
  if (categories.html) {
    for (const page of pages) {
      const source = manifest.files[page.source_index];
      if (source === undefined) return undefined;
      outputs.push({
        path: page.path,
        kind: 'generated',
        source_path: source.path,
        source_index: page.source_index,
        transform: 'markdown_to_html',
        sha256: page.sha256,
        size: page.size,
      });
    }
  }
  if (pathSetProblem(outputs.map((output) => output.path)) !== undefined) return undefined;
  return outputs.sort((a, b) => compareUtf8(a.path, b.path));
}
