import { htmlSidecarPath } from './sidecar.js';

// Where a page's relative links point; apart from the renderer, so that a
// command checking links loads no Markdown parser.

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/**
 * The page link for `href` (as markdown-it normalized it, percent-encoded)
 * when it is relative and resolves, from the page at `from`, to a listed
 * `.md` file inside the bundle, or (with `bundleDir`) to a `.md` file of
 * another bundle folder of the source root: every destination that renders
 * pages renders them for every bundle of its pipeline, under the same
 * folders, so that bundle's page lies there (docs/distributor.md#pages).
 * Undefined otherwise. Query and fragment are kept: `notes.md#total` →
 * `notes.html#total`.
 */
export function pageHref(
  href: string,
  from: string,
  listed: ReadonlySet<string>,
  bundleDir?: string,
): string | undefined {
  const place = placeOf(href, from, bundleDir);
  if (place === undefined || (place.kind !== 'inside' && place.kind !== 'other')) return undefined;
  if (place.kind === 'other' && place.folder === true) return undefined;
  if (!place.target.endsWith('.md') || htmlSidecarPath(place.target) === undefined) return undefined;
  if (place.kind === 'inside' && !listed.has(place.target)) return undefined;
  const cut = href.search(/[?#]/);
  const pathPart = cut === -1 ? href : href.slice(0, cut);
  const rest = cut === -1 ? '' : href.slice(cut);
  return `${pathPart.slice(0, -3)}.html${rest}`;
}

export type Place =
  | { readonly kind: 'inside'; readonly target: string }
  | { readonly kind: 'folder'; readonly target: string }
  /** Below the source root, in a folder that is neither the bundle's nor one above it; `target` under the source root. */
  | { readonly kind: 'other'; readonly target: string; readonly folder?: true }
  /** `beyondRoot`: it climbs above the source root (or, without `bundleDir`, the bundle folder) itself. */
  | { readonly kind: 'outside'; readonly beyondRoot?: true };

/**
 * Whether a relative `href` from the page at `from` climbs above the source
 * root that `bundleDir` is given under. `distribute verify` knows only the
 * bundle folder's own name and takes the folder above it for the root: a
 * `.md` file above the bundle folder is in no bundle whatever the root, but
 * one reached past that assumed root may be another bundle's page, which
 * only a run can tell.
 */
export function climbsAboveRoot(href: string, from: string, bundleDir: string): boolean {
  const place = placeOf(href, from, bundleDir);
  return place?.kind === 'outside' && place.beyondRoot === true;
}

/**
 * Where a relative `href` (percent-encoded) from the page at `from` points,
 * resolved like a browser would: a file inside the bundle, a folder of it
 * (`guide/`, `./`; `''` is the bundle folder), or outside it; undefined for
 * what is not a relative path (empty, a scheme, `/…`, `#…`, `?…`) or does
 * not decode. With `bundleDir`, a path that climbs above the bundle folder
 * and comes back into it (`../W03/x.png` from `W03`) is inside: the
 * destination holds the bundle under the same folders as the source root.
 */
export function placeOf(href: string, from: string, bundleDir?: string): Place | undefined {
  if (
    href === '' ||
    SCHEME.test(href) ||
    href.startsWith('/') ||
    href.startsWith('#') ||
    href.startsWith('?')
  )
    return undefined;
  const cut = href.search(/[?#]/);
  const pathPart = cut === -1 ? href : href.slice(0, cut);
  if (pathPart === '') return undefined;
  const base = bundleDir === undefined || bundleDir === '' ? [] : bundleDir.split('/');
  const segments = [...base, ...from.split('/').slice(0, -1)];
  const raws = pathPart.split('/');
  for (const [index, raw] of raws.entries()) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return undefined;
    }
    if (segment.includes('/') || segment.includes('\\')) return undefined;
    // A trailing slash names a folder; an empty segment inside (`a//b`) is kept, as a browser keeps it.
    if (segment === '.' || (segment === '' && index === raws.length - 1)) continue;
    if (segment === '..') {
      // Above the source root (or, without `bundleDir`, the bundle folder): not this bundle.
      if (segments.pop() === undefined) return { kind: 'outside', beyondRoot: true };
      continue;
    }
    segments.push(segment);
  }
  const last = raws[raws.length - 1];
  const folder = last === '' || last === '.' || last === '..';
  if (segments.length < base.length || base.some((name, index) => segments[index] !== name)) {
    // A folder above the bundle (`../`), or a file in one (`../index.md`),
    // lies outside every bundle: a bundle never holds another. Elsewhere
    // below the source root, it may be another bundle's (`../2026-W02/`).
    const holder = folder ? segments : segments.slice(0, -1);
    const above = holder.length < base.length && holder.every((name, index) => base[index] === name);
    if (above) return { kind: 'outside' };
    return folder
      ? { kind: 'other', target: segments.join('/'), folder: true }
      : { kind: 'other', target: segments.join('/') };
  }
  const target = segments.slice(base.length).join('/');
  return { kind: folder ? 'folder' : 'inside', target };
}
