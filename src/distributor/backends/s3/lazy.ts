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
import type { BundleDir } from '../../model/types.js';
import type { PlannedWrite } from '../../plan/types.js';
import { s3ObjectLimits } from './keys.js';
import type { S3BackendOptions } from './s3-backend.js';

/**
 * The S3 backend, loading the AWS SDK (about 0.3 s of module loading) on
 * first use instead of at start-up: every sealkit command imports the
 * distributor, few of them talk to S3.
 */
export function createS3Backend(
  config: S3DestinationConfig,
  context: BackendOpenContext,
  options: S3BackendOptions = {},
): DestinationBackend {
  let loaded: Promise<DestinationBackend> | undefined;
  const backend = (): Promise<DestinationBackend> => {
    loaded ??= import('./s3-backend.js').then((module) =>
      module.createS3BackendNow(config, context, options),
    );
    return loaded;
  };
  return {
    kind: 's3',
    destinationId: config.id,
    limits: s3ObjectLimits(config.prefix),
    lock: async (lockOptions?: LockOptions): Promise<LockOutcome> => (await backend()).lock(lockOptions),
    peekLock: async (peekOptions?: { readonly waitMs?: number }): Promise<LockOutcome> =>
      (await (await backend()).peekLock?.(peekOptions)) ?? { kind: 'acquired' },
    inspect: async (bundleDir: BundleDir, options?: ReadOptions): Promise<DestinationSnapshot> =>
      (await backend()).inspect(bundleDir, options),
    dryRunCaveats: async (options?: ReadOptions): Promise<readonly DryRunCaveat[]> =>
      (await (await backend()).dryRunCaveats?.(options)) ?? [],
    holds: async (paths: readonly string[], options?: ReadOptions): Promise<ReadonlyMap<string, boolean>> =>
      (await (await backend()).holds?.(paths, options)) ?? new Map(),
    apply: async (
      write: PlannedWrite,
      source: OutputSource,
      applyContext: ApplyContext,
    ): Promise<AppliedOutcome> => (await backend()).apply(write, source, applyContext),
    close: async (): Promise<void> => {
      if (loaded !== undefined) await (await loaded).close();
    },
  };
}
