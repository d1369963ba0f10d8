import { setTimeout as sleep } from 'node:timers/promises';
import type { S3Client } from '@aws-sdk/client-s3';
import { Refusal } from '../../../core/refusal/index.js';
import type {
  AppliedOutcome,
  ApplyContext,
  BackendOpenContext,
  DestinationBackend,
  DestinationSnapshot,
  DryRunCaveat,
  LockOptions,
  LockOutcome,
  OutputSource,
  ReadOptions,
} from '../../backend.js';
import type { S3DestinationConfig } from '../../config/types.js';
import { instantOf } from '../../model/instant.js';
import { MANIFEST_LIMITS } from '../../model/manifest.js';
import type { BundleDir } from '../../model/types.js';
import type { PlannedWrite } from '../../plan/types.js';
import { refuseDistributor } from '../../refusals.js';
import { abortingWith, createS3Client } from './client.js';
import { prefetchDigests } from './digests.js';
import {
  classifyS3Error,
  endpointHasPath,
  endpointHostOf,
  isDestinationWide,
  type StoreAddress,
  s3Refusal,
} from './errors.js';
import { type InspectedPrefix, inspectPrefix } from './inspect.js';
import { type BundleKeys, bundleKeys } from './keys.js';
import { DEFAULT_LEASE_MS, type LeaseClock, lockedRefusal } from './lease.js';
import {
  type BundleListing,
  bundleListingOf,
  type DestinationListing,
  listBundle,
  listDestination,
} from './listing.js';
import { NestedBundleCheck } from './nested.js';
import { headEtag, ObjectTooLarge } from './objects.js';
import { bucketVersioning, probeStore, type StoreCapabilities } from './probe.js';
import { AFTER_SIGNAL_GRACE_MS, publishToPrefix } from './publish.js';
import { markFailedRequests } from './requests.js';
import { MarkerRetirement, retirementDelayMs } from './retire.js';
import { trustedCertificates } from './trust.js';
import { DEFAULT_RETRY, type RetryPolicy } from './upload.js';

export interface S3BackendOptions {
  /**
   * The client to use instead of one built from the configuration (the
   * backend then leaves it open on `close`). For embedding and tests.
   */
  readonly client?: S3Client;
  /** Wall clock for pending-marker leases (default: the system clock). */
  readonly clock?: LeaseClock;
  /** Lease length of a pending marker, renewed every quarter of it while a run works (default 120 s). */
  readonly leaseMs?: number;
  /** Attempts and backoff of each write (default 4 attempts, from 200 ms). */
  readonly retry?: RetryPolicy;
}

/** `Cache-Control` of every object unless the destination sets `cache_control`. */
export const DEFAULT_CACHE_CONTROL = 'no-cache';

/**
 * The most objects one bundle prefix can hold when sealkit alone wrote it:
 * every file copied and rendered, for an old and a new publication, plus the
 * state and the marker. A listing beyond that cannot be ours only.
 */
const MAX_LISTED_OBJECTS = 4 * MANIFEST_LIMITS.maxFiles + 2;

/** Objects one listing of a whole destination prefix may hold before bundles are listed one by one. */
const MAX_DESTINATION_LISTING = 10_000;

const systemClock: LeaseClock = { now: () => new Date() };

/**
 * A self-hosted store still needs a region to sign with, and users coming
 * from rclone, which signs with us-east-1 when none is given, never set one:
 * the refusal alone left them guessing which region a store of their own has.
 */
const REGION_FOR_ENDPOINT_HINT =
  "a store at endpoint: signs requests with a region too: Ceph RGW and MinIO take us-east-1 (the region rclone signs with when it is given none) unless their administrator set another; add region: us-east-1, or the store's own region";

/** A bundle whose inspection a signal stopped; the run reports it stopped before any write. */
const interrupted = (): Refusal => refuseDistributor('run_interrupted');
const stopped = (signal: AbortSignal | undefined): boolean => signal?.aborted === true;

/** HEAD requests `holds` makes at once. */
const HOLDS_AT_ONCE = 8;

/** A bundle's write refused so says nothing about that bundle: every request of the destination would fail alike. */
const DESTINATION_WIDE_WRITE_FAILURES: ReadonlySet<string> = new Set([
  'destination_unreachable',
  'destination_credentials_missing',
  'destination_credentials_refused',
  'destination_bucket_missing',
]);

/**
 * Pauses before each fresh look at a bundle prefix whose verdict is in
 * doubt: another run's commit and cleanup take a few round trips, so the
 * later looks wait a little for it.
 */
const LOOK_AGAIN_PAUSES_MS = [0, 100, 400] as const;

/**
 * How often a bundle another run holds is looked at again while `--wait`
 * allows: that run deletes its marker within about two seconds of its
 * commit, and each look is one listing and one or two small reads.
 */
const HELD_LOOK_EVERY_MS = 1000;

/** Whether a `--wait` that ends at `deadline` (Date.now() milliseconds) has run out. */
const waitOver = (deadline: number) => (): boolean => Date.now() >= deadline;

/** Another run holds the bundle: its marker's lease was live when read. */
function heldByAnotherRun(found: InspectedPrefix): boolean {
  return (
    found.marker?.live === true ||
    (found.snapshot.kind === 'invalid' && found.snapshot.refusal.code === 'destination_locked')
  );
}

/** Two listings of one prefix name the same objects, with the same sizes and ETags. */
function sameListing(a: BundleListing, b: BundleListing): boolean {
  if (a.overflow !== b.overflow || a.objects.size !== b.objects.size) return false;
  for (const [name, object] of a.objects) {
    const other = b.objects.get(name);
    if (other === undefined || other.etag !== object.etag || other.size !== object.size) return false;
  }
  return true;
}

/** The S3-compatible destination backend, with the SDK loaded (`lazy.ts` defers this module). */
export function createS3BackendNow(
  config: S3DestinationConfig,
  _context: BackendOpenContext,
  options: S3BackendOptions = {},
): DestinationBackend {
  const ownsClient = options.client === undefined;
  let client: S3Client | undefined = options.client;
  // A CA bundle that cannot be used refuses the destination before any request.
  const trust = ownsClient ? trustedCertificates(config) : undefined;
  // A refusal names the request a store denied: the client's errors say which.
  if (client !== undefined) markFailedRequests(client);
  const getClient = (): S3Client => {
    if (client === undefined) {
      client = createS3Client(config, trust instanceof Refusal ? undefined : trust);
      markFailedRequests(client);
    }
    return client;
  };
  const clock = options.clock ?? systemClock;
  const address: StoreAddress = {
    bucket: config.bucket,
    endpointHost: endpointHostOf(config.endpoint),
    forcePathStyle: config.force_path_style ?? false,
    endpointHasPath: endpointHasPath(config.endpoint),
  };
  /** A failure that every further request of this destination would repeat (credentials, bucket, network). */
  let destinationFailure: Refusal | undefined = trust instanceof Refusal ? trust : undefined;
  /** The store's probe, once per run, at the first write. */
  let probe: Promise<StoreCapabilities | Refusal> | undefined;
  let retirement: MarkerRetirement | undefined;
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  /** Bundles of this destination being applied right now. */
  let applying = 0;
  /** The run's signal, as the bundles applied were given it: a stopped run bounds its last deletes. */
  let runSignal: AbortSignal | undefined;
  /** What `inspect` found per bundle, for `apply`. */
  const inspected = new Map<BundleDir, InspectedPrefix>();

  /** The destination's one listing, made at the first inspection of the run. */
  let destinationListing: Promise<DestinationListing> | undefined;
  /** Published bundles around this destination's bundles, looked for before anything is written. */
  let nested: NestedBundleCheck | undefined;
  /** How long inspection may wait for a bundle another run holds, from `lock` (`--wait`). */
  let waiting:
    | {
        readonly deadline: number;
        readonly since: number;
        readonly seconds: number;
        readonly onWait?: (waitedMs: number) => void;
      }
    | undefined;
  /** The `--wait` of a dry run, which does not wait: what a real run would do is said instead. */
  let dryRunWaitSeconds: number | undefined;
  /** Set by an inspection under `--checksum`: a look `apply` takes itself compares by content too. */
  let comparedByContent = false;
  const inspectNow = async (
    bundleDir: BundleDir,
    fresh: boolean,
    signal: AbortSignal | undefined,
    checksum: boolean,
  ): Promise<InspectedPrefix> => {
    const keys = bundleKeys(config.prefix, bundleDir);
    // Abandoned at once when the run is interrupted; every inspection of a
    // run has the run's signal, so the first one's serves the shared listing.
    const reads = abortingWith(getClient(), signal);
    destinationListing ??= listDestination(reads, config.bucket, config.prefix, MAX_DESTINATION_LISTING);
    // Beside the listing, once per run: is the prefix inside a published bundle?
    nested ??= new NestedBundleCheck(reads, config.bucket, config.prefix);
    const [all, abovePrefix] = await Promise.all([
      fresh ? undefined : destinationListing,
      nested.abovePrefix(),
    ]);
    const inside = abovePrefix ?? (await nested.around(bundleDir, all));
    if (inside !== undefined) return { snapshot: { kind: 'invalid', refusal: inside }, residue: [] };
    const listing =
      all === undefined
        ? await listBundle(reads, config.bucket, keys, MAX_LISTED_OBJECTS)
        : bundleListingOf(all, keys, MAX_LISTED_OBJECTS);
    const found = await inspectPrefix(reads, config.bucket, keys, listing, instantOf(clock.now()), checksum);
    return found.doubt === undefined ? found : await lookAgain(reads, keys, found, checksum);
  };
  /**
   * A verdict in doubt, looked at again: the bundle prefix is listed, what
   * the listing names is read, and the prefix is listed once more. When the
   * two listings agree and every read found what they name, the reads saw
   * one state of the prefix, and that verdict stands, whatever it is. Until
   * then another run is writing the bundle: after a few looks it is refused
   * `destination_locked` (its marker's lease is live) or `destination_changed`,
   * never called unmanaged for objects that run wrote.
   */
  const lookAgain = async (
    reads: S3Client,
    keys: BundleKeys,
    doubted: InspectedPrefix,
    checksum: boolean,
  ): Promise<InspectedPrefix> => {
    let last = doubted;
    for (const pause of LOOK_AGAIN_PAUSES_MS) {
      if (pause > 0) await sleep(pause);
      const before = await listBundle(reads, config.bucket, keys, MAX_LISTED_OBJECTS);
      const now = instantOf(clock.now());
      const found = await inspectPrefix(reads, config.bucket, keys, before, now, checksum);
      const after = await listBundle(reads, config.bucket, keys, MAX_LISTED_OBJECTS);
      if (found.doubt !== 'changed' && sameListing(before, after)) return found;
      last = found;
    }
    const marker = last.marker;
    const refusal =
      marker?.live === true
        ? lockedRefusal(
            marker.parsed.expires,
            instantOf(clock.now()),
            waiting === undefined ? undefined : { seconds: waiting.seconds, spent: true },
          )
        : refuseDistributor('destination_changed', {
            role: 'destination',
            hint: 'its objects kept changing while this run read them (another run is publishing it): run again when that run is done',
          });
    return { snapshot: { kind: 'invalid', refusal }, residue: [] };
  };
  /**
   * While the run may still wait (`--wait`) and another run holds the
   * bundle, the prefix is looked at afresh every second: once that run has
   * committed and deleted its marker, or its lease has ended (it died), the
   * plan starts from what it left. When the wait runs out, the last look
   * stands and apply refuses the bundle `destination_locked`, as without it.
   */
  const untilNotHeld = async (
    bundleDir: BundleDir,
    found: InspectedPrefix,
    signal: AbortSignal | undefined,
    checksum: boolean,
  ): Promise<InspectedPrefix> => {
    let current = found;
    let waited = false;
    while (waiting !== undefined && heldByAnotherRun(current) && !stopped(signal)) {
      const left = waiting.deadline - Date.now();
      if (left <= 0) break;
      waiting.onWait?.(Date.now() - waiting.since);
      // A signal ends the pause at once; the caller then reports the bundle interrupted.
      await sleep(
        Math.min(HELD_LOOK_EVERY_MS, left),
        undefined,
        signal === undefined ? {} : { signal },
      ).catch(() => undefined);
      if (stopped(signal)) break;
      waited = true;
      current = await inspectNow(bundleDir, true, signal, checksum);
    }
    // The wait's end, for the run's report of how long it waited.
    if (waited) waiting?.onWait?.(Date.now() - waiting.since);
    return current;
  };
  /**
   * A bundle whose marker's lease is live (after any `--wait`) is refused
   * `destination_locked` at planning when the plan would write it, so the
   * dry run says what the run meets; apply would refuse it the same way. A
   * bundle whose state already is the one planned stays `skipped_same`:
   * the run that holds the marker committed it, and only its cleanup is
   * left (docs/distributor.md, "Runs at the same time"). That cleanup is
   * the marker holder's while its lease lives, so what the marker claims
   * is not this run's residue: left in the plan, it would make a repair
   * (`replaced`, which the live marker then refuses) of a bundle that is
   * published as the source has it — after a `kill -9`, every bundle
   * committed last would be refused `destination_locked` for two minutes.
   * A run after the lease removes it.
   */
  const lockedAtPlanning = (found: InspectedPrefix): DestinationSnapshot => {
    const { snapshot, marker } = found;
    if (marker?.live !== true || (snapshot.kind !== 'empty' && snapshot.kind !== 'managed')) return snapshot;
    const refusal = lockedRefusal(
      marker.parsed.expires,
      instantOf(clock.now()),
      waiting !== undefined
        ? { seconds: waiting.seconds, spent: true }
        : dryRunWaitSeconds === undefined
          ? undefined
          : { seconds: dryRunWaitSeconds, dryRun: true },
    );
    return snapshot.kind === 'managed'
      ? { ...snapshot, residue: [], unwritable: refusal }
      : { ...snapshot, unwritable: refusal };
  };
  const noteFailure = (error: unknown, during: 'read' | 'write'): Refusal => {
    if (error instanceof Refusal) return error;
    if (error instanceof ObjectTooLarge)
      return refuseDistributor('destination_state_invalid', { role: 'state' });
    const refusal = s3Refusal(error, during, address, config.prefix);
    if (isDestinationWide(classifyS3Error(error))) destinationFailure ??= refusal;
    return refusal;
  };

  return {
    kind: 's3',
    destinationId: config.id,
    async lock(options: LockOptions = {}): Promise<LockOutcome> {
      // No lock on S3: conditional writes of the marker and the state guard
      // each bundle. The run's wait is kept for inspection, which waits for
      // a bundle whose marker another run holds (docs/distributor.md, "Runs at
      // the same time").
      const waitMs = options.waitMs ?? 0;
      const since = Date.now();
      waiting =
        waitMs > 0
          ? {
              deadline: since + waitMs,
              since,
              seconds: Math.ceil(waitMs / 1000),
              ...(options.onWait === undefined ? {} : { onWait: options.onWait }),
            }
          : undefined;
      return { kind: 'acquired' };
    },
    async peekLock(options: { readonly waitMs?: number } = {}): Promise<LockOutcome> {
      const waitMs = options.waitMs ?? 0;
      dryRunWaitSeconds = waitMs > 0 ? Math.ceil(waitMs / 1000) : undefined;
      return { kind: 'acquired' };
    },
    async inspect(bundleDir: BundleDir, options: ReadOptions = {}): Promise<DestinationSnapshot> {
      const signal = options.signal;
      if (stopped(signal)) return { kind: 'invalid', refusal: interrupted() };
      if (destinationFailure !== undefined) return { kind: 'invalid', refusal: destinationFailure };
      const checksum = options.checksum === true;
      if (checksum) comparedByContent = true;
      try {
        const found = await untilNotHeld(
          bundleDir,
          await inspectNow(bundleDir, options.fresh === true, signal, checksum),
          signal,
          checksum,
        );
        if (stopped(signal)) return { kind: 'invalid', refusal: interrupted() };
        inspected.set(bundleDir, found);
        return lockedAtPlanning(found);
      } catch (error) {
        // Abandoned by the signal: the store did not fail, the run stops.
        if (stopped(signal)) return { kind: 'invalid', refusal: interrupted() };
        if (await regionMissing(getClient())) {
          destinationFailure ??= refuseDistributor('destination_region_missing', {
            role: 'destination',
            ...(config.endpoint === undefined ? {} : { hint: REGION_FOR_ENDPOINT_HINT }),
          });
          return { kind: 'invalid', refusal: destinationFailure };
        }
        return { kind: 'invalid', refusal: noteFailure(error, 'read') };
      }
    },
    async dryRunCaveats(options: ReadOptions = {}): Promise<readonly DryRunCaveat[]> {
      // The probe writes, so a dry run never runs it. The bucket's
      // versioning alone does not decide it either: AWS S3 honours
      // conditional writes on a versioned bucket, Ceph RGW ignores them.
      const versioning =
        destinationFailure === undefined
          ? await bucketVersioning(getClient(), config.bucket, options.signal)
          : 'unknown';
      return [{ check: 'conditional_writes', bucket_versioning: versioning }];
    },
    async holds(paths: readonly string[], options: ReadOptions = {}): Promise<ReadonlyMap<string, boolean>> {
      const found = new Map<string, boolean>();
      if (destinationFailure !== undefined) return found;
      const client = getClient();
      const queue = [...paths];
      // A few HEADs at a time: a site's cross-links are few, and each is one round trip.
      const worker = async (): Promise<void> => {
        for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
          if (stopped(options.signal)) return;
          try {
            const key = config.prefix === '' ? path : `${config.prefix}/${path}`;
            found.set(path, (await headEtag(client, config.bucket, key)) !== undefined);
          } catch {
            // A doubt (denied, unreachable): not asked, never reported missing.
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(HOLDS_AT_ONCE, queue.length) }, worker));
      return found;
    },
    async apply(write: PlannedWrite, source: OutputSource, context: ApplyContext): Promise<AppliedOutcome> {
      if (write.destination_id !== config.id) {
        return {
          outcome: 'refused',
          refusal: refuseDistributor('destination_changed', { role: 'destination' }),
        };
      }
      if (destinationFailure !== undefined) return { outcome: 'refused', refusal: destinationFailure };
      runSignal ??= context.signal;
      applying += 1;
      // Hashed on another thread while the probe and the marker make their round trips.
      const prefetched = prefetchDigests(write, source);
      try {
        // Every bundle of a run has the run's signal: the first one's stops the shared probe.
        probe ??= probeStore(
          getClient(),
          config.bucket,
          config.prefix,
          context.signal,
          config.endpoint,
        ).catch((error: unknown) => noteFailure(error, 'write'));
        const capabilities = await probe;
        if (capabilities instanceof Refusal) {
          // A probe the signal stopped says nothing about the store.
          if (stopped(context.signal)) return { outcome: 'refused', refusal: interrupted() };
          destinationFailure ??= capabilities;
          return { outcome: 'refused', refusal: capabilities };
        }
        const found =
          inspected.get(write.bundle_dir) ??
          (await inspectNow(write.bundle_dir, true, undefined, comparedByContent));
        inspected.delete(write.bundle_dir);
        const outcome = await publishToPrefix(
          {
            target: {
              client: getClient(),
              bucket: config.bucket,
              checksumVerified: capabilities.checksumVerified,
              retry: options.retry ?? DEFAULT_RETRY,
            },
            destinationId: config.id,
            clock,
            leaseMs,
            cacheControl: config.cache_control ?? DEFAULT_CACHE_CONTROL,
            retireMarker: (key) => {
              retirement ??= new MarkerRetirement(getClient(), config.bucket, retirementDelayMs(leaseMs));
              retirement.retire(key);
            },
            ...(waiting === undefined
              ? {}
              : { waitSeconds: waiting.seconds, waitOver: waitOver(waiting.deadline) }),
          },
          bundleKeys(config.prefix, write.bundle_dir),
          write,
          prefetched,
          context,
          found,
        );
        // A store that stopped answering (or now refuses these credentials,
        // or lost the bucket) fails every later bundle the same way, each
        // only after its own retries and timeouts: about two minutes a bundle
        // for a store that holds writes without answering (a full Ceph
        // cluster). The rest of the destination is refused at once instead,
        // as after a read that failed so (docs/distributor.md, "Retries and
        // timeouts").
        if (
          outcome.outcome === 'refused' &&
          !stopped(context.signal) &&
          DESTINATION_WIDE_WRITE_FAILURES.has(outcome.refusal.code)
        )
          destinationFailure ??= outcome.refusal;
        return outcome;
      } catch (error) {
        return { outcome: 'refused', refusal: noteFailure(error, 'write') };
      } finally {
        applying -= 1;
        // Nothing else in flight to share a delete with: send the queued markers' delete now.
        if (applying === 0) retirement?.flush();
      }
    },
    async close(): Promise<void> {
      // Stopped by a signal: the markers' deletes get a few seconds, not the
      // retries and timeouts of a store that stopped answering.
      const grace =
        retirement !== undefined && stopped(runSignal)
          ? setTimeout(() => retirement?.abandon(), AFTER_SIGNAL_GRACE_MS)
          : undefined;
      await retirement?.drain();
      if (grace !== undefined) clearTimeout(grace);
      retirement = undefined;
      if (ownsClient) client?.destroy();
      client = undefined;
    },
  };
}

/**
 * Whether the SDK finds no region for this destination (none in the
 * configuration, the environment or the AWS profile). The SDK then fails
 * every request with a plain error that names no cause sealkit could
 * classify, so it is asked here, once a read has failed: without a region a
 * store without `endpoint:` cannot be found at all.
 */
async function regionMissing(client: S3Client): Promise<boolean> {
  return client.config.region().then(
    () => false,
    () => true,
  );
}
