import type { FileDigests } from '../../../core/digest/index.js';
import type { OutputSource } from '../../backend.js';
import type { PlannedOutput, PlannedWrite } from '../../plan/types.js';

/**
 * Outputs from this size on are hashed for their upload on a thread of
 * their own, started before the bundle's first request; smaller ones are
 * hashed in line as they stream (the hand-over would cost more than it
 * saves). Measured on a 64 MiB file in docs/performance.md ("One bundle of
 * 64 MiB").
 */
export const THREAD_DIGEST_MIN_BYTES = 4 * 1024 * 1024;

/**
 * `source` with the digests of every large output of `write` already asked
 * for, so that they are computed while the probe, the listing and the
 * pending marker make their round trips. Each output's digests are asked for
 * once; an output the bundle never uploads (a refused bundle) only costs the
 * hashing thread its time.
 */
export function prefetchDigests(write: PlannedWrite, source: OutputSource): OutputSource {
  const digest = source.digest;
  if (digest === undefined) return source;
  const started = new Map<PlannedOutput, Promise<FileDigests | undefined>>();
  for (const output of write.outputs) {
    if (output.size >= THREAD_DIGEST_MIN_BYTES) started.set(output, digest.call(source, output));
  }
  if (started.size === 0) return source;
  return {
    ...source,
    open: (output) => source.open(output),
    digest: (output) => started.get(output) ?? digest.call(source, output),
  };
}

/** The digests an upload of `output` is checked against, when it is large enough to have them from a thread. */
export function uploadDigests(
  source: OutputSource,
  output: PlannedOutput,
): (() => Promise<FileDigests | undefined>) | undefined {
  const digest = source.digest;
  if (digest === undefined || output.size < THREAD_DIGEST_MIN_BYTES) return undefined;
  return () => digest.call(source, output);
}
