import { type Dir, type FileStat, isFsError, probeLock } from '../../core/fs/index.js';
import { lockFileName, MANIFEST_NAME, OUTPUT_PARENTS, STAGING_ROOT } from '../names.js';
import type { CollisionCode, CollisionCondition, ScaffoldRefusalCode } from '../refusals.js';
import type { SourceId } from '../source-id.js';
import { currentUid, type Entry, lookAt, ownedWithout, sameInode } from './entry.js';
import type { HeldWorkspace } from './open-workspace.js';

/** The collision precedence of docs/scaffold.md#checks-in-order (with the parent checks), most decisive first. */
const PRECEDENCE: readonly CollisionCode[] = [
  'symlink_refused',
  'not_regular_file',
  'output_exists',
  'output_parent_invalid',
  'staging_root_invalid',
  'staging_in_use',
  'staging_exists',
];

/** What preflight found on the output and staging paths, with the directories it may hold on to. */
export interface PathSurvey {
  /** The first code by precedence, or undefined when the paths are clear. */
  readonly refusal: CollisionCode | undefined;
  /** models/migration/generated, held when it exists and is valid. */
  readonly generated: Dir | undefined;
  /** .scaffold-staging, held when it exists and is valid. */
  readonly stagingRoot: Dir | undefined;
  /** The existing output's root or manifest is not owner-writable (metadata only, never contents). */
  readonly outputSealed: boolean;
  /** The collision the refusal is about: where the result points the operator. */
  readonly concerns: 'output' | 'staging' | undefined;
  /** Every collision found, in precedence order: the result lists them all (docs/scaffold.md#checks-in-order). */
  readonly conditions: readonly CollisionCondition[];
}

/**
 * Surveys the output path (generated/, generated/<source_id>) and the staging
 * path (.scaffold-staging, its lock file, .scaffold-staging/<source_id>)
 * without writing anything: lstat-style looks through the held chain, and a
 * non-blocking lock attempt on an existing lock file to tell a live run from
 * an abandoned one. The same survey serves --dry-run and preflight.
 */
export function surveyPaths(workspace: HeldWorkspace, sourceId: SourceId): PathSurvey {
  const found = new Map<ScaffoldRefusalCode, 'output' | 'staging'>();
  const onOutput = new Found(found, 'output');
  const onStaging = new Found(found, 'staging');
  let outputSealed = false;
  let generated: Dir | undefined;
  let stagingRoot: Dir | undefined;
  try {
    const generatedEntry = lookAt(workspace.migration, OUTPUT_PARENTS[2]);
    generated = holdDirectory(
      workspace.migration,
      OUTPUT_PARENTS[2],
      generatedEntry,
      0o022,
      onOutput,
      'output_parent_invalid',
    );
    if (generated !== undefined) {
      const output = lookAt(generated, sourceId);
      classify(output, onOutput, 'output_exists');
      if (output.kind === 'directory') outputSealed = isSealed(generated, sourceId, output.stat);
    }

    const rootEntry = lookAt(workspace.project, STAGING_ROOT);
    stagingRoot = holdDirectory(
      workspace.project,
      STAGING_ROOT,
      rootEntry,
      0o077,
      onStaging,
      'staging_root_invalid',
    );
    if (stagingRoot !== undefined) {
      const lock = lookAt(stagingRoot, lockFileName(sourceId));
      let live = false;
      if (lock.kind === 'file') {
        if (!validLockFile(lock.stat)) onStaging.add('staging_root_invalid');
        else if (lockIsHeld(stagingRoot, sourceId)) live = true;
      } else if (lock.kind === 'directory') onStaging.add('staging_root_invalid');
      else classify(lock, onStaging, 'staging_root_invalid');
      if (live) onStaging.add('staging_in_use');
      // A staging directory with its lock held belongs to the live run
      // (staging_in_use), not to an abandoned one (staging_exists).
      const staging = lookAt(stagingRoot, sourceId);
      if (!(live && staging.kind === 'directory')) classify(staging, onStaging, 'staging_exists');
    }
  } catch (error: unknown) {
    generated?.close();
    stagingRoot?.close();
    throw error;
  }
  const conditions: CollisionCondition[] = [];
  for (const code of PRECEDENCE) {
    const concerns = found.get(code);
    if (concerns !== undefined) conditions.push({ code, concerns });
  }
  const refusal = conditions[0]?.code;
  return {
    refusal,
    generated,
    stagingRoot,
    outputSealed: found.has('output_exists') && outputSealed,
    concerns: conditions[0]?.concerns,
    conditions,
  };
}

/** Records each code with the path it was first found on (the output path is surveyed first). */
class Found {
  constructor(
    private readonly found: Map<ScaffoldRefusalCode, 'output' | 'staging'>,
    private readonly where: 'output' | 'staging',
  ) {}

  add(code: ScaffoldRefusalCode): void {
    if (!this.found.has(code)) this.found.set(code, this.where);
  }
}

/** A symlink or special file is recorded by kind; a regular file or directory as `present`. */
function classify(entry: Entry, found: Found, present: ScaffoldRefusalCode): void {
  if (entry.kind === 'symlink') found.add('symlink_refused');
  else if (entry.kind === 'special') found.add('not_regular_file');
  else if (entry.kind !== 'absent') found.add(present);
}

/**
 * Opens an existing directory on the path and checks it is a real directory
 * owned by the running user without the `forbidden` mode bits; anything else
 * is recorded and nothing is held.
 */
function holdDirectory(
  parent: Dir,
  name: string,
  entry: Entry,
  forbidden: number,
  found: Found,
  invalid: ScaffoldRefusalCode,
): Dir | undefined {
  if (entry.kind === 'absent') return undefined;
  if (entry.kind !== 'directory') {
    classify(entry, found, invalid);
    return undefined;
  }
  const dir = openExisting(parent, name, found, invalid);
  if (dir === undefined) return undefined;
  const held = dir.stat();
  if (!sameInode(held, entry.stat) || !ownedWithout(held, forbidden)) {
    dir.close();
    found.add(invalid);
    return undefined;
  }
  return dir;
}

function openExisting(
  parent: Dir,
  name: string,
  found: Found,
  invalid: ScaffoldRefusalCode,
): Dir | undefined {
  try {
    return parent.openDir(name);
  } catch (error: unknown) {
    // Replaced between the look and the open, or unreadable: refuse, never guess.
    found.add(isFsError(error, 'ELOOP') ? 'symlink_refused' : invalid);
    return undefined;
  }
}

/** An existing lock file is an empty regular file of the running user, mode 0600, one link (docs/scaffold.md#checks-in-order). */
export function validLockFile(stat: FileStat): boolean {
  return (
    stat.type === 'file' &&
    stat.size === 0n &&
    stat.uid === currentUid() &&
    stat.mode === 0o600 &&
    stat.nlink === 1
  );
}

/**
 * Tries the lock of an existing lock file without waiting and releases it at
 * once: busy means a live run. The file exists, so the open creates nothing.
 */
/** Never creates the lock file: preflight also serves plan-only runs, which write nothing. */
function lockIsHeld(stagingRoot: Dir, sourceId: SourceId): boolean {
  return probeLock(stagingRoot, lockFileName(sourceId)) === 'held';
}

/**
 * The published root or its manifest (normalized last) lacks owner write: a
 * run stopped before normalizing (docs/scaffold.md#leftover-staging-and-recovery).
 */
function isSealed(generated: Dir, sourceId: SourceId, root: FileStat): boolean {
  if ((root.mode & 0o200) === 0) return true;
  try {
    const output = generated.openDir(sourceId);
    try {
      const manifest = lookAt(output, MANIFEST_NAME);
      return manifest.kind === 'file' && (manifest.stat.mode & 0o200) === 0;
    } finally {
      output.close();
    }
  } catch {
    return false;
  }
}
