import { join } from 'node:path';
import type { Refusal } from '../../core/refusal/index.js';
import type { ObjectLimits } from '../backend.js';
import type { BundleDir, BundlePath, SourceManifest } from '../model/types.js';
import { compareUtf8 } from '../path/bundle-path.js';
import type { DistributorReasonCode } from '../refusals.js';
import { htmlSidecarPath } from '../transform/sidecar.js';
import { DISTRIBUTOR_VERSION } from '../version.js';
import { outputCollision } from './collision.js';
import { decide, type SnapshotView } from './compare.js';
import { linkWarnings, type OutsideLinks, type SiblingBundles } from './links.js';
import { type PageInfo, plannedOutputs } from './outputs.js';
import type {
  LateFilesBundle,
  OutputComparison,
  PipelinePlan,
  PlanItem,
  PlannedDestination,
  PlannedOutput,
  PlannedRefusal,
  RunFailure,
  RunPlan,
} from './types.js';

export interface PlanBundleInput {
  readonly dir: BundleDir;
  readonly manifest: SourceManifest;
  readonly pages: readonly PageInfo[];
  /** One view per destination of the pipeline, in configuration order. */
  readonly views: readonly SnapshotView[];
}

export interface PlanPipelineInput {
  readonly id: string;
  /** The source root as refusals show it (docs/distributor.md#reading-an-error); absent: bundle-relative. */
  readonly shownRoot?: string;
  readonly destinations: readonly PlannedDestination[];
  /** Per destination (same order), the object limits its backend states; absent: no limit. */
  readonly limits?: readonly (ObjectLimits | undefined)[];
  /** Per destination (same order), what it holds of the paths pages link to outside the run's bundles; absent: not asked. */
  readonly outside?: readonly (OutsideLinks | undefined)[];
  readonly bundles: readonly PlanBundleInput[];
  /** Folders below the source root, outside every bundle, that hold files (absent: none known). */
  readonly dirsWithoutManifest?: readonly string[];
  /** Files directly in the source root, which no bundle holds (absent: none known). */
  readonly filesAtRoot?: readonly string[];
  /** Files in bundle folders modified after their manifest, which does not list them; under the source root, sorted (absent: none known). */
  readonly filesAfterManifest?: readonly string[];
  /** Discovery and validation failures of this pipeline. */
  readonly failures: readonly {
    readonly bundle_dir: BundleDir | null;
    /** The manifest's id, when the manifest was parsed and names a valid one. */
    readonly bundle_id: string | null;
    /** A destination's own setting that failed while no bundle reached it. */
    readonly destination_id?: string;
    readonly reason_code: DistributorReasonCode;
    readonly refusal?: Refusal;
  }[];
}

/** Folders without a manifest a plan names at most (their total is always given). */
/** How many folders without a manifest, and files at a source root, a plan names (it counts them all). */
const LOOSE_SHOWN = 10;

/** A path under the source root as given; `./` before a name that would read as an option. */
function shownUnderRoot(shownRoot: string | undefined, dir: string): string {
  const shown = shownRoot === undefined ? dir : join(shownRoot, dir);
  return shown.startsWith('-') ? `./${shown}` : shown;
}

/** A name a reader takes for Markdown that no page is rendered from (only a lowercase `.md` is). */
const LIKE_MARKDOWN = /\.(md|markdown|mdown|mkd)$/i;

/** Files named like Markdown that a pipeline rendering pages leaves unrendered (see `files_not_rendered`). */
function notRendered(pipeline: PlanPipelineInput): PipelinePlan['files_not_rendered'] {
  if (!pipeline.destinations.some((destination) => destination.outputs.html)) return { total: 0, first: [] };
  const files = pipeline.bundles
    .flatMap((bundle) =>
      bundle.manifest.files
        .filter((file) => LIKE_MARKDOWN.test(file.path) && htmlSidecarPath(file.path) === undefined)
        .map((file) => `${bundle.dir}/${file.path}`),
    )
    .sort(compareUtf8);
  return {
    total: files.length,
    first: files.slice(0, LOOSE_SHOWN).map((file) => shownUnderRoot(pipeline.shownRoot, file)),
  };
}

/** The ids two or more bundle folders of the pipeline carry (see `ids_shared`). */
function sharedIds(pipeline: PlanPipelineInput): PipelinePlan['ids_shared'] {
  const folders = new Map<string, string[]>();
  for (const bundle of pipeline.bundles) {
    const carrying = folders.get(bundle.manifest.id);
    if (carrying === undefined) folders.set(bundle.manifest.id, [bundle.dir]);
    else carrying.push(bundle.dir);
  }
  const shared = [...folders]
    .filter(([, dirs]) => dirs.length > 1)
    .map(([id, dirs]) => ({ id, dirs: [...dirs].sort(compareUtf8) }))
    .sort((a, b) => compareUtf8(a.id, b.id));
  return {
    total: shared.length,
    first: shared.slice(0, LOOSE_SHOWN).map(({ id, dirs }) => ({
      id,
      folders: dirs.map((dir) => shownUnderRoot(pipeline.shownRoot, dir)),
    })),
  };
}

/**
 * The bundles of the plan that hold `files` (bundle-relative paths, sorted),
 * in the same order: each file's bundle is the one folder above it that is a
 * bundle (bundles never nest). A file of a bundle refused since has none here.
 */
function lateFilesBundles(
  pipeline: PlanPipelineInput,
  files: readonly string[],
): PipelinePlan['files_after_manifest']['bundles'] {
  // A bundle refused in validation (a file of it changed) is still the one whose manifest to write again.
  const ids = new Map<string, string>([
    ...pipeline.bundles.map((bundle): [string, string] => [bundle.dir, bundle.manifest.id]),
    ...pipeline.failures.flatMap((failure): [string, string][] =>
      failure.bundle_dir !== null && failure.bundle_id !== null
        ? [[failure.bundle_dir, failure.bundle_id]]
        : [],
    ),
  ]);
  const found: LateFilesBundle[] = [];
  const seen = new Set<string>();
  for (const file of files) {
    const segments = file.split('/');
    for (let depth = segments.length - 1; depth > 0; depth -= 1) {
      const dir = segments.slice(0, depth).join('/');
      const id = ids.get(dir);
      if (id === undefined) continue;
      if (!seen.has(dir)) {
        seen.add(dir);
        found.push({ folder: shownUnderRoot(pipeline.shownRoot, dir), id });
      }
      break;
    }
  }
  return { total: found.length, first: found.slice(0, LOOSE_SHOWN) };
}

/**
 * Builds the run's plan from validated bundles and destination views, with
 * no I/O: the same input gives the same plan, and `--dry-run` prints it. A
 * failed bundle, a failed discovery or an output collision anywhere aborts
 * the run: every publish or replace becomes `run_aborted`, so nothing is
 * written; items that would not write keep their own outcome.
 */
export function planRun(
  pipelines: readonly PlanPipelineInput[],
  outputsComparedBy: OutputComparison = 'size',
): RunPlan {
  const failures: RunFailure[] = [];
  const items: PlanItem[] = [];
  for (const pipeline of pipelines) {
    for (const failure of pipeline.failures) {
      failures.push({
        pipeline_id: pipeline.id,
        bundle_dir: failure.bundle_dir,
        bundle_id: failure.bundle_dir === null ? null : failure.bundle_id,
        ...(failure.destination_id === undefined ? {} : { destination_id: failure.destination_id }),
        reason_code: failure.reason_code,
        ...(failure.refusal === undefined ? {} : { refusal: failure.refusal }),
      });
      if (failure.bundle_dir === null) continue;
      for (const destination of pipeline.destinations) {
        items.push({
          pipeline_id: pipeline.id,
          destination_id: destination.id,
          bundle_dir: failure.bundle_dir,
          bundle_id: failure.bundle_id,
          outcome: 'refused',
          reason_code: failure.reason_code,
        });
      }
    }
    // A page's link into another bundle of the pipeline is checked against that bundle's outputs.
    const siblings: SiblingBundles = new Map(pipeline.bundles.map((bundle) => [bundle.dir, bundle.manifest]));
    for (const bundle of pipeline.bundles) {
      for (const [index, destination] of pipeline.destinations.entries()) {
        const view: SnapshotView = bundle.views[index] ?? {
          kind: 'refused',
          reason_code: 'destination_unreachable',
        };
        const item = planItem(pipeline.id, destination, bundle, view, {
          limits: pipeline.limits?.[index],
          siblings,
          outside: pipeline.outside?.[index],
          loose: pipeline.dirsWithoutManifest,
        });
        if (item.outcome === 'refused' && item.reason_code === 'output_collision') {
          const refusal = outputCollision(bundle.manifest, bundle.pages, destination.outputs);
          const base = pipeline.shownRoot === undefined ? bundle.dir : join(pipeline.shownRoot, bundle.dir);
          failures.push({
            pipeline_id: pipeline.id,
            bundle_dir: bundle.dir,
            bundle_id: bundle.manifest.id,
            reason_code: 'output_collision',
            ...(refusal === undefined
              ? {}
              : { refusal: refusal.at({ path: join(base, refusal.location?.path ?? '') }) }),
          });
        }
        items.push(item);
      }
    }
  }
  const aborted = failures.length > 0;
  const order = new Map(pipelines.map((pipeline, index) => [pipeline.id, index]));
  // In the order of the table: a pipeline's own failures first, then its
  // bundles' by path. Recorded by phase (a manifest that does not parse
  // before a file whose size changed), a bundle late in the tree was said
  // before one early in it.
  failures.sort(
    (a, b) =>
      (order.get(a.pipeline_id) ?? 0) - (order.get(b.pipeline_id) ?? 0) ||
      (a.bundle_dir === null ? 0 : 1) - (b.bundle_dir === null ? 0 : 1) ||
      (a.bundle_dir === null || b.bundle_dir === null ? 0 : compareUtf8(a.bundle_dir, b.bundle_dir)),
  );
  const destinationOrder = new Map(
    pipelines.flatMap((pipeline) =>
      pipeline.destinations.map((d, index) => [`${pipeline.id}\u0000${d.id}`, index] as const),
    ),
  );
  const finalItems = items
    .map(
      (item): PlanItem =>
        aborted && (item.outcome === 'published' || item.outcome === 'replaced')
          ? { ...base(item), outcome: 'refused', reason_code: 'run_aborted' }
          : item,
    )
    .sort(
      (a, b) =>
        (order.get(a.pipeline_id) ?? 0) - (order.get(b.pipeline_id) ?? 0) ||
        compareUtf8(a.bundle_dir, b.bundle_dir) ||
        (destinationOrder.get(`${a.pipeline_id}\u0000${a.destination_id}`) ?? 0) -
          (destinationOrder.get(`${b.pipeline_id}\u0000${b.destination_id}`) ?? 0),
    );
  const pipelinePlans: PipelinePlan[] = pipelines.map((pipeline) => {
    const loose = pipeline.dirsWithoutManifest ?? [];
    const atRoot = pipeline.filesAtRoot ?? [];
    const unlisted = pipeline.filesAfterManifest ?? [];
    return {
      id: pipeline.id,
      destinations: pipeline.destinations,
      bundles: pipeline.bundles.map((bundle) => ({ bundle_dir: bundle.dir, manifest: bundle.manifest })),
      dirs_without_manifest: {
        total: loose.length,
        first: loose.slice(0, LOOSE_SHOWN).map((dir) => shownUnderRoot(pipeline.shownRoot, dir)),
      },
      files_at_source_root: {
        total: atRoot.length,
        first: atRoot.slice(0, LOOSE_SHOWN).map((file) => shownUnderRoot(pipeline.shownRoot, file)),
      },
      files_not_rendered: notRendered(pipeline),
      ids_shared: sharedIds(pipeline),
      files_after_manifest: {
        total: unlisted.length,
        first: unlisted.slice(0, LOOSE_SHOWN).map((file) => shownUnderRoot(pipeline.shownRoot, file)),
        bundles: lateFilesBundles(pipeline, unlisted),
      },
    };
  });
  return {
    aborted,
    outputs_compared_by: outputsComparedBy,
    failures,
    pipelines: pipelinePlans,
    items: finalItems,
  };
}

function planItem(
  pipelineId: string,
  destination: PlannedDestination,
  bundle: PlanBundleInput,
  view: SnapshotView,
  around: {
    readonly limits: ObjectLimits | undefined;
    readonly siblings: SiblingBundles;
    readonly outside: OutsideLinks | undefined;
    readonly loose: readonly string[] | undefined;
  },
): PlanItem {
  const { limits, siblings, outside, loose } = around;
  const head = {
    pipeline_id: pipelineId,
    destination_id: destination.id,
    bundle_dir: bundle.dir,
    bundle_id: bundle.manifest.id,
  };
  const outputs = plannedOutputs(bundle.manifest, bundle.pages, destination.outputs);
  if (outputs === undefined) return { ...head, outcome: 'refused', reason_code: 'output_collision' };
  const decision = decide(bundle.manifest, view, outputs, {
    pipeline_id: pipelineId,
    destination_id: destination.id,
  });
  switch (decision.outcome) {
    case 'skipped_same':
      return { ...head, outcome: decision.outcome, ...unlistedBeside(view) };
    case 'skipped_newer':
      return {
        ...head,
        outcome: decision.outcome,
        ...(view.kind === 'managed'
          ? {
              destination_created: view.state.source.manifest.created,
              source_created: bundle.manifest.created,
            }
          : {}),
        ...unlistedBeside(view),
      };
    case 'conflict':
    case 'refused':
      return {
        ...head,
        outcome: decision.outcome,
        reason_code: decision.reason_code,
        ...(decision.reason_code === 'conflict_different_id' && view.kind === 'managed'
          ? { destination_bundle_id: view.state.source.manifest.id }
          : {}),
        ...(decision.reason_code === 'conflict_other_destination' && view.kind === 'managed'
          ? {
              published_by: {
                pipeline_id: view.state.pipeline_id,
                destination_id: view.state.destination_id,
              },
            }
          : {}),
        ...entryOf(decision.reason_code, view),
      };
    case 'published':
    case 'replaced':
      break;
  }
  const overLimit = limits === undefined ? undefined : limitProblem(bundle.dir, outputs, limits);
  if (overLimit !== undefined)
    return { ...head, outcome: 'refused', reason_code: overLimit.code, output_path: overLimit.path };
  const state = {
    schema_version: 1 as const,
    distributor_version: DISTRIBUTOR_VERSION,
    pipeline_id: pipelineId,
    destination_id: destination.id,
    source: { manifest: bundle.manifest },
    outputs: outputs.map(({ source_index: _index, ...record }) => record),
  };
  const residue = view.kind === 'empty' || view.kind === 'managed' ? view.residue : [];
  const warnings = linkWarnings(
    bundle.manifest,
    bundle.pages,
    destination.outputs,
    outputs,
    siblings,
    outside,
    loose,
  );
  const warned = warnings.length === 0 ? {} : { link_warnings: warnings };
  if (decision.outcome === 'published')
    return { ...head, outcome: 'published', outputs, state, residue, ...warned };
  const kept = keptOutputs(outputs, view);
  return {
    ...head,
    outcome: 'replaced',
    outputs,
    state,
    ...warned,
    ...(kept.length === 0 ? {} : { kept }),
    previous: { token: decision.token, outputs: decision.previous.outputs.map((output) => output.path) },
    ...(decision.reason === undefined ? {} : { reason: decision.reason }),
    ...(decision.reason === 'same_files'
      ? {
          destination_created: decision.previous.source.manifest.created,
          source_created: bundle.manifest.created,
        }
      : {}),
    residue,
  };
}

/**
 * The outputs of a replacement the destination already holds with their
 * bytes, which apply leaves in place (docs/distributor.md, "Replacing a
 * bundle at S3"): only from a destination that says what it holds
 * (`inPlace`, S3), and none when inspection found an output missing or
 * written over, which sends every output again.
 */
function keptOutputs(outputs: readonly PlannedOutput[], view: SnapshotView): readonly BundlePath[] {
  if (view.kind !== 'managed' || view.inPlace === undefined) return [];
  if (view.missing || view.writtenOver === true) return [];
  const held = new Map(view.inPlace.map((object) => [object.path as string, object]));
  return outputs
    .filter((output) => {
      const object = held.get(output.path);
      return object !== undefined && object.sha256 === output.sha256 && object.size === output.size;
    })
    .map((output) => output.path);
}

/**
 * The entry a refusal of the bundle path is about: the first foreign entry,
 * or the first missing output (with its size, when it is there with another;
 * or, compared by content, that its SHA-256 differs; or what stands there
 * when it is no file), with how many there are, and beside missing outputs
 * the first foreign entry; or the output a refused inspection could not read.
 */
/** A skipped bundle's entries that no state lists, which its next replacement will be refused for. */
function unlistedBeside(view: SnapshotView): {
  readonly unlisted_path?: string;
  readonly unlisted_count?: number;
} {
  if (view.kind !== 'managed' || !view.unlisted || view.firstUnlisted === undefined) return {};
  return {
    unlisted_path: view.firstUnlisted,
    ...(view.unlistedCount === undefined ? {} : { unlisted_count: view.unlistedCount }),
  };
}

function entryOf(code: DistributorReasonCode, view: SnapshotView): EntryFields {
  if (view.kind === 'unmanaged')
    return code === 'destination_unmanaged' && view.firstEntry !== undefined
      ? { entry_path: view.firstEntry }
      : {};
  if (view.kind === 'refused')
    return view.entry_path !== undefined && code === view.reason_code ? { entry_path: view.entry_path } : {};
  if (view.kind !== 'managed') return {};
  if (code === 'destination_unlisted_entry') {
    if (view.firstUnlisted === undefined) return {};
    return {
      entry_path: view.firstUnlisted,
      ...(view.firstUnlistedKind === undefined ? {} : { entry_kind: view.firstUnlistedKind }),
      ...(view.unlistedCount === undefined ? {} : { entry_count: view.unlistedCount }),
    };
  }
  if (code !== 'destination_incomplete' || view.firstMissing === undefined) return {};
  const size = view.firstMissingSize;
  return {
    entry_path: view.firstMissing,
    ...(view.firstMissingKind === undefined ? {} : { entry_kind: view.firstMissingKind }),
    ...(view.missingCount === undefined ? {} : { entry_count: view.missingCount }),
    ...(view.firstMissingGenerated === true ? { entry_generated: true as const } : {}),
    ...(size !== undefined
      ? { entry_size: size }
      : view.firstMissingContent === true
        ? { entry_sha256_differs: true as const }
        : {}),
    ...(view.unlisted && view.firstUnlisted !== undefined ? { unlisted_path: view.firstUnlisted } : {}),
    ...(view.unlisted && view.unlistedCount !== undefined ? { unlisted_count: view.unlistedCount } : {}),
  };
}

type EntryFields = Pick<
  PlannedRefusal,
  | 'entry_path'
  | 'entry_kind'
  | 'entry_count'
  | 'entry_generated'
  | 'entry_size'
  | 'entry_sha256_differs'
  | 'unlisted_path'
  | 'unlisted_count'
>;

/** The names sealkit itself writes beside the outputs; the longest bounds the key of every bundle. */
const OWN_NAMES = ['.distributor.json', '.distributor.pending.json'] as const;

/**
 * The first output the destination cannot store as one object (too large),
 * or whose key (`<prefix>/<bundle dir>/<path>`) is longer than the
 * destination allows (the bundle's own state and marker keys count too),
 * with that output's path.
 */
export function limitProblem(
  dir: BundleDir,
  outputs: readonly { readonly path: string; readonly size: number }[],
  limits: ObjectLimits,
): { readonly code: 'output_too_large' | 'output_key_too_long'; readonly path: string } | undefined {
  const large = outputs.find((output) => output.size > limits.max_object_bytes);
  if (large !== undefined) return { code: 'output_too_large', path: large.path };
  const base = limits.key_prefix_bytes + Buffer.byteLength(dir, 'utf8') + 1;
  const names = [...OWN_NAMES, ...outputs.map((output) => output.path)];
  const long = names.find((name) => base + Buffer.byteLength(name, 'utf8') > limits.max_key_bytes);
  if (long !== undefined) return { code: 'output_key_too_long', path: long };
  return undefined;
}

function base(item: PlanItem) {
  return {
    pipeline_id: item.pipeline_id,
    destination_id: item.destination_id,
    bundle_dir: item.bundle_dir,
    bundle_id: item.bundle_id,
  };
}
