import { describe, expect, it } from 'vitest';
import type { BundleDir, BundlePath } from '../../model/types.js';
import { bareEtag, isMd5Etag } from './etag.js';
import { bundleKeys, sortedUnique } from './keys.js';

describe('bundle keys', () => {
  it('joins the destination prefix and the bundle directory with one slash and ends with a slash', () => {
    expect(bundleKeys('site/reports', 'a/b' as BundleDir).prefix).toBe('site/reports/a/b/');
    expect(bundleKeys('', 'a/b' as BundleDir).prefix).toBe('a/b/');
    expect(bundleKeys('', 'a/b' as BundleDir).key('x/y.html')).toBe('a/b/x/y.html');
  });

  it('regression: a sibling with a longer name (a/bc) or the bare bundle key (a/b) is outside the bundle a/b', () => {
    const keys = bundleKeys('p', 'a/b' as BundleDir);
    expect(keys.relative('p/a/bc/x')).toBeUndefined();
    expect(keys.relative('p/a/b')).toBeUndefined();
    expect(keys.relative('p/a/b/x')).toBe('x');
    expect(keys.relative('p/a/b/')).toBe('');
  });

  it('sorts in UTF-8 byte order and drops duplicates', () => {
    const paths = ['b', 'é', 'a/b', 'a', 'Z', 'b'] as BundlePath[];
    expect(sortedUnique(paths)).toEqual(['Z', 'a', 'a/b', 'b', 'é']);
  });
});

describe('ETags', () => {
  it('are compared and sent bare (Ceph RGW 16 matches If-Match only on the bare value)', () => {
    expect(bareEtag('"5d41402abc4b2a76b9719d911017c592"')).toBe('5d41402abc4b2a76b9719d911017c592');
    expect(bareEtag('W/"abc"')).toBe('abc');
    expect(bareEtag('abc')).toBe('abc');
    expect(bareEtag(undefined)).toBeUndefined();
    expect(isMd5Etag('5d41402abc4b2a76b9719d911017c592')).toBe(true);
    expect(isMd5Etag('5d41402abc4b2a76b9719d911017c592-3')).toBe(false);
  });
});
