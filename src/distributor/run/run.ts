import { nearest, refuseAll, toRefusal } from '../../core/refusal/index.js';
import type {
  BackendFactory,
  BackendOpenContext,
  DestinationBackend,
  OutputSource,
  Step,
} from '../backend.js';
import { LocalBackends } from '../backends/local/index.js';
import { builtinS3Factory } from '../backends/registry.js';
import type { DistributorConfig, S3DestinationConfig } from '../config/types.js';
import { instantOf } from '../model/instant.js';
import { planRun } from '../plan/plan-run.js';
import type { PlanItem, PlannedWrite } from '../plan/types.js';
import { reasonCodeOf, refuseDistributor } from '../refusals.js';
import { BundleSnapshot } from '../validate/snapshot.js';
import { destinationWriteFailed } from '../write-failure.js';
import { closeAll, lockAll, openDestination } from './destinations.js';
import { loadConfig } from './load-config.js';
import { overlapRefusals, placeDestinations } from './overlap.js';
import { buildReport, type ItemOutcome, locateReport, predictedOutcome, type RunReport } from './report.js';
import {
  closeSources,
  inspectAll,
  planInput,
  readManifests,
  type SourcePipeline,
  verifyAll,
} from './sources.js';

export interface ProgressEvent {
  /** `wait`: waiting for a destination's lock (`done`/`total` in seconds; see `waitMs`). */
  readonly phase: 'wait' | 'validate' | 'apply';
  readonly done: number;
  readonly total: number;
  /** The destination waited for (`wait` only). */
  readonly destination_id?: string;
}

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
  /** The S3 backend; default the built-in one. */
  readonly s3Backend?: BackendFactory<S3DestinationConfig>;
  readonly onProgress?: (event: ProgressEvent) => void;
}

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
  const selected =
    options.pipeline === undefined
      ? config.pipelines
      : config.pipelines.filter((p) => p.id === options.pipeline);
  if (selected.length === 0) {
    const path = config.pipelines[0]?.origin?.path;
    const near = nearest(
      options.pipeline ?? '',
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
  // Destinations publishing to one place are a configuration error, refused
  // before anything is opened for writing (every pipeline of the file counts:
  // cron jobs often run its pipelines one at a time).
  const overlaps = overlapRefusals(placeDestinations(config));
  if (overlaps.length > 0) throw refuseAll(overlaps);
  const dryRun = options.dryRun === true;
  const beforeStep = options.beforeStep ?? (() => {});
  const context: BackendOpenContext = { beforeStep };
  const locals = new LocalBackends();
  const s3Factory = options.s3Backend ?? builtinS3Factory;
  const opened = selected.map((pipeline) =>
    pipeline.destinations.map((d) => openDestination(d, locals, s3Factory, context)),
  );
  const temporary: { path?: string } = {};
  const pipelines: SourcePipeline[] = [];
  try {
    if (!dryRun) {
      const waitMs = options.waitMs ?? 0;
      await lockAll(opened.flat(), {
        waitMs,
        onWait: (destinationId, waited) =>
          options.onProgress?.({
            phase: 'wait',
            done: Math.floor(waited / 1000),
            total: Math.ceil(waitMs / 1000),
            destination_id: destinationId,
          }),
      });
    }
    for (const [index, pipeline] of selected.entries())
      pipelines.push(readManifests(pipeline, opened[index] ?? []));
    for (const pipeline of pipelines) await inspectAll(pipeline);
    for (const [index, pipeline] of pipelines.entries()) {
      const aborted = pipelines.some((p) => p.failures.length > 0);
      verifyAll(pipeline, index, {
        hashOnly: dryRun || aborted,
        beforeStep,
        temporary,
        onProgress: (done, total) => options.onProgress?.({ phase: 'validate', done, total }),
      });
    }
    const plan = planRun(pipelines.map(planInput));
    if (dryRun || plan.aborted) {
      const predicted = withWriteFailures(plan.items.map(predictedOutcome), pipelines);
      return locateReport(buildReport(plan, predicted, dryRun), selected);
    }
    const outcomes = withWriteFailures(await applyPlan(plan.items, pipelines, options), pipelines);
    return locateReport(buildReport(plan, outcomes, false), selected);
  } finally {
    closeSources(pipelines, temporary);
    await closeAll(opened.flat());
  }
}

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
  const ordered = orderOwnersLast(writes, byPipeline);
  const now = instantOf((options.now ?? (() => new Date()))());
  const beforeStep = options.beforeStep ?? (() => {});
  for (const [index, write] of ordered.entries()) {
    options.onProgress?.({ phase: 'apply', done: index, total: ordered.length });
    outcomes.set(write, await applyOne(write, byPipeline.get(write.pipeline_id), now, beforeStep));
  }
  options.onProgress?.({ phase: 'apply', done: ordered.length, total: ordered.length });
  return items.map((item) => outcomes.get(item) ?? predictedOutcome(item));
}

async function applyOne(
  write: PlannedWrite,
  pipeline: SourcePipeline | undefined,
  now: ReturnType<typeof instantOf>,
  beforeStep: (step: Step) => void,
): Promise<ItemOutcome> {
  const { outputs: _outputs, ...head } = predictedOutcome(write);
  const backend = pipeline?.destinations.find((d) => d.config.id === write.destination_id)?.backend;
  const bundle = pipeline?.bundles.find((candidate) => candidate.dir === write.bundle_dir);
  const store = bundle?.store;
  const bundleIndex = bundle?.snapshotIndex;
  if (store === undefined || backend === undefined || bundleIndex === undefined) {
    return { ...head, outcome: 'refused', reason_code: 'destination_unreachable' };
  }
  let bundleSnapshot: BundleSnapshot | undefined;
  try {
    bundleSnapshot = store.snapshot.reopen(bundleIndex);
    const applied = await backend.apply(write, outputSource(bundleSnapshot, store.owner === backend), {
      now,
      beforeStep,
    });
    return applied.outcome === 'refused'
      ? { ...head, outcome: 'refused', reason_code: reasonCodeOf(applied.refusal), refusal: applied.refusal }
      : { ...head, outcome: applied.outcome, outputs: applied.outputs.length };
  } catch (error: unknown) {
    const refusal = toRefusal(error, () => destinationWriteFailed(error));
    return { ...head, outcome: 'refused', reason_code: reasonCodeOf(refusal), refusal };
  } finally {
    bundleSnapshot?.close();
  }
}

/** Per bundle, the destination holding the snapshot goes last: it may move snapshot files instead of copying. */
function orderOwnersLast(
  writes: readonly PlannedWrite[],
  pipelines: ReadonlyMap<string, SourcePipeline>,
): PlannedWrite[] {
  const isOwner = (write: PlannedWrite): boolean => {
    const pipeline = pipelines.get(write.pipeline_id);
    const backend: DestinationBackend | undefined = pipeline?.destinations.find(
      (d) => d.config.id === write.destination_id,
    )?.backend;
    const owner = pipeline?.bundles.find((bundle) => bundle.dir === write.bundle_dir)?.store?.owner;
    return owner !== undefined && backend === owner;
  };
  return writes
    .map((write, index) => ({ write, index, owner: isOwner(write) }))
    .sort((a, b) => {
      if (a.write.pipeline_id !== b.write.pipeline_id || a.write.bundle_dir !== b.write.bundle_dir) {
        return a.index - b.index;
      }
      return Number(a.owner) - Number(b.owner) || a.index - b.index;
    })
    .map((entry) => entry.write);
}

/**
 * The refusal a destination gave for an item before apply — its storage
 * failed while the run kept the bundle's snapshot there, or the destination
 * could not be opened or locked — so the report says why (the cause in its
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
    const refusal =
      pipeline?.bundles
        .find((bundle) => bundle.dir === item.bundle_dir)
        ?.writeFailures.get(item.destination_id) ??
      pipeline?.destinations.find((destination) => destination.config.id === item.destination_id)?.refusal;
    return refusal === undefined || refusal.code !== item.reason_code ? item : { ...item, refusal };
  });
}

function outputSource(snapshot: BundleSnapshot, mayTake: boolean): OutputSource {
  const nameOf = (output: { readonly kind: string; readonly source_index: number }): string =>
    output.kind === 'source'
      ? BundleSnapshot.copyName(output.source_index)
      : BundleSnapshot.pageName(output.source_index);
  const open: OutputSource['open'] = (output) => snapshot.read(nameOf(output));
  return mayTake ? { open, take: (output) => ({ dir: snapshot.dir, name: nameOf(output) }) } : { open };
}
