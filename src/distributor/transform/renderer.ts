import type { renderMarkdown } from './markdown.js';

/** Renders one Markdown file into its page and the links it holds (see markdown.ts). */
export type RenderMarkdown = typeof renderMarkdown;

/**
 * The Markdown renderer, loaded when a run first needs it. markdown-it and
 * its plugins were a third of the code a run loaded and about 90 ms of its
 * start on a slow host, and a run whose destinations render no page never
 * calls them (docs/performance.md, "The page renderer loaded on first use").
 */
export async function loadMarkdownRenderer(): Promise<RenderMarkdown> {
  return (await import('./markdown.js')).renderMarkdown;
}
