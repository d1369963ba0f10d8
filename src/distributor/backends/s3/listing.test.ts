// One listing of a destination prefix serves every bundle's inspection:
// `bundleListingOf` must give each bundle exactly the objects a listing of
// its own prefix would, in the store's order, however the keys of its
// neighbours begin.
import { describe, expect, it } from 'vitest';
import type { BundleDir } from '../../model/types.js';
import { bundleKeys } from './keys.js';
import { bundleListingOf, type ListedObject } from './listing.js';

/** What a listing of the bundle's own prefix holds: every key that begins with it, in listing order. */
function listedUnder(all: ReadonlyMap<string, ListedObject>, prefix: string): [string, ListedObject][] {
  return [...all]
    .filter(([key]) => key.startsWith(prefix))
    .map(([key, object]) => [key.slice(prefix.length), object]);
}

describe('bundleListingOf', () => {
  // In the store's order (UTF-8 bytes), which is not JavaScript's for every character.
  const keys = [
    'site/a-2/x.csv',
    'site/a.b/x.csv',
    'site/a/.distributor.json',
    'site/a/data/x.csv',
    'site/a/report.md',
    // U+FF21 before U+1F600 in UTF-8 bytes, after it in JavaScript's UTF-16 order.
    'site/a/\uFF21.txt',
    'site/a/\u{1F600}.txt',
    'site/ab/.distributor.json',
    'site/b/c/.distributor.json',
    'site/b/c/x.csv',
    'site/b/cd/x.csv',
    'site/caf\u00e9/x.csv',
  ];
  const all = new Map<string, ListedObject>(keys.map((key, at) => [key, { size: at, etag: `e${at}` }]));

  it('gives each bundle the objects under its own prefix, in the listing order, and nothing of its neighbours', () => {
    for (const dir of ['a', 'a-2', 'a.b', 'ab', 'b/c', 'b/cd', 'b', 'caf\u00e9', 'missing']) {
      const bundle = bundleKeys('site', dir as BundleDir);
      const listing = bundleListingOf(all, bundle, 100);
      expect([dir, [...listing.objects]]).toEqual([dir, listedUnder(all, bundle.prefix)]);
      expect(listing.overflow).toBe(false);
    }
    expect([...bundleListingOf(all, bundleKeys('site', 'a' as BundleDir), 100).objects.keys()]).toEqual([
      '.distributor.json',
      'data/x.csv',
      'report.md',
      '\uFF21.txt',
      '\u{1F600}.txt',
    ]);
  });

  it('says when a bundle holds more objects than asked for, keeping the first ones', () => {
    const listing = bundleListingOf(all, bundleKeys('site', 'a' as BundleDir), 3);
    expect(listing.overflow).toBe(true);
    expect([...listing.objects.keys()]).toEqual(['.distributor.json', 'data/x.csv', 'report.md']);
  });

  it('works on a destination at the bucket root', () => {
    const root = new Map<string, ListedObject>([
      ['a/x', { size: 1, etag: 'x' }],
      ['ab/x', { size: 2, etag: 'y' }],
    ]);
    expect([...bundleListingOf(root, bundleKeys('', 'a' as BundleDir), 10).objects]).toEqual([
      ['x', { size: 1, etag: 'x' }],
    ]);
  });
});
