import { createHash } from 'node:crypto';
import { type Sha256Prefixed, sha256Prefixed } from '../../core/digest/index.js';
import { canonicalizeToBytes } from '../../core/json/index.js';
import { compareCodeUnits } from '../authoring/text.js';
import { tampered } from './refusals.js';

/**
 * The resource index: a commitment, carried by every entry, to the latest
 * entry of every resource before it — so that a read can prove what a
 * resource's latest entry is (or that it has none) from the head alone,
 * without walking the chain (docs/contracts.md#the-resource-index).
 *
 * Resources fall into 256 buckets by the first byte of the SHA-256 of their
 * id. A bucket's digest covers its members, `[id, latest entry hash]` sorted
 * by id; the index root covers the 256 bucket digests in bucket order. Each
 * entry's hashed document holds the root before it (`resource_index`); its
 * row also stores its bucket and that bucket's digest after it
 * (`index_bucket`, `bucket_digest`), outside the hash: the bucket is a
 * function of the id, and the digest covers the entry's own hash — the next
 * entry's root authenticates it.
 */
export const INDEX_BUCKETS = 256;

/** Latest entry hash per resource id, for the resources of one bucket. */
export type BucketMembers = ReadonlyMap<string, Sha256Prefixed>;

/** The index after some entry: every bucket digest, and the members of the buckets that were read. */
export interface ResourceIndex {
  /** `INDEX_BUCKETS` digests, in bucket order. */
  readonly digests: readonly Sha256Prefixed[];
  /** Bucket → its members; only buckets read (a resource of another bucket cannot be planned). */
  readonly buckets: ReadonlyMap<number, BucketMembers>;
}

export function indexBucketOf(id: string): number {
  return createHash('sha256').update(id, 'utf8').digest()[0] ?? 0;
}

export function bucketDigestOf(members: BucketMembers): Sha256Prefixed {
  const sorted = [...members].sort(([a], [b]) => compareCodeUnits(a, b));
  return sha256Prefixed(canonicalizeToBytes(sorted));
}

export const EMPTY_BUCKET_DIGEST: Sha256Prefixed = bucketDigestOf(new Map());

/**
 * The SHA-256 of the RFC 8785 array of the bucket digests. A digest's text
 * needs no escaping, so the array is written directly: replay computes one
 * root per entry.
 */
export function indexRootOf(digests: readonly Sha256Prefixed[]): Sha256Prefixed {
  return sha256Prefixed(`["${digests.join('","')}"]`);
}

/** The index of an empty ledger, with the buckets of `ids` read (all empty). */
export function emptyResourceIndex(ids: readonly string[]): ResourceIndex {
  const buckets = new Map<number, BucketMembers>(ids.map((id) => [indexBucketOf(id), new Map()]));
  return { digests: new Array<Sha256Prefixed>(INDEX_BUCKETS).fill(EMPTY_BUCKET_DIGEST), buckets };
}

/**
 * A copy of an index that records appends: `root` is the root before the
 * next entry and, once that entry's hash is known, `commit` records it and
 * returns its bucket's digest after it. Throws for a resource whose bucket
 * was not read — an invariant the planner guarantees by refusing resources
 * the state was not read for.
 */
export class IndexBuilder {
  private readonly digests: Sha256Prefixed[];
  private readonly buckets: Map<number, Map<string, Sha256Prefixed>>;

  constructor(index: ResourceIndex) {
    this.digests = [...index.digests];
    this.buckets = new Map([...index.buckets].map(([bucket, members]) => [bucket, new Map(members)]));
  }

  root(): Sha256Prefixed {
    return indexRootOf(this.digests);
  }

  /** Records `id`'s new latest entry; returns the digest of its bucket after it. */
  commit(id: string, entryHash: Sha256Prefixed): Sha256Prefixed {
    const bucket = indexBucketOf(id);
    const members = this.buckets.get(bucket);
    if (members === undefined) throw new Error(`resource index: bucket ${bucket} was not read`);
    members.set(id, entryHash);
    const digest = bucketDigestOf(members);
    this.digests[bucket] = digest;
    return digest;
  }

  /** Adds a bucket read whole (replay reads every bucket as it goes). */
  ensureBucket(bucket: number): void {
    if (!this.buckets.has(bucket)) this.buckets.set(bucket, new Map());
  }

  snapshot(): ResourceIndex {
    return {
      digests: Object.freeze([...this.digests]),
      buckets: new Map([...this.buckets].map(([bucket, members]) => [bucket, new Map(members)])),
    };
  }
}

/** What the index check of one entry needs: its stored index columns and what they cover. */
export interface IndexedEntry {
  readonly position: number;
  readonly resourceId: string;
  readonly entryHash: Sha256Prefixed;
  readonly resourceIndex: string;
  readonly bucketDigest: string;
}

/**
 * Checks one entry against the index rebuilt up to the entry before it — its
 * `resource_index` is the root before it, its `bucket_digest` its bucket
 * after it — and records it. The first mismatch is tampered evidence there.
 */
export function verifyIndexedEntry(index: IndexBuilder, entry: IndexedEntry): void {
  if (entry.resourceIndex !== index.root()) throw tampered(entry.position, 'resource_index');
  index.ensureBucket(indexBucketOf(entry.resourceId));
  if (index.commit(entry.resourceId, entry.entryHash) !== entry.bucketDigest) {
    throw tampered(entry.position, 'bucket_digest');
  }
}
