import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname } from 'node:path';
import { Dir } from '../../core/fs/index.js';
import { guardRefusals, Refusal } from '../../core/refusal/index.js';
import type {
  BackendFactory,
  BackendOpenContext,
  DestinationBackend,
  DestinationSnapshot,
  OutputSource,
  Step,
} from '../backend.js';
import { LocalBackends } from '../backends/local/index.js';
import { removeOwnTree } from '../backends/local/tree.js';
import { builtinS3Factory } from '../backends/registry.js';
import type {
  DestinationConfig,
  DistributorConfig,
  PipelineConfig,
  S3DestinationConfig,
} from '../config/types.js';
import { discoverBundles } from '../discover/discover.js';
import { instantOf } from '../model/instant.js';
import type { BundleDir } from '../model/types.js';
import type { SnapshotView } from '../plan/compare.js';
import { type PlanBundleInput, type PlanPipelineInput, planRun } from '../plan/plan-run.js';
import type { PlanItem, PlannedWrite } from '../plan/types.js';
import { refuseDistributor } from '../refusals.js';
import { BundleSnapshot, type SnapshotStep, SourceSnapshot } from '../validate/snapshot.js';
import { validateBundle } from '../validate/validate-bundle.js';
import { loadConfig } from './load-config.js';
import { buildReport, type ItemOutcome, predictedOutcome, type RunReport } from './report.js';

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
}

interface OpenDestination {
  readonly config: DestinationConfig;
  readonly backend: DestinationBackend | undefined;
  /** Why this destination cannot be used in this run (root unavailable, lock busy...). */
  refusal: Refusal | undefined;
}

interface ValidatedPipeline {
  readonly config: PipelineConfig;
  readonly destinations: readonly OpenDestination[];
  readonly input: PlanPipelineInput;
  /** The snapshot of the pipeline's bundles and each validated bundle's index in it. */
  readonly snapshot: SourceSnapshot | undefined;
  readonly snapshotIndex: ReadonlyMap<BundleDir, number>;
  readonly owner: DestinationBackend | undefined;
}

/**
 * `sealkit distribute run`: discover → validate (every bundle of the run,
 * before any destination write) → inspect → plan (pure) → apply → report.
 * Configuration problems are thrown as refusals; everything after that is
 * reported per (bundle, destination) in the returned report.
 */
export async function distributeRun(options: DistributeRunOptions = {}): Promise<RunReport> {
  const config = options.config ?? (await loadConfig(options.configPath));
  const selected =
    options.pipeline === undefined
      ? config.pipelines
      : config.pipelines.filter((p) => p.id === options.pipeline);
  if (selected.length === 0) throw refuseDistributor('pipeline_not_found', { role: 'config' });
  const dryRun = options.dryRun === true;
  const beforeStep = options.beforeStep ?? (() => {});
  const context: BackendOpenContext = { beforeStep };
  const locals = new LocalBackends();
  const s3Factory = options.s3Backend ?? builtinS3Factory;
  const opened = selected.map((pipeline) =>
    pipeline.destinations.map((d) => openDestination(d, locals, s3Factory, context)),
  );
  const temporary: { path?: string } = {};
  const snapshotsToClose: SourceSnapshot[] = [];
  try {
    if (!dryRun) await lockAll(opened.flat());
    const pipelines: ValidatedPipeline[] = [];
    let aborted = false;
    for (const [index, pipeline] of selected.entries()) {
      const destinations = opened[index] ?? [];
      const validated = validatePipeline(
        index,
        pipeline,
        destinations,
        dryRun || aborted,
        temporary,
        snapshotsToClose,
        options,
      );
      if (validated.input.failures.length > 0) aborted = true;
      pipelines.push(validated);
    }
    const inputs: PlanPipelineInput[] = [];
    for (const pipeline of pipelines) {
      const bundles: PlanBundleInput[] = [];
      for (const bundle of pipeline.input.bundles) {
        const views: SnapshotView[] = [];
        for (const destination of pipeline.destinations) views.push(await inspect(destination, bundle.dir));
        bundles.push({ ...bundle, views });
      }
      inputs.push({ ...pipeline.input, bundles });
    }
    const plan = planRun(inputs);
    if (dryRun || plan.aborted) return buildReport(plan, plan.items.map(predictedOutcome), dryRun);
    const outcomes = await applyPlan(plan.items, pipelines, options);
    return buildReport(plan, outcomes, false);
  } finally {
    for (const snapshot of snapshotsToClose) snapshot.close();
    for (const destination of opened.flat()) {
      try {
        await destination.backend?.close();
      } catch {
        // Leftovers in a work area are swept by the next run.
      }
    }
    if (temporary.path !== undefined) removeTemporary(temporary.path);
  }
}

function openDestination(
  config: DestinationConfig,
  locals: LocalBackends,
  s3Factory: BackendFactory<S3DestinationConfig> | undefined,
  context: BackendOpenContext,
): OpenDestination {
  try {
    if (config.kind === 'local')
      return { config, backend: locals.create(config, context), refusal: undefined };
    if (s3Factory === undefined) {
      return {
        config,
        backend: undefined,
        refusal: refuseDistributor('backend_unavailable', { role: 'destination' }),
      };
    }
    return { config, backend: s3Factory(config, context), refusal: undefined };
  } catch (error: unknown) {
    return { config, backend: undefined, refusal: asRefusal(error, 'backend_unavailable') };
  }
}

async function lockAll(destinations: readonly OpenDestination[]): Promise<void> {
  for (const destination of destinations) {
    if (destination.backend === undefined || destination.refusal !== undefined) continue;
    try {
      const lock = await destination.backend.lock();
      if (lock.kind === 'busy')
        destination.refusal = refuseDistributor('destination_locked', { role: 'destination' });
    } catch (error: unknown) {
      destination.refusal = asRefusal(error, 'destination_unreachable');
    }
  }
}

function validatePipeline(
  pipelineIndex: number,
  pipeline: PipelineConfig,
  destinations: readonly OpenDestination[],
  hashOnly: boolean,
  temporary: { path?: string },
  snapshotsToClose: SourceSnapshot[],
  options: DistributeRunOptions,
): ValidatedPipeline {
  const failures: { bundle_dir: BundleDir | null; reason_code: string }[] = [];
  const bundles: PlanBundleInput[] = [];
  const snapshotIndex = new Map<BundleDir, number>();
  let snapshot: SourceSnapshot | undefined;
  const plannedDestinations = destinations.map((d) => ({
    id: d.config.id,
    kind: d.config.kind,
    outputs: d.config.outputs,
  }));
  const result = (owner: DestinationBackend | undefined): ValidatedPipeline => ({
    config: pipeline,
    destinations,
    input: { id: pipeline.id, destinations: plannedDestinations, bundles, failures },
    snapshot,
    snapshotIndex,
    owner,
  });
  let root: Dir;
  try {
    root = Dir.open(pipeline.source.root);
  } catch {
    failures.push({ bundle_dir: null, reason_code: 'source_root_unavailable' });
    return result(undefined);
  }
  try {
    let found: readonly BundleDir[];
    try {
      found = guardRefusals(
        () => discoverBundles(root),
        () => refuseDistributor('source_root_unavailable'),
      );
    } catch (error: unknown) {
      failures.push({ bundle_dir: null, reason_code: asRefusal(error, 'source_root_unavailable').code });
      return result(undefined);
    }
    const renderHtml = pipeline.destinations.some((d) => d.outputs.html);
    if (!hashOnly) {
      snapshot = openSnapshot(destinations, temporary, pipelineIndex, options.beforeStep ?? (() => {}));
      snapshotsToClose.push(snapshot);
    }
    for (const [index, dir] of found.entries()) {
      options.onProgress?.({ phase: 'validate', done: index, total: found.length });
      const keep = failures.length === 0 ? snapshot : undefined;
      let bundleSnapshot: BundleSnapshot | undefined;
      try {
        bundleSnapshot = keep?.bundle(index);
        const validated = guardRefusals(
          () =>
            validateBundle(
              root,
              dir,
              bundleSnapshot === undefined ? { renderHtml } : { renderHtml, snapshot: bundleSnapshot },
            ),
          () => refuseDistributor('file_unreadable', { role: 'bundle' }),
        );
        bundles.push({ dir, manifest: validated.manifest, pages: validated.pages, views: [] });
        if (bundleSnapshot !== undefined) snapshotIndex.set(dir, index);
      } catch (error: unknown) {
        failures.push({ bundle_dir: dir, reason_code: asRefusal(error, 'file_unreadable').code });
      } finally {
        bundleSnapshot?.close();
      }
    }
    options.onProgress?.({ phase: 'validate', done: found.length, total: found.length });
    return result(snapshot?.owner as DestinationBackend | undefined);
  } finally {
    root.close();
  }
}

/**
 * The snapshot lives in the first usable local destination's work area (same
 * filesystem: its outputs are then moved, not copied), else in a private
 * temporary directory.
 */
function openSnapshot(
  destinations: readonly OpenDestination[],
  temporary: { path?: string },
  pipelineIndex: number,
  beforeStep: (step: Step) => void,
): SourceSnapshot {
  for (const destination of destinations) {
    const backend = destination.backend;
    if (backend?.scratch === undefined || destination.refusal !== undefined) continue;
    try {
      return new SourceSnapshot(backend.scratch(), backend, snapshotStep(backend.destinationId, beforeStep));
    } catch {
      // Try the next destination, then the temporary directory.
    }
  }
  temporary.path ??= mkdtempSync(`${tmpdir()}/sealkit-distributor-`);
  const base = Dir.open(temporary.path);
  try {
    return new SourceSnapshot(base.mkdirExclusive(`pipeline-${pipelineIndex}`, 0o700), undefined, () => {});
  } finally {
    base.close();
  }
}

async function inspect(destination: OpenDestination, dir: BundleDir): Promise<SnapshotView> {
  if (destination.refusal !== undefined || destination.backend === undefined) {
    return { kind: 'refused', reason_code: destination.refusal?.code ?? 'backend_unavailable' };
  }
  let snapshot: DestinationSnapshot;
  try {
    snapshot = await destination.backend.inspect(dir);
  } catch (error: unknown) {
    return { kind: 'refused', reason_code: asRefusal(error, 'destination_unreachable').code };
  }
  return snapshot.kind === 'invalid' ? { kind: 'refused', reason_code: snapshot.refusal.code } : snapshot;
}

async function applyPlan(
  items: readonly PlanItem[],
  pipelines: readonly ValidatedPipeline[],
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
  for (const [index, write] of ordered.entries()) {
    options.onProgress?.({ phase: 'apply', done: index, total: ordered.length });
    const pipeline = byPipeline.get(write.pipeline_id);
    const destination = pipeline?.destinations.find((d) => d.config.id === write.destination_id);
    const bundleIndex = pipeline?.snapshotIndex.get(write.bundle_dir);
    const head = predictedOutcome(write);
    if (pipeline?.snapshot === undefined || destination?.backend === undefined || bundleIndex === undefined) {
      outcomes.set(write, {
        ...withoutOutputs(head),
        outcome: 'refused',
        reason_code: 'destination_unreachable',
      });
      continue;
    }
    let applied: Awaited<ReturnType<DestinationBackend['apply']>>;
    let bundleSnapshot: BundleSnapshot | undefined;
    try {
      bundleSnapshot = pipeline.snapshot.reopen(bundleIndex);
      const source = outputSource(bundleSnapshot, pipeline.owner === destination.backend);
      applied = await destination.backend.apply(write, source, { now, beforeStep });
    } catch (error: unknown) {
      applied = { outcome: 'refused', refusal: asRefusal(error, 'destination_write_failed') };
    } finally {
      bundleSnapshot?.close();
    }
    outcomes.set(
      write,
      applied.outcome === 'refused'
        ? { ...withoutOutputs(head), outcome: 'refused', reason_code: applied.refusal.code }
        : { ...withoutOutputs(head), outcome: applied.outcome, outputs: applied.outputs.length },
    );
  }
  options.onProgress?.({ phase: 'apply', done: ordered.length, total: ordered.length });
  return items.map((item) => outcomes.get(item) ?? predictedOutcome(item));
}

/** Per bundle, the destination holding the snapshot goes last: it may move snapshot files instead of copying. */
function orderOwnersLast(
  writes: readonly PlannedWrite[],
  pipelines: ReadonlyMap<string, ValidatedPipeline>,
): PlannedWrite[] {
  const isOwner = (write: PlannedWrite): boolean => {
    const pipeline = pipelines.get(write.pipeline_id);
    const destination = pipeline?.destinations.find((d) => d.config.id === write.destination_id);
    return pipeline?.owner !== undefined && destination?.backend === pipeline.owner;
  };
  return writes
    .map((write, index) => ({ write, index, owner: isOwner(write) }))
    .sort((a, b) => {
      if (a.write.pipeline_id !== b.write.pipeline_id || a.write.bundle_dir !== b.write.bundle_dir)
        return a.index - b.index;
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

function snapshotStep(destinationId: string, beforeStep: (step: Step) => void): SnapshotStep {
  return (kind) => beforeStep({ kind, destination_id: destinationId });
}

function withoutOutputs(outcome: ItemOutcome): ItemOutcome {
  const { outputs: _outputs, ...rest } = outcome;
  return rest;
}

function asRefusal(error: unknown, fallback: Parameters<typeof refuseDistributor>[0]): Refusal {
  return error instanceof Refusal ? error : refuseDistributor(fallback);
}

function removeTemporary(path: string): void {
  try {
    const parent = Dir.open(dirname(path));
    try {
      removeOwnTree(parent, basename(path), () => {});
    } finally {
      parent.close();
    }
  } catch {
    // A private temporary directory; the OS temp cleaner reclaims it.
  }
}
