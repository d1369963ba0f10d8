import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { Dir } from '../../core/fs/index.js';
import { guardRefusals, type Refusal, refuseAll, toRefusal } from '../../core/refusal/index.js';
import type { DestinationBackend, Step } from '../backend.js';
import { removeOwnTree } from '../backends/local/tree.js';
import type { PipelineConfig } from '../config/types.js';
import { type Discovery, discoverBundles, type OnBundle, sourceRootProblem } from '../discover/discover.js';
import type { BundleDir, SourceManifest } from '../model/types.js';
import { decide, type SnapshotView } from '../plan/compare.js';
import type { PageInfo } from '../plan/outputs.js';
import type { PlanPipelineInput } from '../plan/plan-run.js';
import { type DistributorReasonCode, reasonCodeOf, refuseDistributor } from '../refusals.js';
import { HeldDirs } from '../validate/held-dirs.js';
import { type SnapshotStep, SourceSnapshot } from '../validate/snapshot.js';
import { locatedUnder, readManifest, verifyBundleFiles } from '../validate/validate-bundle.js';
import { inspectDestination, type OpenDestination } from './destinations.js';

export interface SourceBundle {
  readonly dir: BundleDir;
  readonly manifest: SourceManifest;
  views: readonly SnapshotView[];
  pages: readonly PageInfo[];
  /** Position in the pipeline's snapshot, when its files were kept there. */
  snapshotIndex: number | undefined;
}

/** One pipeline's sources as the run learns them, phase by phase. */
export interface SourcePipeline {
  readonly config: PipelineConfig;
  readonly destinations: readonly OpenDestination[];
  readonly root: Dir | undefined;
  readonly failures: { bundle_dir: BundleDir | null; reason_code: DistributorReasonCode; refusal: Refusal }[];
  readonly bundles: SourceBundle[];
  snapshot: SourceSnapshot | undefined;
  /** The backend whose scratch area holds the snapshot (it may move files instead of copying). */
  owner: DestinationBackend | undefined;
}

/** Phase 1: discovery and every manifest (paths and bundle digest included); no listed file is read. */
export function readManifests(
  config: PipelineConfig,
  destinations: readonly OpenDestination[],
): SourcePipeline {
  let root: Dir | undefined;
  let rootProblem: Refusal | undefined;
  try {
    root = Dir.open(config.source.root);
  } catch (error: unknown) {
    rootProblem = sourceRootProblem(error);
  }
  const pipeline: SourcePipeline = {
    config,
    destinations,
    root,
    failures: [],
    bundles: [],
    snapshot: undefined,
    owner: undefined,
  };
  const shownRoot = config.source.shown ?? config.source.root;
  const fail = (bundle: BundleDir | null, refusal: Refusal): void => {
    pipeline.failures.push({
      bundle_dir: bundle,
      reason_code: reasonCodeOf(refusal),
      refusal: locatedUnder(refusal, bundle === null ? shownRoot : join(shownRoot, bundle)),
    });
  };
  if (root === undefined) {
    fail(null, rootProblem ?? refuseDistributor('source_root_unavailable'));
    return pipeline;
  }
  const held = root;
  // Each manifest is read while the walk holds its bundle directory: no second
  // open of the directory, and the listing already tells the manifest's type.
  const read = new Map<string, SourceManifest | { readonly failed: Refusal }>();
  const onBundle: OnBundle = (bundleDir, path, listedAs) => {
    try {
      read.set(
        path,
        guardRefusals(
          () => readManifest(bundleDir, listedAs),
          () => refuseDistributor('file_unreadable', { role: 'manifest' }),
        ),
      );
    } catch (error: unknown) {
      read.set(path, { failed: toRefusal(error, () => refuseDistributor('file_unreadable')) });
    }
  };
  let found: Discovery;
  try {
    found = guardRefusals(
      () => discoverBundles(held, { onBundle }),
      () => refuseDistributor('source_root_unavailable'),
    );
  } catch (error: unknown) {
    fail(
      null,
      toRefusal(error, () => refuseDistributor('source_root_unavailable')),
    );
    return pipeline;
  }
  // Problems outside every bundle refuse the pipeline; those inside a bundle
  // refuse that bundle, together with its manifest's own problems.
  const outside = found.problems.filter((problem) => problem.bundle === null).map((p) => p.refusal);
  if (outside.length > 0) fail(null, refuseAll(outside));
  for (const dir of found.bundles) {
    const manifest = read.get(dir);
    const problems = found.problems.filter((problem) => problem.bundle === dir).map((p) => p.refusal);
    if (manifest === undefined) problems.push(refuseDistributor('file_unreadable', { role: 'manifest' }));
    else if ('failed' in manifest) problems.push(manifest.failed);
    if (problems.length > 0) fail(dir, refuseAll(problems));
    else if (manifest !== undefined && !('failed' in manifest)) {
      pipeline.bundles.push({ dir, manifest, views: [], pages: [], snapshotIndex: undefined });
    }
  }
  return pipeline;
}

/** Phase 2: what every destination holds at every bundle path (read only). */
export async function inspectAll(pipeline: SourcePipeline): Promise<void> {
  for (const bundle of pipeline.bundles) {
    const views: SnapshotView[] = [];
    for (const destination of pipeline.destinations)
      views.push(await inspectDestination(destination, bundle.dir));
    bundle.views = views;
  }
}

export interface VerifyContext {
  /** Hash only (dry run, or the run is already aborted): nothing is kept. */
  readonly hashOnly: boolean;
  readonly beforeStep: (step: Step) => void;
  readonly temporary: { path?: string };
  readonly onProgress: ((done: number, total: number) => void) | undefined;
}

/**
 * Phase 3: every byte of every listed file, read once. A bundle that some
 * destination will receive (its manifest decides publish or replace there)
 * is streamed into the run's snapshot; the others are only hashed, so a
 * no-op rerun writes nothing.
 */
export function verifyAll(pipeline: SourcePipeline, pipelineIndex: number, context: VerifyContext): void {
  const root = pipeline.root;
  if (root === undefined) return;
  const renderHtml = pipeline.config.destinations.some((d) => d.outputs.html);
  const total = pipeline.bundles.length;
  const parents = new HeldDirs(root);
  try {
    verifyEach(pipeline, pipelineIndex, context, parents, renderHtml);
  } finally {
    parents.close();
  }
  context.onProgress?.(total, total);
}

function verifyEach(
  pipeline: SourcePipeline,
  pipelineIndex: number,
  context: VerifyContext,
  parents: HeldDirs,
  renderHtml: boolean,
): void {
  const total = pipeline.bundles.length;
  for (const [index, bundle] of pipeline.bundles.entries()) {
    context.onProgress?.(index, total);
    const keep =
      !context.hashOnly && pipeline.failures.length === 0 && bundle.views.some(writes(bundle.manifest));
    let bundleSnapshot: ReturnType<SourceSnapshot['bundle']> | undefined;
    try {
      if (keep) {
        pipeline.snapshot ??= openSnapshot(pipeline, context, pipelineIndex);
        bundleSnapshot = pipeline.snapshot.bundle(index);
      }
      const target = bundleSnapshot;
      bundle.pages = guardRefusals(
        () =>
          verifyBundleFiles(
            parents,
            bundle.dir,
            bundle.manifest,
            target === undefined ? { renderHtml } : { renderHtml, snapshot: target },
          ),
        () => refuseDistributor('file_unreadable', { role: 'bundle' }),
      );
      if (bundleSnapshot !== undefined) bundle.snapshotIndex = index;
    } catch (error: unknown) {
      const refusal = toRefusal(error, () => refuseDistributor('file_unreadable'));
      const shownRoot = pipeline.config.source.shown ?? pipeline.config.source.root;
      pipeline.failures.push({
        bundle_dir: bundle.dir,
        reason_code: reasonCodeOf(refusal),
        refusal: locatedUnder(refusal, join(shownRoot, bundle.dir)),
      });
    } finally {
      bundleSnapshot?.close();
    }
  }
}

const writes =
  (manifest: SourceManifest) =>
  (view: SnapshotView): boolean => {
    const action = decide(manifest, view).action;
    return action === 'publish' || action === 'replace';
  };

/** The planner's input for a pipeline whose phases all ran. */
export function planInput(pipeline: SourcePipeline): PlanPipelineInput {
  const failed = new Set(pipeline.failures.map((failure) => failure.bundle_dir));
  return {
    id: pipeline.config.id,
    shownRoot: pipeline.config.source.shown ?? pipeline.config.source.root,
    destinations: pipeline.destinations.map((d) => ({
      id: d.config.id,
      kind: d.config.kind,
      outputs: d.config.outputs,
    })),
    bundles: pipeline.bundles
      .filter((bundle) => !failed.has(bundle.dir))
      .map((bundle) => ({
        dir: bundle.dir,
        manifest: bundle.manifest,
        pages: bundle.pages,
        views: bundle.views,
      })),
    failures: pipeline.failures,
  };
}

/**
 * The snapshot lives in the first usable local destination's work area (same
 * filesystem: its outputs are then moved, not copied), else in a private
 * temporary directory.
 */
function openSnapshot(
  pipeline: SourcePipeline,
  context: VerifyContext,
  pipelineIndex: number,
): SourceSnapshot {
  for (const destination of pipeline.destinations) {
    const backend = destination.backend;
    if (backend?.scratch === undefined || destination.refusal !== undefined) continue;
    try {
      const snapshot = new SourceSnapshot(backend.scratch(), snapshotStep(backend.destinationId, context));
      pipeline.owner = backend;
      return snapshot;
    } catch {
      // Try the next destination, then the temporary directory.
    }
  }
  context.temporary.path ??= mkdtempSync(join(tmpdir(), 'sealkit-distributor-'));
  const base = Dir.open(context.temporary.path);
  try {
    return new SourceSnapshot(base.mkdirExclusive(`pipeline-${pipelineIndex}`, 0o700), () => {});
  } finally {
    base.close();
  }
}

function snapshotStep(destinationId: string, context: VerifyContext): SnapshotStep {
  return (kind) => context.beforeStep({ kind, destination_id: destinationId });
}

export function closeSources(pipelines: readonly SourcePipeline[], temporary: { path?: string }): void {
  for (const pipeline of pipelines) {
    pipeline.snapshot?.close();
    pipeline.root?.close();
  }
  if (temporary.path === undefined) return;
  try {
    const parent = Dir.open(dirname(temporary.path));
    try {
      removeOwnTree(parent, basename(temporary.path), () => {});
    } finally {
      parent.close();
    }
  } catch {
    // A private temporary directory; the OS temp cleaner reclaims it.
  }
}
