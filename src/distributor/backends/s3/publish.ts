import { type FileDigests, sha256Prefixed } from '../../../core/digest/index.js';
import { Refusal } from '../../../core/refusal/index.js';
import type { AppliedOutcome, ApplyContext, OutputSource, StepKind } from '../../backend.js';
import { compareInstants, instantOf } from '../../model/instant.js';
import { STATE_FILE, serializeState } from '../../model/state.js';
import type { Instant, OutputRecord } from '../../model/types.js';
import type { PlannedOutput, PlannedWrite } from '../../plan/types.js';
import { refuseDistributor } from '../../refusals.js';
import { uploadDigests } from './digests.js';
import { classifyS3Error, s3Refusal } from './errors.js';
import type { InspectedPrefix } from './inspect.js';
import type { BundleKeys } from './keys.js';
import { Lease, type LeaseClock, LeaseLost, lockedRefusal } from './lease.js';
import { headEtag, readSmallObject } from './objects.js';
import { forEachLimited } from './parallel.js';
import {
  normalizeClaims,
  PENDING_FILE,
  PENDING_MAX_BYTES,
  type PendingClaim,
  parsePending,
} from './pending.js';
import { DeleteObjectCommand } from './sdk.js';
import {
  contentTypeOf,
  type PutCondition,
  putVerified,
  UploadMismatch,
  type UploadTarget,
} from './upload.js';

export interface PublishSettings {
  readonly target: UploadTarget;
  readonly destinationId: string;
  readonly clock: LeaseClock;
  readonly leaseMs: number;
  /** `Cache-Control` of every object written. */
  readonly cacheControl: string;
  /** Deletes a committed bundle's marker (batched with other bundles'). */
  readonly retireMarker: (key: string) => void;
  /** This run's `--wait` in seconds, when it had one (said in `destination_locked`'s advice). */
  readonly waitSeconds?: number;
  /** Whether this run's `--wait` is over: a marker another run took after inspection was never waited for. */
  readonly waitOver?: () => boolean;
}

/** Uploads and deletes in flight at once per bundle: memory stays bounded (each streams 1 MiB chunks). */
const PARALLEL_REQUESTS = 8;

const refuse = (code: 'destination_changed' | 'destination_write_failed') =>
  refuseDistributor(code, { role: 'destination' });

/**
 * One planned publication or replacement under a bundle prefix, in the order
 * that keeps every crash recoverable (docs/distributor.md, "Order of
 * writes"), from what `inspect` found in this run:
 *
 * 1. the pending marker: refuse `destination_locked` while another run's
 *    lease is live; create it or take it over, claiming the new outputs, the
 *    old state's outputs and the verified residue, each with the digests of
 *    the bytes sealkit may put or have put there;
 * 2. for a replacement, check that the state is still the one planned: the
 *    lease now stops anyone else from committing, so this holds until our own
 *    commit (a first publication writes nothing unconditionally a committed
 *    run could own: its outputs and state are create-only);
 * 3. PUT every output (a few at a time), streamed, retried and verified; a
 *    key that is neither verified residue nor an old output is written with
 *    `If-None-Match: *`, so content that appeared since planning is never
 *    overwritten;
 * 4. prove the lease still holds (renewing it when it is older than one
 *    renewal interval), then PUT the state: `If-None-Match: *` for a publish,
 *    `If-Match: <planned ETag>` for a replacement (the commit point);
 * 5. delete the old outputs and verified residue the new state does not
 *    list, then the marker.
 *
 * A failure before the commit expires the marker at once (its claim stays),
 * so the next run converges without waiting for the lease. A run that is
 * interrupted (`context.signal`) starts no new request, aborts those in
 * flight and settles the marker the same way.
 */
export async function publishToPrefix(
  settings: PublishSettings,
  keys: BundleKeys,
  write: PlannedWrite,
  source: OutputSource,
  context: ApplyContext,
  inspected: InspectedPrefix,
): Promise<AppliedOutcome> {
  const step = (kind: StepKind) => context.beforeStep({ kind, destination_id: settings.destinationId });
  const interrupted = context.signal ?? new AbortController().signal;
  if (interrupted.aborted) return refused(interruptedRefusal());

  // 1. The marker: live lease (now or at inspection) → locked; expired and verified → take over.
  const claimed = claimPrefix(settings, write, inspected);
  if (claimed instanceof Refusal) return refused(claimed);
  const lease = new Lease({
    target: settings.target,
    key: keys.key(PENDING_FILE),
    clock: settings.clock,
    leaseMs: settings.leaseMs,
    beforeWrite: step,
  });
  // Once the run is stopped, the marker's own writes (taking it, renewing,
  // expiring or removing it) and the deletes after the commit get a few
  // seconds to finish: a store that stopped answering would otherwise hold
  // the exit for minutes of retries and timeouts.
  let grace: NodeJS.Timeout | undefined;
  const abandonLater = () => {
    grace = setTimeout(() => lease.abandon(), AFTER_SIGNAL_GRACE_MS);
    grace.unref();
  };
  if (interrupted.aborted) abandonLater();
  else interrupted.addEventListener('abort', abandonLater, { once: true });
  try {
    return await publishHeld(
      settings,
      keys,
      write,
      source,
      context,
      inspected,
      claimed,
      lease,
      interrupted,
      step,
    );
  } finally {
    interrupted.removeEventListener('abort', abandonLater);
    if (grace !== undefined) clearTimeout(grace);
    lease.stop();
  }
}

/** Marker writes and deletes after a signal have this long before they are abandoned. */
export const AFTER_SIGNAL_GRACE_MS = 5_000;

/** Steps 1 to 5 with the lease made: `publishToPrefix` bounds its marker writes after a signal. */
async function publishHeld(
  settings: PublishSettings,
  keys: BundleKeys,
  write: PlannedWrite,
  source: OutputSource,
  context: ApplyContext,
  inspected: InspectedPrefix,
  claimed: Exclude<ReturnType<typeof claimPrefix>, Refusal>,
  lease: Lease,
  interrupted: AbortSignal,
  step: (kind: StepKind) => void,
): Promise<AppliedOutcome> {
  const notAcquired = await acquireLease(lease, claimed.claims, settings, keys, inspected, interrupted);
  if (notAcquired !== undefined) return refused(notAcquired);

  const run: PublishRun = {
    settings,
    keys,
    write,
    lease,
    step,
    interrupted,
    signal: AbortSignal.any([lease.signal, interrupted]),
    claimed,
    ...(context.onSent === undefined ? {} : { sent: context.onSent }),
  };
  const progress: Progress = { claims: claimed.claims, wrote: false, committed: false };
  try {
    // 2. A replacement overwrites old outputs: the state must still be the one planned.
    await requirePlannedState(run);
    // 3. Outputs, streamed, retried and verified, a few at a time.
    await putOutputs(run, source, progress);
    // 4. The commit point.
    await commitState(run, context.now, progress);
    // 5. What the new state does not list, then the marker.
    await removeLeftovers(run);
    return applied(write);
  } catch (error) {
    // A marker that claims nothing names nothing a later run could need: a
    // run that lost every key to another run (create-only uploads refused)
    // removes it instead of leaving it in a published bundle.
    const keep = progress.claims.length > 0 && (progress.wrote || inspected.marker !== undefined);
    const heldUntil = await settleAfterFailure(lease, progress.claims, keep);
    // After the commit the publication stands; what is left is residue the marker names.
    return progress.committed
      ? applied(write)
      : refused(
          stillHeld(
            failureRefusal(lease.lossReason ?? error, interrupted, keys, {
              overwriting: write.previous !== undefined && progress.wrote,
            }),
            heldUntil,
            instantOf(settings.clock.now()),
          ),
        );
  } finally {
    lease.stop();
  }
}

/** What one publication under a prefix works with once its lease is held. */
interface PublishRun {
  readonly settings: PublishSettings;
  readonly keys: BundleKeys;
  readonly write: PlannedWrite;
  readonly lease: Lease;
  readonly step: (kind: StepKind) => void;
  readonly interrupted: AbortSignal;
  /** Aborted when the lease is lost or the run interrupted: what output uploads stop on. */
  readonly signal: AbortSignal;
  readonly claimed: Claimed;
  /** Told the output bytes sent, for progress (`ApplyContext.onSent`). */
  readonly sent?: (bytes: number) => void;
}

/**
 * What the run has done so far, which a failure settles the marker with.
 * Mutable on purpose: uploads in flight update the claims as they fail.
 */
interface Progress {
  /** The marker's claims: the planned ones, plus bytes sealkit sent unplanned, minus keys someone else took. */
  claims: readonly PendingClaim[];
  /** A PUT was attempted: the marker must keep claiming what this run may have written. */
  wrote: boolean;
  /** The state is written: the publication stands whatever fails after. */
  committed: boolean;
}

/** What the marker claims for this run, and what the claims allow it to overwrite and then delete. */
interface Claimed {
  readonly claims: readonly PendingClaim[];
  /** Verified residue and, for a replacement, the old outputs: PUT without `If-None-Match`. */
  readonly mayOverwrite: ReadonlySet<string>;
  /** Old outputs and verified residue the new state does not list, sorted: deleted after the commit. */
  readonly leftovers: readonly string[];
  /** Outputs a replacement leaves in place, not sent again (the plan's `kept`). */
  readonly unchanged: ReadonlySet<string>;
}

/**
 * Step 1 before any write: refuse a live lease, and a prefix that changed
 * since planning (residue no longer verified, another state); then the
 * claims — the new outputs, the old state's outputs and the verified
 * residue, each with the digests of the bytes sealkit may put or have put
 * there.
 */
function claimPrefix(
  settings: PublishSettings,
  write: PlannedWrite,
  inspected: InspectedPrefix,
): Claimed | Refusal {
  const marker = inspected.marker;
  if (marker !== undefined) {
    const now = instantOf(settings.clock.now());
    if (marker.live || compareInstants(marker.parsed.expires, now) > 0)
      return lockedRefusal(marker.parsed.expires, now, waitOf(settings, true));
  }
  const residue = new Set<string>(inspected.residue.map((claim) => claim.path));
  // The planned residue is what inspection found, and the expired marker itself when it was all that was left.
  const found = marker === undefined ? residue : new Set<string>([...residue, PENDING_FILE]);
  if (write.residue.some((path) => !found.has(path))) return refuse('destination_changed');
  const previous = write.previous;
  if (
    previous !== undefined &&
    (inspected.snapshot.kind !== 'managed' || inspected.snapshot.token !== previous.token)
  )
    return refuse('destination_changed');
  const oldOutputs = previous === undefined ? [] : (inspected.state?.outputs ?? []);
  const oldPaths = oldOutputs.map((output) => output.path);
  const keep = new Set<string>(write.outputs.map((output) => output.path));
  return {
    claims: normalizeClaims([
      ...write.outputs.map((output) => ({ path: output.path, sha256: [output.sha256] })),
      ...oldOutputs.map((output) => ({ path: output.path, sha256: [output.sha256] })),
      ...inspected.residue,
    ]),
    mayOverwrite: new Set<string>([...residue, ...oldPaths]),
    leftovers: [...new Set<string>([...oldPaths, ...residue])].filter((path) => !keep.has(path)).sort(),
    // Decided by the plan, so that the dry run shows what is left in place.
    unchanged: new Set<string>(write.kept ?? []),
  };
}

/** Creates the marker or takes it over; a lost race for it says whether another run holds it. */
async function acquireLease(
  lease: Lease,
  claims: readonly PendingClaim[],
  settings: PublishSettings,
  keys: BundleKeys,
  inspected: InspectedPrefix,
  interrupted: AbortSignal,
): Promise<Refusal | undefined> {
  try {
    await lease.acquire(claims, inspected.marker?.etag);
    return undefined;
  } catch (error) {
    lease.stop();
    if (classifyS3Error(error) === 'precondition') return lostMarkerRace(settings, keys);
    return failureRefusal(error, interrupted, keys);
  }
}

/**
 * Step 2: the lease now stops anyone else from committing, so a state still
 * the one planned stays so until our own commit (a first publication writes
 * nothing unconditionally a committed run could own).
 */
async function requirePlannedState(run: PublishRun): Promise<void> {
  const previous = run.write.previous;
  if (previous === undefined) return;
  const { client, bucket } = run.settings.target;
  if ((await headEtag(client, bucket, run.keys.key(STATE_FILE))) !== previous.token)
    throw refuse('destination_changed');
}

/**
 * Step 3: a key that is neither verified residue nor an old output is
 * written with `If-None-Match: *`, so content that appeared since planning
 * is never overwritten. The pages go last, once every other output is
 * stored: a bucket served as a site shows each object as soon as it is
 * written, and a first publication stopped half-way then leaves no page
 * whose charts or downloads are not there yet (docs/distributor.md, "What
 * a visitor of the bucket sees").
 */
async function putOutputs(run: PublishRun, source: OutputSource, progress: Progress): Promise<void> {
  const { settings, keys, lease, interrupted } = run;
  const toSend = run.write.outputs.filter((output) => {
    if (!run.claimed.unchanged.has(output.path)) return true;
    run.sent?.(output.size);
    return false;
  });
  const put = async (output: PlannedOutput): Promise<void> => {
    lease.check();
    if (interrupted.aborted) throw interruptedRefusal();
    const condition: PutCondition = run.claimed.mayOverwrite.has(output.path)
      ? { kind: 'any' }
      : { kind: 'absent' };
    run.step('put');
    progress.wrote = true;
    try {
      await putVerified(
        settings.target,
        keys.key(output.path),
        {
          sha256: output.sha256,
          size: output.size,
          headers: { contentType: contentTypeOf(output.path), cacheControl: settings.cacheControl },
        },
        { kind: 'stream', open: () => source.open(output), ...digestsOf(source, output) },
        condition,
        run.signal,
        run.sent,
      );
    } catch (error) {
      progress.claims = claimsAfterFailedPut(progress.claims, output.path, condition, error);
      throw error;
    }
  };
  const pages = toSend.filter((output) => isPage(output.path));
  try {
    await forEachLimited(
      toSend.filter((output) => !isPage(output.path)),
      PARALLEL_REQUESTS,
      put,
    );
  } catch (error) {
    // No page was sent: this run wrote nothing at their keys, so its marker
    // claims none of them (a marker left claiming nothing is removed).
    const unsent = new Set<string>(pages.map((output) => output.path));
    progress.claims = progress.claims.filter((claim) => !unsent.has(claim.path));
    throw error;
  }
  await forEachLimited(pages, PARALLEL_REQUESTS, put);
}

/** What a browser opens as a page: `.html` or `.htm`, in any letter case. */
function isPage(path: string): boolean {
  return /\.html?$/i.test(path);
}

function digestsOf(
  source: OutputSource,
  output: PlannedOutput,
): { digests?: () => Promise<FileDigests | undefined> } {
  const digests = uploadDigests(source, output);
  return digests === undefined ? {} : { digests };
}

function claimsAfterFailedPut(
  claims: readonly PendingClaim[],
  path: PendingClaim['path'],
  condition: PutCondition,
  error: unknown,
): readonly PendingClaim[] {
  let out = claims;
  if (error instanceof UploadMismatch && error.stored !== undefined) {
    // The store holds bytes sealkit sent but did not plan: claim them too, so a later run removes them.
    out = normalizeClaims([...out, { path, sha256: [error.stored] }]);
  }
  if (condition.kind === 'absent' && classifyS3Error(error) === 'precondition') {
    // Someone else's object appeared at this key: it is not ours to claim.
    out = out.filter((claim) => claim.path !== path);
  }
  return out;
}

/**
 * Step 4: prove the lease still holds (renewing it when it is older than one
 * renewal interval), then PUT the state — `If-None-Match: *` for a publish,
 * `If-Match: <planned ETag>` for a replacement.
 */
async function commitState(run: PublishRun, now: ApplyContext['now'], progress: Progress): Promise<void> {
  const { settings, lease, write } = run;
  if (run.interrupted.aborted) throw interruptedRefusal();
  await lease.ensureHeld();
  const stateBytes = Buffer.from(serializeState({ ...write.state, published_at: now }), 'utf8');
  run.step('put');
  progress.wrote = true;
  await putVerified(
    settings.target,
    run.keys.key(STATE_FILE),
    {
      sha256: sha256Prefixed(stateBytes),
      size: stateBytes.byteLength,
      headers: { contentType: 'application/json; charset=utf-8', cacheControl: settings.cacheControl },
    },
    { kind: 'bytes', bytes: stateBytes },
    write.previous === undefined ? { kind: 'absent' } : { kind: 'etag', etag: write.previous.token },
    lease.signal,
  );
  progress.committed = true;
}

/**
 * Step 5: delete what the new state does not list, then the marker. Not
 * interrupted: it is quick and leaves the prefix clean; a signal now only
 * means the run stops after this bundle.
 */
async function removeLeftovers(run: PublishRun): Promise<void> {
  const { settings, keys, lease } = run;
  const { client, bucket } = settings.target;
  await forEachLimited(run.claimed.leftovers, PARALLEL_REQUESTS, async (path) => {
    lease.check();
    run.step('delete');
    await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: keys.key(path) }), {
      abortSignal: AbortSignal.any([lease.signal, lease.abandoned]),
    });
  });
  lease.check();
  lease.stop();
  run.step('delete');
  settings.retireMarker(keys.key(PENDING_FILE));
}

/**
 * After a failure, the marker keeps claiming every key with the digests of
 * what may be there (a later run deletes only objects holding those bytes)
 * and expires at once so the next run converges without waiting. A run that
 * wrote nothing and found no marker removes its own, and so does a run whose
 * marker is left claiming nothing. Best effort: when this fails too, the
 * lease simply runs out.
 */
async function settleAfterFailure(
  lease: Lease,
  claims: readonly PendingClaim[],
  keep: boolean,
): Promise<Instant | undefined> {
  try {
    if (!keep) {
      await lease.remove();
      return undefined;
    }
    if (await lease.release(claims)) return undefined;
  } catch {
    // the lease expires on its own
  }
  return lease.heldUntil;
}

/**
 * A refusal whose run could not end its own claim on the bundle (that write
 * failed too: a full quota, a store gone): until `until` the
 * next run finds the bundle held as by another run, and would otherwise be
 * told so with no word that the run holding it was this one.
 */
function stillHeld(refusal: Refusal, until: Instant | undefined, now: Instant): Refusal {
  if (until === undefined || compareInstants(until, now) <= 0) return refusal;
  const seconds = Math.max(1, Math.ceil((Date.parse(until) - Date.parse(now)) / 1000));
  const held = `this run could not end its claim on the bundle (that write failed too): a run before ${until} (in ${seconds} s) finds the bundle held as by another run; run again after that, or with --wait ${seconds + 10}`;
  return refusal.at({}, refusal.hint === undefined ? held : `${refusal.hint}; ${held}`);
}

/** This run's `--wait` as `destination_locked`'s advice states it; `spent`: it ran out while the bundle was held. */
function waitOf(
  settings: PublishSettings,
  spent: boolean,
): { readonly seconds: number; readonly spent: boolean } | undefined {
  return settings.waitSeconds === undefined ? undefined : { seconds: settings.waitSeconds, spent };
}

/** The marker changed between inspection and our write: another run is working (locked) or was (changed). */
async function lostMarkerRace(settings: PublishSettings, keys: BundleKeys): Promise<Refusal> {
  try {
    const current = await readSmallObject(
      settings.target.client,
      settings.target.bucket,
      keys.key(PENDING_FILE),
      PENDING_MAX_BYTES,
    );
    if (current === undefined) return refuse('destination_changed');
    const marker = parsePending(current.bytes);
    const now = instantOf(settings.clock.now());
    return compareInstants(marker.expires, now) > 0
      ? lockedRefusal(marker.expires, now, waitOf(settings, settings.waitOver?.() ?? true))
      : refuse('destination_changed');
  } catch {
    return refuse('destination_changed');
  }
}

function applied(write: PlannedWrite): AppliedOutcome {
  return {
    outcome: write.outcome === 'published' ? 'published' : 'replaced',
    outputs: write.state.outputs as readonly OutputRecord[],
  };
}

function refused(refusal: Refusal): AppliedOutcome {
  return { outcome: 'refused', refusal };
}

/**
 * `overwriting`: a replacement stopped after its uploads began, some of
 * which write over the old version's objects in place. Its state still
 * names the old version, but a reader of the bucket may meet new bytes
 * in it until the next run finishes the replacement: the help says so
 * (docs/distributor.md#commands).
 */
function interruptedRefusal(overwriting = false): Refusal {
  return refuseDistributor('run_interrupted', {
    role: 'destination',
    ...(overwriting
      ? {
          hint: 'the run was stopped while it wrote the new version over the one published before: .distributor.json still names the version before, but some of its objects may already hold the new bytes: run again, and the next run finishes the replacement',
        }
      : {}),
  });
}

/** What an SDK, lease or upload error becomes: fixed refusals only; its message, keys and bucket never travel further. */
function failureRefusal(
  error: unknown,
  interrupted: AbortSignal,
  keys: BundleKeys,
  progress: { readonly overwriting: boolean } = { overwriting: false },
): Refusal {
  if (interrupted.aborted) return interruptedRefusal(progress.overwriting);
  if (error instanceof Refusal) return error;
  if (error instanceof LeaseLost) return refuse('destination_changed');
  return s3Refusal(error, 'write', undefined, keys.destinationPrefix);
}
