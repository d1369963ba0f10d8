import type { S3Client } from '@aws-sdk/client-s3';
import type { Refusal } from '../../../core/refusal/index.js';
import { STATE_FILE } from '../../model/state.js';
import type { BundleDir } from '../../model/types.js';
import { refuseDistributor } from '../../refusals.js';
import { classifyS3Error } from './errors.js';
import type { DestinationListing } from './listing.js';
import { HeadObjectCommand } from './sdk.js';

/** The folders above a slash-separated path, outermost first: `a/b/c` → `a`, `a/b`; none for `a` or `''`. */
export function foldersAbove(path: string): string[] {
  if (path === '') return [];
  const segments = path.split('/');
  return segments.slice(1).map((_, index) => segments.slice(0, index + 1).join('/'));
}

/** The key of the state a bundle published at `folder` (a key prefix without its `/`) holds. */
export function stateKeyIn(folder: string): string {
  return `${folder}/${STATE_FILE}`;
}

/**
 * Finds a published bundle around the bundles of one destination before
 * anything is written there, as a local destination does
 * (`destination_nested_bundle`): a `.distributor.json` in a folder above the
 * destination's prefix, at the prefix itself, or in a folder of the prefix
 * above a bundle's own. Publishing there would put objects inside a bundle
 * that another configuration (or destination) published; that bundle could
 * then never be replaced, since a replacement never deletes what its state
 * does not list.
 *
 * Costs: the folders above the prefix are asked once per run, one HEAD each
 * and all at once, beside the destination's listing (`prefix: a/b/c` → 2
 * HEADs; a prefix of one segment or none → none). The prefix itself and the
 * folders between it and a bundle are read from that listing; only when
 * there is none (a destination too large to list at once) are they asked by
 * HEAD, each folder once per run.
 *
 * A HEAD the store denies (403: a policy that lets these credentials reach
 * only their own prefix) cannot tell, and counts as no bundle there: the
 * check must not refuse a store it cannot see into.
 */
export class NestedBundleCheck {
  readonly #client: S3Client;
  readonly #bucket: string;
  readonly #prefix: string;
  readonly #heads = new Map<string, Promise<boolean>>();
  #abovePrefix: Promise<Refusal | undefined> | undefined;

  constructor(client: S3Client, bucket: string, prefix: string) {
    this.#client = client;
    this.#bucket = bucket;
    this.#prefix = prefix;
  }

  /** Starts the run's one look at the folders above the prefix (idempotent); the promise never rejects unobserved. */
  abovePrefix(): Promise<Refusal | undefined> {
    this.#abovePrefix ??= this.#findAbovePrefix();
    return this.#abovePrefix;
  }

  /**
   * The refusal for a bundle that would lie inside a published bundle at or
   * below the prefix, from the destination's listing (`undefined`: asked by
   * HEAD instead), or undefined when there is none.
   */
  async around(bundleDir: BundleDir, listing: DestinationListing): Promise<Refusal | undefined> {
    const inPrefix = (relative: string): string =>
      this.#prefix === '' ? relative : relative === '' ? this.#prefix : `${this.#prefix}/${relative}`;
    // The prefix itself (a bucket's root never holds a state: every bundle has a folder), then the bundle's folders above it.
    const relatives = [...(this.#prefix === '' ? [] : ['']), ...foldersAbove(bundleDir)];
    const found = await Promise.all(
      relatives.map((relative) => {
        const folder = inPrefix(relative);
        return listing === undefined
          ? this.#holdsState(folder)
          : Promise.resolve(listing.has(stateKeyIn(folder)));
      }),
    );
    const index = found.indexOf(true);
    const relative = index < 0 ? undefined : relatives[index];
    if (relative === undefined) return undefined;
    if (relative === '') return prefixRefusal("the destination's prefix is itself a published bundle");
    return refuseDistributor('destination_nested_bundle', {
      role: 'destination',
      hint: `'s3://${this.#bucket}/${inPrefix(relative)}/' is a published bundle (it holds a ${STATE_FILE}), and this bundle's folder lies inside it: publishing here would leave that bundle unreplaceable, so nothing was written; move that published bundle's objects away, or publish this one under another prefix`,
    });
  }

  async #findAbovePrefix(): Promise<Refusal | undefined> {
    const folders = foldersAbove(this.#prefix);
    const found = await Promise.all(folders.map((folder) => this.#holdsState(folder)));
    // The innermost published folder: the one the prefix is nearest to.
    const index = found.lastIndexOf(true);
    if (index < 0) return undefined;
    const up = folders.length - index;
    return prefixRefusal(
      `the destination's prefix lies inside a published bundle (a ${STATE_FILE} ${up === 1 ? '1 folder' : `${up} folders`} above the prefix)`,
    );
  }

  /** Whether `<folder>/.distributor.json` exists, by one HEAD per folder and run. */
  #holdsState(folder: string): Promise<boolean> {
    let known = this.#heads.get(folder);
    if (known === undefined) {
      known = this.#client
        .send(new HeadObjectCommand({ Bucket: this.#bucket, Key: stateKeyIn(folder) }))
        .then(
          () => true,
          (error: unknown) => {
            const kind = classifyS3Error(error);
            if (kind === 'absent' || kind === 'access_denied') return false;
            throw error;
          },
        );
      this.#heads.set(folder, known);
    }
    return known;
  }
}

/** Every bundle of the destination would lie inside a published bundle: the prefix is to blame. */
function prefixRefusal(where: string): Refusal {
  return refuseDistributor('destination_nested_bundle', {
    role: 'destination',
    field: 'prefix',
    hint: `${where}, published by another configuration or destination: objects published here would lie inside that bundle and leave it unreplaceable, so nothing was written; set prefix: to a folder outside every published bundle`,
  });
}
