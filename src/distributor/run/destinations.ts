import { type Refusal, toRefusal } from '../../core/refusal/index.js';
import type { BackendOpenContext, DestinationBackend, DestinationSnapshot } from '../backend.js';
import { type BackendRegistry, createBackend } from '../backends/registry.js';
import type { DestinationConfig } from '../config/types.js';
import type { BundleDir, SourceManifest } from '../model/types.js';
import { decide, type SnapshotView } from '../plan/compare.js';
import { expectedOutputs } from '../plan/outputs.js';
import { reasonCodeOf, refuseDistributor } from '../refusals.js';

/** A configured destination opened for one run. */
export interface OpenDestination {
  readonly config: DestinationConfig;
  readonly backend: DestinationBackend | undefined;
  /** Why this destination cannot be used in this run (root unavailable, lock busy...). */
  refusal: Refusal | undefined;
  /** `--checksum`: every inspection of this run compares the outputs by content (`ReadOptions.checksum`). */
  readonly checksum?: boolean;
  /** How long this run waited for another run here (`--wait`): its lock, or at S3 a bundle it held; absent when it did not wait. */
  waitedMs?: number;
}

/**
 * Whether a local destination compared by size must read this bundle's
 * outputs before the plan: the run is about to replace the bundle there (a
 * newer publication, other outputs asked for, a run's residue), and a
 * replacement removes the outputs its state lists. One written over with
 * the same size would go without a word; read now, it is refused
 * `destination_incomplete` as under `--checksum`. A rerun that skips the
 * bundle reads nothing (docs/distributor.md#comparing-by-content---checksum).
 */
export function readBeforeReplacing(
  destination: OpenDestination,
  view: SnapshotView,
  manifest: SourceManifest,
): boolean {
  if (destination.checksum === true || destination.config.kind !== 'local' || view.kind !== 'managed')
    return false;
  if (view.missing || view.unlisted) return false;
  const expected = expectedOutputs(manifest, destination.config.outputs);
  return decide(manifest, view, expected).outcome === 'replaced';
}

export function openDestination(
  config: DestinationConfig,
  registry: BackendRegistry,
  context: BackendOpenContext,
  checksum = false,
): OpenDestination {
  const compared = checksum ? { checksum: true } : {};
  try {
    return { config, backend: createBackend(registry, config, context), refusal: undefined, ...compared };
  } catch (error: unknown) {
    return {
      config,
      backend: undefined,
      refusal: toRefusal(error, () => refuseDistributor('backend_unavailable')),
      ...compared,
    };
  }
}

/**
 * Takes every destination's lock, waiting up to `waitMs` for one another run
 * holds; a busy or failing one is refused for the whole run.
 */
export async function lockAll(
  destinations: readonly OpenDestination[],
  wait: {
    readonly waitMs: number;
    readonly onWait?: (destinationId: string, waitedMs: number) => void;
    /** The run's interruption: a wait for another run's lock ends with it. */
    readonly signal?: AbortSignal;
  } = {
    waitMs: 0,
  },
): Promise<void> {
  const deadline = Date.now() + wait.waitMs;
  for (const destination of destinations) {
    if (destination.backend === undefined || destination.refusal !== undefined) continue;
    const id = destination.config.id;
    const started = Date.now();
    try {
      // One deadline for the run: waiting for several locks never adds up.
      // The wait is kept for the report, so that a log kept of a night's
      // run shows why it took longer: a local lock waits here, an S3 bundle
      // another run holds while it is inspected, later.
      const lock = await destination.backend.lock({
        waitMs: Math.max(0, deadline - Date.now()),
        ...(wait.signal === undefined ? {} : { signal: wait.signal }),
        onWait: (waitedMs: number) => {
          destination.waitedMs = Math.max(destination.waitedMs ?? 0, waitedMs);
          wait.onWait?.(id, waitedMs);
        },
      });
      if (lock.kind === 'busy') destination.refusal = lockHeld(wait.waitMs);
      if (destination.waitedMs !== undefined) destination.waitedMs = Date.now() - started;
    } catch (error: unknown) {
      destination.refusal = toRefusal(error, () => refuseDistributor('destination_unreachable'));
    }
  }
}

/**
 * A destination whose lock another run held, with what to do: after a
 * `--wait` that ran out, not to pass the flag the run already passed.
 */
function lockHeld(waitMs: number): Refusal {
  const hint =
    waitMs > 0
      ? `another run held its lock through this run's --wait (${Math.ceil(waitMs / 1000)} s): run again once that run is done, or with a longer --wait`
      : 'another run holds its lock: run again once that run is done, or pass --wait SECONDS to wait for it';
  return refuseDistributor('destination_locked', { role: 'destination', hint });
}

/**
 * A lock a dry run found held: under `--wait` it does not wait (it takes no
 * lock), and the advice is not to pass the flag already given.
 */
function lockSeenHeld(waitMs: number): Refusal {
  if (waitMs === 0) return lockHeld(0);
  return refuseDistributor('destination_locked', {
    role: 'destination',
    hint: `another run holds its lock; a dry run does not wait for it, and a real run with this --wait would wait up to ${Math.ceil(waitMs / 1000)} s before refusing it`,
  });
}

/**
 * The dry run's counterpart of `lockAll`: asks each destination what taking
 * its lock would meet, taking nothing and writing nothing, and refuses it as
 * the run would — `destination_locked` while another run holds it,
 * `destination_write_failed` when its work area cannot be made.
 */
export async function peekAll(destinations: readonly OpenDestination[], waitMs = 0): Promise<void> {
  for (const destination of destinations) {
    const backend = destination.backend;
    if (backend?.peekLock === undefined || destination.refusal !== undefined) continue;
    try {
      if ((await backend.peekLock({ waitMs })).kind === 'busy') destination.refusal = lockSeenHeld(waitMs);
    } catch (error: unknown) {
      destination.refusal = toRefusal(error, () => refuseDistributor('destination_unreachable'));
    }
  }
}

/**
 * What the planner sees of one bundle path at one destination, and the
 * refusal behind a `refused` view: it keeps its cause (a missing root, a
 * link on the way), which a dry run reports as a real run does.
 */
export async function inspectDestination(
  destination: OpenDestination,
  dir: BundleDir,
  signal?: AbortSignal,
  fresh = false,
  beforeReplacing = false,
): Promise<{ readonly view: SnapshotView; readonly refusal?: Refusal }> {
  if (destination.refusal !== undefined || destination.backend === undefined) {
    const refusal = destination.refusal;
    return {
      view: {
        kind: 'refused',
        reason_code: refusal === undefined ? 'backend_unavailable' : reasonCodeOf(refusal),
      },
      ...(refusal === undefined ? {} : { refusal }),
    };
  }
  let snapshot: DestinationSnapshot;
  try {
    snapshot = await destination.backend.inspect(dir, {
      ...(signal === undefined ? {} : { signal }),
      fresh,
      ...(destination.checksum === true ? { checksum: true } : {}),
      ...(beforeReplacing ? { checksum: true, unreadableBySize: true } : {}),
    });
  } catch (error: unknown) {
    const refusal = toRefusal(error, () => refuseDistributor('destination_unreachable'));
    return { view: { kind: 'refused', reason_code: reasonCodeOf(refusal) }, refusal };
  }
  if (snapshot.kind === 'invalid')
    return {
      view: {
        kind: 'refused',
        reason_code: reasonCodeOf(snapshot.refusal),
        ...(snapshot.entryPath === undefined ? {} : { entry_path: snapshot.entryPath }),
      },
      refusal: snapshot.refusal,
    };
  if (snapshot.kind === 'unmanaged') return { view: snapshot };
  const { unwritable, ...rest } = snapshot;
  return unwritable === undefined
    ? { view: rest }
    : { view: { ...rest, unwritable: reasonCodeOf(unwritable) }, refusal: unwritable };
}

export async function closeDestinations(destinations: readonly OpenDestination[]): Promise<void> {
  for (const destination of destinations) {
    try {
      await destination.backend?.close();
    } catch {
      // Leftovers in a work area are swept by the next run.
    }
  }
}
