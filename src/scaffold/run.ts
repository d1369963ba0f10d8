import { closeQuietly, type Dir, type FileStat, FsUnavailable, isFsError } from '../core/fs/index.js';
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
  /** Plan only (docs/scaffold.md#checks-in-order): every check that needs no write, then the planned file list. Writes nothing. */
  readonly dryRun?: boolean | undefined;
  /** With `dryRun`: each planned file of the result also carries its exact text (`content`), in plan order. */
  readonly show?: boolean | undefined;
  /** The clock for evidence freshness; the current time when absent. */
  readonly now?: Date | undefined;
  /** Aborting interrupts the run before publication (the CLI wires SIGINT and SIGTERM to it). */
  readonly signal?: AbortSignal | undefined;
  /** Receives the result before the staging lock is released: the lock is released last (docs/scaffold.md#the-publication-protocol). */
  readonly onResult?: ((result: ScaffoldResult) => void) | undefined;
  /** Test-only failure injection (docs/scaffold.md#the-test-only-fault-hook); production callers leave it out. */
  readonly faults?: ScaffoldFaults | undefined;
}

/**
 * The Silver scaffolder (docs/scaffold.md): preflight, then in the default
 * mode stage → seal → verify → publish → normalize, each step a function
 * handed what the one before it produced. Returns the result object
 * (docs/scaffold.md#the-result-object-and-exit-codes); throws only on an
 * internal error (a bug), as a Refusal with code `internal_error` and no
 * input text.
 */
export async function scaffold(options: ScaffoldOptions): Promise<ScaffoldResult> {
  const ctx = new RunContext(options.signal, options.faults);
  const held = new Holdings();
  let result: ScaffoldResult;
  try {
    // The private boundary: only a redacted refusal (internal_error for a bug) leaves the scaffolder.
    result = inKeyOrder(await guardPrivateAsync(() => execute(options, ctx, held)));
  } catch (error: unknown) {
    held.release();
    throw error;
  }
  try {
    options.onResult?.(result);
  } finally {
    held.release();
  }
  return result;
}

/** Who the run is for: the checked edition and source id. */
interface Invocation {
  readonly edition: EditionProfile;
  readonly sourceId: SourceId;
}

/** What a refused invocation still says about itself: the edition, when it was valid. */
type Checked =
  | { readonly kind: 'valid'; readonly invocation: Invocation }
  | { readonly kind: 'refused'; readonly error: unknown; readonly edition: EditionProfile | undefined };

/** The staging directory as `stage` leaves it: created, written, synced, held by descriptor. */
interface Staged {
  readonly tree: StagedTree;
  readonly root: Dir;
  readonly dir: Dir;
  readonly identity: FileStat;
}

/** After the rename: the held parents and the published directory with the identity verified. */
interface Renamed {
  readonly generated: Dir;
  readonly root: Dir;
  readonly published: Dir;
  readonly identity: FileStat;
}

async function execute(options: ScaffoldOptions, ctx: RunContext, held: Holdings): Promise<ScaffoldResult> {
  const checked = checkInvocation(options);
  if (checked.kind === 'refused') {
    return refused(checked.error, ctx.stage, identityOf(checked.edition, undefined), undefined, undefined);
  }
  const { invocation } = checked;
  const identity = identityOf(invocation.edition, invocation.sourceId);
  let pre: Preflight;
  try {
    pre = runPreflight(options, invocation, ctx);
  } catch (error: unknown) {
    return refused(error, ctx.stage, identity, invocation.sourceId, undefined);
  }
  held.closeLater(() => {
    if (pre.survey.generated !== undefined) closeQuietly(pre.survey.generated);
    pre.workspace.close();
  });
  const stagingRoot = pre.survey.stagingRoot;
  if (options.dryRun === true) {
    if (stagingRoot !== undefined) held.closeLater(() => closeQuietly(stagingRoot));
    return planOnly(pre.plan, identity, options.show === true);
  }
  // The tree owns the staging root from here on, and its lock is released last.
  const tree = new StagedTree(pre.workspace.project, pre.plan, stagingRoot);
  held.closeLater(() => tree.closeDescriptors());
  held.releaseLater(() => tree.releaseLock());
  let renamed: Renamed;
  try {
    await ctx.checkpoint('after_preflight');
    const staged = await stage(tree, pre.plan, ctx);
    await seal(staged, pre.plan, ctx);
    await verify(staged, ctx);
    renamed = await publish(staged, pre, ctx, held);
  } catch (error: unknown) {
    return refused(error, ctx.stage, identity, invocation.sourceId, tree);
  }
  return afterRename(renamed, pre.plan, ctx, identity);
}

/** The option shape, then the edition, then the source id: each refusal has one code. */
function checkInvocation(options: ScaffoldOptions): Checked {
  try {
    checkOptionShape(options);
  } catch (error: unknown) {
    return { kind: 'refused', error, edition: undefined };
  }
  if (!isScaffoldEdition(options.edition)) {
    return { kind: 'refused', error: refuseScaffold('option_invalid'), edition: undefined };
  }
  const edition = EDITION_PROFILES[options.edition];
  if (!isSourceId(options.sourceId)) {
    return { kind: 'refused', error: refuseScaffold('source_id_invalid'), edition };
  }
  return { kind: 'valid', invocation: { edition, sourceId: options.sourceId } };
}

function runPreflight(options: ScaffoldOptions, invocation: Invocation, ctx: RunContext): Preflight {
  return preflight(
    invocation.edition,
    options.workspace,
    invocation.sourceId,
    {
      mappingFile: options.mappingFile,
      inventoryFile: options.inventoryFile,
      runManifestFile: options.runManifestFile,
      sourceBindingId: options.sourceBindingId,
      maxEvidenceAge: options.maxEvidenceAge,
      now: options.now,
    },
    ctx.crossDeviceFault,
  );
}

/**
 * Staging (docs/scaffold.md#the-publication-protocol): the staging root, the
 * lock, the exclusive mkdir, exclusive creates, an fsync and a rehash of each
 * file, then the directory's fsync.
 */
async function stage(tree: StagedTree, plan: ScaffoldPlan, ctx: RunContext): Promise<Staged> {
  ctx.stage = 'stage';
  const root = tree.ensureRoot();
  await ctx.checkpoint('after_staging_root');
  tree.lock();
  await ctx.checkpoint('after_lock');
  const { dir, identity } = tree.makeDirectory();
  await ctx.checkpoint('after_mkdir');
  for (const file of plan.files) {
    tree.write(file);
    await ctx.checkpoint('after_write');
    tree.fsyncFile(file);
    await ctx.checkpoint('after_file_fsync');
    await ctx.checkpoint('before_rehash');
    tree.rehash(file);
  }
  tree.fsyncDirectory();
  await ctx.checkpoint('after_staging_fsync');
  return { tree, root, dir, identity };
}

/** The seal: files 0400 through their write descriptors, the directory 0500, fsyncs, descriptors closed. */
async function seal({ tree }: Staged, plan: ScaffoldPlan, ctx: RunContext): Promise<void> {
  ctx.stage = 'seal';
  for (const file of plan.files) {
    tree.sealFile(file);
    await ctx.checkpoint('after_file_seal');
  }
  await ctx.checkpoint('before_dir_seal');
  tree.sealDirectory();
  await ctx.checkpoint('after_seal');
}

/** The sealed tree verified, then the directory back to 0700 through the held descriptor and everything re-checked. */
async function verify({ tree }: Staged, ctx: RunContext): Promise<void> {
  ctx.stage = 'verify';
  await ctx.checkpoint('before_verify');
  tree.verify(0o500);
  await ctx.checkpoint('after_verify');
  tree.unsealDirectory();
  tree.verify(0o700);
  await ctx.checkpoint('after_unseal');
}

/** Publication up to and including the one no-replace rename. */
async function publish(staged: Staged, pre: Preflight, ctx: RunContext, held: Holdings): Promise<Renamed> {
  const { tree, root } = staged;
  ctx.stage = 'publish';
  await ctx.checkpoint('before_generated');
  pre.workspace.checkChain();
  const rootEntry = lookAt(pre.workspace.project, STAGING_ROOT);
  if (rootEntry.kind === 'symlink') throw refuseScaffold('symlink_refused');
  if (rootEntry.kind !== 'directory' || !sameInode(rootEntry.stat, root.stat())) {
    throw refuseScaffold('workspace_changed');
  }
  const generated = ensureOutputParent(pre.workspace.migration, pre.survey.generated);
  if (generated !== pre.survey.generated) held.closeLater(() => closeQuietly(generated));
  await ctx.checkpoint('after_generated');
  if (generated.stat().dev !== root.stat().dev) throw refuseScaffold('staging_cross_filesystem');
  await ctx.checkpoint('before_identity_check');
  tree.checkIdentity();
  await ctx.checkpoint('before_rename');
  publishRename(root, generated, pre.plan.sourceId, ctx.errnoFor('rename'));
  return { generated, root, published: staged.dir, identity: staged.identity };
}

/** After the rename the output is visible: identity, parent fsyncs, mode restoration; never a refusal. */
async function afterRename(
  renamed: Renamed,
  plan: ScaffoldPlan,
  ctx: RunContext,
  identity: Identity,
): Promise<ScaffoldResult> {
  const { generated, root, published } = renamed;
  const conditions = new Set<PublicationConditionCode>();
  if (!publishedIsOurs(generated, plan.sourceId, renamed.identity)) {
    // The visible tree is not the one verified: touch nothing further.
    conditions.add('publish_identity_mismatch');
    return publishedResult(conditions, 'publish', plan, identity);
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
  if (!(await normalize(plan, published, ctx))) conditions.add('published_permissions_not_normalized');
  return publishedResult(conditions, 'normalize', plan, identity);
}

/**
 * Owner-writable modes again (0700, 0600), each file through its own
 * no-follow descriptor; the manifest last, so that its mode tells a later
 * run whether normalization finished (docs/scaffold.md#leftover-staging-and-recovery).
 */
async function normalize(plan: ScaffoldPlan, published: Dir, ctx: RunContext): Promise<boolean> {
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

type Identity = Pick<ScaffoldResult, 'edition' | 'source_id' | 'project_dir'>;

function identityOf(edition: EditionProfile | undefined, sourceId: SourceId | undefined): Identity {
  return {
    ...(edition === undefined ? {} : { edition: edition.id, project_dir: edition.projectDir }),
    ...(sourceId === undefined ? {} : { source_id: sourceId }),
  };
}

function planOnly(plan: ScaffoldPlan, identity: Identity, show: boolean): ScaffoldResult {
  return {
    status: 'plan_only',
    reason_codes: [],
    stage: 'preflight',
    ...identity,
    output: plan.output,
    staging: plan.staging,
    files: show ? filesWithContent(plan.files) : filesOf(plan.files),
  };
}

function publishedResult(
  conditions: ReadonlySet<PublicationConditionCode>,
  stage: ScaffoldStage,
  plan: ScaffoldPlan,
  identity: Identity,
): ScaffoldResult {
  const codes = CONDITION_ORDER.filter((code) => conditions.has(code));
  const first = codes[0];
  const unverified = conditions.has('publish_identity_mismatch');
  return {
    status: publishedStatus(conditions),
    reason_codes: codes,
    stage,
    ...(first === undefined ? {} : { message: PUBLICATION_CONDITION_MESSAGES[first] }),
    ...identity,
    output: plan.output,
    ...(conditions.has('published_permissions_not_normalized') ? { repair: repairCommand(plan.output) } : {}),
    ...(unverified ? {} : { files: filesOf(plan.files) }),
  };
}

/**
 * The result of a failure before publication. `sourceId` is known once the
 * invocation was valid, `tree` once staging began.
 */
function refused(
  error: unknown,
  stage: ScaffoldStage,
  identity: Identity,
  sourceId: SourceId | undefined,
  tree: StagedTree | undefined,
): ScaffoldResult {
  const base = { status: 'refused' as const, stage, ...identity };
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
    ...(sourceId === undefined ? {} : leftover(refusal.code, stage, sourceId, tree)),
  };
}

/**
 * Where a failed run stands: the output it raced for, and the staging
 * directory it leaves (never removed). When that directory is still this
 * run's own, in a known state, the result carries the recovery command, to
 * run once this run has ended (docs/scaffold.md#leftover-staging-and-recovery);
 * a directory that was swapped or is another run's gets none.
 */
function leftover(
  code: string,
  stage: ScaffoldStage,
  sourceId: SourceId,
  tree: StagedTree | undefined,
): Partial<ScaffoldResult> {
  const raced = code === 'output_exists' || code === 'symlink_refused' || code === 'not_regular_file';
  const output = raced && stage === 'publish' ? { output: outputPath(sourceId) } : {};
  if (code === 'staging_in_use') return { ...output, staging: stagingPath(sourceId) };
  if (code === 'staging_exists') {
    return { ...output, staging: stagingPath(sourceId), repair: recoveryCommand(stagingPath(sourceId)) };
  }
  // Found by preflight, before any write: the result names the staging
  // path the operator must make writable; nothing was left there.
  if (code === 'staging_write_failed' && stage === 'preflight') return { staging: stagingPath(sourceId) };
  if (tree?.dir === undefined) return output;
  const state = tree.stagingState();
  return {
    ...output,
    staging: stagingPath(sourceId),
    ...(state === undefined ? {} : { staging_state: state, repair: recoveryCommand(stagingPath(sourceId)) }),
  };
}

/**
 * What a run holds open until it ends: descriptors are closed first, the
 * staging lock released last (docs/scaffold.md#the-publication-protocol).
 * Releasing twice does nothing.
 */
class Holdings {
  readonly #closers: (() => void)[] = [];
  readonly #releasers: (() => void)[] = [];

  closeLater(close: () => void): void {
    this.#closers.push(close);
  }

  releaseLater(release: () => void): void {
    this.#releasers.push(release);
  }

  release(): void {
    for (const close of this.#closers.splice(0).reverse()) close();
    for (const release of this.#releasers.splice(0)) release();
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
