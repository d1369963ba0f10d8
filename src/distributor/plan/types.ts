import type { Sha256Prefixed } from '../../core/digest/index.js';
import type { Refusal } from '../../core/refusal/index.js';
import type {
  BundleDir,
  BundlePath,
  DestinationState,
  Instant,
  OutputCategories,
  OutputKind,
  SourceManifest,
  TransformId,
} from '../model/types.js';
import type { DistributorReasonCode } from '../refusals.js';
import type { LinkWarning } from './links.js';

/**
 * The plan is pure data: JSON-serializable, built without I/O from validated
 * bundles and destination snapshots, printed as-is by `--dry-run`, and the
 * only input `apply` acts on. Nothing in it is a timestamp except the state's
 * `published_at`, which apply stamps.
 */

/**
 * What a run reports per (bundle, destination): one vocabulary for the plan
 * (the outcome it predicts, before anything is written) and the report (the
 * outcome after apply); docs/distributor.md#outcomes.
 */
export type Outcome = 'published' | 'replaced' | 'skipped_same' | 'skipped_newer' | 'conflict' | 'refused';

/**
 * One file to write at the destination. Its bytes come from the run's source
 * snapshot: `source_index` is the position of the producing file in
 * `manifest.files` (a copy, or the Markdown a page is rendered from), and the
 * digest and size are known at planning (generated pages are rendered during
 * validation, so the plan can state them and the state file is fully decided).
 */
export interface PlannedOutput {
  readonly path: BundlePath;
  readonly kind: OutputKind;
  readonly source_path: BundlePath;
  readonly source_index: number;
  readonly transform?: TransformId;
  readonly sha256: Sha256Prefixed;
  readonly size: number;
}

/**
 * An opaque, backend-specific witness of the destination state read at
 * planning: the S3 ETag of `.distributor.json`, or the local state file's
 * digest. A replacement must prove the state is still this one at its commit
 * point (S3: `If-Match`; local: re-read under the lock before the exchange).
 */
export type StateToken = string & { readonly __stateToken: true };

/**
 * Why a bundle was replaced, when it is not plainly a newer bundle
 * (docs/distributor.md#outcomes): `outputs_changed`, the same manifest but
 * other outputs asked for than its state lists; `interrupted_run`, the same
 * manifest beside residue of a killed run of ours, whose cleanup the
 * replacement finishes; `same_files`, a newer `created` over the very files
 * published (a manifest written again over an unchanged folder).
 */
export type ReplaceReason = 'outputs_changed' | 'interrupted_run' | 'same_files';

/** What a replacement may delete: exactly the old state's outputs, then the old state. */
export interface PlannedPrevious {
  readonly token: StateToken;
  readonly outputs: readonly BundlePath[];
}

export interface PlanItemBase {
  readonly pipeline_id: string;
  readonly destination_id: string;
  readonly bundle_dir: BundleDir;
  /**
   * The manifest's id. Also for a bundle refused in validation, whenever its
   * manifest was parsed and names a valid id; null only when it does not
   * (not JSON, unreadable, missing, or the id itself refused).
   */
  readonly bundle_id: string | null;
}

/** publish: destination empty (or holding only our own pending residue); replace: managed and older. */
export interface PlannedWrite extends PlanItemBase {
  readonly outcome: 'published' | 'replaced';
  readonly outputs: readonly PlannedOutput[];
  /** The state to write last, without `published_at` (stamped by apply). */
  readonly state: Omit<DestinationState, 'published_at'>;
  /** replace only: the state being replaced. */
  readonly previous?: PlannedPrevious;
  /** replace only: set when the bundle itself is not what changed (see ReplaceReason). */
  readonly reason?: ReplaceReason;
  /**
   * `same_files` only: the `created` of the bundle the destination holds and
   * of the source bundle (the later), so the report can name the `created`
   * that keeps the published bundle.
   */
  readonly destination_created?: Instant;
  readonly source_created?: Instant;
  /**
   * Objects a crashed earlier run of ours left under this bundle path and
   * recorded in its pending marker; apply may overwrite or delete exactly
   * these (never anything else). Always empty for the local backend.
   */
  readonly residue: readonly BundlePath[];
  /**
   * replace only: outputs left where they are, not written again, because
   * the destination already holds their bytes (S3: the published state
   * records the same path, SHA-256 and size, or a crashed run of ours sent
   * them and inspection read them back). Absent when none; a local
   * replacement writes every output.
   */
  readonly kept?: readonly BundlePath[];
  /**
   * Links of its pages that will point at nothing at this destination (a
   * warning; the bundle is published as planned). Absent when there are none.
   */
  readonly link_warnings?: readonly LinkWarning[];
}

export interface PlannedSkip extends PlanItemBase {
  readonly outcome: 'skipped_same' | 'skipped_newer';
  /**
   * `skipped_newer` only: the `created` of the bundle the destination holds
   * and of the source bundle (the first is later), so the report can say
   * "destination newer than source: … > …".
   */
  readonly destination_created?: Instant;
  readonly source_created?: Instant;
  /**
   * The first entry (in UTF-8 order, its path in the bundle) at the bundle
   * path that no state lists — put there by hand, or by another tool. It is
   * left alone now, but the next replacement of the bundle is refused
   * (`destination_unlisted_entry`) until it is moved out; said now, while
   * nothing fails.
   */
  readonly unlisted_path?: string;
  /** How many such entries there are (names that are not UTF-8 included). */
  readonly unlisted_count?: number;
}

/**
 * What stands at a destination entry that is not a regular file: a folder,
 * a symbolic link, or a special file (a FIFO, a socket, a device). A local
 * destination only; an S3 prefix holds objects.
 */
export type EntryKind = 'folder' | 'symlink' | 'special';

export interface PlannedRefusal extends PlanItemBase {
  readonly outcome: 'conflict' | 'refused';
  readonly reason_code: DistributorReasonCode;
  /** `conflict_different_id` only: the id of the bundle the destination holds. */
  readonly destination_bundle_id?: string;
  /** `conflict_other_destination` only: the pipeline and destination the destination's state names. */
  readonly published_by?: { readonly pipeline_id: string; readonly destination_id: string };
  /** `output_too_large` and `output_key_too_long` only: the first output (its path in the bundle) over the limit. */
  readonly output_path?: string;
  /**
   * `destination_unlisted_entry`: the first entry (in UTF-8 order) at the
   * bundle path that sealkit did not write; `destination_incomplete`: the
   * first listed output that is gone, not the size the state records, or
   * (compared by content) not its SHA-256. Its path in the bundle.
   */
  readonly entry_path?: string;
  /**
   * What stands at `entry_path` when it is not a regular file (local):
   * `destination_incomplete`, a folder, link or special file where sealkit
   * published a file; `destination_unlisted_entry`, the entry itself.
   */
  readonly entry_kind?: EntryKind;
  /**
   * `destination_incomplete`: how many listed outputs are gone or not as
   * published; `destination_unlisted_entry`: how many entries sealkit did
   * not write are there (names that are not UTF-8 included). `entry_path` is
   * the first of them.
   */
  readonly entry_count?: number;
  /**
   * `destination_incomplete` only: the first entry at the bundle path that
   * sealkit did not write (its path in the bundle), when the bundle holds
   * such entries besides the outputs that are not as published.
   */
  readonly unlisted_path?: string;
  /** `destination_incomplete` only: how many such entries there are (names that are not UTF-8 included). */
  readonly unlisted_count?: number;
  /**
   * `destination_incomplete` only: that output is a page sealkit rendered
   * (kind `generated`), which the source holds no copy of to put back.
   */
  readonly entry_generated?: true;
  /** `destination_incomplete` only: the size that output has, when it is there with another size. */
  readonly entry_size?: number;
  /**
   * `destination_incomplete` only, compared by content (`--checksum`): that
   * output has the size the state records, but its SHA-256 is another.
   */
  readonly entry_sha256_differs?: true;
}

export type PlanItem = PlannedWrite | PlannedSkip | PlannedRefusal;

export interface PlannedDestination {
  readonly id: string;
  readonly kind: 'local' | 's3';
  readonly outputs: OutputCategories;
  /**
   * Where its bundles go, ending in `/`: the local root as refusals show
   * it (a relative root from the folder the command runs in), or
   * `s3://<bucket>/<prefix>/`. A bundle's outputs lie under
   * `<location><bundle_dir>/`.
   */
  readonly location?: string;
}

export interface PlannedBundle {
  readonly bundle_dir: BundleDir;
  readonly manifest: SourceManifest;
}

/** A bundle holding files written after its manifest: where it is, and the id its manifest gives. */
export interface LateFilesBundle {
  readonly folder: string;
  readonly id: string;
}

/** One bundle id that several folders of a pipeline carry, with those folders. */
export interface SharedId {
  readonly id: string;
  /** Under the source root as the configuration gives it, by UTF-8 bytes. */
  readonly folders: readonly string[];
}

export interface PipelinePlan {
  readonly id: string;
  readonly destinations: readonly PlannedDestination[];
  readonly bundles: readonly PlannedBundle[];
  /**
   * Folders below the source root, outside every bundle, that hold files
   * of their own (hidden ones aside) — where a manifest was most likely
   * forgotten: how many, and the first ten by UTF-8 bytes, each under the
   * source root as the configuration gives it.
   */
  readonly dirs_without_manifest: { readonly total: number; readonly first: readonly string[] };
  /**
   * Files directly in the source root (hidden ones aside), which no bundle
   * holds and no run publishes: how many, and the first ten by UTF-8 bytes,
   * each under the source root as the configuration gives it.
   */
  readonly files_at_source_root: { readonly total: number; readonly first: readonly string[] };
  /**
   * Files in bundle folders modified after their manifest, which does not
   * list them (hidden ones aside): a chart or CSV written after the
   * manifest, which no run publishes. A file left out on purpose
   * (`--exclude`) was there before the manifest and is not named. How many,
   * and the first ten by UTF-8 bytes, each under the source root as the
   * configuration gives it; and the bundles that hold them (how many, and
   * the first ten: folder under the source root as the configuration gives
   * it, and id), for the command that writes their manifests again.
   */
  /**
   * Files of the pipeline's bundles named like Markdown but not `*.md` in
   * lower case (`report.MD`, `notes.markdown`), when a destination of the
   * pipeline renders pages: no page is rendered from them (with `assets`
   * they are published as they are). How many, and the first ten by UTF-8
   * bytes, each under the source root as the configuration gives it.
   */
  readonly files_not_rendered: { readonly total: number; readonly first: readonly string[] };
  /**
   * Bundle ids that two or more folders of the pipeline carry: a folder
   * copied to start the next issue keeps the manifest it was copied with,
   * and is published as a second copy of the old bundle. How many ids,
   * and the first ten by UTF-8 bytes with their folders.
   */
  readonly ids_shared: { readonly total: number; readonly first: readonly SharedId[] };
  readonly files_after_manifest: {
    readonly total: number;
    readonly first: readonly string[];
    readonly bundles: { readonly total: number; readonly first: readonly LateFilesBundle[] };
  };
}

/**
 * A failure that stops the whole run before any destination write
 * (docs/distributor.md#outcomes, "Validate all, then write").
 */
export interface RunFailure {
  readonly pipeline_id: string;
  /** Null when the pipeline failed before its bundles were known (discovery). */
  readonly bundle_dir: BundleDir | null;
  /** The failing bundle's manifest id, as in `PlanItemBase.bundle_id`; null for a pipeline's failure. */
  readonly bundle_id: string | null;
  /**
   * A destination whose own configured folder does not open, when no bundle
   * reached it to be refused there (an empty source, or a failed source root).
   */
  readonly destination_id?: string;
  readonly reason_code: DistributorReasonCode;
  /**
   * The refusal itself, located under the paths the user named
   * (docs/distributor.md#reading-an-error); it lists every independent error of the bundle.
   */
  readonly refusal?: Refusal;
}

/**
 * How the outputs a destination's state lists were compared with what the
 * destination holds: by `size` (the listing), or by `sha256` (`--checksum`:
 * every output of the recorded size read and hashed).
 */
export type OutputComparison = 'size' | 'sha256';

export interface RunPlan {
  /** True when a failure below means nothing will be written; every write became `run_aborted`. */
  readonly aborted: boolean;
  readonly outputs_compared_by: OutputComparison;
  readonly failures: readonly RunFailure[];
  readonly pipelines: readonly PipelinePlan[];
  /** Sorted by pipeline (config order), bundle directory (byte order), destination (config order). */
  readonly items: readonly PlanItem[];
}
