import { DeleteObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { sha256Prefixed } from '../../../core/digest/index.js';
import { type Refusal, toRefusal } from '../../../core/refusal/index.js';
import type { AppliedOutcome, ApplyContext, OutputSource, StepKind } from '../../backend.js';
import { compareInstants, instantOf } from '../../model/instant.js';
import { STATE_FILE, serializeState } from '../../model/state.js';
import type { BundlePath, OutputRecord } from '../../model/types.js';
import type { PlannedWrite } from '../../plan/types.js';
import { refuseDistributor } from '../../refusals.js';
import { classifyS3Error } from './errors.js';
import { type BundleKeys, sortedUnique } from './keys.js';
import { Lease, type LeaseClock, LeaseLost } from './lease.js';
import { headEtag, readSmallObject } from './objects.js';
import { forEachLimited } from './parallel.js';
import { PENDING_FILE, PENDING_MAX_BYTES, parsePending } from './pending.js';
import { contentTypeOf, type PutCondition, putVerified } from './upload.js';

export interface PublishSettings {
  readonly client: S3Client;
  readonly bucket: string;
  readonly destinationId: string;
  readonly clock: LeaseClock;
  readonly leaseMs: number;
}

/** Uploads and deletes in flight at once per bundle: memory stays bounded (each streams 1 MiB chunks). */
const PARALLEL_REQUESTS = 8;

const refuse = (code: 'destination_changed' | 'destination_locked' | 'destination_write_failed') =>
  refuseDistributor(code, { role: 'destination' });

/**
 * One planned publication or replacement under a bundle prefix, in the order
 * that keeps every crash recoverable (docs/distributor.md, "S3 destinations:
 * reference"):
 *
 * 1. read the pending marker; refuse `destination_locked` while another run's
 *    lease is live; create it or take it over, claiming the new outputs, the
 *    old state's outputs and whatever the old marker claimed;
 * 2. check that the state is still the one planned (absent for a publish,
 *    the planned ETag for a replacement): the lease now stops anyone else
 *    from committing, so this check holds until our own commit;
 * 3. PUT every output (a few at a time), streamed and verified; a key that
 *    is neither claimed residue nor an old output is written with
 *    `If-None-Match: *`, so content that appeared since planning is never
 *    overwritten;
 * 4. renew the lease, then PUT the state: `If-None-Match: *` for a publish,
 *    `If-Match: <planned ETag>` for a replacement (the commit point);
 * 5. delete every claimed key the new state does not list (old outputs and
 *    residue), then the marker.
 *
 * A failure before the commit expires the marker at once (its claim stays),
 * so the next run converges without waiting for the lease.
 */
export async function publishToPrefix(
  settings: PublishSettings,
  keys: BundleKeys,
  write: PlannedWrite,
  source: OutputSource,
  context: ApplyContext,
): Promise<AppliedOutcome> {
  const { client, bucket } = settings;
  const step = (kind: StepKind) => context.beforeStep({ kind, destination_id: settings.destinationId });

  // 1. The marker: live lease → locked; expired or ours-by-crash → take over.
  const current = await readSmallObject(client, bucket, keys.key(PENDING_FILE), PENDING_MAX_BYTES);
  const marker = current === undefined ? undefined : parsePending(current.bytes);
  if (marker !== undefined && compareInstants(marker.expires, instantOf(settings.clock.now())) > 0) {
    return refused(refuse('destination_locked'));
  }
  const earlierClaims = new Set<string>(marker?.outputs ?? []);
  if (write.residue.some((path) => !earlierClaims.has(path))) return refused(refuse('destination_changed'));
  const previousOutputs = write.previous?.outputs ?? [];
  const newPaths = write.outputs.map((output) => output.path);
  let claims = sortedUnique([...(marker?.outputs ?? []), ...previousOutputs, ...newPaths]);

  const lease = new Lease({
    client,
    bucket,
    key: keys.key(PENDING_FILE),
    clock: settings.clock,
    leaseMs: settings.leaseMs,
    beforeWrite: step,
  });
  try {
    await lease.acquire(claims, current?.etag);
  } catch (error) {
    lease.stop();
    return refused(toRefusal(error, s3Refusal));
  }

  // Keys that may hold bytes of ours no state covers: what a release must keep claiming.
  const attempted = new Set<BundlePath>(marker?.outputs ?? []);
  let commitAttempted = false;
  let committed = false;
  try {
    // 2. The state must still be the one the plan compared against.
    const stateKey = keys.key(STATE_FILE);
    const stateEtag = await headEtag(client, bucket, stateKey);
    if (stateEtag !== write.previous?.token) throw refuse('destination_changed');

    // 3. Outputs, streamed and verified, a few at a time.
    const mayOverwrite = new Set<string>([...earlierClaims, ...previousOutputs]);
    await forEachLimited(write.outputs, PARALLEL_REQUESTS, async (output) => {
      lease.check();
      const condition: PutCondition = mayOverwrite.has(output.path) ? { kind: 'any' } : { kind: 'absent' };
      step('put');
      attempted.add(output.path);
      try {
        await putVerified(
          client,
          bucket,
          keys.key(output.path),
          { sha256: output.sha256, size: output.size, contentType: contentTypeOf(output.path) },
          source.open(output),
          condition,
          lease.signal,
        );
      } catch (error) {
        if (condition.kind === 'absent' && classifyS3Error(error) === 'precondition') {
          // Someone else's object appeared at this key: it is not ours to claim.
          attempted.delete(output.path);
          claims = claims.filter((path) => path !== output.path);
        }
        throw error;
      }
    });

    // 4. The commit point.
    await lease.renew();
    const stateBytes = Buffer.from(serializeState({ ...write.state, published_at: context.now }), 'utf8');
    step('put');
    commitAttempted = true;
    await putVerified(
      client,
      bucket,
      stateKey,
      { sha256: sha256Prefixed(stateBytes), size: stateBytes.byteLength, contentType: 'application/json' },
      single(stateBytes),
      write.previous === undefined ? { kind: 'absent' } : { kind: 'etag', etag: write.previous.token },
      lease.signal,
    );
    committed = true;

    // 5. Leftovers the new state does not list, then the marker.
    const keep = new Set<string>(newPaths);
    await forEachLimited(
      claims.filter((path) => !keep.has(path)),
      PARALLEL_REQUESTS,
      async (path) => {
        lease.check();
        step('delete');
        await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: keys.key(path) }), {
          abortSignal: lease.signal,
        });
      },
    );
    await lease.remove();
    return applied(write);
  } catch (error) {
    await settleAfterFailure(lease, commitAttempted ? claims : sortedUnique(attempted), marker !== undefined);
    // After the commit the publication stands; what is left is residue the marker names.
    return committed ? applied(write) : refused(toRefusal(lease.lossReason ?? error, s3Refusal));
  } finally {
    lease.stop();
  }
}

/**
 * After a failure, the marker keeps claiming exactly what may hold bytes of
 * ours (everything once the state write was attempted: it may have landed)
 * and expires at once so the next run converges without waiting. A run that
 * wrote nothing and found no marker removes its own. Best effort: when this
 * fails too, the lease simply runs out.
 */
async function settleAfterFailure(
  lease: Lease,
  claims: readonly BundlePath[],
  hadMarker: boolean,
): Promise<void> {
  try {
    if (claims.length === 0 && !hadMarker) await lease.remove();
    else await lease.release(claims);
  } catch {
    // the lease expires on its own
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

/** What an SDK or lease error becomes: fixed refusals only, its message, keys and bucket never travel further. */
function s3Refusal(error: unknown): Refusal {
  if (error instanceof LeaseLost) return refuse('destination_changed');
  const kind = classifyS3Error(error);
  if (kind === 'precondition') return refuse('destination_changed');
  if (kind === 'unreachable') return refuseDistributor('destination_unreachable', { role: 'destination' });
  return refuse('destination_write_failed');
}

async function* single(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}
