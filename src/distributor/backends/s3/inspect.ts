import type { S3Client } from '@aws-sdk/client-s3';
import type { DestinationSnapshot } from '../../backend.js';
import { parseState, STATE_FILE, STATE_MAX_BYTES } from '../../model/state.js';
import type { BundlePath } from '../../model/types.js';
import type { StateToken } from '../../plan/types.js';
import { type BundleKeys, sortedUnique } from './keys.js';
import { listBundle } from './listing.js';
import { readSmallObject } from './objects.js';
import { PENDING_FILE, PENDING_MAX_BYTES, type PendingMarker, parsePending } from './pending.js';

/**
 * Classifies one bundle prefix without changing anything (seed, "Destination
 * Comparison Rules", with the pending marker of ours):
 * - no state, and every object is named by our pending marker (or there is
 *   none): `empty`, the named objects being `residue` a new run may overwrite
 *   or delete;
 * - no state and anything else under the prefix: `unmanaged`;
 * - a valid state: `managed`, its ETag the token a replacement must match;
 *   `residue` is what a pending marker names (a crashed run of ours), an
 *   object neither the state nor the marker names is `unlisted`, and a listed
 *   output that is absent or has another size (and is not residue) is
 *   `missing`.
 * The state and the marker are read strictly; a state or marker that does
 * not parse is `invalid` (destination_state_invalid).
 */
export async function inspectPrefix(
  client: S3Client,
  bucket: string,
  keys: BundleKeys,
  maxObjects: number,
): Promise<DestinationSnapshot> {
  const listing = await listBundle(client, bucket, keys, maxObjects);
  const objects = listing.objects;
  let marker: PendingMarker | undefined;
  if (objects.has(PENDING_FILE)) {
    const read = await readSmallObject(client, bucket, keys.key(PENDING_FILE), PENDING_MAX_BYTES);
    if (read !== undefined) marker = parsePending(read.bytes);
  }
  const claimed = new Set<string>(marker?.outputs ?? []);
  const residue = sortedUnique((marker?.outputs ?? []).filter((path) => objects.has(path)));
  const ours = (name: string) => name === PENDING_FILE || name === STATE_FILE || claimed.has(name);

  const stateRead = objects.has(STATE_FILE)
    ? await readSmallObject(client, bucket, keys.key(STATE_FILE), STATE_MAX_BYTES)
    : undefined;
  if (stateRead === undefined) {
    if (listing.overflow) return { kind: 'unmanaged' };
    for (const name of objects.keys()) if (!ours(name)) return { kind: 'unmanaged' };
    return { kind: 'empty', residue };
  }

  const state = parseState(stateRead.bytes);
  const listed = new Set<string>(state.outputs.map((output) => output.path));
  let unlisted = listing.overflow;
  for (const name of objects.keys()) if (!ours(name) && !listed.has(name)) unlisted = true;
  let missing = false;
  for (const output of state.outputs) {
    if (claimed.has(output.path)) continue;
    if (objects.get(output.path)?.size !== output.size) missing = true;
  }
  return {
    kind: 'managed',
    state,
    token: stateRead.etag as StateToken,
    unlisted,
    missing,
    residue: residue as readonly BundlePath[],
  };
}
