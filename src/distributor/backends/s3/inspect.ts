import type { S3Client } from '@aws-sdk/client-s3';
import type { Sha256Prefixed } from '../../../core/digest/index.js';
import { Refusal } from '../../../core/refusal/index.js';
import type { DestinationSnapshot } from '../../backend.js';
import { compareInstants } from '../../model/instant.js';
import { parseState, STATE_FILE, STATE_MAX_BYTES } from '../../model/state.js';
import type { BundlePath, DestinationState, Instant, OutputRecord } from '../../model/types.js';
import { compareUtf8 } from '../../path/bundle-path.js';
import type { StateToken } from '../../plan/types.js';
import { refuseDistributor } from '../../refusals.js';
import { type BundleKeys, sortedUnique } from './keys.js';
import type { BundleListing } from './listing.js';
import { hashObject, ObjectTooLarge, readSmallObject } from './objects.js';
import { forEachLimited } from './parallel.js';
import {
  markerInvalid,
  PENDING_FILE,
  PENDING_MAX_BYTES,
  type PendingClaim,
  type PendingMarker,
  parsePending,
} from './pending.js';

/** What `inspectPrefix` learnt, kept by the backend for the bundle's `apply` in the same run. */
export interface InspectedPrefix {
  readonly snapshot: DestinationSnapshot;
  /** The pending marker found, with its ETag (the takeover condition). */
  readonly marker?: {
    readonly etag: string;
    readonly parsed: PendingMarker;
    /** Its lease was live at inspection: its claimed objects were not verified, apply refuses the bundle locked. */
    readonly live: boolean;
  };
  /** The state found (its ETag is the snapshot's token). */
  readonly state?: DestinationState;
  /** Claims of the marker whose objects exist and hold bytes the marker names: what apply may overwrite or delete. */
  readonly residue: readonly PendingClaim[];
  /**
   * Why this verdict may describe no single moment of the prefix, so the
   * backend looks again before it believes it: `changed` — a marker or state
   * the listing showed was gone when read (a run committed or cleaned up
   * meanwhile); `refusing` — the verdict refuses the bundle for objects the
   * listing showed (unmanaged, unlisted, missing, a claimed key holding other
   * bytes), which a listing taken while another run worked can show without
   * the marker or state that names them.
   */
  readonly doubt?: 'changed' | 'refusing';
}

/** Objects hashed at once while verifying a crashed run's leftovers. */
const PARALLEL_VERIFY = 8;

/**
 * Classifies one bundle prefix without changing anything (seed, "Destination
 * Comparison Rules", with the pending marker of ours):
 * - no state, and every object is named by our pending marker (or there is
 *   none): `empty`, the named objects being `residue` a new run may overwrite
 *   or delete;
 * - no state and anything else under the prefix: `unmanaged`; an empty
 *   object whose key ends in `/` (or is the bundle prefix itself) is a
 *   "folder" a console or a sync tool made, holds nothing, and counts as
 *   nothing here, nor as unlisted beside a state: refusing a bundle for the
 *   folder the operator made for it in the S3 console sent users looking
 *   for content that was never there. It is never written or deleted;
 * - a valid state: `managed`, its ETag the token a replacement must match;
 *   `residue` is what a pending marker names (a crashed run of ours), an
 *   object neither the state nor the marker names is `unlisted`, and a listed
 *   output that is absent or has another size (and is not residue) is
 *   `missing`; with `checksum` (`--checksum`) so is one of the recorded size
 *   whose bytes, read and hashed, are not the ones the state records.
 * When the marker's lease has ended (its run died or gave up), every object
 * at a key it claims is read and hashed: residue is only what holds bytes the
 * marker recorded (or the state lists). Anything else at a claimed key is an
 * object sealkit did not write: the bundle is refused
 * `destination_unlisted_entry` and the object is left alone.
 * The state and the marker are read strictly: a state that does not parse
 * is refused `destination_state_invalid`, a marker
 * `destination_marker_invalid` (thrown, each with its first fault).
 *
 * The listing may be older than the reads (one listing serves every bundle
 * of a destination) and is not a snapshot across its pages, so a verdict
 * that refuses the bundle for what the listing showed, or a marker or state
 * that was gone when read, is marked `doubt` for the backend to look again.
 */
export async function inspectPrefix(
  client: S3Client,
  bucket: string,
  keys: BundleKeys,
  listing: BundleListing,
  now: Instant,
  checksum = false,
): Promise<InspectedPrefix> {
  const objects = listing.objects;
  let marker: InspectedPrefix['marker'];
  let changed = false;
  if (objects.has(PENDING_FILE)) {
    const read = await readSmallObject(client, bucket, keys.key(PENDING_FILE), PENDING_MAX_BYTES).catch(
      (error: unknown) => {
        throw error instanceof ObjectTooLarge
          ? placed(bucket, keys, markerInvalid('larger than a marker sealkit writes'))
          : error;
      },
    );
    if (read !== undefined) {
      const parsed = parseMarkerOf(bucket, keys, read.bytes);
      marker = { etag: read.etag, parsed, live: compareInstants(parsed.expires, now) > 0 };
    } else changed = true;
  }
  const claims = marker?.parsed.claims ?? [];
  const claimed = new Set<string>(claims.map((claim) => claim.path));
  const present = claims.filter((claim) => objects.has(claim.path));
  const ours = (name: string) => name === PENDING_FILE || name === STATE_FILE || claimed.has(name);
  // An empty "folder" (docs/distributor.md#what-a-bucket-prefix-holds) holds nothing to take over or lose.
  const folder = (name: string) => (name === '' || name.endsWith('/')) && objects.get(name)?.size === 0;
  const unaccounted = (name: string) => !ours(name) && !folder(name);

  const stateRead = objects.has(STATE_FILE)
    ? await readSmallObject(client, bucket, keys.key(STATE_FILE), STATE_MAX_BYTES)
    : undefined;
  const state = stateRead === undefined ? undefined : parseState(stateRead.bytes);
  if (objects.has(STATE_FILE) && stateRead === undefined) changed = true;
  const doubt = (refusing: boolean): Pick<InspectedPrefix, 'doubt'> =>
    changed ? { doubt: 'changed' } : refusing ? { doubt: 'refusing' } : {};

  const residueHeld = new Map<string, { readonly sha256: Sha256Prefixed; readonly size: number }>();
  if (marker !== undefined && !marker.live) {
    const listedDigest = new Map(state?.outputs.map((output) => [output.path, output.sha256]));
    const foreign: string[] = [];
    await forEachLimited(present, PARALLEL_VERIFY, async (claim) => {
      const stored = await hashObject(client, bucket, keys.key(claim.path), undefined);
      if (stored === undefined) return;
      if (!claim.sha256.includes(stored.sha256) && listedDigest.get(claim.path) !== stored.sha256)
        foreign.push(claim.path);
      else residueHeld.set(claim.path, { sha256: stored.sha256, size: stored.size });
    });
    const [first] = foreign.sort(compareUtf8);
    if (first !== undefined) {
      return {
        snapshot: {
          kind: 'invalid',
          refusal: refuseDistributor('destination_unlisted_entry', {
            role: 'destination',
            hint: `the object at '${located(bucket, keys, first)}' holds bytes no sealkit run planned there, and it is left in place: move it to a key outside the bundle's folder to let sealkit replace the bundle`,
          }),
        },
        marker,
        residue: [],
        ...(state === undefined ? {} : { state }),
        ...doubt(true),
      };
    }
  }
  const residue = sortedUnique(present.map((claim) => claim.path)) as readonly BundlePath[];

  if (stateRead === undefined || state === undefined) {
    const unmanaged = listing.overflow || [...objects.keys()].some(unaccounted);
    if (unmanaged) {
      // The first object that is content: a folder object is no entry to look for.
      const [first] = [...objects.keys()].filter(unaccounted).sort(compareUtf8);
      return {
        snapshot: first === undefined ? { kind: 'unmanaged' } : { kind: 'unmanaged', firstEntry: first },
        residue: [],
        ...withMarker(marker),
        ...doubt(true),
      };
    }
    return { snapshot: { kind: 'empty', residue }, residue: present, ...withMarker(marker), ...doubt(false) };
  }

  const listed = new Set<string>(state.outputs.map((output) => output.path));
  const foreign = [...objects.keys()]
    .filter((name) => unaccounted(name) && !listed.has(name))
    .sort(compareUtf8);
  // With --checksum, every output of the recorded size is read and hashed:
  // one with other bytes is written over like one of another size. A
  // claimed output is residue, compared with the marker's claims above
  // (when its lease ended) and never read twice.
  const content = checksum
    ? await compareObjects(
        client,
        bucket,
        keys,
        state.outputs.filter(
          (output) => !claimed.has(output.path) && objects.get(output.path)?.size === output.size,
        ),
      )
    : SIZES_ONLY;
  const absent = state.outputs
    .filter(
      (output) =>
        !claimed.has(output.path) &&
        (objects.get(output.path)?.size !== output.size ||
          content.changed.has(output.path) ||
          content.gone.has(output.path)),
    )
    .map((output) => output.path)
    .sort(compareUtf8);
  const absentPaths = new Set<string>(absent);
  // Said apart from a deleted one: an output that is there with another size
  // (or other bytes) was written over, and is named first (its bytes are the
  // ones a replacement would lose).
  const overwritten = absent.filter((path) => objects.has(path) && !content.gone.has(path));
  const first = overwritten[0] ?? absent[0];
  const sameSize = first !== undefined && content.changed.has(first);
  const firstSize =
    first === undefined || sameSize || content.gone.has(first) ? undefined : objects.get(first)?.size;
  const unlisted = listing.overflow || foreign.length > 0;
  // Another publication inside this bundle (its own state below it) is named
  // first: it, not a stray file, is what keeps the bundle from being replaced.
  const firstForeign = foreign.find((name) => name.endsWith(`/${STATE_FILE}`)) ?? foreign[0];
  return {
    snapshot: {
      kind: 'managed',
      state,
      token: stateRead.etag as StateToken,
      unlisted,
      ...(firstForeign === undefined ? {} : { firstUnlisted: firstForeign }),
      // A listing cut short knows no total: the count is left out then.
      ...(foreign.length === 0 || listing.overflow ? {} : { unlistedCount: foreign.length }),
      missing: absent.length > 0,
      ...(first === undefined ? {} : { firstMissing: first }),
      ...(absent.length === 0 ? {} : { missingCount: absent.length }),
      ...(first !== undefined &&
      state.outputs.some((output) => output.path === first && output.kind === 'generated')
        ? { firstMissingGenerated: true }
        : {}),
      ...(firstSize === undefined ? {} : { firstMissingSize: firstSize }),
      ...(sameSize ? { firstMissingContent: true } : {}),
      ...(overwritten.length > 0 ? { writtenOver: true } : {}),
      // What a replacement may leave where it is: the listed outputs found
      // as the state records them (none claimed), and what a dead run of
      // ours claimed and sent, read back above.
      inPlace: [
        ...state.outputs
          .filter((output) => !claimed.has(output.path) && !absentPaths.has(output.path))
          .map((output) => ({ path: output.path, sha256: output.sha256, size: output.size })),
        ...[...residueHeld].map(([path, held]) => ({ path: path as BundlePath, ...held })),
      ],
      // A marker whose lease ended is residue even when it claims nothing
      // that is there (a run died before its first upload, or an earlier
      // release lost the bundle and left its marker claiming nothing): the
      // plan repairs the bundle, which takes the marker over and deletes it,
      // instead of leaving it beside the state forever.
      residue:
        residue.length === 0 && marker !== undefined && !marker.live ? [PENDING_FILE as BundlePath] : residue,
    },
    state,
    residue: present,
    ...withMarker(marker),
    ...doubt(unlisted || absent.length > 0),
  };
}

/** Without --checksum: nothing read, nothing found changed (one object for every bundle). */
const SIZES_ONLY: { readonly changed: ReadonlySet<string>; readonly gone: ReadonlySet<string> } = {
  changed: new Set(),
  gone: new Set(),
};

/**
 * Reads each of `outputs` (GET, the body streamed through SHA-256, never
 * held whole) at most `PARALLEL_VERIFY` at a time, and says which hold other
 * bytes than the state records and which were gone by the time they were
 * read (`--checksum`, docs/distributor.md#comparing-by-content---checksum).
 * The client is the inspection's own: the run's signal abandons the reads,
 * and the SDK's timeouts and retries apply to each as to every read.
 */
async function compareObjects(
  client: S3Client,
  bucket: string,
  keys: BundleKeys,
  outputs: readonly OutputRecord[],
): Promise<{ readonly changed: ReadonlySet<string>; readonly gone: ReadonlySet<string> }> {
  const changed = new Set<string>();
  const gone = new Set<string>();
  await forEachLimited(outputs, PARALLEL_VERIFY, async (output) => {
    const stored = await hashObject(client, bucket, keys.key(output.path), undefined);
    if (stored === undefined) gone.add(output.path);
    else if (stored.size !== output.size || stored.sha256 !== output.sha256) changed.add(output.path);
  });
  return { changed, gone };
}

/** The marker parsed strictly, or its refusal named as the operator finds it. */
function parseMarkerOf(bucket: string, keys: BundleKeys, bytes: Uint8Array): PendingMarker {
  try {
    return parsePending(bytes);
  } catch (error: unknown) {
    throw error instanceof Refusal ? placed(bucket, keys, error) : error;
  }
}

/**
 * An object of the bundle as the operator pastes it into a client to act on
 * it: `s3://<bucket>/<prefix>/<bundle>/<path>`, from the configuration's
 * `bucket:` and `prefix:`, never the endpoint or a credential.
 */
function located(bucket: string, keys: BundleKeys, path: string): string {
  return `s3://${bucket}/${keys.key(path)}`;
}

/**
 * A marker sealkit did not write, named as the operator finds it (its
 * s3:// location), with what to do: it is only a marker, so removing it
 * touches nothing published, unless a run of a release that writes markers
 * of another form is at work under it.
 */
function placed(bucket: string, keys: BundleKeys, refusal: Refusal): Refusal {
  return refusal.at(
    {},
    `'${located(bucket, keys, PENDING_FILE)}' is not a marker sealkit wrote: ${refusal.hint ?? 'read strictly'}; a marker only names what a run is writing, and the published bundle does not depend on it: unless a sealkit run of another release is publishing this bundle right now, delete that object and run again`,
  );
}

function withMarker(marker: InspectedPrefix['marker']): Pick<InspectedPrefix, 'marker'> {
  return marker === undefined ? {} : { marker };
}
