import type { Refusal } from '../../core/refusal/index.js';
import type { OutputCategories, SourceManifest } from '../model/types.js';
import { pathSetProblemAt } from '../path/bundle-path.js';
import { refuseDistributor } from '../refusals.js';
import { type PageInfo, plannedOutputs } from './outputs.js';

const WHY = {
  path_duplicate: 'is also a listed file copied as it is',
  path_unicode_twin: 'differs from another output only in Unicode normalization',
  path_file_dir_clash: 'is also used as a directory by another output',
} as const;

/**
 * The `output_collision` refusal for a destination with these output
 * categories, located at the bundle file whose output collides (for a page,
 * the Markdown it is rendered from), or undefined when the outputs are
 * distinct. Pure: the same check planning makes, so `verify --html` and a
 * run refuse the same bundles.
 */
export function outputCollision(
  manifest: SourceManifest,
  pages: readonly PageInfo[],
  categories: OutputCategories,
): Refusal | undefined {
  if (plannedOutputs(manifest, pages, categories) !== undefined) return undefined;
  const made: { readonly path: string; readonly from: string; readonly page: boolean }[] = [
    ...(categories.source
      ? manifest.files.map((file) => ({ path: file.path, from: file.path, page: false }))
      : []),
    ...(categories.html
      ? pages.map((page) => ({
          path: page.path,
          from: manifest.files[page.source_index]?.path ?? page.path,
          page: true,
        }))
      : []),
  ];
  const problem = pathSetProblemAt(made.map((output) => output.path));
  const culprit = problem === undefined ? undefined : made[problem.index];
  if (problem === undefined || culprit === undefined)
    return refuseDistributor('output_collision', { role: 'bundle' });
  const why = problem.code in WHY ? WHY[problem.code as keyof typeof WHY] : 'collides with another output';
  return refuseDistributor('output_collision', {
    role: 'bundle',
    location: { path: culprit.from },
    hint: culprit.page ? `its page ${culprit.path} ${why}` : `${culprit.path} ${why}`,
  });
}
