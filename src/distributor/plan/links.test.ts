import { describe, expect, it } from 'vitest';
import type { Sha256Prefixed } from '../../core/digest/index.js';
import type { BundlePath, Instant, SourceManifest } from '../model/types.js';
import { renderMarkdown } from '../transform/markdown.js';
import { linkWarnings, type SiblingBundles } from './links.js';
import type { PageInfo } from './outputs.js';
import { plannedOutputs } from './outputs.js';

const sha = (digit: string) => `sha256:${digit.repeat(64)}` as Sha256Prefixed;
const manifest: SourceManifest = {
  schema_version: 1,
  id: 'w03',
  digest: sha('0'),
  created: '2026-01-01T00:00:00Z' as Instant,
  files: [
    { path: 'charts/trend.png' as BundlePath, sha256: sha('1'), size: 3 },
    { path: 'notes.md' as BundlePath, sha256: sha('2'), size: 3 },
    { path: 'report.md' as BundlePath, sha256: sha('3'), size: 3 },
  ],
};
const page = (sourceIndex: number, path: string, links: PageInfo['links']): PageInfo => ({
  source_index: sourceIndex,
  path: path as BundlePath,
  sha256: sha('9'),
  size: 10,
  ...(links === undefined ? {} : { links }),
});
const pages: readonly PageInfo[] = [
  page(1, 'notes.html', []),
  page(2, 'report.html', [
    { line: 3, href: 'charts/trend.png', image: true, target: 'charts/trend.png' },
    { line: 4, href: 'charts/late.png', image: true, target: 'charts/late.png' },
    { line: 5, href: 'notes.html', image: false, target: 'notes.html' },
    { line: 6, href: '../W02/report.md', image: false, leaves: true },
    { line: 7, href: '../shared/logo.png', image: true, leaves: true },
  ]),
];

const warningsFor = (categories: { source: boolean; html: boolean; assets?: boolean }) => {
  const outputs = plannedOutputs(manifest, pages, categories) ?? [];
  return linkWarnings(manifest, pages, categories, outputs).map((w) => [w.line, w.problem]);
};

describe('links of pages that a destination will not hold', () => {
  it('warns of a file the manifest does not list, a listed one the outputs leave out, and another bundle’s .md', () => {
    expect(warningsFor({ source: false, html: true })).toEqual([
      [3, 'not_published_here'],
      [4, 'not_in_manifest'],
      [6, 'markdown_outside_bundle'],
    ]);
  });

  it('regression: a listed file whose name holds ? or #, linked as written, is said so (was: not in the manifest)', () => {
    const named: SourceManifest = {
      ...manifest,
      files: [
        { path: 'Q1?.csv' as BundlePath, sha256: sha('1'), size: 3 },
        { path: 'a#b.csv' as BundlePath, sha256: sha('2'), size: 3 },
        { path: 'report.md' as BundlePath, sha256: sha('3'), size: 3 },
      ],
    };
    const rendered = renderMarkdown(
      Buffer.from('# R\n\n[q](<Q1?.csv>) [escaped](Q1%3F.csv) [h](a#b.csv) [gone](Q2?.csv)\n'),
      'report',
      { path: 'report.md', listed: new Set(named.files.map((file) => file.path)) },
    );
    const withLinks = [page(2, 'report.html', rendered.links)];
    const categories = { source: false, html: true, assets: true };
    const outputs = plannedOutputs(named, withLinks, categories) ?? [];
    expect(linkWarnings(named, withLinks, categories, outputs).map((w) => [w.href, w.problem])).toEqual([
      ['Q1?.csv', 'query_in_name'],
      ['a#b.csv', 'query_in_name'],
      ['Q2?.csv', 'not_in_manifest'],
    ]);
  });

  it('is quiet about what the destination holds: assets copied, sources copied (another bundle’s .md too)', () => {
    expect(warningsFor({ source: false, html: true, assets: true })).toEqual([
      [4, 'not_in_manifest'],
      [6, 'markdown_outside_bundle'],
    ]);
    expect(warningsFor({ source: true, html: true })).toEqual([[4, 'not_in_manifest']]);
  });

  it('says nothing without pages', () => {
    expect(warningsFor({ source: true, html: false })).toEqual([]);
  });

  /**
   * The warnings of the page `pagePath` rendered from `markdown` in a bundle
   * at `bundleDir` listing `paths` (each a few bytes), as a run plans them.
   */
  const warningsOfBundle = (
    markdown: string,
    paths: readonly string[],
    categories: { source: boolean; html: boolean; assets?: boolean },
    bundleDir = 'W03',
    pagePath = 'report.md',
    siblings?: SiblingBundles,
  ) => {
    const files = [...paths].sort().map((path, index) => ({
      path: path as BundlePath,
      sha256: sha(String(index % 10)),
      size: 3,
    }));
    const bundle: SourceManifest = { ...manifest, files };
    const listed = new Set<string>(paths);
    const rendered: PageInfo[] = files.flatMap((file, index) => {
      if (!file.path.endsWith('.md')) return [];
      const text = file.path === pagePath ? markdown : '# page\n';
      const { links } = renderMarkdown(Buffer.from(text), 'page', { path: file.path, listed, bundleDir });
      return [page(index, `${file.path.slice(0, -3)}.html`, links)];
    });
    const outputs = plannedOutputs(bundle, rendered, categories) ?? [];
    return linkWarnings(bundle, rendered, categories, outputs, siblings).map((w) => [w.href, w.problem]);
  };

  it('regression: an HTML <img> tag is reported, as the page shows it as text (was silent, listed chart or not)', () => {
    const markdown = [
      '# Week 3',
      '',
      '<div align="center"><img src="charts/trend.png" width="400"></div>',
      '',
      "Inline <IMG alt='x' SRC='charts/gone.png'> and ![ok](charts/trend.png).",
      '',
      '`<img src="in-code.png">`',
      '',
      '```html',
      '<img src="in-fence.png">',
      '```',
      '',
    ].join('\n');
    const paths = ['report.md', 'charts/trend.png'];
    // Whatever the outputs: the tag is escaped, so no picture shows.
    for (const categories of [
      { source: true, html: true },
      { source: false, html: true, assets: true },
    ])
      expect(warningsOfBundle(markdown, paths, categories)).toEqual([
        ['charts/trend.png', 'raw_html_image'],
        ['charts/gone.png', 'raw_html_image'],
      ]);
  });

  it('regression: a link to a folder whose index.html the destination holds is not reported', () => {
    const markdown = '[a](guide/) [b](./guide/) [c](guide) [d](kit/) [e](kit)\n';
    const paths = ['report.md', 'guide/index.md', 'guide/setup.md', 'kit/index.html', 'kit/a.csv'];
    // guide/index.md becomes guide/index.html; kit/index.html is copied with the sources.
    expect(warningsOfBundle(markdown, paths, { source: true, html: true })).toEqual([]);
    // Without sources, kit/index.html is listed but not published here.
    expect(warningsOfBundle(markdown, paths, { source: false, html: true, assets: true })).toEqual([
      ['kit/', 'not_published_here'],
      ['kit', 'not_published_here'],
    ]);
  });

  it('regression: a listed page left out is published by source: true, never by assets', () => {
    const markdown = '[old](old.html) [kit](kit/) ![chart](chart.png)\n';
    const paths = ['report.md', 'old.html', 'kit/index.html', 'chart.png'];
    const categories = { source: false, html: true };
    const files = [...paths].sort().map((path, index) => ({
      path: path as BundlePath,
      sha256: sha(String(index)),
      size: 3,
    }));
    const bundle: SourceManifest = { ...manifest, files };
    const reportIndex = files.findIndex((file) => file.path === 'report.md');
    const { links } = renderMarkdown(Buffer.from(markdown), 'page', {
      path: 'report.md',
      listed: new Set(paths),
      bundleDir: 'W03',
    });
    const rendered = [page(reportIndex, 'report.html', links)];
    const outputs = plannedOutputs(bundle, rendered, categories) ?? [];
    expect(
      linkWarnings(bundle, rendered, categories, outputs).map((w) => [
        w.href,
        w.problem,
        w.published_by,
        w.file,
      ]),
    ).toEqual([
      ['old.html', 'not_published_here', 'source', 'old.html'],
      ['kit/', 'not_published_here', 'source', 'kit/index.html'],
      ['chart.png', 'not_published_here', 'assets', 'chart.png'],
    ]);
  });

  it('regression: a link to a folder without an index.html says so, and a missing folder is not in the manifest', () => {
    const markdown = '[a](data/) [b](data) [c](./) [d](nowhere/) [e](nowhere)\n';
    const paths = ['report.md', 'data/a.csv'];
    expect(warningsOfBundle(markdown, paths, { source: true, html: true })).toEqual([
      ['data/', 'folder_without_index'],
      ['data', 'folder_without_index'],
      ['./', 'folder_without_index'],
      ['nowhere/', 'not_in_manifest'],
      ['nowhere', 'not_in_manifest'],
    ]);
    // The bundle folder's own index.md answers for ./ once it is a page.
    expect(
      warningsOfBundle('[c](./) [up](../W03/)\n', [...paths, 'index.md'], { source: false, html: true }),
    ).toEqual([]);
  });

  it('regression: a link out of the bundle folder and back in is checked like a link inside it', () => {
    const markdown = '![a](../W03/chart.png) ![b](../W03/late.png) [c](../W03/notes.md) [d](../W02/x.png)\n';
    const paths = ['report.md', 'notes.md', 'chart.png'];
    expect(warningsOfBundle(markdown, paths, { source: false, html: true, assets: true })).toEqual([
      ['../W03/late.png', 'not_in_manifest'],
    ]);
    // Under a deeper source folder, from a page two folders down, the same.
    expect(
      warningsOfBundle(
        '![a](../../../W03/chart.png) ![b](../../../W03/late.png) [c](../../../../sales/W03/)\n',
        ['a/b/page.md', 'chart.png'],
        { source: true, html: true },
        'sales/W03',
        'a/b/page.md',
      ),
    ).toEqual([
      ['../../../W03/late.png', 'not_in_manifest'],
      ['../../../../sales/W03/', 'folder_without_index'],
    ]);
  });

  it('regression: a link into another bundle of the run is checked against what that bundle publishes here', () => {
    const other = (paths: readonly string[]): SourceManifest => ({
      ...manifest,
      files: paths.map((path, index) => ({ path: path as BundlePath, sha256: sha(String(index)), size: 3 })),
    });
    const siblings: SiblingBundles = new Map([
      ['sales/W02', other(['chart.png', 'report.md'])],
      ['ops/nightly', other(['summary.md'])],
    ]);
    const markdown = [
      '[a](../W02/report.md) [b](../W02/reprot.md) [c](../W02/report.html) ![d](../W02/chart.png)',
      '[e](../../ops/nightly/summary.md) [f](../../ops/nightly/x.csv) [g](../W01/report.md)',
    ].join('\n');
    // A folder of another bundle is answered by its index.html, which W02 (report.md only) lacks.
    expect(
      warningsOfBundle(
        '[h](../W02/) [i](../W02/sub/) [j](../W01/) [k](../)\n',
        ['report.md'],
        { source: false, html: true },
        'sales/W03',
        'report.md',
        new Map([['sales/W02', other(['report.md', 'sub/index.md'])]]),
      ),
    ).toEqual([['../W02/', 'folder_without_index']]);
    // W01 is no bundle of this run (published earlier, since removed from the source): not checked.
    expect(
      warningsOfBundle(
        markdown,
        ['report.md'],
        { source: false, html: true },
        'sales/W03',
        'report.md',
        siblings,
      ),
    ).toEqual([
      ['../W02/reprot.html', 'not_in_other_bundle'],
      ['../W02/chart.png', 'not_in_other_bundle'],
      ['../../ops/nightly/x.csv', 'not_in_other_bundle'],
    ]);
    // With assets, W02's chart is published beside its page.
    expect(
      warningsOfBundle(
        markdown,
        ['report.md'],
        { source: false, html: true, assets: true },
        'sales/W03',
        'report.md',
        siblings,
      ).map(([href]) => href),
    ).toEqual(['../W02/reprot.html', '../../ops/nightly/x.csv']);
  });

  it('regression: a file another bundle lists but this destination leaves out names the file and the output to set', () => {
    const files = ['data.csv', 'index.html', 'report.md'].map((path, index) => ({
      path: path as BundlePath,
      sha256: sha(String(index)),
      size: 3,
    }));
    const siblings: SiblingBundles = new Map([['sales/W02', { ...manifest, files }]]);
    const markdown = '[a](../W02/data.csv) [b](../W02/) [c](../W02/dta.csv)\n';
    const listed = new Set<string>(['report.md']);
    const { links } = renderMarkdown(Buffer.from(markdown), 'page', {
      path: 'report.md',
      listed,
      bundleDir: 'sales/W03',
    });
    const own: SourceManifest = {
      ...manifest,
      files: [{ path: 'report.md' as BundlePath, sha256: sha('3'), size: 3 }],
    };
    const categories = { source: false, html: true };
    const rendered = [page(0, 'report.html', links)];
    const outputs = plannedOutputs(own, rendered, categories) ?? [];
    // The names are right: the outputs leave data.csv and index.html out ("check the name" before).
    expect(linkWarnings(own, rendered, categories, outputs, siblings)).toEqual([
      {
        page: 'report.md',
        line: 1,
        href: '../W02/data.csv',
        image: false,
        problem: 'not_in_other_bundle',
        target_bundle_dir: 'sales/W02',
        published_by: 'assets',
        file: 'data.csv',
      },
      {
        page: 'report.md',
        line: 1,
        href: '../W02/',
        image: false,
        problem: 'not_in_other_bundle',
        target_bundle_dir: 'sales/W02',
        published_by: 'source',
        file: 'index.html',
      },
      {
        page: 'report.md',
        line: 1,
        href: '../W02/dta.csv',
        image: false,
        problem: 'not_in_other_bundle',
        target_bundle_dir: 'sales/W02',
      },
    ]);
  });
});
