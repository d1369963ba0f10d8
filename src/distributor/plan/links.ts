import type { OutputCategories, SourceManifest } from '../model/types.js';
import type { PageLink } from '../transform/markdown.js';
import { isAsset } from '../transform/sidecar.js';
import { expectedOutputs, type PageInfo } from './outputs.js';
import type { PlannedOutput } from './types.js';

/**
 * Why a link of a page points at nothing once the bundle is published
 * (docs/distributor.md#pages):
 * - `not_in_manifest`: a path inside the bundle that the manifest does not
 *   list (a chart written after the manifest, a typo), so no run publishes it;
 * - `not_published_here`: a listed file this destination's outputs leave out
 *   (`source: false` without `assets`, a Markdown file under `source: false`);
 * - `markdown_outside_bundle`: a `.md` file above the bundle folder (last
 *   week's report), left as written: with `source: false` no `.md` is
 *   published, so the link needs the page's name (`report.html`);
 * - `folder_without_index`: a folder of the bundle (`guide/`) that holds
 *   files here but no `index.html`, so a web server has no page to answer
 *   with. A folder whose `index.html` the destination holds (a listed one,
 *   or the page of its `index.md`) is what a server answers with: not a
 *   problem;
 * - `not_in_other_bundle`: a file of another bundle of the same run
 *   (`../2026-W02/report.html`, written so or as `report.md`) that this
 *   destination will not hold for that bundle: its manifest does not list
 *   it (or its `.md`), or the outputs leave it out;
 * - `in_folder_without_manifest`: a `not_at_destination` link into a
 *   folder below the source root that holds files but no `manifest.json`
 *   (a shared `logo.png` beside the bundles): the name is right, but no
 *   run publishes that folder;
 * - `query_in_name`: a listed file whose name holds `?` or `#`, linked
 *   with that character as written: the link reads it as the start of a
 *   query or fragment and asks for another name (`Q1?.csv` asks for `Q1`);
 * - `not_at_destination`: a file below the source root in no bundle of the
 *   run, which the destination does not hold either (a typo in last week's
 *   folder name). A bundle published earlier and since removed from the
 *   source is still there and loads; only what the destination was asked
 *   about (`OutsideLinks`) is checked;
 * - `raw_html_image`: an HTML `<img>` tag written in the Markdown, which
 *   the page shows escaped, as text, whatever the destination holds;
 * - `remote_image`: an image from another site, which the page's
 *   Content-Security-Policy does not load, whatever the destination holds;
 * - `markdown_from_site_root`: a `.md` file named from the site's root
 *   (`/sales/2026-W01/report.md`) where no `.md` is published; sealkit
 *   cannot tell which bundle that is, so the link is kept as written.
 */
export type LinkProblem =
  | 'not_in_manifest'
  | 'not_published_here'
  | 'markdown_outside_bundle'
  | 'folder_without_index'
  | 'not_in_other_bundle'
  | 'raw_html_image'
  | 'remote_image'
  | 'markdown_from_site_root'
  | 'not_at_destination'
  | 'in_folder_without_manifest'
  | 'query_in_name';

/** One link of one page that will point at nothing at this destination. */
export interface LinkWarning {
  /** The Markdown file the page is rendered from, its path in the bundle. */
  readonly page: string;
  readonly line: number;
  /** As the page holds it (percent-encoded). */
  readonly href: string;
  readonly image: boolean;
  readonly problem: LinkProblem;
  /**
   * For `not_published_here` (and `not_in_other_bundle` when that bundle
   * lists the file), which output setting would publish the file:
   * `assets` for charts and data, `source` for a listed page or Markdown
   * file (`old.html`, `guide/index.html`), which `assets` never copies.
   */
  readonly published_by?: 'assets' | 'source';
  /**
   * For `not_published_here` (and `not_in_other_bundle`, then in that
   * bundle, when it lists it), the listed file the destination will not hold:
   * the link's own target, or for a link to a folder (`kit/`) the index page
   * that would answer it (`kit/index.html`).
   */
  readonly file?: string;
  /**
   * For `not_in_other_bundle`, the folder (below the source root) of the
   * bundle the link leads into; for `in_folder_without_manifest`, the
   * folder without a manifest it leads into.
   */
  readonly target_bundle_dir?: string;
}

/** The other bundles of a run's pipeline, by their folder below the source root. */
export type SiblingBundles = ReadonlyMap<string, SourceManifest>;

/**
 * What a destination holds of the paths its pages link to outside every
 * bundle of the run (below the source root, as at the destination's root):
 * true when it holds the path, false when it does not; a path it was not
 * asked about, or could not answer for, is absent and not checked.
 */
export type OutsideLinks = ReadonlyMap<string, boolean>;

/**
 * The destination paths a link that leaves its bundle for no bundle of the
 * run loads from (any one of them), or undefined when it leads into a
 * bundle of the run (checked against that bundle) or nowhere below the
 * source root. A link to a `.md` file already points at its page; a folder
 * is answered with its `index.html`, and a name without its slash may be a
 * folder too (a web server redirects `guide` to `guide/`).
 */
export function outsideTargets(link: PageLink, siblings: SiblingBundles): readonly string[] | undefined {
  const other = link.other;
  if (other === undefined || other === '' || link.raw === true) return undefined;
  if (siblings.has(other) || siblingOf(other, siblings) !== undefined) return undefined;
  if (link.folder === true) return [`${other}/index.html`];
  if (other.endsWith('.md')) return [`${other.slice(0, -3)}.html`];
  return [other, `${other}/index.html`];
}

/** Every path `outsideTargets` gives for the links of `pages` (a destination that renders them asks its store). */
export function outsideLinkPaths(pages: readonly PageInfo[], siblings: SiblingBundles): readonly string[] {
  const paths = new Set<string>();
  for (const page of pages)
    for (const link of page.links ?? [])
      for (const path of outsideTargets(link, siblings) ?? []) paths.add(path);
  return [...paths];
}

/**
 * The links of the pages a destination receives that point at a file it
 * will not hold, in page and line order. A warning, never a refusal: the
 * page is published as written, and the report says what will not load.
 */
export function linkWarnings(
  manifest: SourceManifest,
  pages: readonly PageInfo[],
  categories: OutputCategories,
  outputs: readonly PlannedOutput[],
  siblings?: SiblingBundles,
  outside?: OutsideLinks,
  /** Folders below the source root that hold files but no manifest (the run's `dirs_without_manifest`). */
  loose?: readonly string[],
): readonly LinkWarning[] {
  if (!categories.html) return [];
  const listed = new Set<string>(manifest.files.map((file) => file.path));
  const written = new Set<string>(outputs.map((output) => output.path));
  const folders = foldersOf(listed);
  const warnings: LinkWarning[] = [];
  const held = new Map<string, ReadonlySet<string>>();
  const heldBy = (dir: string, sibling: SourceManifest): ReadonlySet<string> => {
    let paths = held.get(dir);
    if (paths === undefined) {
      paths = new Set(expectedOutputs(sibling, categories).map((output) => output.path));
      held.set(dir, paths);
    }
    return paths;
  };
  for (const page of pages) {
    if (page.lang !== categories.lang) continue;
    const source = manifest.files[page.source_index]?.path ?? page.path;
    for (const link of page.links ?? []) {
      if (link.raw === true || link.remote === true) {
        warnings.push({
          page: source,
          line: link.line,
          href: link.href,
          image: true,
          problem: link.raw === true ? 'raw_html_image' : 'remote_image',
        });
        continue;
      }
      if (link.other !== undefined) {
        const targets = siblings === undefined ? undefined : outsideTargets(link, siblings);
        if (targets !== undefined) {
          // Named only when the destination said of every place it could load from that it holds nothing.
          if (targets.every((target) => outside?.get(target) === false)) {
            const folder = loose?.find((dir) => (link.other ?? '').startsWith(`${dir}/`));
            warnings.push({
              page: source,
              line: link.line,
              href: link.href,
              image: link.image,
              ...(folder === undefined
                ? { problem: 'not_at_destination' as const }
                : { problem: 'in_folder_without_manifest' as const, target_bundle_dir: folder }),
            });
          }
          continue;
        }
        const problem = siblings === undefined ? undefined : otherBundleProblem(link, siblings, heldBy);
        if (problem !== undefined)
          warnings.push({
            page: source,
            line: link.line,
            href: link.href,
            image: link.image,
            problem: problem.problem,
            target_bundle_dir: problem.dir,
            ...(problem.file === undefined
              ? {}
              : { published_by: isAsset(problem.file) ? 'assets' : 'source', file: problem.file }),
          });
        continue;
      }
      const found = linkProblem(link, categories.source, { listed, written, folders });
      if (found === undefined) continue;
      const warning = { page: source, line: link.line, href: link.href, image: link.image };
      warnings.push(
        found.problem === 'not_published_here'
          ? {
              ...warning,
              problem: found.problem,
              published_by: isAsset(found.file) ? 'assets' : 'source',
              file: found.file,
            }
          : { ...warning, problem: found.problem },
      );
    }
  }
  return warnings;
}

/**
 * Whether the link, its `?` or `#` read as part of the name, names a listed
 * file: `Q1?.csv` for a file named so, whose link asks for `Q1`.
 */
function namedWithQuery(href: string, target: string, listed: ReadonlySet<string>): boolean {
  const cut = href.search(/[?#]/);
  if (cut === -1) return false;
  try {
    return listed.has(`${target}${decodeURIComponent(href.slice(cut))}`);
  } catch {
    return false;
  }
}

/** A link to a `.md` file, before its query or fragment. */
const MARKDOWN_HREF = /\.md(?:[?#]|$)/;

interface Held {
  readonly listed: ReadonlySet<string>;
  readonly written: ReadonlySet<string>;
  /** Every folder of the bundle that holds a listed file, `''` the bundle folder itself. */
  readonly folders: ReadonlySet<string>;
}

/** Why a link will not load; for a listed file left out, which file. */
type Found =
  | { readonly problem: Exclude<LinkProblem, 'not_published_here'> }
  | { readonly problem: 'not_published_here'; readonly file: string };

function linkProblem(link: PageLink, copiesSources: boolean, held: Held): Found | undefined {
  if (link.rooted === true)
    return !copiesSources && MARKDOWN_HREF.test(link.href)
      ? { problem: 'markdown_from_site_root' }
      : undefined;
  // Where sources are copied, another bundle's `.md` is published too: only unchecked.
  if (link.leaves === true)
    return !copiesSources && MARKDOWN_HREF.test(link.href)
      ? { problem: 'markdown_outside_bundle' }
      : undefined;
  const target = link.target;
  if (target === undefined) return undefined;
  if (link.folder !== true) {
    // A link to a listed `.md` already points at its page (`notes.html`) when it gets here.
    if (held.written.has(target)) return undefined;
    if (held.listed.has(target)) return { problem: 'not_published_here', file: target };
    // `guide` without its slash: a web server redirects to `guide/`, then answers with its index.
    if (!held.folders.has(target))
      return {
        problem: namedWithQuery(link.href, target, held.listed) ? 'query_in_name' : 'not_in_manifest',
      };
  }
  // A folder is answered with its index.html (docs/distributor.md#pages).
  const index = target === '' ? 'index.html' : `${target}/index.html`;
  if (held.written.has(index)) return undefined;
  if (held.listed.has(index)) return { problem: 'not_published_here', file: index };
  return { problem: held.folders.has(target) ? 'folder_without_index' : 'not_in_manifest' };
}

/**
 * Why a link into another bundle of the run will not load at this
 * destination, with that bundle's folder: a file it does not publish here,
 * or a folder of it (`../2026-W02/`) without an `index.html` to answer.
 * `file` is the file that bundle lists but this destination's outputs
 * leave out (its chart without `assets`): the name is right, the outputs
 * are what to change. Undefined when it loads, or leads into no bundle of
 * the run.
 */
function otherBundleProblem(
  link: PageLink,
  siblings: SiblingBundles,
  heldBy: (dir: string, sibling: SourceManifest) => ReadonlySet<string>,
): { readonly problem: LinkProblem; readonly dir: string; readonly file?: string } | undefined {
  const other = link.other ?? '';
  const bundle = siblings.get(other);
  const into =
    link.folder === true && bundle !== undefined
      ? { dir: other, manifest: bundle }
      : siblingOf(other, siblings);
  if (into === undefined) return undefined;
  const held = heldBy(into.dir, into.manifest);
  const inside = other === into.dir ? '' : other.slice(into.dir.length + 1);
  const lists = (path: string) => into.manifest.files.some((file) => file.path === path);
  const leftOut = (path: string) =>
    lists(path)
      ? { problem: 'not_in_other_bundle' as const, dir: into.dir, file: path }
      : { problem: 'not_in_other_bundle' as const, dir: into.dir };
  if (link.folder !== true) return held.has(inside) ? undefined : leftOut(inside);
  const index = inside === '' ? 'index.html' : `${inside}/index.html`;
  if (held.has(index)) return undefined;
  if (lists(index)) return leftOut(index);
  const holds = inside === '' || into.manifest.files.some((file) => file.path.startsWith(`${inside}/`));
  return { problem: holds ? 'folder_without_index' : 'not_in_other_bundle', dir: into.dir };
}

/** The bundle of the run whose folder holds `path` (below the source root), if any. */
function siblingOf(
  path: string,
  siblings: SiblingBundles,
): { readonly dir: string; readonly manifest: SourceManifest } | undefined {
  let cut = path.lastIndexOf('/');
  while (cut > 0) {
    const dir = path.slice(0, cut);
    const manifest = siblings.get(dir);
    if (manifest !== undefined) return { dir, manifest };
    cut = dir.lastIndexOf('/');
  }
  return undefined;
}

function foldersOf(paths: Iterable<string>): ReadonlySet<string> {
  const folders = new Set<string>(['']);
  for (const path of paths) {
    let cut = path.lastIndexOf('/');
    while (cut > 0) {
      const folder = path.slice(0, cut);
      if (folders.has(folder)) break;
      folders.add(folder);
      cut = folder.lastIndexOf('/');
    }
  }
  return folders;
}
