/** A Markdown source larger than this is not rendered (markdown-it holds the whole text and its tokens). */
export const MARKDOWN_MAX_BYTES = 8 * 1024 * 1024;

/** `report.md` → `report.html`; only a lowercase `.md` extension is Markdown (docs/distributor.md#outputs-and-state). */
export function htmlSidecarPath(path: string): string | undefined {
  return path.endsWith('.md') && !path.endsWith('/.md') && path.length > 3
    ? `${path.slice(0, -3)}.html`
    : undefined;
}

/**
 * The `assets` output category: every listed file that is neither Markdown
 * (a lowercase `.md` file, which `html` renders) nor an HTML page (`.html`,
 * `.htm`, any letter case) — images, CSV, PDF, SVG, JSON and the like.
 */
export function isAsset(path: string): boolean {
  return htmlSidecarPath(path) === undefined && !/\.html?$/i.test(path);
}
