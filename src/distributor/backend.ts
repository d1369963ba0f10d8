/**
 * The one interface every destination backend implements (local directories,
 * S3-compatible object storage). The run drives it in this order, per
 * destination: `lock` once, `inspect` every bundle path, then (after every
 * bundle of the run validated and the whole plan was built without a
 * collision) `apply` each planned write (or `applyBatch` groups of them), and `close`.
 *
 * Invariants every backend keeps (docs/distributor.md, "Crash behaviour"):
 *
 * 1. State last. `.distributor.json` is the only success marker. It is written
 *    after every planned output is durably in place (local: flushed in
 *    staging with its batch before the commit rename; S3: every PUT acknowledged). A crash
 *    before it is written never makes the bundle path look published.
 * 2. Our own partial writes are never "unmanaged". A crash must not leave a
 *    bundle path that a later run classifies `unmanaged`. Local: everything is
 *    built in a private staging directory in the destination's work area and
 *    appears at the bundle path only through one atomic rename (first
 *    publish: RENAME_NOREPLACE; replacement: RENAME_EXCHANGE), so the bundle
 *    path holds either the old tree or the new one, whole. S3: before the
 *    first output PUT, a pending marker (`.distributor.pending.json`, listing
 *    the outputs this run is about to write) is created under the bundle
 *    prefix; `inspect` reports what such a marker names as `residue`, which
 *    the next run may overwrite or delete (and nothing else), and the marker
 *    is removed after the state write.
 * 3. Replacement is narrow. It deletes only the outputs the old state lists,
 *    then the old state, then (filesystem-like backends) directories that
 *    became empty. Anything else found at the bundle path is left alone; a
 *    managed path holding unlisted files is refused at `inspect`, not swept.
 * 4. Optimistic concurrency. A replacement proves the state is still the one
 *    read at planning (`PlannedPrevious.token`): S3 writes the new state with
 *    `If-Match: <ETag read at planning>` and a first publish with
 *    `If-None-Match: *`, so two concurrent runs cannot both win; local holds
 *    an exclusive lock for the whole run and re-reads the state before the
 *    exchange. A lost race is `destination_changed`, never an overwrite.
 * 5. Streaming. Output bytes are read from `OutputSource` chunk by chunk;
 *    memory stays flat with file size. Every byte written is hashed on the
 *    way and must match the planned digest and size before the commit point.
 * 6. Fail closed, quietly. Failures are `Refusal`s with fixed text (no key,
 *    path, bucket, errno or SDK message); anything else a backend throws is
 *    turned into `destination_write_failed` by the run. A failed apply
 *    removes what it created (local staging; S3 objects it PUT that the
 *    pending marker covers may stay, as residue the next run converges).
 * 7. Fault injection. Before every mutating step (create, write, fsync,
 *    the batch flush, rename, exchange, delete, PUT) a backend calls `context.beforeStep`.
 *    It is a test hook supplied through the library API (never an
 *    environment check); production runs pass a no-op.
 */
import type { FileDigests, Sha256Prefixed } from '../core/digest/index.js';
import type { Dir } from '../core/fs/index.js';
import type { Refusal } from '../core/refusal/index.js';
import type { BundleDir, BundlePath, DestinationState, Instant, OutputRecord } from './model/types.js';
import type { EntryKind, PlannedOutput, PlannedWrite, StateToken } from './plan/types.js';

/** What `inspect` found at one destination bundle path. */
export type DestinationSnapshot =
  /** Nothing there (local: no directory, or an empty one; S3: no object under the prefix). */
  | {
      readonly kind: 'empty';
      readonly residue: readonly BundlePath[];
      /** Why a write here would fail (local: this account may not write in the folder it goes in). */
      readonly unwritable?: Refusal;
    }
  /** No state, but entries that are not our own residue: refused as unmanaged content. */
  | {
      readonly kind: 'unmanaged';
      /** The first of those entries in UTF-8 order (its path in the bundle), when it has a name to show. */
      readonly firstEntry?: string;
    }
  /** A valid `.distributor.json`. */
  | {
      readonly kind: 'managed';
      readonly state: DestinationState;
      readonly token: StateToken;
      /** Files at the bundle path the state does not list (local: refused, never swept). */
      readonly unlisted: boolean;
      /** The first of them in UTF-8 order (its path in the bundle), when it has a name to show. */
      readonly firstUnlisted?: string;
      /** Outputs the state lists that are absent (the destination was damaged by someone). */
      readonly missing: boolean;
      /** The first of them in UTF-8 order. */
      readonly firstMissing?: string;
      /**
       * S3: the size the first of them has when it is there with another size
       * than the state records (someone wrote over it); absent when it is gone.
       */
      readonly firstMissingSize?: number;
      /**
       * Compared by content (`ReadOptions.checksum`): the first of them is
       * there with the size the state records, but its SHA-256 is not the
       * one the state records (someone wrote other bytes of the same size).
       */
      readonly firstMissingContent?: boolean;
      /**
       * Some listed output is there with another size than the state
       * records, or (compared by content) other bytes: written over, not
       * deleted; `firstMissing` is then the first such output.
       */
      readonly writtenOver?: boolean;
      /** How many entries sealkit did not write are there (`firstUnlisted` the first). */
      readonly unlistedCount?: number;
      /** Local: what `firstUnlisted` is when it is not a regular file. */
      readonly firstUnlistedKind?: EntryKind;
      /** How many listed outputs are absent or not as published (`firstMissing` the first). */
      readonly missingCount?: number;
      /** Local: what stands at `firstMissing` when it is not a regular file (a folder, a link…). */
      readonly firstMissingKind?: EntryKind;
      /** `firstMissing` is a page sealkit rendered (kind `generated`): no file to put back. */
      readonly firstMissingGenerated?: boolean;
      /** Pending residue of a crashed replacement of ours (S3); empty for local. */
      readonly residue: readonly BundlePath[];
      /**
       * S3: the objects a replacement may leave where they are, with the
       * bytes they are known to hold (see `InPlaceObject`); absent for local,
       * whose replacement writes every output.
       */
      readonly inPlace?: readonly InPlaceObject[];
      /** Why a replacement here would fail, as for `empty`. */
      readonly unwritable?: Refusal;
    }
  /** The bundle path cannot be used: an unreadable or invalid state, a symlink, a non-directory... */
  | {
      readonly kind: 'invalid';
      readonly refusal: Refusal;
      /** The entry the refusal is about (its path in the bundle), when it is one: an output that cannot be read. */
      readonly entryPath?: string;
    };

/**
 * An object at a bundle path whose bytes are known without sending them:
 * an output the published state lists, found with the size it records
 * (and, compared by content, its SHA-256), or an object a crashed run of
 * ours claimed, read and hashed after its lease ended.
 */
export interface InPlaceObject {
  readonly path: BundlePath;
  readonly sha256: Sha256Prefixed;
  readonly size: number;
}

/** Which mutating step a backend is about to take; reported to `beforeStep`. */
export type StepKind =
  | 'mkdir'
  | 'create'
  | 'write'
  | 'fsync'
  /** The one flush that makes a whole staged batch durable before its commit renames (local). */
  | 'flush'
  /** Within that flush, for a batch of many small files: one syncfs of the destination's filesystem (local). */
  | 'syncfs'
  | 'rename'
  | 'exchange'
  | 'unlink'
  | 'rmdir'
  | 'put'
  | 'delete';

export interface Step {
  readonly kind: StepKind;
  readonly destination_id: string;
}

export interface ApplyContext {
  /** Stamped into the state's `published_at`. */
  readonly now: Instant;
  /** Called before every mutating step; a test hook may throw (injected failure) or kill the process. */
  readonly beforeStep: (step: Step) => void;
  /**
   * Aborted when the run is interrupted (SIGINT, SIGTERM): a backend starts
   * no new write, aborts or finishes those in flight, and refuses the bundle
   * `run_interrupted` unless its commit point was already passed.
   */
  readonly signal?: AbortSignal;
  /**
   * Told the bytes of this write's outputs as they go to the destination,
   * for progress (S3 uploads; a local destination does not tell). A failed
   * attempt takes its bytes back with a negative count before the retry.
   */
  readonly onSent?: (bytes: number) => void;
}

/**
 * The bytes of planned outputs, from the run's verified source snapshot
 * (copies and rendered pages). A stream yields exactly the planned bytes; the
 * backend still hashes what it writes and refuses a mismatch.
 */
export interface OutputSource {
  open(output: PlannedOutput): AsyncIterable<Uint8Array>;
  /**
   * SHA-256 and MD5 of the snapshot file of `output`, read on a thread of
   * their own (undefined when they could not be had). The S3 backend starts
   * this before its first request for a bundle and checks the upload against
   * it, instead of hashing on the thread that feeds the socket.
   */
  digest?(output: PlannedOutput): Promise<FileDigests | undefined>;
  /**
   * When the snapshot file of `output` sits on a local filesystem and this is
   * the last destination of the run that needs it, the local backend may
   * move it (rename) instead of copying. Returns undefined otherwise; other
   * backends ignore it.
   */
  take?(output: PlannedOutput): SnapshotFile | undefined;
  /**
   * Offered with `take`: the snapshot's bundle directory itself, which the
   * local backend turns into the staging tree (its files renamed to their
   * output paths in place, the rest removed) instead of building a second
   * directory. `names` are every snapshot file in it.
   */
  takeDir?(): SnapshotBundleDir;
}

/** The snapshot directory of one bundle, held, with the directory it sits in. */
export interface SnapshotBundleDir {
  readonly dir: Dir;
  readonly parent: Dir;
  readonly name: string;
  readonly names: readonly string[];
}

/** One planned write of a batch, with the bytes it publishes. */
export interface BatchWrite {
  readonly write: PlannedWrite;
  readonly source: OutputSource;
}

/** A snapshot file a backend may move: the held directory and the entry name within it. */
export interface SnapshotFile {
  readonly dir: Dir;
  readonly name: string;
}

export type AppliedOutcome =
  | { readonly outcome: 'published' | 'replaced'; readonly outputs: readonly OutputRecord[] }
  | { readonly outcome: 'refused'; readonly refusal: Refusal };

/**
 * What one object of a destination can hold, so the planner refuses an
 * output that cannot be written before anything is (S3: one PUT is at most
 * 5 GiB, a key at most 1,024 bytes of UTF-8).
 */
export interface ObjectLimits {
  readonly max_object_bytes: number;
  readonly max_key_bytes: number;
  /** Bytes every key starts with before the bundle directory (`<prefix>/`, or nothing). */
  readonly key_prefix_bytes: number;
}

/** Options of a backend's read-only requests. */
export interface ReadOptions {
  /** Aborted when the run is interrupted: reads in flight are abandoned at once. */
  readonly signal?: AbortSignal;
  /**
   * Read the bundle path as it is now, not from what the run read earlier
   * (an S3 destination lists its whole prefix once per run): a second look
   * at a bundle another run took meanwhile.
   */
  readonly fresh?: boolean;
  /**
   * Compare a managed bundle's outputs by content (`--checksum`): every
   * output the state lists that has the size it records is read and its
   * SHA-256 compared with the state's; one that differs counts as written
   * over (`writtenOver`, `firstMissingContent`). Without it only sizes are
   * compared and no output is read.
   */
  readonly checksum?: boolean;
  /**
   * With `checksum`: an output this account may not read is compared by
   * size alone rather than refused — the read a local destination makes
   * before replacing a bundle without `--checksum`, which must not refuse
   * what a size comparison passed.
   */
  readonly unreadableBySize?: boolean;
}

/**
 * One check a real run makes at a destination before its first write there
 * that a dry run leaves out, because it takes a write.
 */
export interface DryRunCaveat {
  /**
   * `conditional_writes`: whether the store honours create-only
   * (`If-None-Match: *`) and `If-Match` writes, which a real run probes with
   * objects of its own, refusing the destination when it does not.
   */
  readonly check: 'conditional_writes';
  /**
   * The bucket's versioning, read without writing (`unknown` when the store
   * would not say). With versioning on, a store that ignores conditional
   * writes on versioned buckets (Ceph RGW) is refused
   * `destination_versioning_unsupported`; AWS S3 honours them there.
   */
  readonly bucket_versioning: 'enabled' | 'suspended' | 'off' | 'unknown';
}

export type LockOutcome = { readonly kind: 'acquired' } | { readonly kind: 'busy' };

export interface LockOptions {
  /** How long to wait for a lock another run holds before answering `busy` (default 0: at once). */
  readonly waitMs?: number;
  /** Called while waiting, with the milliseconds waited so far. */
  readonly onWait?: (waitedMs: number) => void;
  /** Ends the wait at once (the run was interrupted): the answer is then `busy`, and the run reports the interruption. */
  readonly signal?: AbortSignal;
}

export interface DestinationBackend {
  readonly kind: 'local' | 's3';
  readonly destinationId: string;
  /** Object limits the planner checks every planned output against (S3); none for local. */
  readonly limits?: ObjectLimits;
  /**
   * Guards the destination against a concurrent run for as long as the
   * backend is open. Local: an exclusive, non-blocking flock in the work area
   * (`busy` is refused as `destination_locked`), retried until `waitMs`
   * passed. S3: always `acquired`; its guard is the conditional state write
   * (invariant 4) and the pending marker's lease, which never waits.
   */
  lock(options?: LockOptions): Promise<LockOutcome>;
  /**
   * What `lock` would answer now, without taking the lock, waiting or
   * writing anything (the dry run): `busy` when another run holds it; a
   * thrown refusal when it could not be taken (`destination_write_failed`:
   * the work area cannot be made). S3 has no lock and answers `acquired`,
   * keeping `waitMs` (the run's `--wait`) for what the dry run says of a
   * bundle another run holds.
   */
  peekLock?(options?: { readonly waitMs?: number }): Promise<LockOutcome>;
  /**
   * Reads the bundle path without changing anything. Once `options.signal`
   * is aborted (SIGINT, SIGTERM) a read in flight is abandoned at once and
   * the bundle is refused `run_interrupted`: the run then stops before any
   * write, instead of waiting for a store that does not answer.
   */
  inspect(bundleDir: BundleDir, options?: ReadOptions): Promise<DestinationSnapshot>;
  /**
   * What a dry run leaves unchecked at this destination because checking it
   * takes a write, with what read-only requests can tell about it (S3:
   * whether the store honours conditional writes is known only from the
   * probe; the bucket's versioning is read). Called by a dry run for a
   * destination it plans a write to. Absent: a dry run checks all a real
   * run checks before its first write.
   */
  dryRunCaveats?(options?: ReadOptions): Promise<readonly DryRunCaveat[]>;
  /**
   * Which of `paths` (below the destination's root or prefix, as below the
   * source root) the destination holds, for links of pages into no bundle
   * of the run: true held, false not; a path it could not answer for is
   * left out (never reported missing on a doubt). Reads only.
   */
  holds?(paths: readonly string[], options?: ReadOptions): Promise<ReadonlyMap<string, boolean>>;
  /**
   * Executes one planned publication or replacement; state last. It returns
   * once the state is committed; cleanup a backend batches across bundles
   * (S3: deleting pending markers) is done by `close` at the latest.
   */
  apply(write: PlannedWrite, source: OutputSource, context: ApplyContext): Promise<AppliedOutcome>;
  /**
   * Local only: executes several planned writes as one group commit — every
   * bundle staged, the batch made durable by one flush, then each bundle
   * committed by its own atomic rename, then each parent directory touched
   * flushed once. One outcome per write, in order; each write stays
   * all-or-nothing and is never visible before its bytes are durable.
   */
  applyBatch?(writes: readonly BatchWrite[], context: ApplyContext): Promise<readonly AppliedOutcome[]>;
  /**
   * Local only: a private directory on the destination's filesystem where the
   * run may keep its verified source snapshot, so outputs can be moved into
   * staging instead of copied. Removed by `close`.
   */
  scratch?(): Dir;
  /** Releases the lock and removes what the run left in scratch. */
  close(): Promise<void>;
}

/**
 * How the run builds a backend for a configured destination: one factory per
 * destination kind, in `backends/registry.ts` (docs/distributor.md#code-layout).
 * The S3 one is also exported as `createS3Backend`.
 */
export type BackendFactory<Config> = (config: Config, context: BackendOpenContext) => DestinationBackend;

export interface BackendOpenContext {
  /** Called before every mutating step outside `apply` too (work-area cleanup); see invariant 7. */
  readonly beforeStep: (step: Step) => void;
}
