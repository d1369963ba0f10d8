import { type Dir, type FileStat, isFsError, renameNoReplace } from '../../core/fs/index.js';
import { injectedError } from '../faults.js';
import { OUTPUT_PARENTS } from '../names.js';
import { refuseScaffold, type ScaffoldRefusalCode } from '../refusals.js';
import { lookAt, ownedWithout, sameInode } from '../workspace/entry.js';

/**
 * models/migration/generated/, held (docs/scaffold.md#the-publication-protocol): created 0700 through the
 * held migration/ descriptor when absent; EEXIST accepted when the entry
 * passes the output-parent checks (a run for another source id may just have
 * created it); a symlink is symlink_refused, anything else invalid is
 * output_parent_invalid; a models/migration/ it may not write in is
 * publish_permission_denied.
 */
export function ensureOutputParent(migration: Dir, held: Dir | undefined): Dir {
  const name = OUTPUT_PARENTS[2];
  if (held !== undefined) {
    const entry = lookAt(migration, name);
    if (entry.kind === 'symlink') throw refuseScaffold('symlink_refused');
    if (entry.kind !== 'directory' || !sameInode(entry.stat, held.stat()))
      throw refuseScaffold('workspace_changed');
    return held;
  }
  try {
    return migration.mkdirExclusive(name, 0o700);
  } catch (error: unknown) {
    // A read-only models/migration/ is the same fix as a read-only generated/:
    // the operator's permissions, not a failed rename.
    if (isFsError(error, 'EACCES') || isFsError(error, 'EPERM')) {
      throw refuseScaffold('publish_permission_denied');
    }
    if (!isFsError(error, 'EEXIST')) throw error;
  }
  const entry = lookAt(migration, name);
  if (entry.kind === 'symlink') throw refuseScaffold('symlink_refused');
  if (entry.kind !== 'directory') throw refuseScaffold('output_parent_invalid');
  let dir: Dir;
  try {
    dir = migration.openDir(name);
  } catch (error: unknown) {
    throw refuseScaffold(isFsError(error, 'ELOOP') ? 'symlink_refused' : 'output_parent_invalid');
  }
  if (!sameInode(dir.stat(), entry.stat) || !ownedWithout(dir.stat(), 0o022)) {
    dir.close();
    throw refuseScaffold('output_parent_invalid');
  }
  return dir;
}

/**
 * The one atomic no-replace rename between the two held parents, and the
 * errno map of docs/scaffold.md#the-publication-protocol. `injected` is the test hook's substitute errno.
 * A lost race (EEXIST, ENOTEMPTY) is reported by the collision precedence
 * after a no-follow look at the target; nothing is ever replaced.
 */
export function publishRename(
  stagingRoot: Dir,
  generated: Dir,
  name: string,
  injected: string | undefined,
): void {
  try {
    if (injected !== undefined) throw injectedError(injected, 'renameat2');
    renameNoReplace(stagingRoot, name, generated, name);
  } catch (error: unknown) {
    if (!isFsError(error)) throw error;
    throw refuseScaffold(renameFailureCode(error.code, () => targetCollision(generated, name)));
  }
}

export function renameFailureCode(errno: string, collision: () => ScaffoldRefusalCode): ScaffoldRefusalCode {
  switch (errno) {
    case 'EEXIST':
    case 'ENOTEMPTY':
      return collision();
    case 'EXDEV':
      return 'staging_cross_filesystem';
    case 'EINVAL':
    case 'ENOSYS':
    case 'ENOTSUP':
    case 'EOPNOTSUPP':
      return 'atomic_publish_unavailable';
    case 'EACCES':
    case 'EPERM':
      return 'publish_permission_denied';
    case 'ENOENT':
    case 'ENOTDIR':
      return 'staging_modified';
    default:
      return 'publish_failed';
  }
}

function targetCollision(generated: Dir, name: string): ScaffoldRefusalCode {
  try {
    const entry = lookAt(generated, name);
    if (entry.kind === 'symlink') return 'symlink_refused';
    if (entry.kind === 'special') return 'not_regular_file';
    return 'output_exists';
  } catch {
    return 'output_exists';
  }
}

/** After the rename: the published name, looked up without following, is the directory this run verified. */
export function publishedIsOurs(generated: Dir, name: string, identity: FileStat): boolean {
  try {
    const entry = lookAt(generated, name);
    return entry.kind === 'directory' && sameInode(entry.stat, identity);
  } catch {
    return false;
  }
}
