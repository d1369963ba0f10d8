import { describe, expect, it } from 'vitest';
import type { Sha256Prefixed } from '../../core/digest/index.js';
import type { BundlePath, Instant, SourceManifest } from '../model/types.js';
import { linkWarnings } from './links.js';
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
});
