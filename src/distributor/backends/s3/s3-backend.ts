import type { S3Client } from '@aws-sdk/client-s3';
import { Refusal } from '../../../core/refusal/index.js';
import type {
  AppliedOutcome,
  ApplyContext,
  BackendOpenContext,
  DestinationBackend,
  DestinationSnapshot,
  LockOutcome,
  OutputSource,
} from '../../backend.js';
import type { S3DestinationConfig } from '../../config/types.js';
import { MANIFEST_LIMITS } from '../../model/manifest.js';
import type { BundleDir } from '../../model/types.js';
import type { PlannedWrite } from '../../plan/types.js';
import { refuseDistributor } from '../../refusals.js';
import { createS3Client } from './client.js';
import { classifyS3Error } from './errors.js';
import { inspectPrefix } from './inspect.js';
import { bundleKeys } from './keys.js';
import { DEFAULT_LEASE_MS, type LeaseClock } from './lease.js';
import { ObjectTooLarge } from './objects.js';
import { publishToPrefix } from './publish.js';

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
}

/**
 * The most objects one bundle prefix can hold when sealkit alone wrote it:
 * every file copied and rendered, for an old and a new publication, plus the
 * state and the marker. A listing beyond that cannot be ours only.
 */
const MAX_LISTED_OBJECTS = 4 * MANIFEST_LIMITS.maxFiles + 2;

const systemClock: LeaseClock = { now: () => new Date() };

/** The S3-compatible destination backend, with the SDK loaded (`lazy.ts` defers this module). */
export function createS3BackendNow(
  config: S3DestinationConfig,
  _context: BackendOpenContext,
  options: S3BackendOptions = {},
): DestinationBackend {
  const ownsClient = options.client === undefined;
  let client: S3Client | undefined = options.client;
  const getClient = (): S3Client => {
    client ??= createS3Client(config);
    return client;
  };
  const settings = () => ({
    client: getClient(),
    bucket: config.bucket,
    destinationId: config.id,
    clock: options.clock ?? systemClock,
    leaseMs: options.leaseMs ?? DEFAULT_LEASE_MS,
  });

  return {
    kind: 's3',
    destinationId: config.id,
    async lock(): Promise<LockOutcome> {
      // No lock on S3: conditional writes of the marker and the state guard each bundle.
      return { kind: 'acquired' };
    },
    async inspect(bundleDir: BundleDir): Promise<DestinationSnapshot> {
      try {
        return await inspectPrefix(
          getClient(),
          config.bucket,
          bundleKeys(config.prefix, bundleDir),
          MAX_LISTED_OBJECTS,
        );
      } catch (error) {
        return { kind: 'invalid', refusal: inspectRefusal(error) };
      }
    },
    async apply(write: PlannedWrite, source: OutputSource, context: ApplyContext): Promise<AppliedOutcome> {
      if (write.destination_id !== config.id) {
        return {
          outcome: 'refused',
          refusal: refuseDistributor('destination_changed', { role: 'destination' }),
        };
      }
      try {
        return await publishToPrefix(
          settings(),
          bundleKeys(config.prefix, write.bundle_dir),
          write,
          source,
          context,
        );
      } catch (error) {
        return { outcome: 'refused', refusal: applyRefusal(error) };
      }
    },
    async close(): Promise<void> {
      if (ownsClient) client?.destroy();
      client = undefined;
    },
  };
}

function inspectRefusal(error: unknown): Refusal {
  if (error instanceof Refusal) return error;
  if (error instanceof ObjectTooLarge)
    return refuseDistributor('destination_state_invalid', { role: 'state' });
  if (classifyS3Error(error) === 'no_bucket') {
    return refuseDistributor('destination_root_unavailable', { role: 'destination' });
  }
  return refuseDistributor('destination_unreachable', { role: 'destination' });
}

function applyRefusal(error: unknown): Refusal {
  if (error instanceof Refusal) return error;
  if (error instanceof ObjectTooLarge)
    return refuseDistributor('destination_state_invalid', { role: 'state' });
  const kind = classifyS3Error(error);
  if (kind === 'precondition') return refuseDistributor('destination_changed', { role: 'destination' });
  if (kind === 'unreachable') return refuseDistributor('destination_unreachable', { role: 'destination' });
  return refuseDistributor('destination_write_failed', { role: 'destination' });
}
