import { nearest, toRefusal } from '../../core/refusal/index.js';
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
import { closeAll, lockAll, openDestination } from './destinations.js';
import { loadConfig } from './load-config.js';
import { buildReport, type ItemOutcome, locateReport, predictedOutcome, type RunReport } from './report.js';
import {
  closeSources,
  inspectAll,
  planInput,
  readManifests,
  type SourcePipeline,
  type TemporaryArea,
  verifyAll,
} from './sources.js';

export interface ProgressEvent {
  readonly phase: 'validate' | 'apply';
  readonly done: number;
  readonly total: number;
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
  /**
   * Interrupts the run (the CLI aborts it on SIGINT and SIGTERM): no new
   * bundle write starts, writes in flight are aborted or finished by their
   * backend, every bundle not committed is reported `run_interrupted`, and
   * the run's temporary copies are removed as usual.
   */
  readonly signal?: AbortSignal;
  /**
   * Bundles written at once (default `DEFAULT_TRANSFERS`). The writes of one
   * bundle stay in order, and local destinations are written one bundle at a
   * time; S3 bundles overlap, each with its own marker, outputs and state.
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
  const dryRun = options.dryRun === true;
  const beforeStep = options.beforeStep ?? (() => {});
  const context: BackendOpenContext = { beforeStep };
  const locals = new LocalBackends();
  const s3Factory = options.s3Backend ?? builtinS3Factory;
  const opened = selected.map((pipeline) =>
    pipeline.destinations.map((d) => openDestination(d, locals, s3Factory, context)),
  );
  const temporary: TemporaryArea = {};
  const pipelines: SourcePipeline[] = [];
  try {
    if (!dryRun) await lockAll(opened.flat());
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
    if (dryRun || plan.aborted)
      return locateReport(buildReport(plan, plan.items.map(predictedOutcome), dryRun), selected);
    const outcomes = await applyPlan(plan.items, pipelines, options);
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
    (item): item is PlannedWrite => item.action === 'publish' || item.action === 'replace',
  );
  const ordered = orderOwnersLast(writes, byPipeline);
  const now = instantOf((options.now ?? (() => new Date()))());
  const beforeStep = options.beforeStep ?? (() => {});
  // One group per bundle, in plan order; a group's writes run in order (the snapshot owner last).
  const groups = new Map<string, PlannedWrite[]>();
  for (const write of ordered) {
    const key = `${write.pipeline_id}\u0000${write.bundle_dir}`;
    const group = groups.get(key) ?? [];
    group.push(write);
    groups.set(key, group);
  }
  const isLocal = (write: PlannedWrite): boolean =>
    byPipeline.get(write.pipeline_id)?.destinations.find((d) => d.config.id === write.destination_id)?.config
      .kind === 'local';
  let localQueue: Promise<unknown> = Promise.resolve();
  const one = async (write: PlannedWrite): Promise<ItemOutcome> => {
    if (options.signal?.aborted === true) {
      const { outputs: _outputs, ...head } = predictedOutcome(write);
      return { ...head, outcome: 'refused', reason_code: 'run_interrupted' };
    }
    return applyOne(write, byPipeline.get(write.pipeline_id), now, beforeStep, options.signal);
  };
  let done = 0;
  options.onProgress?.({ phase: 'apply', done, total: ordered.length });
  const runGroup = async (group: readonly PlannedWrite[]): Promise<void> => {
    for (const write of group) {
      let outcome: ItemOutcome;
      if (isLocal(write)) {
        // Local destinations share work areas and locks: one bundle at a time.
        const turn = localQueue.then(() => one(write));
        localQueue = turn.catch(() => undefined);
        outcome = await turn;
      } else {
        outcome = await one(write);
      }
      outcomes.set(write, outcome);
      done += 1;
      options.onProgress?.({ phase: 'apply', done, total: ordered.length });
    }
  };
  const limit = Math.max(1, Math.min(options.transfers ?? DEFAULT_TRANSFERS, MAX_TRANSFERS));
  const queue = [...groups.values()];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < queue.length) {
      const group = queue[next] as readonly PlannedWrite[];
      next += 1;
      await runGroup(group);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, Math.max(queue.length, 1)) }, worker));
  return items.map((item) => outcomes.get(item) ?? predictedOutcome(item));
}

async function applyOne(
  write: PlannedWrite,
  pipeline: SourcePipeline | undefined,
  now: ReturnType<typeof instantOf>,
  beforeStep: (step: Step) => void,
  signal: AbortSignal | undefined,
): Promise<ItemOutcome> {
  const { outputs: _outputs, ...head } = predictedOutcome(write);
  const backend = pipeline?.destinations.find((d) => d.config.id === write.destination_id)?.backend;
  const bundleIndex = pipeline?.bundles.find((bundle) => bundle.dir === write.bundle_dir)?.snapshotIndex;
  if (pipeline?.snapshot === undefined || backend === undefined || bundleIndex === undefined) {
    return { ...head, outcome: 'refused', reason_code: 'destination_unreachable' };
  }
  let bundleSnapshot: BundleSnapshot | undefined;
  try {
    bundleSnapshot = pipeline.snapshot.reopen(bundleIndex);
    const applied = await backend.apply(write, outputSource(bundleSnapshot, pipeline.owner === backend), {
      now,
      beforeStep,
      ...(signal === undefined ? {} : { signal }),
    });
    return applied.outcome === 'refused'
      ? { ...head, outcome: 'refused', reason_code: reasonCodeOf(applied.refusal) }
      : { ...head, outcome: applied.outcome, outputs: applied.outputs.length };
  } catch (error: unknown) {
    return {
      ...head,
      outcome: 'refused',
      reason_code: reasonCodeOf(toRefusal(error, () => refuseDistributor('destination_write_failed'))),
    };
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
    return pipeline?.owner !== undefined && backend === pipeline.owner;
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

function outputSource(snapshot: BundleSnapshot, mayTake: boolean): OutputSource {
  const nameOf = (output: { readonly kind: string; readonly source_index: number }): string =>
    output.kind === 'source'
      ? BundleSnapshot.copyName(output.source_index)
      : BundleSnapshot.pageName(output.source_index);
  const open: OutputSource['open'] = (output) => snapshot.read(nameOf(output));
  return mayTake ? { open, take: (output) => ({ dir: snapshot.dir, name: nameOf(output) }) } : { open };
}
