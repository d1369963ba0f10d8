import type { BundlePath, OutputCategories, SourceManifest } from '../model/types.js';
import { compareUtf8, pathSetProblem } from '../path/bundle-path.js';
import type { PageLink } from '../transform/markdown.js';
import { htmlSidecarPath, isAsset } from '../transform/sidecar.js';
import type { PlannedOutput } from './types.js';

export interface PageInfo {
  readonly source_index: number;
  readonly path: BundlePath;
  readonly sha256: PlannedOutput['sha256'];
  readonly size: number;
  /** The `lang` the page was rendered with; a destination receives the pages of its own `lang`. */
  readonly lang?: string;
  /** Its relative links and images (see `PageLink`). */
  readonly links?: readonly PageLink[];
}

/**
 * The files a destination receives from one bundle
 * (docs/distributor.md#outputs-and-state): copies of every listed file when `source` (else, with `assets`,
 * of the listed files that are neither Markdown nor HTML), a page per `.md`
 * file when `html`; sorted by UTF-8 path. Undefined when two of them collide
 * (same path, NFC twins, or a file used as a directory) — refused at planning.
 */
export function plannedOutputs(
  manifest: SourceManifest,
  pages: readonly PageInfo[],
  categories: OutputCategories,
): readonly PlannedOutput[] | undefined {
  const outputs: PlannedOutput[] = [];
  for (const [index, file] of manifest.files.entries()) {
    if (!categories.source && !(categories.assets === true && isAsset(file.path))) continue;
    outputs.push({
      path: file.path,
      kind: 'source',
      source_path: file.path,
      source_index: index,
      sha256: file.sha256,
      size: file.size,
    });
  }
  if (categories.html) {
    for (const page of pages) {
      if (page.lang !== categories.lang) continue;
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

/**
 * The outputs a destination will receive, known before any file is read:
 * pages are named (`x.md` → `x.html`) but their digest and size are not yet
 * known (undefined). Used to tell, before validation, whether a published
 * bundle's outputs already are what the configuration asks for.
 */
export interface ExpectedOutput {
  readonly path: string;
  readonly kind: PlannedOutput['kind'];
  readonly source_path: string;
  readonly transform?: PlannedOutput['transform'];
  readonly sha256: PlannedOutput['sha256'] | undefined;
  readonly size: number | undefined;
}

export function expectedOutputs(
  manifest: SourceManifest,
  categories: OutputCategories,
): readonly ExpectedOutput[] {
  const outputs: ExpectedOutput[] = [];
  for (const file of manifest.files) {
    if (categories.source || (categories.assets === true && isAsset(file.path))) {
      outputs.push({
        path: file.path,
        kind: 'source',
        source_path: file.path,
        sha256: file.sha256,
        size: file.size,
      });
    }
    const page = categories.html ? htmlSidecarPath(file.path) : undefined;
    if (page !== undefined) {
      outputs.push({
        path: page,
        kind: 'generated',
        source_path: file.path,
        transform: 'markdown_to_html',
        sha256: undefined,
        size: undefined,
      });
    }
  }
  return outputs.sort((a, b) => compareUtf8(a.path, b.path));
}

/**
 * Why a destination's outputs select no file of a bundle, for the hint of
 * `outputs_empty`: what the bundle lists, and which output would publish
 * it (`the bundle lists 1 Markdown file, and outputs {source: false, html:
 * false, assets: true} select none of it: turn on html (a page for each .md
 * file) or source (every file as it is)`).
 */
export function noOutputsHint(manifest: SourceManifest, categories: OutputCategories): string {
  let markdown = 0;
  let pages = 0;
  for (const file of manifest.files) {
    if (htmlSidecarPath(file.path) !== undefined) markdown += 1;
    else if (!isAsset(file.path)) pages += 1;
  }
  const other = manifest.files.length - markdown - pages;
  const count = (n: number, what: string): string => `${n} ${what}${n === 1 ? '' : 's'}`;
  const held = [
    ...(markdown > 0 ? [count(markdown, 'Markdown file')] : []),
    ...(pages > 0 ? [count(pages, 'HTML file')] : []),
    ...(other > 0 ? [count(other, 'other file')] : []),
  ];
  const turnOn = [
    ...(markdown > 0 && !categories.html ? ['html (a page for each .md file)'] : []),
    ...(other > 0 && categories.assets !== true
      ? ['assets (the files that are neither Markdown nor HTML)']
      : []),
    'source (every file as it is)',
  ];
  const shown = `{source: ${categories.source}, html: ${categories.html}, assets: ${categories.assets === true}}`;
  const listed =
    held.length === 1
      ? (held[0] ?? '')
      : `${held.slice(0, -1).join(', ')} and ${held[held.length - 1] ?? ''}`;
  return `the bundle lists ${listed}, and outputs ${shown} select none of ${manifest.files.length === 1 ? 'it' : 'them'}: turn on ${turnOn.join(' or ')}`;
}
