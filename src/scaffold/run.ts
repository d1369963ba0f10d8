import { type Dir, FsUnavailable, isFsError } from '../core/fs/index.js';
import { Refusal } from '../core/refusal/index.js';
import { guardPrivateAsync } from '../migration/index.js';
import type { CanonicalTableName } from './canonical.js';
import { EDITION_PROFILES, type EditionProfile, isScaffoldEdition } from './editions.js';
import type { ScaffoldFaults } from './faults.js';
import { MANIFEST_NAME, outputPath, STAGING_ROOT, stagingPath } from './names.js';
import { checkOptionShape } from './options.js';
import type { PlannedFile, ScaffoldPlan } from './plan.js';
import { type Preflight, preflight } from './preflight.js';
import { ensureOutputParent, publishedIsOurs, publishRename } from './publish/output.js';
import { StagedTree } from './publish/staged-tree.js';
import {
  type PathCollision,
  PUBLICATION_CONDITION_MESSAGES,
  type PublicationConditionCode,
  refuseScaffold,
  type ScaffoldRefusalCode,
} from './refusals.js';
import {
  CONDITION_ORDER,
  inKeyOrder,
  publishedStatus,
  recoveryCommand,
  repairCommand,
  type ScaffoldReasonCode,
  type ScaffoldResult,
  type ScaffoldStage,
} from './result.js';
import { RunContext } from './run-context.js';
import { isSourceId, type SourceId } from './source-id.js';
import { lookAt, sameInode } from './workspace/entry.js';

export interface ScaffoldOptions {
  /** `bigquery` or `snowflake`; required, no default. */
  readonly edition: string;
  /** The client workspace root (made by `sealkit edition new`). */
  readonly workspace: string;
  /** A generic, non-sensitive alias: `^[a-z][a-z0-9_]{0,39}$`. */
  readonly sourceId: string;
  readonly mappingFile?: string | undefined;
  /** The saved dry-run report. */
  readonly inventoryFile?: string | undefined;
  readonly runManifestFile?: string | undefined;
  readonly sourceBindingId?: string | undefined;
  /** Maximum evidence age in whole seconds (`parseMaxEvidenceAge`); no default. */
  readonly maxEvidenceAge?: number | undefined;
  /** Plan only (§6.1): every check that needs no write, then the planned file list. Writes nothing. */
  readonly dryRun?: boolean | undefined;
  /** With `dryRun`: each planned file of the result also carries its exact text (`content`), in plan order. */
  readonly show?: boolean | undefined;
  /** The clock for evidence freshness; the current time when absent. */
  readonly now?: Date | undefined;
  /** Aborting interrupts the run before publication (the CLI wires SIGINT and SIGTERM to it). */
  readonly signal?: AbortSignal | undefined;
  /** Receives the result before the staging lock is released: the lock is released last (§6.2). */
  readonly onResult?: ((result: ScaffoldResult) => void) | undefined;
  /** Test-only failure injection (docs/scaffold.md#the-test-only-fault-hook); production callers leave it out. */
  readonly faults?: ScaffoldFaults | undefined;
}

/**
 * The Silver scaffolder (seed: silver-scaffolder-contract): preflight, then
 * in the default mode stage → seal → verify → publish → normalize. Returns
 * the §6.5 result object; throws only on an internal error (a bug), as a
 * Refusal with code `internal_error` and no input text.
 */
export async function scaffold(options: ScaffoldOptions): Promise<ScaffoldResult> {
  const ctx = new RunContext(options.signal, options.faults);
  const run = new Run(options, ctx);
  let result: ScaffoldResult;
  try {
    // The private boundary: only a redacted refusal (internal_error for a bug) leaves the scaffolder.
    result = inKeyOrder(await guardPrivateAsync(() => run.execute()));
  } catch (error: unknown) {
    run.close();
    run.releaseLock();
    throw error;
  }
  try {
    options.onResult?.(result);
  } finally {
    run.close();
    run.releaseLock();
  }
  return result;
}

class Run {
  readonly #options: ScaffoldOptions;
  readonly #ctx: RunContext;
  #edition: EditionProfile | undefined;
  #sourceId: SourceId | undefined;
  #pre: Preflight | undefined;
  #tree: StagedTree | undefined;
  #generated: Dir | undefined;

  constructor(options: ScaffoldOptions, ctx: RunContext) {
    this.#options = options;
    this.#ctx = ctx;
  }

  async execute(): Promise<ScaffoldResult> {
    try {
      const pre = this.#preflight();
      if (this.#options.dryRun === true) return this.#planOnly(pre.plan);
      await this.#ctx.checkpoint('after_preflight');
      await this.#stage(pre);
      await this.#seal(pre.plan);
      await this.#verify();
      await this.#publishRename(pre);
    } catch (error: unknown) {
      return this.#refused(error);
    }
    return this.#afterRename();
  }

  #preflight(): Preflight {
    const options = this.#options;
    checkOptionShape(options);
    if (!isScaffoldEdition(options.edition)) throw refuseScaffold('option_invalid');
    this.#edition = EDITION_PROFILES[options.edition];
    if (!isSourceId(options.sourceId)) throw refuseScaffold('source_id_invalid');
    this.#sourceId = options.sourceId;
    this.#pre = preflight(
      this.#edition,
      options.workspace,
      options.sourceId,
      {
        mappingFile: options.mappingFile,
        inventoryFile: options.inventoryFile,
        runManifestFile: options.runManifestFile,
        sourceBindingId: options.sourceBindingId,
        maxEvidenceAge: options.maxEvidenceAge,
        now: options.now,
      },
      this.#ctx.crossDeviceFault,
    );
    return this.#pre;
  }

  /** §6.2 step 2: staging root, lock, exclusive mkdir, exclusive creates, fsync, rehash, directory fsync. */
  async #stage(pre: Preflight): Promise<void> {
    const ctx = this.#ctx;
    ctx.stage = 'stage';
    const tree = new StagedTree(pre.workspace.project, pre.plan, pre.survey.stagingRoot);
    this.#tree = tree;
    tree.ensureRoot();
    await ctx.checkpoint('after_staging_root');
    tree.lock();
    await ctx.checkpoint('after_lock');
    tree.makeDirectory();
    await ctx.checkpoint('after_mkdir');
    for (const file of pre.plan.files) {
      tree.write(file);
      await ctx.checkpoint('after_write');
      tree.fsyncFile(file);
      await ctx.checkpoint('after_file_fsync');
      await ctx.checkpoint('before_rehash');
      tree.rehash(file);
    }
    tree.fsyncDirectory();
    await ctx.checkpoint('after_staging_fsync');
  }

  /** §6.2 step 3: files 0400 through their write descriptors, the directory 0500, fsyncs, descriptors closed. */
  async #seal(plan: ScaffoldPlan): Promise<void> {
    const ctx = this.#ctx;
    const tree = this.#requireTree();
    ctx.stage = 'seal';
    for (const file of plan.files) {
      tree.sealFile(file);
      await ctx.checkpoint('after_file_seal');
    }
    await ctx.checkpoint('before_dir_seal');
    tree.sealDirectory();
    await ctx.checkpoint('after_seal');
  }

  /** §6.2 step 4, then U32 (a): the directory back to 0700 through the held descriptor and everything re-checked. */
  async #verify(): Promise<void> {
    const ctx = this.#ctx;
    const tree = this.#requireTree();
    ctx.stage = 'verify';
    await ctx.checkpoint('before_verify');
    tree.verify(0o500);
    await ctx.checkpoint('after_verify');
    tree.unsealDirectory();
    tree.verify(0o700);
    await ctx.checkpoint('after_unseal');
  }

  /** §6.2 step 5 up to and including the rename. */
  async #publishRename(pre: Preflight): Promise<void> {
    const ctx = this.#ctx;
    const tree = this.#requireTree();
    const root = tree.root;
    if (root === undefined) throw new Error('staging precedes publication');
    ctx.stage = 'publish';
    await ctx.checkpoint('before_generated');
    pre.workspace.checkChain();
    const rootEntry = lookAt(pre.workspace.project, STAGING_ROOT);
    if (rootEntry.kind === 'symlink') throw refuseScaffold('symlink_refused');
    if (rootEntry.kind !== 'directory' || !sameInode(rootEntry.stat, root.stat())) {
      throw refuseScaffold('workspace_changed');
    }
    this.#generated = ensureOutputParent(pre.workspace.migration, pre.survey.generated);
    await ctx.checkpoint('after_generated');
    if (this.#generated.stat().dev !== root.stat().dev) throw refuseScaffold('staging_cross_filesystem');
    await ctx.checkpoint('before_identity_check');
    tree.checkIdentity();
    await ctx.checkpoint('before_rename');
    publishRename(root, this.#generated, pre.plan.sourceId, ctx.errnoFor('rename'));
  }

  /** After the rename the output is visible: identity, parent fsyncs, mode restoration; never a refusal. */
  async #afterRename(): Promise<ScaffoldResult> {
    const ctx = this.#ctx;
    const pre = this.#requirePre();
    const tree = this.#requireTree();
    const generated = this.#generated;
    const root = tree.root;
    const published = tree.dir;
    const identity = tree.identity;
    if (generated === undefined || root === undefined || published === undefined || identity === undefined) {
      throw new Error('publication holds every descriptor');
    }
    const conditions = new Set<PublicationConditionCode>();
    if (!publishedIsOurs(generated, pre.plan.sourceId, identity)) {
      // The visible tree is not the one verified: touch nothing further.
      conditions.add('publish_identity_mismatch');
      return this.#published(conditions, 'publish');
    }
    let synced = false;
    try {
      await ctx.checkpointPublished('after_rename');
      const injected = ctx.errnoFor('parent_fsync');
      if (injected === undefined) {
        generated.fsync();
        root.fsync();
        synced = true;
      }
    } catch {
      // Reported below: the output is visible but may not survive a crash.
    }
    if (!synced) conditions.add('published_durability_unknown');

    ctx.stage = 'normalize';
    if (!(await this.#normalize(pre.plan, published))) conditions.add('published_permissions_not_normalized');
    return this.#published(conditions, 'normalize');
  }

  /** Owner-writable modes again (0700, 0600), each file through its own no-follow descriptor; the manifest last (U33). */
  async #normalize(plan: ScaffoldPlan, published: Dir): Promise<boolean> {
    const ctx = this.#ctx;
    try {
      await ctx.checkpointPublished('after_parent_fsync');
      published.chmod(0o700);
      const ordered = [
        ...plan.files.filter((file) => file.name !== MANIFEST_NAME),
        ...plan.files.filter((file) => file.name === MANIFEST_NAME),
      ];
      for (const file of ordered) {
        const injected = ctx.errnoFor('chmod');
        if (injected !== undefined) return false;
        published.chmodChild(file.name, 0o600);
        await ctx.checkpointPublished('after_chmod');
      }
      return true;
    } catch {
      return false;
    }
  }

  #planOnly(plan: ScaffoldPlan): ScaffoldResult {
    return {
      status: 'plan_only',
      reason_codes: [],
      stage: 'preflight',
      ...this.#identity(),
      output: plan.output,
      staging: plan.staging,
      files: this.#options.show === true ? filesWithContent(plan.files) : filesOf(plan.files),
    };
  }

  #published(conditions: ReadonlySet<PublicationConditionCode>, stage: ScaffoldStage): ScaffoldResult {
    const plan = this.#requirePre().plan;
    const codes = CONDITION_ORDER.filter((code) => conditions.has(code));
    const first = codes[0];
    const unverified = conditions.has('publish_identity_mismatch');
    return {
      status: publishedStatus(conditions),
      reason_codes: codes,
      stage,
      ...(first === undefined ? {} : { message: PUBLICATION_CONDITION_MESSAGES[first] }),
      ...this.#identity(),
      output: plan.output,
      ...(conditions.has('published_permissions_not_normalized')
        ? { repair: repairCommand(plan.output) }
        : {}),
      ...(unverified ? {} : { files: filesOf(plan.files) }),
    };
  }

  #refused(error: unknown): ScaffoldResult {
    const stage = this.#ctx.stage;
    const base = { status: 'refused' as const, stage, ...this.#identity() };
    const sourceId = this.#sourceId;
    const collision = collisionOf(error);
    if (collision !== undefined && sourceId !== undefined) {
      return { ...base, ...collisionResult(collision.code, collision.details, sourceId) };
    }
    const refusal = refusalOf(error, stage);
    const table = tableOf(error);
    return {
      ...base,
      ...reasonOf(refusal),
      ...(table === undefined ? {} : { table }),
      ...this.#leftover(refusal.code),
    };
  }

  /** Where a failed run stands: the output it raced for, and the staging directory it leaves (never removed). */
  #leftover(code: string): Partial<ScaffoldResult> {
    const sourceId = this.#sourceId;
    const tree = this.#tree;
    if (sourceId === undefined) return {};
    const raced = code === 'output_exists' || code === 'symlink_refused' || code === 'not_regular_file';
    const output = raced && this.#ctx.stage === 'publish' ? { output: outputPath(sourceId) } : {};
    if (code === 'staging_in_use') return { ...output, staging: stagingPath(sourceId) };
    if (code === 'staging_exists') {
      return { ...output, staging: stagingPath(sourceId), repair: recoveryCommand(stagingPath(sourceId)) };
    }
    if (tree?.dir === undefined) return output;
    const state = tree.stagingState();
    return {
      ...output,
      staging: stagingPath(sourceId),
      ...(state === undefined ? {} : { staging_state: state }),
    };
  }

  #identity(): Pick<ScaffoldResult, 'edition' | 'source_id' | 'project_dir'> {
    const edition = this.#edition;
    return {
      ...(edition === undefined ? {} : { edition: edition.id, project_dir: edition.projectDir }),
      ...(this.#sourceId === undefined ? {} : { source_id: this.#sourceId }),
    };
  }

  close(): void {
    this.#tree?.closeDescriptors();
    const pre = this.#pre;
    const generated = this.#generated;
    if (generated !== undefined) closeQuietly(generated);
    if (pre !== undefined) {
      if (pre.survey.generated !== undefined && pre.survey.generated !== generated)
        closeQuietly(pre.survey.generated);
      if (this.#tree === undefined && pre.survey.stagingRoot !== undefined)
        closeQuietly(pre.survey.stagingRoot);
      pre.workspace.close();
    }
    this.#pre = undefined;
    this.#generated = undefined;
  }

  releaseLock(): void {
    this.#tree?.releaseLock();
  }

  #requireTree(): StagedTree {
    if (this.#tree === undefined) throw new Error('the staging step runs first');
    return this.#tree;
  }

  #requirePre(): Preflight {
    if (this.#pre === undefined) throw new Error('preflight runs first');
    return this.#pre;
  }
}

/** The collision preflight refused with (its details say where), or undefined for any other failure. */
function collisionOf(
  error: unknown,
): { readonly code: ScaffoldRefusalCode; readonly details: PathCollision } | undefined {
  if (!refuseScaffold.is(error) || error.details === undefined || !('concerns' in error.details))
    return undefined;
  return { code: error.code, details: error.details };
}

/**
 * docs/scaffold.md#checks-in-order: every collision preflight found, in precedence order (status and
 * message are the first's), with the output and staging paths they concern
 * and the repair command of the first that has one.
 */
function collisionResult(
  code: ScaffoldRefusalCode,
  details: PathCollision,
  sourceId: SourceId,
): Pick<ScaffoldResult, 'reason_codes' | 'message' | 'output' | 'staging' | 'repair'> {
  const listed = details.conditions.length > 0 ? details.conditions : undefined;
  const codes: readonly ScaffoldReasonCode[] = listed?.map((condition) => condition.code) ?? [code];
  const concerns = listed?.map((condition) => condition.concerns) ?? [details.concerns];
  const repairs = codes.flatMap((listedCode) => {
    if (listedCode === 'output_exists' && details.outputSealed) return [repairCommand(outputPath(sourceId))];
    if (listedCode === 'staging_exists') return [recoveryCommand(stagingPath(sourceId))];
    return [];
  });
  const repair = repairs[0];
  return {
    reason_codes: codes,
    message: refuseScaffold(code).message,
    ...(concerns.includes('output') ? { output: outputPath(sourceId) } : {}),
    ...(concerns.includes('staging') ? { staging: stagingPath(sourceId) } : {}),
    ...(repair === undefined ? {} : { repair }),
  };
}

/** The canonical table an input-rule refusal concerns. */
function tableOf(error: unknown): CanonicalTableName | undefined {
  if (!refuseScaffold.is(error) || error.details === undefined || !('table' in error.details))
    return undefined;
  return error.details.table;
}

/**
 * A refusal for any failure before publication. Refusals pass through; the
 * platform lacking the primitives is atomic_publish_unavailable; an errno
 * (a real one, or one the test hook injected) maps by stage; anything else
 * is a bug and leaves as internal_error.
 */
function refusalOf(error: unknown, stage: ScaffoldStage): Refusal {
  // Redacted: a core reader's line, column or hint never reaches the result
  // (docs/scaffold.md#the-result-object-and-exit-codes).
  if (error instanceof Refusal && error.category !== 'internal') return error.redacted();
  if (error instanceof FsUnavailable) return refuseScaffold('atomic_publish_unavailable');
  if (isFsError(error)) return refuseScaffold(FAILURE_BY_STAGE[stage]);
  throw error;
}

const FAILURE_BY_STAGE: { readonly [S in ScaffoldStage]: ScaffoldRefusalCode } = {
  preflight: 'workspace_unreadable',
  stage: 'staging_write_failed',
  seal: 'staging_write_failed',
  verify: 'staging_modified',
  publish: 'publish_failed',
  normalize: 'publish_failed',
};

function reasonOf(refusal: Refusal): Pick<ScaffoldResult, 'reason_codes' | 'message' | 'role' | 'field'> {
  return {
    reason_codes: [refusal.code as ScaffoldReasonCode],
    message: refusal.message,
    ...(refusal.role === undefined ? {} : { role: refusal.role }),
    ...(refusal.field === undefined ? {} : { field: refusal.field }),
  };
}

function filesOf(files: readonly PlannedFile[]): NonNullable<ScaffoldResult['files']> {
  return files.map((file) => ({ path: file.path, sha256: file.sha256 }));
}

/** `--dry-run --show`: the very bytes a run would publish, as text, in plan order. */
function filesWithContent(files: readonly PlannedFile[]): NonNullable<ScaffoldResult['files']> {
  return files.map((file) => ({ path: file.path, sha256: file.sha256, content: file.text }));
}

function closeQuietly(dir: Dir): void {
  try {
    dir.close();
  } catch {
    // Released by the kernel regardless.
  }
}
