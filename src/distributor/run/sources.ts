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
import {
  type BundleSnapshot,
  type SnapshotStep,
  SnapshotWriteFailed,
  SourceSnapshot,
} from '../validate/snapshot.js';
import { locatedUnder, readManifest, verifyBundleFiles } from '../validate/validate-bundle.js';
import { destinationWriteFailed, writeFailureCause } from '../write-failure.js';
import { inspectDestination, type OpenDestination } from './destinations.js';

export interface SourceBundle {
  readonly dir: BundleDir;
  readonly manifest: SourceManifest;
  views: SnapshotView[];
  pages: readonly PageInfo[];
  /** Position in `store`'s snapshot, when its files were kept there. */
  snapshotIndex: number | undefined;
  /** Where its verified copy is kept (undefined: not kept). */
  store: SnapshotStore | undefined;
  /**
   * Destinations refused before apply because writing this bundle's
   * snapshot failed at their storage: destination id → the refusal, with
   * its cause (docs/distributor.md, "A destination that fails").
   */
  readonly writeFailures: Map<string, Refusal>;
}

/** A place where verified copies of a pipeline's bundles are kept. */
export interface SnapshotStore {
  readonly snapshot: SourceSnapshot;
  /** The backend whose work area holds it (it may move files instead of copying); undefined: a private temporary directory. */
  readonly owner: DestinationBackend | undefined;
}

/** One pipeline's sources as the run learns them, phase by phase. */
export interface SourcePipeline {
  readonly config: PipelineConfig;
  readonly destinations: readonly OpenDestination[];
  readonly root: Dir | undefined;
  readonly failures: { bundle_dir: BundleDir | null; reason_code: DistributorReasonCode; refusal: Refusal }[];
  readonly bundles: SourceBundle[];
  /** Every store opened for this pipeline; `current` takes the next bundle. */
  readonly stores: SnapshotStore[];
  current: SnapshotStore | undefined;
  /** Backends whose work area failed a snapshot write in this run: never asked again. */
  readonly failedOwners: Set<DestinationBackend>;
  /** The private temporary directory failed too: no store is left. */
  temporaryFailed: boolean;
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
    stores: [],
    current: undefined,
    failedOwners: new Set(),
    temporaryFailed: false,
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
      pipeline.bundles.push({
        dir,
        manifest,
        views: [],
        pages: [],
        snapshotIndex: undefined,
        store: undefined,
        writeFailures: new Map(),
      });
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
    const verify = (target: BundleSnapshot | undefined): Verified =>
      verifyInto(parents, bundle, renderHtml, target);
    const outcome = keep
      ? verifyKept(pipeline, pipelineIndex, context, bundle, index, verify)
      : verify(undefined);
    if (outcome.kind === 'refused') {
      const shownRoot = pipeline.config.source.shown ?? pipeline.config.source.root;
      pipeline.failures.push({
        bundle_dir: bundle.dir,
        reason_code: reasonCodeOf(outcome.refusal),
        refusal: locatedUnder(outcome.refusal, join(shownRoot, bundle.dir)),
      });
    }
  }
}

type Verified =
  | { readonly kind: 'verified' }
  | { readonly kind: 'refused'; readonly refusal: Refusal }
  | { readonly kind: 'snapshot_failed'; readonly error: SnapshotWriteFailed };

/** Verifies one bundle (into `target` when given): a source problem is `refused`, the snapshot's own failure `snapshot_failed`. */
function verifyInto(
  parents: HeldDirs,
  bundle: SourceBundle,
  renderHtml: boolean,
  target: BundleSnapshot | undefined,
): Verified {
  try {
    bundle.pages = verifyBundleFiles(
      parents,
      bundle.dir,
      bundle.manifest,
      target === undefined ? { renderHtml } : { renderHtml, snapshot: target },
    );
    return { kind: 'verified' };
  } catch (error: unknown) {
    if (error instanceof SnapshotWriteFailed) return { kind: 'snapshot_failed', error };
    // Anything but a refusal is an unexpected read failure of the source.
    return {
      kind: 'refused',
      refusal: toRefusal(error, () => refuseDistributor('file_unreadable', { role: 'bundle' })),
    };
  }
}

/**
 * Verifies a bundle that some destination will receive into the pipeline's
 * current snapshot store. When writing the snapshot fails (a full, read-only
 * or failing filesystem), the partial copy is removed, the storage is given
 * up for the rest of the run, the destination it belongs to is refused for
 * this bundle (`destination_write_failed`, when it was to receive it), and
 * the bundle is verified again into the next store: another local
 * destination's work area, else a private temporary directory. Only when
 * no store is left is every writing destination of the bundle refused
 * (`snapshot_write_failed`). Never a source failure: the run goes on.
 */
function verifyKept(
  pipeline: SourcePipeline,
  pipelineIndex: number,
  context: VerifyContext,
  bundle: SourceBundle,
  index: number,
  verify: (target: BundleSnapshot | undefined) => Verified,
): Verified {
  for (;;) {
    const store = pipeline.current ?? openStore(pipeline, context, pipelineIndex);
    if (store === undefined) {
      const verified = verify(undefined);
      if (verified.kind === 'verified') refuseWriters(pipeline, bundle, undefined, undefined);
      return verified;
    }
    let target: BundleSnapshot | undefined;
    let verified: Verified;
    try {
      target = store.snapshot.bundle(index);
      verified = verify(target);
    } catch (error: unknown) {
      if (!(error instanceof SnapshotWriteFailed)) throw error;
      verified = { kind: 'snapshot_failed', error };
    } finally {
      target?.close();
    }
    if (verified.kind === 'verified') {
      bundle.store = store;
      bundle.snapshotIndex = index;
      return verified;
    }
    if (verified.kind === 'refused') return verified;
    discardBundle(store, index, context);
    pipeline.current = undefined;
    if (store.owner === undefined) pipeline.temporaryFailed = true;
    else pipeline.failedOwners.add(store.owner);
    refuseWriters(pipeline, bundle, store.owner, verified.error);
  }
}

/**
 * Refuses the destinations that were to receive `bundle` and now cannot:
 * `owner` alone (its storage failed) with `destination_write_failed`, or,
 * when no store is left (`owner` undefined), every one with
 * `snapshot_write_failed`.
 */
function refuseWriters(
  pipeline: SourcePipeline,
  bundle: SourceBundle,
  owner: DestinationBackend | undefined,
  error: SnapshotWriteFailed | undefined,
): void {
  const receives = writes(bundle.manifest);
  for (const [position, destination] of pipeline.destinations.entries()) {
    const view = bundle.views[position];
    if (view === undefined || !receives(view)) continue;
    if (owner !== undefined && destination.backend !== owner) continue;
    const refusal =
      owner !== undefined
        ? destinationWriteFailed(error)
        : refuseDistributor('snapshot_write_failed', {
            role: 'destination',
            hint:
              writeFailureCause(error) ?? "check the free space of the run's temporary directory (TMPDIR)",
          });
    bundle.views[position] = { kind: 'refused', reason_code: reasonCodeOf(refusal) };
    bundle.writeFailures.set(destination.config.id, refusal);
  }
}

/** Removes what a failed snapshot write left of one bundle; a leftover goes with the run's work area. */
function discardBundle(store: SnapshotStore, index: number, context: VerifyContext): void {
  const destinationId = store.owner?.destinationId;
  try {
    removeOwnTree(store.snapshot.dir, SourceSnapshot.bundleName(index), (kind) => {
      if (destinationId !== undefined) context.beforeStep({ kind, destination_id: destinationId });
    });
  } catch {
    // Removed with the run's directory when the destination closes.
  }
}

const writes =
  (manifest: SourceManifest) =>
  (view: SnapshotView): boolean => {
    const outcome = decide(manifest, view).outcome;
    return outcome === 'published' || outcome === 'replaced';
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
 * The next place for the pipeline's verified copies: the first local
 * destination's work area that is usable and has not failed (same
 * filesystem: its outputs are then moved, not copied), else a private
 * temporary directory; undefined when even that failed.
 */
function openStore(
  pipeline: SourcePipeline,
  context: VerifyContext,
  pipelineIndex: number,
): SnapshotStore | undefined {
  for (const destination of pipeline.destinations) {
    const backend = destination.backend;
    if (backend?.scratch === undefined || destination.refusal !== undefined) continue;
    if (pipeline.failedOwners.has(backend) || pipeline.stores.some((store) => store.owner === backend))
      continue;
    try {
      const store = {
        snapshot: new SourceSnapshot(backend.scratch(), snapshotStep(backend.destinationId, context)),
        owner: backend,
      };
      pipeline.stores.push(store);
      pipeline.current = store;
      return store;
    } catch {
      // Its work area cannot hold it: try the next destination, then the temporary directory.
      pipeline.failedOwners.add(backend);
    }
  }
  if (pipeline.temporaryFailed) return undefined;
  try {
    context.temporary.path ??= mkdtempSync(join(tmpdir(), 'sealkit-distributor-'));
    const base = Dir.open(context.temporary.path);
    try {
      const store = {
        snapshot: new SourceSnapshot(base.mkdirExclusive(`pipeline-${pipelineIndex}`, 0o700), () => {}),
        owner: undefined,
      };
      pipeline.stores.push(store);
      pipeline.current = store;
      return store;
    } finally {
      base.close();
    }
  } catch {
    pipeline.temporaryFailed = true;
    return undefined;
  }
}

function snapshotStep(destinationId: string, context: VerifyContext): SnapshotStep {
  return (kind) => context.beforeStep({ kind, destination_id: destinationId });
}

export function closeSources(pipelines: readonly SourcePipeline[], temporary: { path?: string }): void {
  for (const pipeline of pipelines) {
    for (const store of pipeline.stores) store.snapshot.close();
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
