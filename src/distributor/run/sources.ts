import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { hashThreadUpAndFree } from '../../core/digest/index.js';
import { Dir, type HeldLock, lockExclusiveNonBlocking, probeLock } from '../../core/fs/index.js';
import { guardRefusals, type Refusal, refuseAll, toRefusal } from '../../core/refusal/index.js';
import type { DestinationBackend, ObjectLimits, Step } from '../backend.js';
import type { DestinationConfig, PipelineConfig } from '../config/types.js';
import { configuredPath, didYouMeanConfigured, TILDE_HINT } from '../configured-path.js';
import {
  type Discovery,
  discoverBundles,
  type OnBundle,
  type OnBundleFile,
  sourceRootProblem,
} from '../discover/discover.js';
import type { BundleDir, OutputCategories, SourceManifest } from '../model/types.js';
import { removeOwnTree } from '../own-tree.js';
import { compareUtf8 } from '../path/bundle-path.js';
import { decide, type SnapshotView } from '../plan/compare.js';
import type { OutsideLinks } from '../plan/links.js';
import { expectedOutputs, type PageInfo, plannedOutputs } from '../plan/outputs.js';
import { limitProblem, type PlanPipelineInput } from '../plan/plan-run.js';
import { type DistributorReasonCode, reasonCodeOf, refuseDistributor } from '../refusals.js';
import { loadMarkdownRenderer, type RenderMarkdown } from '../transform/renderer.js';
import { HeldDirs } from '../validate/held-dirs.js';
import {
  type BundleSnapshot,
  type SnapshotStep,
  SnapshotWriteFailed,
  SourceSnapshot,
} from '../validate/snapshot.js';
import {
  locatedUnder,
  type PageVariant,
  readManifest,
  type StartedVerification,
  startVerifyBundleFiles,
  verifyBundleFiles,
} from '../validate/validate-bundle.js';
import { destinationWriteFailed, onFilesystemOf, writeFailureCause } from '../write-failure.js';
import { inspectDestination, type OpenDestination, readBeforeReplacing } from './destinations.js';
import { refusalOrigin } from './refusal-origin.js';

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
   * its cause (docs/distributor.md#a-destination-that-fails).
   */
  readonly writeFailures: Map<string, Refusal>;
  /** Destinations whose inspection of this bundle's path was refused: destination id → the refusal, with its cause. */
  readonly inspectRefusals: Map<string, Refusal>;
  /** A bundle only hashed, verified while the destinations were inspected: settled in phase 3, in order. */
  early: Verified | undefined;
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
  readonly failures: {
    bundle_dir: BundleDir | null;
    /** The manifest's id when it was read far enough to name one; null otherwise. */
    bundle_id: string | null;
    /** A destination whose own setting failed while no bundle reached it (see `idleDestinationFailures`). */
    destination_id?: string;
    reason_code: DistributorReasonCode;
    refusal: Refusal;
  }[];
  readonly bundles: SourceBundle[];
  /** Folders outside every bundle that hold files (see `Discovery`). */
  dirsWithoutManifest: readonly string[];
  /** Files directly in the source root, never published (see `Discovery`). */
  filesAtRoot: readonly string[];
  /**
   * Files in bundle folders that their manifest does not list (hidden ones
   * aside) and that were modified after it, under the source root: never
   * published. One left out on purpose (`--exclude`) was there before its
   * manifest, and is not named every night.
   */
  filesAfterManifest: readonly string[];
  /** Every store opened for this pipeline; `current` takes the next bundle. */
  readonly stores: SnapshotStore[];
  current: SnapshotStore | undefined;
  /** Backends whose work area failed a snapshot write in this run: never asked again. */
  readonly failedOwners: Set<DestinationBackend>;
  /** The private temporary directory failed too: no store is left. */
  temporaryFailed: boolean;
  /** Why it failed (its errno names the cause in the refusal's hint), when known. */
  temporaryFailure: unknown;
}

/** Phase 1: discovery and every manifest (paths and bundle digest included); no listed file is read. */
export function readManifests(
  config: PipelineConfig,
  destinations: readonly OpenDestination[],
): SourcePipeline {
  const opened = openSourceRoot(config);
  const pipeline: SourcePipeline = {
    config,
    destinations,
    root: opened.root,
    failures: [],
    bundles: [],
    dirsWithoutManifest: [],
    filesAtRoot: [],
    filesAfterManifest: [],
    stores: [],
    current: undefined,
    failedOwners: new Set(),
    temporaryFailed: false,
    temporaryFailure: undefined,
  };
  const fail = failureRecorder(pipeline);
  try {
    addSourceFailuresAndBundles(pipeline, opened, fail);
  } finally {
    recordIdleDestinationFailures(pipeline);
  }
  return pipeline;
}

/**
 * A destination whose configured folder does not open refuses each bundle
 * that would reach it; with no bundle to refuse (an empty source, or a
 * source root that failed itself) it would go unsaid, and a run of a new
 * configuration exit 0, or its operator fix one path per run. Such a
 * refusal of its own setting is then the pipeline's failure, at that
 * setting's line (docs/distributor.md#reading-an-error).
 */
function recordIdleDestinationFailures(pipeline: SourcePipeline): void {
  if (pipeline.bundles.length > 0) return;
  for (const destination of pipeline.destinations) {
    const refusal = destination.refusal;
    if (refusal === undefined || !settingFailure(refusal)) continue;
    const code = reasonCodeOf(refusal);
    const { pointer, ...place } = refusalOrigin(destination.config, code, refusal.field) ?? {
      pointer: undefined,
    };
    pipeline.failures.push({
      bundle_dir: null,
      bundle_id: null,
      destination_id: destination.config.id,
      reason_code: code,
      refusal: refusal.at(
        { ...place, ...(pointer === undefined || pointer === '' ? {} : { pointer }) },
        `destination '${destination.config.id}': ${refusal.hint ?? ''}`,
      ),
    });
  }
}

/** A destination's own configured folder that does not open: known before any bundle. */
const SETTING_FAILURES: ReadonlySet<string> = new Set([
  'destination_root_unavailable',
  'work_dir_unavailable',
  'work_dir_other_filesystem',
]);

/** A refusal of the destination's own setting: a folder that does not open, or one inside a published bundle. */
function settingFailure(refusal: Refusal): boolean {
  return (
    SETTING_FAILURES.has(refusal.code) ||
    (refusal.code === 'destination_nested_bundle' &&
      (refusal.field === 'root' || refusal.field === 'work_dir'))
  );
}

function addSourceFailuresAndBundles(
  pipeline: SourcePipeline,
  opened: ReturnType<typeof openSourceRoot>,
  fail: FailureRecorder,
): void {
  const config = pipeline.config;
  if (opened.root === undefined) {
    // Already placed at the `root:` line when the configuration says where it is.
    if (config.source.root_origin === undefined) fail(null, null, opened.problem);
    else
      pipeline.failures.push({
        bundle_dir: null,
        bundle_id: null,
        reason_code: reasonCodeOf(opened.problem),
        refusal: opened.problem,
      });
    return;
  }
  const walked = walkBundles(opened.root);
  if ('failed' in walked) {
    fail(null, null, walked.failed);
    return;
  }
  addBundles(pipeline, walked, fail);
}

/**
 * Records a refusal of the pipeline (`null`) or of one bundle (with its
 * manifest's id when known), located under the source root as configured.
 */
type FailureRecorder = (bundle: BundleDir | null, id: string | null, refusal: Refusal) => void;

function openSourceRoot(
  config: PipelineConfig,
):
  | { readonly root: Dir; readonly problem?: never }
  | { readonly root: undefined; readonly problem: Refusal } {
  try {
    return { root: Dir.open(config.source.root) };
  } catch (error: unknown) {
    const shown = config.source.shown ?? config.source.root;
    const { written } = config.source;
    const problem = sourceRootProblem(error, shown, config.source.root, () =>
      didYouMeanConfigured(shown, config.source.root, written, config.source.root_origin?.path),
    );
    const origin = config.source.root_origin;
    if (origin === undefined) return { root: undefined, problem };
    // Pointed at the `root:` line, naming the pipeline and the root as resolved from here.
    const { pointer, ...place } = origin;
    return {
      root: undefined,
      problem: problem.at(
        { ...place, pointer },
        `pipeline '${config.id}': root ${configuredPath(shown, written)}: ${namesTilde(problem, shown) ? TILDE_HINT : (problem.hint ?? '')}`,
      ),
    };
  }
}

/**
 * sealkit does not expand `~` (a YAML value never passes through a shell),
 * so `root: ~/reports` names a folder called `~`
 * (docs/distributor.md#configuration-sealkitdistributoryaml).
 */
function namesTilde(problem: Refusal, shown: string): boolean {
  return problem.code === 'source_root_missing' && /(?:^|\/)~(?:\/|$)/.test(shown);
}

function failureRecorder(pipeline: SourcePipeline): FailureRecorder {
  const shownRoot = pipeline.config.source.shown ?? pipeline.config.source.root;
  return (bundle, id, refusal) => {
    pipeline.failures.push({
      bundle_dir: bundle,
      bundle_id: id,
      reason_code: reasonCodeOf(refusal),
      refusal: locatedUnder(refusal, bundle === null ? shownRoot : join(shownRoot, bundle), id ?? undefined),
    });
  };
}

/** A bundle's manifest as read during the walk, or why it could not be (with its id, when it names a valid one). */
type ReadManifest = SourceManifest | { readonly failed: Refusal; readonly id: string | null };

/** What the walk of a source root found: its bundles, their problems, and each manifest by bundle directory. */
interface WalkedBundles {
  readonly found: Discovery;
  readonly manifests: ReadonlyMap<string, ReadManifest>;
  /** Files of bundles whose manifest was read that it does not list and that are newer than it, in walk order. */
  readonly afterManifest: readonly { readonly bundle: string; readonly path: string }[];
}

/** Walks the source root, reading each manifest on the way; `failed` when the walk itself could not be made. */
function walkBundles(root: Dir): WalkedBundles | { readonly failed: Refusal } {
  // Each manifest is read while the walk holds its bundle directory: no second
  // open of the directory, and the listing already tells the manifest's type.
  const manifests = new Map<string, ReadManifest>();
  /** When each bundle's manifest was last written: a file newer than it came after it. */
  const manifestTimes = new Map<string, bigint>();
  const onBundle: OnBundle = (bundleDir, path, listedAs) => {
    const seen: { id: string | null } = { id: null };
    try {
      manifests.set(
        path,
        guardRefusals(
          () =>
            readManifest(
              bundleDir,
              listedAs,
              (id) => {
                seen.id = id;
              },
              (modified) => manifestTimes.set(path, modified),
            ),
          () => refuseDistributor('manifest_unreadable', { role: 'manifest' }),
        ),
      );
    } catch (error: unknown) {
      manifests.set(path, {
        failed: toRefusal(error, () => refuseDistributor('manifest_unreadable', { role: 'manifest' })),
        id: seen.id,
      });
    }
  };
  const afterManifest: { readonly bundle: string; readonly path: string }[] = [];
  const listed = listedFiles(manifests);
  const onBundleFile: OnBundleFile = (bundle, path, stat) => {
    if (listed(bundle)?.has(path) !== false) return;
    const written = manifestTimes.get(bundle);
    try {
      const modified = stat().mtimeNs;
      if (written !== undefined && modified !== undefined && modified > written)
        afterManifest.push({ bundle, path });
    } catch {
      // Gone since the listing, or unreadable: nothing to say of it.
    }
  };
  try {
    const found = guardRefusals(
      () => discoverBundles(root, { onBundle, onBundleFile }),
      () => refuseDistributor('source_root_unavailable'),
    );
    return { found, manifests, afterManifest };
  } catch (error: unknown) {
    return { failed: toRefusal(error, () => refuseDistributor('source_root_unavailable')) };
  }
}

/**
 * The paths a bundle's manifest lists, made once per bundle as the walk
 * meets its files; undefined for a bundle whose manifest was not read.
 */
function listedFiles(
  manifests: ReadonlyMap<string, ReadManifest>,
): (bundle: string) => ReadonlySet<string> | undefined {
  let current: { readonly bundle: string; readonly paths: ReadonlySet<string> | undefined } | undefined;
  return (bundle) => {
    if (current?.bundle !== bundle) {
      const manifest = manifests.get(bundle);
      current = {
        bundle,
        paths:
          manifest === undefined || 'failed' in manifest
            ? undefined
            : new Set(manifest.files.map((file) => file.path)),
      };
    }
    return current.paths;
  };
}

/**
 * Problems outside every bundle refuse the pipeline; those inside a bundle
 * refuse that bundle, together with its manifest's own problems. Every other
 * bundle joins the pipeline.
 */
function addBundles(pipeline: SourcePipeline, walked: WalkedBundles, fail: FailureRecorder): void {
  const { found, manifests } = walked;
  pipeline.dirsWithoutManifest = found.dirsWithoutManifest;
  pipeline.filesAtRoot = found.filesAtRoot;
  // Only of bundles that join the run: a refused one is refused for what
  // matters more (the files of a bundle nested in it are not its own).
  const refused = new Set<string>(found.problems.flatMap((problem) => problem.bundle ?? []));
  pipeline.filesAfterManifest = walked.afterManifest
    .filter((file) => !refused.has(file.bundle))
    .map((file) => `${file.bundle}/${file.path}`)
    .sort(compareUtf8);
  const outside = found.problems.filter((problem) => problem.bundle === null).map((p) => p.refusal);
  if (outside.length > 0) fail(null, null, refuseAll(outside));
  for (const dir of found.bundles) {
    const manifest = manifests.get(dir);
    const problems = found.problems.filter((problem) => problem.bundle === dir).map((p) => p.refusal);
    if (manifest === undefined) problems.push(refuseDistributor('manifest_unreadable', { role: 'manifest' }));
    else if ('failed' in manifest) problems.push(manifest.failed);
    // A manifest that was read names the bundle also when the bundle is refused.
    const id = manifest?.id ?? null;
    if (problems.length > 0) fail(dir, id, refuseAll(problems));
    else if (manifest !== undefined && !('failed' in manifest)) {
      pipeline.bundles.push({
        dir,
        manifest,
        views: [],
        pages: [],
        snapshotIndex: undefined,
        store: undefined,
        writeFailures: new Map(),
        inspectRefusals: new Map(),
        early: undefined,
      });
    }
  }
}

export interface InspectContext {
  /**
   * The run's interruption: reads in flight are abandoned at once and no
   * further bundle is inspected; the run then stops before any write.
   */
  readonly signal?: AbortSignal | undefined;
  /** Called as each destination's inspection begins and after each bundle path it inspected. */
  readonly onProgress?: ((done: number, total: number, destinationId: string) => void) | undefined;
}

/**
 * Phase 2: what every destination holds at every bundle path (read only).
 * A bundle that no destination will receive is verified meanwhile on a free
 * hashing thread, its outcome kept for phase 3 (see `EarlyVerification`).
 */
export async function inspectAll(pipeline: SourcePipeline, context: InspectContext = {}): Promise<void> {
  const views = pipeline.bundles.map((): SnapshotView[] => []);
  const last = pipeline.destinations.length - 1;
  const early = EarlyVerification.open(pipeline, await pageRendering(pipeline));
  const signal = context.signal;
  const total = pipeline.bundles.length;
  try {
    for (const [index, destination] of pipeline.destinations.entries()) {
      const id = destination.config.id;
      let done = 0;
      context.onProgress?.(0, total, id);
      const inspectOne = async (at: number): Promise<void> => {
        const bundle = pipeline.bundles[at];
        const row = views[at];
        if (bundle === undefined || row === undefined) return;
        let { view, refusal } = await inspectDestination(destination, bundle.dir, signal);
        if (readBeforeReplacing(destination, view, bundle.manifest))
          ({ view, refusal } = await inspectDestination(destination, bundle.dir, signal, false, true));
        row[index] = view;
        if (refusal !== undefined) bundle.inspectRefusals.set(id, refusal);
        if (index === last) early?.offer(bundle, row);
        done += 1;
        // An inspection the signal abandoned is not one more bundle inspected.
        if (signal?.aborted !== true) context.onProgress?.(done, total, id);
      };
      let turned = performance.now();
      if (destination.config.kind === 'local') {
        // Local inspection holds the directories above sorted bundle paths:
        // each bundle path is read in order, and lets go of them before the
        // next begins. What may still be under way is hashing its outputs
        // (--checksum) on a hashing thread, while the next ones are read and
        // hashed on this one (docs/performance.md, "`--checksum` on both cores").
        const window = destination.checksum === true ? LOCAL_CHECKSUM_IN_FLIGHT : 1;
        const inFlight = new Set<Promise<void>>();
        try {
          for (let at = 0; at < total; at += 1) {
            // As in verification: the event loop turns every few dozen milliseconds to see a signal.
            if (performance.now() - turned > TURN_EVERY_MS) {
              await stopIfInterrupted(signal);
              turned = performance.now();
            }
            const inspection: Promise<void> = inspectOne(at).finally(() => inFlight.delete(inspection));
            inFlight.add(inspection);
            if (inFlight.size >= window) await Promise.race(inFlight);
          }
          await Promise.all(inFlight);
        } finally {
          // Stopped early (a signal, a failure): those begun still end, and close what they opened.
          await Promise.allSettled(inFlight);
        }
      } else {
        // An object store answers each request in tens of milliseconds: several bundles at once.
        let next = 0;
        const worker = async (): Promise<void> => {
          while (next < total && signal?.aborted !== true) {
            const at = next;
            next += 1;
            await inspectOne(at);
          }
        };
        const parallel =
          destination.checksum === true ? PARALLEL_REMOTE_CHECKSUM_INSPECTIONS : PARALLEL_REMOTE_INSPECTIONS;
        await Promise.all(Array.from({ length: parallel }, worker));
      }
      await stopIfInterrupted(signal);
    }
  } finally {
    early?.close();
  }
  for (const [at, bundle] of pipeline.bundles.entries()) bundle.views = views[at] ?? [];
}

/** Bundles verified during inspection and not yet finished, at most: bounds descriptors. */
const EARLY_IN_FLIGHT = 8;

/**
 * Verification of hash-only bundles begun while the destinations are still
 * being inspected. Inspection keeps the main thread busy and the hashing
 * thread idle; a bundle whose destinations are all inspected and none of
 * which will receive it (a no-op rerun) is handed to the thread at once, but
 * only while the thread has room: the main thread never hashes here. Each
 * outcome is only kept (`bundle.early`); phase 3 settles it in bundle order,
 * so failures and pages are recorded exactly as without this
 * (docs/performance.md, "Hashing during inspection").
 */
class EarlyVerification {
  readonly #pipeline: SourcePipeline;
  readonly #parents: HeldDirs;
  readonly #categories: readonly OutputCategories[];
  readonly #limits: readonly (ObjectLimits | undefined)[];
  readonly #options: PageRendering;
  readonly #started: { readonly bundle: SourceBundle; readonly work: StartedVerification }[] = [];

  private constructor(pipeline: SourcePipeline, root: Dir, rendering: PageRendering) {
    this.#pipeline = pipeline;
    this.#parents = new HeldDirs(root);
    this.#categories = pipeline.destinations.map((d) => d.config.outputs);
    this.#limits = pipeline.destinations.map((d) => d.backend?.limits);
    this.#options = rendering;
  }

  /**
   * Undefined when nothing can be verified early: no source root, no
   * bundle, or no destination. Whether a hashing thread is up is asked at
   * each offer, never waited for: a run of a few small bundles must not
   * wait for a thread to start that it may never need.
   */
  static open(pipeline: SourcePipeline, rendering: PageRendering): EarlyVerification | undefined {
    const root = pipeline.root;
    if (root === undefined || pipeline.bundles.length === 0 || pipeline.destinations.length === 0)
      return undefined;
    return new EarlyVerification(pipeline, root, rendering);
  }

  /** Called once every destination of `bundle` is inspected (`views`, in destination order). */
  offer(bundle: SourceBundle, views: readonly SnapshotView[]): void {
    this.#settleReady();
    if (this.#started.length >= EARLY_IN_FLIGHT || this.#pipeline.failures.length > 0) return;
    if (views.length !== this.#pipeline.destinations.length || !hashThreadUpAndFree()) return;
    if (writesBefore({ ...bundle, views: [...views] }, this.#categories, this.#limits) !== 'none') return;
    const work = startVerifyBundleFiles(this.#parents, bundle.dir, bundle.manifest, this.#options);
    this.#started.push({ bundle, work });
  }

  /** Finishes what is still in flight (a few files at most) and lets go of the source directories. */
  close(): void {
    try {
      while (this.#started.length > 0) this.#settleOldest();
    } finally {
      this.#parents.close();
    }
  }

  #settleReady(): void {
    while (this.#started[0]?.work.ready() === true) this.#settleOldest();
  }

  #settleOldest(): void {
    const oldest = this.#started.shift();
    if (oldest !== undefined) oldest.bundle.early = verifiedBy(oldest.work.finish);
  }
}

/**
 * Bundle paths of a local destination whose outputs may be hashing at once
 * (`--checksum`): enough to keep the hashing thread's slots filled while
 * this thread hashes the next bundle's outputs itself.
 */
const LOCAL_CHECKSUM_IN_FLIGHT = 4;

/**
 * Bundles inspected at once at a remote (S3) destination. A rerun reads
 * each bundle's state, a few hundred bytes the store answers in tens of
 * milliseconds (about 40 on Ceph RGW's default front end): the wait is the
 * round trip, so more at once cut it. A rerun of 1,000 bundles on RGW took
 * 6.5-6.8 s with 8, 3.6-4.2 s with 16, 2.9-3.4 s with 32
 * (docs/performance.md, "Inspecting an S3 destination").
 */
const PARALLEL_REMOTE_INSPECTIONS = 32;
/**
 * With `--checksum` each bundle also reads its outputs, eight at a time: the
 * bytes, not the round trips, are the wait, and 32 bundles would put 256
 * requests on the store at once.
 */
const PARALLEL_REMOTE_CHECKSUM_INSPECTIONS = 8;

export interface VerifyContext {
  /** Hash only (dry run, or the run is already aborted): nothing is kept. */
  readonly hashOnly: boolean;
  readonly beforeStep: (step: Step) => void;
  readonly temporary: TemporaryArea;
  readonly onProgress: ((done: number, total: number) => void) | undefined;
  /** The run's interruption: verification stops at the next bundle once it is aborted. */
  readonly signal?: AbortSignal | undefined;
}

/**
 * Phase 3: every byte of every listed file, read once. A bundle that some
 * destination will receive (its manifest decides publish or replace there)
 * is streamed into the run's snapshot; the others are only hashed, so a
 * no-op rerun writes nothing.
 */
export async function verifyAll(
  pipeline: SourcePipeline,
  pipelineIndex: number,
  context: VerifyContext,
): Promise<void> {
  const root = pipeline.root;
  if (root === undefined) return;
  const total = pipeline.bundles.length;
  const parents = new HeldDirs(root);
  try {
    await verifyEach(pipeline, pipelineIndex, context, parents);
  } finally {
    parents.close();
  }
  context.onProgress?.(total, total);
}

/** How a pipeline's bundles are verified: the renderer, when some destination wants pages, and their variants. */
interface PageRendering {
  readonly render: RenderMarkdown | undefined;
  readonly variants: readonly PageVariant[];
}

async function pageRendering(pipeline: SourcePipeline): Promise<PageRendering> {
  const variants = pageVariants(pipeline);
  return { render: variants.length === 0 ? undefined : await loadMarkdownRenderer(), variants };
}

/** The distinct page variants the pipeline's `html` destinations ask for, in configuration order. */
function pageVariants(pipeline: SourcePipeline): readonly PageVariant[] {
  const variants = new Map<string, PageVariant>();
  for (const destination of pipeline.config.destinations) {
    if (!destination.outputs.html) continue;
    const lang = destination.outputs.lang;
    variants.set(lang ?? '', lang === undefined ? {} : { lang });
  }
  return [...variants.values()];
}

const TURN_EVERY_MS = 50;

/**
 * Lets the event loop deliver a pending SIGINT or SIGTERM, then refuses the
 * run if one came: called between phases and between bundles before any
 * write, so an interrupted run stops there with nothing published.
 */
export async function stopIfInterrupted(signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return;
  await new Promise<void>((resolve) => setImmediate(resolve));
  if (signal.aborted) {
    // No role: a signal is about no file of the operator's (it read as a
    // fault of the configuration in --json).
    throw refuseDistributor('run_interrupted', {
      hint: 'stopped before any write: nothing was published, and the next run starts afresh',
    });
  }
}

/** Hash-only bundles begun and not yet finished, at most: bounds descriptors and waiting work. */
const BUNDLES_IN_FLIGHT = 8;

async function verifyEach(
  pipeline: SourcePipeline,
  pipelineIndex: number,
  context: VerifyContext,
  parents: HeldDirs,
): Promise<void> {
  const total = pipeline.bundles.length;
  const rendering = await pageRendering(pipeline);
  const categories = pipeline.destinations.map((d) => d.config.outputs);
  const limits = pipeline.destinations.map((d) => d.backend?.limits);
  // Bundles only hashed are begun in order and finished in the same order,
  // so their large files hash on other threads while the next ones are
  // opened (docs/performance.md, "Hashing on both cores"); failures and
  // pages are recorded exactly as one after the other.
  const inFlight: (() => void)[] = [];
  const finishOldest = (): void => inFlight.shift()?.();
  let turned = performance.now();
  try {
    for (const [index, bundle] of pipeline.bundles.entries()) {
      // A signal is seen only when the event loop turns: it does so every
      // few dozen milliseconds, so that SIGINT stops the run within them.
      if (performance.now() - turned > TURN_EVERY_MS) {
        await stopIfInterrupted(context.signal);
        turned = performance.now();
      }
      context.onProgress?.(index, total);
      // Whether a destination will receive this bundle is known from the
      // manifest and the destination's state, except when only a page may
      // differ (same manifest, same output names: another lang, or pages a
      // newer sealkit renders differently). Then the bundle is first only
      // hashed and rendered, and read a second time, into the snapshot, when
      // a page did change.
      const before = writesBefore(bundle, categories, limits);
      // A failure only ever makes the run stop writing: a bundle not writable
      // now stays so whatever the bundles in flight turn out to be.
      if (before === 'none' || context.hashOnly || pipeline.failures.length > 0) {
        const early = bundle.early;
        const finish = early === undefined ? startVerifyOnly(parents, bundle, rendering) : () => early;
        inFlight.push(() => {
          const pages = settleVerified(pipeline, bundle, finish());
          if (pages !== undefined) bundle.pages = pages;
        });
        if (inFlight.length > BUNDLES_IN_FLIGHT) finishOldest();
        continue;
      }
      while (inFlight.length > 0) finishOldest();
      const writable = pipeline.failures.length === 0;
      const keep = writable && before === 'write';
      let pages = verifyInto(pipeline, pipelineIndex, context, parents, bundle, index, keep, rendering);
      if (pages !== undefined && writable && before === 'pages' && writesAfter(bundle, categories, pages)) {
        pages = verifyInto(pipeline, pipelineIndex, context, parents, bundle, index, true, rendering);
      }
      if (pages !== undefined) bundle.pages = pages;
    }
  } finally {
    // Also after an unexpected error: every started hash is waited for and its descriptor closed.
    while (inFlight.length > 0) {
      try {
        finishOldest();
      } catch {
        // The first error is the one that propagates.
      }
    }
  }
}

/** Begins verifying a bundle that is only hashed; the function returned finishes it. */
function startVerifyOnly(parents: HeldDirs, bundle: SourceBundle, rendering: PageRendering): () => Verified {
  const { finish } = startVerifyBundleFiles(parents, bundle.dir, bundle.manifest, rendering);
  return () => verifiedBy(finish);
}

/** The outcome of a verification, its refusals and snapshot failures caught. */
function verifiedBy(work: () => readonly PageInfo[]): Verified {
  try {
    return { kind: 'verified', pages: work() };
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
 * Verifies one bundle, into a snapshot store with `keep`; the rendered pages,
 * or undefined when the bundle failed (recorded as a failure). With `keep`
 * a failing snapshot write moves the copy to the next store (`verifyKept`).
 */
function verifyInto(
  pipeline: SourcePipeline,
  pipelineIndex: number,
  context: VerifyContext,
  parents: HeldDirs,
  bundle: SourceBundle,
  index: number,
  keep: boolean,
  rendering: PageRendering,
): readonly PageInfo[] | undefined {
  const verify = (target: BundleSnapshot | undefined): Verified =>
    verifiedBy(() =>
      verifyBundleFiles(
        parents,
        bundle.dir,
        bundle.manifest,
        target === undefined ? rendering : { ...rendering, snapshot: target },
      ),
    );
  const outcome = keep
    ? verifyKept(pipeline, pipelineIndex, context, bundle, index, verify)
    : verify(undefined);
  return settleVerified(pipeline, bundle, outcome);
}

/** The pages of a verified bundle; a failed one is recorded as a failure (undefined). */
function settleVerified(
  pipeline: SourcePipeline,
  bundle: SourceBundle,
  outcome: Verified,
): readonly PageInfo[] | undefined {
  if (outcome.kind === 'verified') return outcome.pages;
  // A snapshot failure is never a source failure; with `keep` it cannot reach here.
  const refusal =
    outcome.kind === 'refused' ? outcome.refusal : refuseDistributor('file_unreadable', { role: 'bundle' });
  const shownRoot = pipeline.config.source.shown ?? pipeline.config.source.root;
  pipeline.failures.push({
    bundle_dir: bundle.dir,
    bundle_id: bundle.manifest.id,
    reason_code: reasonCodeOf(refusal),
    refusal: locatedUnder(refusal, join(shownRoot, bundle.dir), bundle.manifest.id),
  });
  return undefined;
}

type Verified =
  | { readonly kind: 'verified'; readonly pages: readonly PageInfo[] }
  | { readonly kind: 'refused'; readonly refusal: Refusal }
  | { readonly kind: 'snapshot_failed'; readonly error: SnapshotWriteFailed };

/**
 * Verifies a bundle that some destination will receive into the pipeline's
 * current snapshot store. When writing the snapshot fails (a full, read-only
 * or failing filesystem), the partial copy is removed, the storage is given
 * up for the rest of the run, the destination it belongs to is refused for
 * this bundle (`destination_write_failed`, when it was to receive it), and
 * the bundle is verified again into the next store: another local
 * destination's work area, else the private temporary directory. Only when
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
      if (verified.kind === 'verified') refuseWriters(pipeline, bundle, undefined, pipeline.temporaryFailure);
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
    if (store.owner === undefined) {
      pipeline.temporaryFailed = true;
      pipeline.temporaryFailure = verified.error;
    } else pipeline.failedOwners.add(store.owner);
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
  error: unknown,
): void {
  const categories = pipeline.destinations.map((d) => d.config.outputs);
  for (const [position, destination] of pipeline.destinations.entries()) {
    const view = bundle.views[position];
    const wanted = categories[position];
    if (view === undefined || wanted === undefined) continue;
    const expected = expectedOutputs(bundle.manifest, wanted);
    if (!isWrite(decide(bundle.manifest, view, expected).outcome)) continue;
    if (owner !== undefined && destination.backend !== owner) continue;
    const config = destination.config;
    const refusal =
      owner !== undefined
        ? destinationWriteFailed(
            config.kind === 'local' ? onFilesystemOf(error, config.shown_root ?? config.root) : error,
          )
        : refuseDistributor('snapshot_write_failed', {
            role: 'destination',
            hint: `the run's temporary directory (TMPDIR, else /tmp) could not hold its copy of the bundle: ${
              writeFailureCause(error) ??
              'check that it exists, that this account can write it, and its free space'
            }`,
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

const isWrite = (outcome: string): boolean => outcome === 'published' || outcome === 'replaced';

/**
 * Before any file is read: `write` when some destination will receive the
 * bundle; `pages` when none will unless a page turns out to differ from the
 * published one; `none` otherwise.
 */
function writesBefore(
  bundle: SourceBundle,
  categories: readonly OutputCategories[],
  limits: readonly (ObjectLimits | undefined)[] = [],
): 'write' | 'pages' | 'none' {
  let pagesOnly = false;
  for (const [index, view] of bundle.views.entries()) {
    const wanted = categories[index];
    const expected = wanted === undefined ? undefined : expectedOutputs(bundle.manifest, wanted);
    const outcome = decide(bundle.manifest, view, expected).outcome;
    // An output larger than the destination can store, or whose key is longer than it allows, is
    // refused at planning from the manifest: no need to copy the bundle for that destination.
    const limit = limits[index];
    const sized = expected?.map((output) => ({ path: output.path, size: output.size ?? 0 }));
    if (limit !== undefined && sized !== undefined && limitProblem(bundle.dir, sized, limit) !== undefined)
      continue;
    if (isWrite(outcome)) return 'write';
    if (outcome === 'skipped_same' && expected?.some((output) => output.sha256 === undefined) === true)
      pagesOnly = true;
  }
  return pagesOnly ? 'pages' : 'none';
}

/** After rendering: whether some destination's pages differ from the published ones. */
function writesAfter(
  bundle: SourceBundle,
  categories: readonly OutputCategories[],
  pages: readonly PageInfo[],
): boolean {
  return bundle.views.some((view, index) => {
    const wanted = categories[index];
    const outputs = wanted === undefined ? undefined : plannedOutputs(bundle.manifest, pages, wanted);
    return outputs !== undefined && isWrite(decide(bundle.manifest, view, outputs).outcome);
  });
}

/**
 * Where a destination's bundles go, as the operator reads it (the plan's
 * `location`): a trial found no way to learn from a dry run that a
 * bundle `weather/2026-05-30` under `prefix: weather` lands at
 * `weather/weather/2026-05-30/` but to list the bucket afterwards.
 */
function destinationLocation(config: DestinationConfig): string {
  if (config.kind === 's3') return `s3://${config.bucket}/${config.prefix === '' ? '' : `${config.prefix}/`}`;
  // One slash between folders, as the path means it (`site//` is `site/`).
  const root = (config.shown_root ?? config.root).replace(/\/{2,}/g, '/');
  return root.endsWith('/') ? root : `${root}/`;
}

/** The planner's input for a pipeline whose phases all ran. */
export function planInput(
  pipeline: SourcePipeline,
  outside?: readonly (OutsideLinks | undefined)[],
): PlanPipelineInput {
  const failed = new Set(pipeline.failures.map((failure) => failure.bundle_dir));
  return {
    id: pipeline.config.id,
    shownRoot: pipeline.config.source.shown ?? pipeline.config.source.root,
    destinations: pipeline.destinations.map((d) => ({
      id: d.config.id,
      kind: d.config.kind,
      outputs: d.config.outputs,
      location: destinationLocation(d.config),
    })),
    limits: pipeline.destinations.map((d) => d.backend?.limits),
    ...(outside === undefined ? {} : { outside }),
    bundles: pipeline.bundles
      .filter((bundle) => !failed.has(bundle.dir))
      .map((bundle) => ({
        dir: bundle.dir,
        manifest: bundle.manifest,
        pages: bundle.pages,
        views: bundle.views,
      })),
    failures: pipeline.failures,
    dirsWithoutManifest: pipeline.dirsWithoutManifest,
    filesAtRoot: pipeline.filesAtRoot,
    filesAfterManifest: pipeline.filesAfterManifest,
  };
}

/**
 * The next place for the pipeline's verified copies: the first local
 * destination's work area that is usable and has not failed (same
 * filesystem: its outputs are then moved, not copied), else the run's
 * private temporary directory; undefined when even that failed.
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
        snapshot: new SourceSnapshot(backend.scratch(), snapshotStep(backend.destinationId, context), {
          writeback: true,
        }),
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
    if (context.temporary.path === undefined) openTemporary(context.temporary);
    const base = Dir.open(context.temporary.path ?? '');
    try {
      const store = {
        snapshot: new SourceSnapshot(base.mkdirExclusive(`pipeline-${pipelineIndex}`, 0o700), () => {}, {
          writeback: false,
        }),
        owner: undefined,
      };
      pipeline.stores.push(store);
      pipeline.current = store;
      return store;
    } finally {
      base.close();
    }
  } catch (error: unknown) {
    pipeline.temporaryFailed = true;
    pipeline.temporaryFailure = error;
    return undefined;
  }
}

function snapshotStep(destinationId: string, context: VerifyContext): SnapshotStep {
  return (kind) => context.beforeStep({ kind, destination_id: destinationId });
}

/** The run's private temporary directory, when no local destination's work area holds its snapshot. */
export interface TemporaryArea {
  path?: string;
  /** Held while the run lives: a directory whose lock is free belongs to a run that died. */
  lock?: HeldLock;
}

const TEMPORARY_PREFIX = 'sealkit-distributor-';
const TEMPORARY_LOCK = '.sealkit-run.lock';
/** Created once the lock is held: a directory without it is never swept. */
const TEMPORARY_ARMED = '.sealkit-run.locked';

/** Creates the run's temporary directory (0700, under TMPDIR) and locks it (see `sweepKilledRunCopies`). */
function openTemporary(temporary: TemporaryArea): void {
  const path = mkdtempSync(join(tmpdir(), TEMPORARY_PREFIX));
  temporary.path = path;
  const own = Dir.open(path);
  try {
    const locked = lockExclusiveNonBlocking(own, TEMPORARY_LOCK);
    if (locked.kind === 'acquired') {
      temporary.lock = locked.lock;
      // Only now may another run judge this directory: the lock file exists before its flock is
      // taken, so a lock seen free without this file may belong to a run that is just starting.
      own.createExclusive(TEMPORARY_ARMED, 0o600).close();
    }
  } finally {
    own.close();
  }
}

/**
 * Removes the copies that killed runs of this user left under TMPDIR:
 * directories named like a run's temporary directory, owned by this user,
 * marked as locked, whose lock is free (its holder died; the kernel
 * released the flock). A directory without the mark (a run between
 * creating and locking it), or whose lock is held, is another run's and
 * stays. Every real run does this at its start, also one that copies
 * nothing: a night of reruns that skip every bundle would otherwise keep a
 * killed run's copy, as large as its bundles, for good.
 */
export function sweepKilledRunCopies(): void {
  sweepStaleTemporaries(tmpdir(), '');
}

export function sweepStaleTemporaries(parentPath: string, keep: string): void {
  let parent: Dir;
  try {
    parent = Dir.open(parentPath);
  } catch {
    return;
  }
  const uid = process.getuid?.();
  try {
    for (const entry of parent.list()) {
      if (!entry.utf8 || entry.name === keep || !entry.name.startsWith(TEMPORARY_PREFIX)) continue;
      try {
        if (entry.type !== 'directory' && entry.type !== 'unknown') continue;
        const candidate = parent.openDir(entry.name);
        let stale = false;
        try {
          stale =
            candidate.stat().uid === uid &&
            hasEntry(candidate, TEMPORARY_ARMED) &&
            probeLock(candidate, TEMPORARY_LOCK) === 'free';
        } finally {
          candidate.close();
        }
        if (stale) removeOwnTree(parent, entry.name, () => {});
      } catch {
        // Not ours to judge (vanished, unreadable, another kind of entry): left alone.
      }
    }
  } finally {
    parent.close();
  }
}

function hasEntry(dir: Dir, name: string): boolean {
  try {
    dir.stat(name);
    return true;
  } catch {
    return false;
  }
}

export function closeSources(pipelines: readonly SourcePipeline[], temporary: TemporaryArea): void {
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
    // A private temporary directory; the next run's sweep or the OS temp cleaner reclaims it.
  } finally {
    temporary.lock?.release();
  }
}
