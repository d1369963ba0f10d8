import { prestartHashThreads } from '../../core/digest/index.js';
import { nearest, refuseAll, toRefusal } from '../../core/refusal/index.js';
import type {
  AppliedOutcome,
  BackendFactory,
  BackendOpenContext,
  BatchWrite,
  DestinationBackend,
  OutputSource,
  Step,
} from '../backend.js';
import { type BackendRegistry, backendRegistry } from '../backends/registry.js';
import type { DistributorConfig, PipelineConfig, S3DestinationConfig } from '../config/types.js';
import { instantOf } from '../model/instant.js';
import { planRun } from '../plan/plan-run.js';
import type { PlanItem, PlannedWrite } from '../plan/types.js';
import { reasonCodeOf, refuseDistributor } from '../refusals.js';
import { BundleSnapshot } from '../validate/snapshot.js';
import { destinationWriteFailed } from '../write-failure.js';
import {
  closeDestinations,
  lockAll,
  type OpenDestination,
  openDestination,
  peekAll,
} from './destinations.js';
import { loadConfig } from './load-config.js';
import { retryLostRaces } from './lost-races.js';
import { askOutsideLinks } from './outside-links.js';
import { overlapRefusals, placeDestinations, sourceOverlapRefusals } from './overlap.js';
import {
  buildReport,
  type ItemOutcome,
  locateReport,
  predictedOutcome,
  type RunReport,
  type UncheckedByDryRun,
} from './report.js';
import {
  closeSources,
  inspectAll,
  planInput,
  readManifests,
  type SourceBundle,
  type SourcePipeline,
  stopIfInterrupted,
  sweepKilledRunCopies,
  type TemporaryArea,
  verifyAll,
} from './sources.js';

export interface ProgressEvent {
  /**
   * `wait`: waiting for a destination's lock (`done`/`total` in seconds; see
   * `waitMs`); `inspect`: bundle paths read at one destination; `validate`:
   * bundles verified; `apply`: planned writes finished (committed or refused).
   */
  readonly phase: 'wait' | 'inspect' | 'validate' | 'apply';
  readonly done: number;
  readonly total: number;
  /**
   * The destination the run is working with: the one waited for (`wait`),
   * inspected (`inspect`) or written to (`apply`). Absent for `validate`,
   * and for `apply` once every write is done.
   */
  readonly destination_id?: string;
  /**
   * `apply` only: output bytes of the planned writes, in all (`bytes_total`)
   * and as far as sent (`bytes_done`): a finished write counts in full, one
   * in progress by what it has sent (S3 uploads tell; a local batch counts
   * when it commits). An event that only moves `bytes_done` comes at most
   * every `BYTES_PROGRESS_MS`.
   */
  readonly bytes_done?: number;
  readonly bytes_total?: number;
}

/** The least time between two `apply` events that only say more bytes were sent. */
export const BYTES_PROGRESS_MS = 250;

export interface DistributeRunOptions {
  /** Configuration file; default `sealkit.distributor.yaml` in the working directory. Ignored with `config`. */
  readonly configPath?: string;
  /** An already parsed configuration (library use). */
  readonly config?: DistributorConfig;
  /** Run only this pipeline. */
  readonly pipeline?: string;
  /** Validate, inspect and plan; write nothing. */
  readonly dryRun?: boolean;
  /**
   * Compare the outputs a destination's state lists by content, not only by
   * size (`--checksum`): every output of the recorded size is read and
   * hashed at inspection, and one whose SHA-256 differs makes the bundle
   * `destination_incomplete` (docs/distributor.md#comparing-by-content---checksum).
   */
  readonly checksum?: boolean;
  /**
   * How long to wait for a local destination's lock that another run holds
   * (milliseconds, one deadline for the whole run); default 0: refuse at once
   * with `destination_locked`.
   */
  readonly waitMs?: number;
  /** The clock stamped into `published_at`. */
  readonly now?: () => Date;
  /**
   * Test hook: called before every mutating step at a destination (and in the
   * work area). Throwing injects a failure at that step. Production callers
   * leave it out.
   */
  readonly beforeStep?: (step: Step) => void;
  /**
   * Test hook: the factory of a destination kind to use instead of the
   * built-in one (docs/distributor.md#library-api); the other kinds stay
   * built in.
   */
  readonly backends?: Partial<BackendRegistry>;
  /** The S3 backend; default the built-in one. The same as `backends: { s3 }`, and wins over it. */
  readonly s3Backend?: BackendFactory<S3DestinationConfig>;
  readonly onProgress?: (event: ProgressEvent) => void;
  /**
   * Interrupts the run (the CLI aborts it on SIGINT and SIGTERM): no new
   * bundle write starts, writes in flight are aborted or finished by their
   * backend, every bundle not committed is reported `run_interrupted`, and
   * the run's temporary copies are removed as usual.
   */
  readonly signal?: AbortSignal;
  /**
   * Bundles of one batch written at once at an S3 destination (default
   * `DEFAULT_TRANSFERS`), each with its own marker, outputs and state; the
   * writes of one bundle stay in order. Local destinations are written in
   * group commits, one batch at a time.
   */
  readonly transfers?: number;
}

/**
 * Bundles in flight at once unless `--transfers` says otherwise: chosen by
 * the benchmark of 100 one-MiB bundles to radosgw (docs/performance.md).
 */
export const DEFAULT_TRANSFERS = 16;
/** The most `--transfers` accepts. */
export const MAX_TRANSFERS = 64;

/**
 * `sealkit distribute run`. Phases: lock → discover and read every manifest
 * → inspect every destination path → verify every byte of every bundle (into
 * the snapshot only where a write is coming) → plan (pure) → apply → report.
 * Every bundle of the run is verified before any bundle path is written.
 * Configuration problems are thrown as refusals; everything after that is
 * reported per (bundle, destination).
 */
export async function distributeRun(options: DistributeRunOptions = {}): Promise<RunReport> {
  const config = options.config ?? (await loadConfig(options.configPath));
  const selected = selectPipelines(config, options.pipeline);
  // Destinations publishing to one place are a configuration error, refused
  // before anything is opened for writing (every pipeline of the file counts:
  // cron jobs often run its pipelines one at a time).
  const placed = placeDestinations(config);
  // In file order, as every other configuration refusal: the first printed is the first to fix.
  const overlaps = [...overlapRefusals(placed), ...sourceOverlapRefusals(config, placed)].sort(
    (a, b) =>
      (a.location?.line ?? 0) - (b.location?.line ?? 0) ||
      (a.location?.column ?? 0) - (b.location?.column ?? 0),
  );
  if (overlaps.length > 0) throw refuseAll(overlaps);
  // Up by the time the first file is hashed, instead of making it wait
  // (docs/performance.md, "Hashing during inspection").
  prestartHashThreads();
  const dryRun = options.dryRun === true;
  const beforeStep = options.beforeStep ?? (() => {});
  const context: BackendOpenContext = { beforeStep };
  const registry = backendRegistry({
    ...options.backends,
    ...(options.s3Backend === undefined ? {} : { s3: options.s3Backend }),
  });
  const opened = selected.map((pipeline) =>
    pipeline.destinations.map((d) => openDestination(d, registry, context, options.checksum === true)),
  );
  const temporary: TemporaryArea = {};
  const pipelines: SourcePipeline[] = [];
  try {
    const signal = options.signal;
    // One deadline for the run's --wait: the locks, the bundles another run holds, the races it lost.
    const waitDeadline = Date.now() + (options.waitMs ?? 0);
    // A dry run takes no lock but asks whether it could: a held lock or a
    // work area that cannot be made refuses it as it would refuse the run.
    if (dryRun) await peekAll(opened.flat(), options.waitMs ?? 0);
    else {
      await lockForRun(opened.flat(), options);
      sweepKilledRunCopies();
    }
    await stopIfInterrupted(signal);
    for (const [index, pipeline] of selected.entries())
      pipelines.push(readManifests(pipeline, opened[index] ?? []));
    await stopIfInterrupted(signal);
    for (const pipeline of pipelines)
      await inspectAll(pipeline, {
        signal,
        onProgress: (done, total, destinationId) =>
          options.onProgress?.({ phase: 'inspect', done, total, destination_id: destinationId }),
      });
    for (const [index, pipeline] of pipelines.entries()) {
      const aborted = pipelines.some((p) => p.failures.length > 0);
      await verifyAll(pipeline, index, {
        hashOnly: dryRun || aborted,
        beforeStep,
        temporary,
        onProgress: (done, total) => options.onProgress?.({ phase: 'validate', done, total }),
        signal,
      });
    }
    await stopIfInterrupted(signal);
    // Reads only; an aborted run writes nothing, so its links are not asked about.
    const outside = pipelines.some((pipeline) => pipeline.failures.length > 0)
      ? []
      : await askOutsideLinks(pipelines, signal);
    await stopIfInterrupted(signal);
    const plan = planRun(
      pipelines.map((pipeline, index) => planInput(pipeline, outside[index])),
      options.checksum === true ? 'sha256' : 'size',
    );
    if (dryRun || plan.aborted) {
      const predicted = withWriteFailures(plan.items.map(predictedOutcome), pipelines);
      const report = locateReport(buildReport(plan, predicted, dryRun), selected);
      if (!dryRun) return withWaits(report, selected, opened);
      // A real run that plans no write probes nothing either.
      const unchecked = plan.aborted ? [] : await dryRunCaveats(plan.items, pipelines, signal);
      await stopIfInterrupted(signal);
      return { ...report, unchecked };
    }
    const applied = await applyPlan(plan.items, pipelines, options);
    const settled = await retryLostRaces(
      plan,
      applied,
      pipelines,
      { deadline: waitDeadline, signal },
      (items) => applyPlan(items, pipelines, options),
      outside,
    );
    const outcomes = withWriteFailures(settled.outcomes, pipelines);
    return withWaits(locateReport(buildReport(settled.plan, outcomes, false), selected), selected, opened);
  } finally {
    closeSources(pipelines, temporary);
    await closeDestinations(opened.flat());
  }
}

/** The report with the waits for other runs' locks, pipeline by pipeline, when there were any. */
function withWaits(
  report: RunReport,
  selected: readonly PipelineConfig[],
  opened: readonly (readonly OpenDestination[])[],
): RunReport {
  const waited = selected.flatMap((pipeline, index) =>
    (opened[index] ?? []).flatMap((destination) =>
      destination.waitedMs === undefined
        ? []
        : [
            {
              pipeline_id: pipeline.id,
              destination_id: destination.config.id,
              waited_ms: destination.waitedMs,
            },
          ],
    ),
  );
  return waited.length === 0 ? report : { ...report, waited };
}

/**
 * What the dry run leaves unchecked at each destination it plans a write
 * to, as its backend says with read-only requests (S3: the probe of
 * conditional writes, with the bucket's versioning).
 */
async function dryRunCaveats(
  items: readonly PlanItem[],
  pipelines: readonly SourcePipeline[],
  signal: AbortSignal | undefined,
): Promise<UncheckedByDryRun[]> {
  const unchecked: UncheckedByDryRun[] = [];
  for (const pipeline of pipelines) {
    for (const destination of pipeline.destinations) {
      const backend = destination.backend;
      if (backend?.dryRunCaveats === undefined || destination.refusal !== undefined) continue;
      const writes = items.some(
        (item) =>
          item.pipeline_id === pipeline.config.id &&
          item.destination_id === destination.config.id &&
          (item.outcome === 'published' || item.outcome === 'replaced'),
      );
      if (!writes) continue;
      const caveats = await backend.dryRunCaveats(signal === undefined ? {} : { signal });
      for (const caveat of caveats)
        unchecked.push({ pipeline_id: pipeline.config.id, destination_id: destination.config.id, ...caveat });
    }
  }
  return unchecked;
}

/** The pipelines the run covers: all, or the one named; refused when that leaves none. */
function selectPipelines(config: DistributorConfig, name: string | undefined): readonly PipelineConfig[] {
  const selected = name === undefined ? config.pipelines : config.pipelines.filter((p) => p.id === name);
  if (selected.length > 0) return selected;
  const path = config.pipelines[0]?.origin?.path;
  const near = nearest(
    name ?? '',
    config.pipelines.map((p) => p.id),
  );
  throw refuseDistributor('pipeline_not_found', {
    role: 'config',
    ...(path === undefined ? {} : { location: { path } }),
    hint:
      near === undefined
        ? `the configuration has: ${config.pipelines.map((p) => p.id).join(', ')}`
        : `did you mean '${near}'?`,
  });
}

/** Takes every destination's lock, reporting each second waited for one another run holds. */
async function lockForRun(
  destinations: readonly OpenDestination[],
  options: DistributeRunOptions,
): Promise<void> {
  const waitMs = options.waitMs ?? 0;
  await lockAll(destinations, {
    waitMs,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    onWait: (destinationId, waited) =>
      options.onProgress?.({
        phase: 'wait',
        done: Math.floor(waited / 1000),
        total: Math.ceil(waitMs / 1000),
        destination_id: destinationId,
      }),
  });
}

/**
 * Bounds of one group commit at a local destination: how many bundles, and
 * how many output bytes, are staged before one flush makes them durable
 * (docs/performance.md, "Group commit"). A crash loses at most one batch's
 * work, never a bundle's integrity.
 */
export const BATCH_LIMITS = { maxWrites: 256, maxBytes: 256 * 1024 * 1024 } as const;

async function applyPlan(
  items: readonly PlanItem[],
  pipelines: readonly SourcePipeline[],
  options: DistributeRunOptions,
): Promise<ItemOutcome[]> {
  const byPipeline = new Map(pipelines.map((pipeline) => [pipeline.config.id, pipeline]));
  const outcomes = new Map<PlanItem, ItemOutcome>();
  const writes = items.filter(
    (item): item is PlannedWrite => item.outcome === 'published' || item.outcome === 'replaced',
  );
  const now = instantOf((options.now ?? (() => new Date()))());
  const beforeStep = options.beforeStep ?? (() => {});
  const batches = batchesOf(orderForBatches(writes, pipelines), byPipeline);
  let done = 0;
  const signal = options.signal;
  const transfers = Math.max(1, Math.min(options.transfers ?? DEFAULT_TRANSFERS, MAX_TRANSFERS));
  const bytes = new SentBytes(writes);
  for (const batch of batches) {
    const destinationId = batch[0]?.destination_id;
    const progress = (): void =>
      options.onProgress?.({
        phase: 'apply',
        done,
        total: writes.length,
        ...(destinationId === undefined ? {} : { destination_id: destinationId }),
        bytes_done: bytes.done(),
        bytes_total: bytes.total,
      });
    progress();
    const before = done;
    // A signal that came while the last batch was committed is delivered here, before the next.
    if (signal !== undefined) await new Promise<void>((resolve) => setImmediate(resolve));
    // Bundles written one by one (S3) are counted as each finishes; a group
    // commit (local) finishes its whole batch at once.
    const onFinished = (write: PlannedWrite): void => {
      done += 1;
      bytes.finished(write);
      progress();
    };
    // Bytes on their way: said at most every BYTES_PROGRESS_MS, and the last
    // of them too (a timer), so the count never stops short of what was sent.
    let toldAt = 0;
    let trailing: ReturnType<typeof setTimeout> | undefined;
    const tellBytes = (): void => {
      trailing = undefined;
      toldAt = performance.now();
      progress();
    };
    const onSent = (write: PlannedWrite, sent: number): void => {
      bytes.sent(write, sent);
      if (trailing !== undefined) return;
      const wait = BYTES_PROGRESS_MS - (performance.now() - toldAt);
      if (wait <= 0) tellBytes();
      else trailing = setTimeout(tellBytes, wait);
    };
    const results =
      signal?.aborted === true
        ? batch.map(interruptedOutcome)
        : await applyBatch(batch, byPipeline, now, beforeStep, { signal, transfers, onFinished, onSent });
    clearTimeout(trailing);
    for (const [index, write] of batch.entries()) {
      const result = results[index];
      if (result !== undefined) outcomes.set(write, result);
      bytes.finished(write);
    }
    done = before + batch.length;
  }
  options.onProgress?.({
    phase: 'apply',
    done: writes.length,
    total: writes.length,
    bytes_done: bytes.total,
    bytes_total: bytes.total,
  });
  return items.map((item) => outcomes.get(item) ?? predictedOutcome(item));
}

function backendOf(
  write: PlannedWrite,
  pipelines: ReadonlyMap<string, SourcePipeline>,
): DestinationBackend | undefined {
  return pipelines.get(write.pipeline_id)?.destinations.find((d) => d.config.id === write.destination_id)
    ?.backend;
}

/**
 * The order writes are applied in: pipeline by pipeline; within one, every
 * write to a destination that does not hold the snapshot first, then the
 * snapshot's owner (it may move snapshot files instead of copying them, so
 * it goes after every other destination of each bundle); destination by
 * destination, each in plan order, so one destination's writes are
 * consecutive and can be committed as groups.
 */
function orderForBatches(
  writes: readonly PlannedWrite[],
  pipelines: readonly SourcePipeline[],
): PlannedWrite[] {
  const pipelineIndex = new Map(pipelines.map((pipeline, index) => [pipeline.config.id, index]));
  const rank = (write: PlannedWrite): readonly number[] => {
    const pipeline = pipelines[pipelineIndex.get(write.pipeline_id) ?? -1];
    const destination = pipeline?.destinations.findIndex((d) => d.config.id === write.destination_id) ?? -1;
    const backend = pipeline?.destinations[destination]?.backend;
    // The destination whose work area holds this bundle's snapshot (a bundle
    // whose copy moved elsewhere after a failed write has another owner).
    const holder = pipeline?.bundles.find((bundle) => bundle.dir === write.bundle_dir)?.store?.owner;
    const owner = holder !== undefined && backend === holder;
    return [pipelineIndex.get(write.pipeline_id) ?? -1, Number(owner), destination];
  };
  return writes
    .map((write, index) => ({ write, index, rank: rank(write) }))
    .sort((a, b) => {
      for (let k = 0; k < a.rank.length; k += 1) {
        const difference = (a.rank[k] ?? 0) - (b.rank[k] ?? 0);
        if (difference !== 0) return difference;
      }
      return a.index - b.index;
    })
    .map((entry) => entry.write);
}

/** Consecutive writes to one backend that commits groups, cut at `BATCH_LIMITS`; others one by one. */
function batchesOf(
  ordered: readonly PlannedWrite[],
  pipelines: ReadonlyMap<string, SourcePipeline>,
): PlannedWrite[][] {
  const batches: PlannedWrite[][] = [];
  let current: PlannedWrite[] = [];
  let bytes = 0;
  let backend: DestinationBackend | undefined;
  for (const write of ordered) {
    const next = backendOf(write, pipelines);
    const size = write.outputs.reduce((sum, output) => sum + output.size, 0);
    const fits =
      current.length > 0 &&
      next === backend &&
      (next?.applyBatch !== undefined || next?.kind === 's3') &&
      current.length < BATCH_LIMITS.maxWrites &&
      bytes + size <= BATCH_LIMITS.maxBytes;
    if (!fits) {
      if (current.length > 0) batches.push(current);
      current = [];
      bytes = 0;
      backend = next;
    }
    current.push(write);
    bytes += size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

/** One batch of writes to one backend; one outcome per write, in order. */
async function applyBatch(
  batch: readonly PlannedWrite[],
  pipelines: ReadonlyMap<string, SourcePipeline>,
  now: ReturnType<typeof instantOf>,
  beforeStep: (step: Step) => void,
  run: RunControl,
): Promise<ItemOutcome[]> {
  const outcomes: ItemOutcome[] = [];
  const opened: BundleSnapshot[] = [];
  const ready: { readonly position: number; readonly head: ItemOutcome; readonly write: BatchWrite }[] = [];
  const backend = batch[0] === undefined ? undefined : backendOf(batch[0], pipelines);
  try {
    for (const [position, write] of batch.entries()) {
      const { outputs: _outputs, ...head } = predictedOutcome(write);
      const pipeline = pipelines.get(write.pipeline_id);
      const bundle = pipeline?.bundles.find((one) => one.dir === write.bundle_dir);
      const store = bundle?.store;
      if (store === undefined || backend === undefined || bundle?.snapshotIndex === undefined) {
        outcomes.push({ ...head, outcome: 'refused', reason_code: 'destination_unreachable' });
        continue;
      }
      try {
        const snapshot = store.snapshot.reopen(bundle.snapshotIndex);
        opened.push(snapshot);
        ready.push({
          position,
          head,
          write: { write, source: outputSource(snapshot, bundle, store.owner === backend) },
        });
        outcomes.push({ ...head, outcome: 'refused', reason_code: 'destination_write_failed' });
      } catch (error: unknown) {
        const refusal = failed(error);
        outcomes.push({ ...head, outcome: 'refused', reason_code: reasonCodeOf(refusal), refusal });
      }
    }
    if (backend === undefined || ready.length === 0) return outcomes;
    let applied: readonly AppliedOutcome[];
    try {
      applied =
        backend.applyBatch !== undefined
          ? await backend.applyBatch(
              ready.map((one) => one.write),
              { now, beforeStep, ...(run.signal === undefined ? {} : { signal: run.signal }) },
            )
          : await applyEach(backend, ready, now, beforeStep, run);
    } catch (error: unknown) {
      const refusal = failed(error);
      applied = ready.map(() => ({ outcome: 'refused', refusal }));
    }
    for (const [index, { position, head }] of ready.entries()) {
      const result = applied[index];
      if (result === undefined) continue;
      outcomes[position] =
        result.outcome === 'refused'
          ? {
              ...head,
              outcome: 'refused',
              reason_code: reasonCodeOf(result.refusal),
              refusal: result.refusal,
            }
          : { ...head, outcome: result.outcome, outputs: result.outputs.length };
    }
    return outcomes;
  } finally {
    for (const snapshot of opened) snapshot.close();
  }
}

/** The run's interruption and how many bundles an object store may take at once. */
interface RunControl {
  readonly signal: AbortSignal | undefined;
  readonly transfers: number;
  /** Called as each write applied one by one finishes (committed or refused), for progress. */
  readonly onFinished?: (write: PlannedWrite) => void;
  /** Told the output bytes a write sent (`ApplyContext.onSent`), for progress. */
  readonly onSent?: (write: PlannedWrite, bytes: number) => void;
}

/** Output bytes of a run's planned writes: finished writes in full, the others as far as sent. */
class SentBytes {
  readonly total: number;
  readonly #planned = new Map<PlannedWrite, number>();
  readonly #sent = new Map<PlannedWrite, number>();
  #finished = 0;

  constructor(writes: readonly PlannedWrite[]) {
    let total = 0;
    for (const write of writes) {
      const size = write.outputs.reduce((sum, output) => sum + output.size, 0);
      this.#planned.set(write, size);
      total += size;
    }
    this.total = total;
  }

  sent(write: PlannedWrite, bytes: number): void {
    if (!this.#planned.has(write)) return;
    const planned = this.#planned.get(write) ?? 0;
    this.#sent.set(write, Math.min(planned, Math.max(0, (this.#sent.get(write) ?? 0) + bytes)));
  }

  /** The write is done (committed or refused): its bytes count in full, once. */
  finished(write: PlannedWrite): void {
    const planned = this.#planned.get(write);
    if (planned === undefined) return;
    this.#planned.delete(write);
    this.#sent.delete(write);
    this.#finished += planned;
  }

  done(): number {
    let moving = 0;
    for (const bytes of this.#sent.values()) moving += bytes;
    return this.#finished + moving;
  }
}

/**
 * One write after another, or for an object store (S3) up to `transfers` at
 * once: each bundle there has its own prefix, marker and state. No write
 * starts once the run is interrupted.
 */
async function applyEach(
  backend: DestinationBackend,
  ready: readonly { readonly write: BatchWrite }[],
  now: ReturnType<typeof instantOf>,
  beforeStep: (step: Step) => void,
  run: RunControl,
): Promise<AppliedOutcome[]> {
  const applied: AppliedOutcome[] = new Array<AppliedOutcome>(ready.length);
  const context = { now, beforeStep, ...(run.signal === undefined ? {} : { signal: run.signal }) };
  const one = async (index: number): Promise<void> => {
    const write = ready[index]?.write;
    if (write === undefined) return;
    if (run.signal?.aborted === true) {
      applied[index] = { outcome: 'refused', refusal: refuseDistributor('run_interrupted') };
      return;
    }
    try {
      const onSent = run.onSent;
      applied[index] = await backend.apply(
        write.write,
        write.source,
        onSent === undefined ? context : { ...context, onSent: (bytes) => onSent(write.write, bytes) },
      );
    } catch (error: unknown) {
      applied[index] = { outcome: 'refused', refusal: failed(error) };
    }
    run.onFinished?.(write.write);
  };
  const limit = backend.kind === 's3' ? run.transfers : 1;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < ready.length) {
      const index = next;
      next += 1;
      await one(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, Math.max(ready.length, 1)) }, worker));
  return applied;
}

function interruptedOutcome(write: PlannedWrite): ItemOutcome {
  const { outputs: _outputs, ...head } = predictedOutcome(write);
  return { ...head, outcome: 'refused', reason_code: 'run_interrupted' };
}

const failed = (error: unknown) => toRefusal(error, () => destinationWriteFailed(error));

/**
 * The refusal a destination gave for an item before apply — its storage
 * failed while the run kept the bundle's snapshot there, or the destination
 * could not be opened, locked or inspected — so the report says why (the cause in its
 * hint), as for a failure during apply.
 */
function withWriteFailures(
  outcomes: readonly ItemOutcome[],
  pipelines: readonly SourcePipeline[],
): ItemOutcome[] {
  const byPipeline = new Map(pipelines.map((pipeline) => [pipeline.config.id, pipeline]));
  return outcomes.map((item) => {
    if (item.outcome !== 'refused' || item.refusal !== undefined) return item;
    const pipeline = byPipeline.get(item.pipeline_id);
    const bundle = pipeline?.bundles.find((b) => b.dir === item.bundle_dir);
    const refusal =
      bundle?.writeFailures.get(item.destination_id) ??
      pipeline?.destinations.find((destination) => destination.config.id === item.destination_id)?.refusal ??
      bundle?.inspectRefusals.get(item.destination_id);
    return refusal === undefined || refusal.code !== item.reason_code ? item : { ...item, refusal };
  });
}

function outputSource(snapshot: BundleSnapshot, bundle: SourceBundle, mayTake: boolean): OutputSource {
  const nameOf = (output: {
    readonly kind: string;
    readonly source_index: number;
    readonly sha256: string;
  }): string =>
    output.kind === 'source'
      ? BundleSnapshot.copyName(output.source_index)
      : BundleSnapshot.pageName(output.source_index, output.sha256.slice('sha256:'.length));
  const open: OutputSource['open'] = (output) => snapshot.read(nameOf(output));
  const digest: OutputSource['digest'] = (output) => snapshot.digest(nameOf(output), output.size);
  if (!mayTake) return { open, digest };
  const take: OutputSource['take'] = (output) => ({ dir: snapshot.dir, name: nameOf(output) });
  const location = snapshot.location;
  if (location === undefined) return { open, digest, take };
  // Each snapshot file once: pages of two languages can be the same file
  // (front matter that names the page's language), left over only once.
  const names = [
    ...new Set([
      ...bundle.manifest.files.map((_, index) => BundleSnapshot.copyName(index)),
      ...bundle.pages.map((page) =>
        BundleSnapshot.pageName(page.source_index, page.sha256.slice('sha256:'.length)),
      ),
    ]),
  ];
  return {
    open,
    digest,
    take,
    takeDir: () => ({ dir: snapshot.dir, parent: location.parent, name: location.name, names }),
  };
}
