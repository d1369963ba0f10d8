import { sha256Prefixed } from '../../../core/digest/index.js';
import { Refusal } from '../../../core/refusal/index.js';
import type { AppliedOutcome, ApplyContext, OutputSource, StepKind } from '../../backend.js';
import { compareInstants, instantOf } from '../../model/instant.js';
import { STATE_FILE, serializeState } from '../../model/state.js';
import type { OutputRecord } from '../../model/types.js';
import type { PlannedWrite } from '../../plan/types.js';
import { refuseDistributor } from '../../refusals.js';
import { classifyS3Error, s3Refusal } from './errors.js';
import type { InspectedPrefix } from './inspect.js';
import type { BundleKeys } from './keys.js';
import { Lease, type LeaseClock, LeaseLost } from './lease.js';
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
}

/** Uploads and deletes in flight at once per bundle: memory stays bounded (each streams 1 MiB chunks). */
const PARALLEL_REQUESTS = 8;

const refuse = (code: 'destination_changed' | 'destination_locked' | 'destination_write_failed') =>
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
  const { client, bucket } = settings.target;
  const step = (kind: StepKind) => context.beforeStep({ kind, destination_id: settings.destinationId });
  const interrupted = context.signal ?? new AbortController().signal;
  if (interrupted.aborted) return refused(interruptedRefusal());

  // 1. The marker: live lease (now or at inspection) → locked; expired and verified → take over.
  const marker = inspected.marker;
  if (marker !== undefined) {
    if (marker.live || compareInstants(marker.parsed.expires, instantOf(settings.clock.now())) > 0)
      return refused(refuse('destination_locked'));
  }
  const residueClaims = new Map(inspected.residue.map((claim) => [claim.path as string, claim]));
  if (write.residue.some((path) => !residueClaims.has(path))) return refused(refuse('destination_changed'));
  const previous = write.previous;
  if (
    previous !== undefined &&
    (inspected.snapshot.kind !== 'managed' || inspected.snapshot.token !== previous.token)
  )
    return refused(refuse('destination_changed'));
  const previousOutputs = inspected.state?.outputs ?? [];
  const oldPaths = previous === undefined ? [] : previousOutputs.map((output) => output.path);
  const newPaths = write.outputs.map((output) => output.path);
  let claims = normalizeClaims([
    ...write.outputs.map((output) => ({ path: output.path, sha256: [output.sha256] })),
    ...(previous === undefined
      ? []
      : previousOutputs.map((output) => ({ path: output.path, sha256: [output.sha256] }))),
    ...inspected.residue,
  ]);

  const lease = new Lease({
    target: settings.target,
    key: keys.key(PENDING_FILE),
    clock: settings.clock,
    leaseMs: settings.leaseMs,
    beforeWrite: step,
  });
  try {
    await lease.acquire(claims, marker?.etag);
  } catch (error) {
    lease.stop();
    if (classifyS3Error(error) === 'precondition') return refused(await lostMarkerRace(settings, keys));
    return refused(failureRefusal(error, interrupted));
  }

  const signal = AbortSignal.any([lease.signal, interrupted]);
  let attempted = false;
  let commitAttempted = false;
  let committed = false;
  try {
    // 2. A replacement overwrites old outputs: the state must still be the one planned.
    const stateKey = keys.key(STATE_FILE);
    if (previous !== undefined && (await headEtag(client, bucket, stateKey)) !== previous.token)
      throw refuse('destination_changed');

    // 3. Outputs, streamed, retried and verified, a few at a time.
    const mayOverwrite = new Set<string>([...residueClaims.keys(), ...oldPaths]);
    const headers = (path: string) => ({
      contentType: contentTypeOf(path),
      cacheControl: settings.cacheControl,
    });
    await forEachLimited(write.outputs, PARALLEL_REQUESTS, async (output) => {
      lease.check();
      if (interrupted.aborted) throw interruptedRefusal();
      const condition: PutCondition = mayOverwrite.has(output.path) ? { kind: 'any' } : { kind: 'absent' };
      step('put');
      attempted = true;
      try {
        await putVerified(
          settings.target,
          keys.key(output.path),
          { sha256: output.sha256, size: output.size, headers: headers(output.path) },
          { kind: 'stream', open: () => source.open(output) },
          condition,
          signal,
        );
      } catch (error) {
        if (error instanceof UploadMismatch && error.stored !== undefined) {
          // The store holds bytes sealkit sent but did not plan: claim them too, so a later run removes them.
          claims = normalizeClaims([...claims, { path: output.path, sha256: [error.stored] }]);
        }
        if (condition.kind === 'absent' && classifyS3Error(error) === 'precondition') {
          // Someone else's object appeared at this key: it is not ours to claim.
          claims = claims.filter((claim) => claim.path !== output.path);
        }
        throw error;
      }
    });

    // 4. The commit point.
    if (interrupted.aborted) throw interruptedRefusal();
    await lease.ensureHeld();
    const stateBytes = Buffer.from(serializeState({ ...write.state, published_at: context.now }), 'utf8');
    step('put');
    commitAttempted = true;
    await putVerified(
      settings.target,
      stateKey,
      {
        sha256: sha256Prefixed(stateBytes),
        size: stateBytes.byteLength,
        headers: { contentType: 'application/json', cacheControl: settings.cacheControl },
      },
      { kind: 'bytes', bytes: stateBytes },
      previous === undefined ? { kind: 'absent' } : { kind: 'etag', etag: previous.token },
      lease.signal,
    );
    committed = true;

    // 5. What the new state does not list, then the marker. Not interrupted: it is quick and
    //    leaves the prefix clean; a signal now only means the run stops after this bundle.
    const keep = new Set<string>(newPaths);
    const leftovers = [...new Set<string>([...oldPaths, ...residueClaims.keys()])].filter(
      (path) => !keep.has(path),
    );
    await forEachLimited(leftovers.sort(), PARALLEL_REQUESTS, async (path) => {
      lease.check();
      step('delete');
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: keys.key(path) }), {
        abortSignal: lease.signal,
      });
    });
    lease.check();
    lease.stop();
    step('delete');
    settings.retireMarker(keys.key(PENDING_FILE));
    return applied(write);
  } catch (error) {
    await settleAfterFailure(lease, claims, attempted || commitAttempted || marker !== undefined);
    // After the commit the publication stands; what is left is residue the marker names.
    return committed ? applied(write) : refused(failureRefusal(lease.lossReason ?? error, interrupted));
  } finally {
    lease.stop();
  }
}

/**
 * After a failure, the marker keeps claiming every key with the digests of
 * what may be there (a later run deletes only objects holding those bytes)
 * and expires at once so the next run converges without waiting. A run that
 * wrote nothing and found no marker removes its own. Best effort: when this
 * fails too, the lease simply runs out.
 */
async function settleAfterFailure(
  lease: Lease,
  claims: readonly PendingClaim[],
  keep: boolean,
): Promise<void> {
  try {
    if (keep) await lease.release(claims);
    else await lease.remove();
  } catch {
    // the lease expires on its own
  }
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
    return compareInstants(marker.expires, instantOf(settings.clock.now())) > 0
      ? refuse('destination_locked')
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

function interruptedRefusal(): Refusal {
  return refuseDistributor('run_interrupted', { role: 'destination' });
}

/** What an SDK, lease or upload error becomes: fixed refusals only; its message, keys and bucket never travel further. */
function failureRefusal(error: unknown, interrupted: AbortSignal): Refusal {
  if (interrupted.aborted) return interruptedRefusal();
  if (error instanceof Refusal) return error;
  if (error instanceof LeaseLost) return refuse('destination_changed');
  return s3Refusal(error, 'write');
}
