import { createHash } from 'node:crypto';
import MarkdownIt from 'markdown-it';
import { renderMarkdownPage } from '../src/distributor/rendering.js';
import type { Benchmark } from './harness.js';

/**
 * `npm run bench -- pages`: what a published page costs beyond the Markdown
 * library itself. The reference renders the body with markdown-it alone (the
 * library a user would call); sealkit builds the whole page (shell, policy,
 * inlined stylesheet, table classes, link rewriting) and, as validation
 * does, hashes it. 100 pages of a typical weekly report per sample.
 */
const REPORT = `# Weekly sales — week 22

Sales rose **8 %** on week 21, led by the South. The method is in the [notes](notes.md).

## By region

| region | sales | share | vs. week 21 |
| :--- | ---: | ---: | ---: |
| North | 1,204 | 41 % | +2 % |
| South | 1,733 | 59 % | +13 % |
| **Total** | **2,937** | 100 % | +8 % |

![Sales by region](chart.svg)

\`\`\`sql
select region, sum(amount) as sales from silver.orders where order_week = 22 group by region;
\`\`\`

Raw figures: [data/sales.csv](data/sales.csv), [last week](../week-21/report.md).
`;
const PAGES = 100;

export const pagesBenchmark: Benchmark = {
  name: 'pages',
  description: 'generated report pages: sealkit page (shell, stylesheet, links) against markdown-it alone',
  prepare() {
    const bytes = Buffer.from(REPORT, 'utf8');
    const markdownIt = new MarkdownIt('commonmark', { html: false }).enable(['table', 'strikethrough']);
    const listed = new Set([
      'week-22/report.md',
      'week-22/notes.md',
      'week-22/chart.svg',
      'week-21/report.md',
    ]);
    const options = { lang: 'en', path: 'week-22/report.md', listed };
    const page = renderMarkdownPage(bytes, 'report', options);
    return {
      workload: `${PAGES} pages of a ${bytes.length}-byte report (page ${page.byteLength} bytes)`,
      reference: 'markdown-it render, body only',
      variants: [
        {
          name: 'markdown-it render, body only',
          run: () => {
            for (let i = 0; i < PAGES; i += 1) markdownIt.render(REPORT);
          },
        },
        {
          name: 'sealkit page',
          run: () => {
            for (let i = 0; i < PAGES; i += 1) renderMarkdownPage(bytes, 'report', options);
          },
        },
        {
          name: 'sealkit page + SHA-256 (as validation)',
          run: () => {
            for (let i = 0; i < PAGES; i += 1)
              createHash('sha256')
                .update(renderMarkdownPage(bytes, 'report', options))
                .digest('hex');
          },
        },
      ],
    };
  },
};
