import type { S3Client } from '@aws-sdk/client-s3';
import { bareEtag } from './etag.js';
import type { BundleKeys } from './keys.js';
import { ListObjectsV2Command } from './sdk.js';

export interface ListedObject {
  readonly size: number;
  readonly etag: string;
}

export interface BundleListing {
  /** Bundle-relative name → object, for every key under the bundle prefix. */
  readonly objects: ReadonlyMap<string, ListedObject>;
  /** More objects exist than `maxObjects`; `objects` holds the first ones only. */
  readonly overflow: boolean;
}

/**
 * Every object under the exact bundle prefix, following continuation tokens
 * page by page. The listing stops at `maxObjects`: a prefix holding more
 * objects than any bundle of sealkit can write cannot be ours alone, and the
 * caller classifies it without the rest.
 */
export async function listBundle(
  client: S3Client,
  bucket: string,
  keys: BundleKeys,
  maxObjects: number,
): Promise<BundleListing> {
  const objects = new Map<string, ListedObject>();
  let token: string | undefined;
  do {
    const page = await client.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: keys.prefix, ContinuationToken: token }),
    );
    for (const entry of page.Contents ?? []) {
      const relative = entry.Key === undefined ? undefined : keys.relative(entry.Key);
      if (relative === undefined) continue;
      if (objects.size >= maxObjects) return { objects, overflow: true };
      objects.set(relative, { size: entry.Size ?? -1, etag: bareEtag(entry.ETag) ?? '' });
    }
    if (page.IsTruncated === true && page.NextContinuationToken === undefined) {
      // A truncated page without a way on would silently hide objects.
      throw new IncompleteListing();
    }
    token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
  } while (token !== undefined);
  return { objects, overflow: false };
}

/** Every object under a destination prefix, one listing for all its bundles; undefined when there are more than `maxObjects`. */
export type DestinationListing = ReadonlyMap<string, ListedObject> | undefined;

/**
 * One listing of everything under the destination prefix (`<prefix>/`, or the
 * whole bucket for `''`), page by page, so that a run inspects a hundred new
 * bundles with one request instead of a hundred. Gives up (undefined) past
 * `maxObjects`: a destination that large is listed bundle by bundle instead.
 */
export async function listDestination(
  client: S3Client,
  bucket: string,
  destinationPrefix: string,
  maxObjects: number,
): Promise<DestinationListing> {
  const prefix = destinationPrefix === '' ? '' : `${destinationPrefix}/`;
  const objects = new Map<string, ListedObject>();
  let token: string | undefined;
  do {
    const page = await client.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
    );
    for (const entry of page.Contents ?? []) {
      if (entry.Key === undefined || !entry.Key.startsWith(prefix)) continue;
      if (objects.size >= maxObjects) return undefined;
      objects.set(entry.Key, { size: entry.Size ?? -1, etag: bareEtag(entry.ETag) ?? '' });
    }
    if (page.IsTruncated === true && page.NextContinuationToken === undefined) throw new IncompleteListing();
    token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
  } while (token !== undefined);
  return objects;
}

/** The part of a destination listing under one bundle prefix, as `listBundle` would give it. */
export function bundleListingOf(
  all: ReadonlyMap<string, ListedObject>,
  keys: BundleKeys,
  maxObjects: number,
): BundleListing {
  // The keys under one bundle prefix are a contiguous run of the sorted
  // keys: found by a binary search, not by a pass over every key of the
  // destination for every bundle (2,000 bundles of 5 objects each made that
  // 20 million comparisons on a rerun).
  const { sorted, order } = indexOf(all);
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((sorted[middle] ?? '') < keys.prefix) low = middle + 1;
    else high = middle;
  }
  const under: string[] = [];
  for (let at = low; at < sorted.length; at += 1) {
    const key = sorted[at] ?? '';
    if (keys.relative(key) === undefined) break;
    under.push(key);
  }
  // In the listing's own order, as `listBundle` gives them.
  under.sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
  const objects = new Map<string, ListedObject>();
  for (const key of under) {
    const object = all.get(key);
    const relative = keys.relative(key);
    if (object === undefined || relative === undefined) continue;
    if (objects.size >= maxObjects) return { objects, overflow: true };
    objects.set(relative, object);
  }
  return { objects, overflow: false };
}

/** A destination listing's keys sorted, and each key's place in the listing; made once per listing. */
function indexOf(all: ReadonlyMap<string, ListedObject>): {
  readonly sorted: readonly string[];
  readonly order: ReadonlyMap<string, number>;
} {
  const known = indexes.get(all);
  if (known !== undefined) return known;
  const listed = [...all.keys()];
  const index = { sorted: [...listed].sort(), order: new Map(listed.map((key, at) => [key, at])) };
  indexes.set(all, index);
  return index;
}

const indexes = new WeakMap<
  ReadonlyMap<string, ListedObject>,
  { readonly sorted: readonly string[]; readonly order: ReadonlyMap<string, number> }
>();

/** The server said the listing goes on but gave no continuation token. */
export class IncompleteListing extends Error {
  constructor() {
    super('incomplete listing');
    this.name = 'IncompleteListing';
  }
}
