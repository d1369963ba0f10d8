// The distributor's library API that renders Markdown pages: the page itself,
// and `verifyBundle`, which renders them to check a bundle for html outputs.
// Apart from index.ts, which a run's command loads: a run whose destinations
// want no page never loads the Markdown renderer (transform/renderer.ts).
// Re-exported from src/index.ts beside index.ts.
export { type VerifiedBundle, verifyBundle } from './api/verify.js';
export { type PageOptions, renderMarkdownPage } from './transform/markdown.js';
