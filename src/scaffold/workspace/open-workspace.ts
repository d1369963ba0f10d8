import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { Dir, isFsError } from '../../core/fs/index.js';
import { EDITION_PROFILES, type EditionProfile } from '../editions.js';
import { OUTPUT_PARENTS, STAGING_ROOT } from '../names.js';
import { refuseScaffold } from '../refusals.js';
import { readDbtProject, stagingOutsideDbtPaths } from './dbt-project.js';
import { lookAt, sameInode } from './entry.js';
import { isInside, starterRepositoryRoot } from './installation.js';

/**
 * The workspace held open from its root down to models/migration/
 * (docs/scaffold.md#the-publication-protocol):
 * every later lookup, create, chmod and rename is relative to one of these
 * descriptors, never a path re-resolved by name. `project` is `root` itself
 * for BigQuery.
 */
export class HeldWorkspace {
  private constructor(
    readonly root: Dir,
    readonly project: Dir,
    readonly models: Dir,
    readonly migration: Dir,
    readonly edition: EditionProfile,
  ) {}

  /**
   * The workspace checks of docs/scaffold.md#checks-in-order, in this order, before any write:
   * workspace_invalid (missing, not a directory, a symlink) or workspace_unreadable (permissions),
   * workspace_inside_starter_repo, workspace_is_starter_checkout,
   * workspace_invalid or workspace_is_project_folder (the project directory), edition_project_mismatch,
   * symlink_refused / workspace_missing_migration_models (models/migration/),
   * staging_inside_dbt_paths. Returns the held chain.
   */
  static open(workspace: string, edition: EditionProfile, sourceId: string): HeldWorkspace {
    if (workspace.length === 0 || workspace.includes('\0')) throw refuseScaffold('workspace_invalid');
    // The path as given, one component at a time, no symlink followed at any
    // of them: `link`, `link/`, `link/.`, `./link` and `parent-link/ws` are
    // all refused here, never judged by an lstat of the string (which
    // follows a link before a trailing `/`).
    let root: Dir;
    try {
      root = Dir.open(workspace);
    } catch (error: unknown) {
      // It exists but you may not read it, or enter a folder on the way to it.
      if (isFsError(error, 'EACCES') || isFsError(error, 'EPERM'))
        throw refuseScaffold('workspace_unreadable');
      throw refuseScaffold('workspace_invalid');
    }
    try {
      checkOutsideStarterRepository(realPathOf(workspace, root), edition, sourceId);
    } catch (error: unknown) {
      root.close();
      throw error;
    }
    const opened: Dir[] = [root];
    try {
      if (hasStarterLayout(root)) throw refuseScaffold('workspace_is_starter_checkout');
      const project = edition.projectDir === '.' ? root : openProject(root, edition);
      if (project !== root) opened.push(project);
      const facts = readDbtProject(project);
      if (facts === undefined || facts.name !== edition.projectName) {
        throw refuseScaffold('edition_project_mismatch');
      }
      const models = openOutputParent(project, OUTPUT_PARENTS[0]);
      opened.push(models);
      const migration = openOutputParent(models, OUTPUT_PARENTS[1]);
      opened.push(migration);
      if (!stagingOutsideDbtPaths(facts.paths, STAGING_ROOT))
        throw refuseScaffold('staging_inside_dbt_paths');
      return new HeldWorkspace(root, project, models, migration, edition);
    } catch (error: unknown) {
      for (const dir of opened.reverse()) dir.close();
      if (refuseScaffold.is(error)) throw error;
      throw refuseScaffold('workspace_unreadable');
    }
  }

  /**
   * Whether every held component is still reachable by its name from the
   * one above it (a rename or a symlink swap after preflight is caught here
   * before anything is created through a moved descriptor).
   */
  checkChain(): void {
    const links: [Dir, string, Dir][] = [
      [this.project, OUTPUT_PARENTS[0], this.models],
      [this.models, OUTPUT_PARENTS[1], this.migration],
    ];
    if (this.project !== this.root) links.unshift([this.root, this.edition.projectDir, this.project]);
    for (const [parent, name, child] of links) {
      const entry = lookAt(parent, name);
      if (entry.kind === 'symlink') throw refuseScaffold('symlink_refused');
      if (entry.kind !== 'directory' || !sameInode(entry.stat, child.stat())) {
        throw refuseScaffold('workspace_changed');
      }
    }
  }

  close(): void {
    this.migration.close();
    this.models.close();
    if (this.project !== this.root) this.project.close();
    this.root.close();
  }
}

/**
 * The absolute path of the held workspace, for the starter-repository check.
 * No component of the given path is a symlink (the walk refused them), so
 * its resolution is exact; it must still name the held directory, else the
 * tree moved in between (workspace_invalid).
 */
function realPathOf(workspace: string, root: Dir): string {
  let real: string;
  try {
    real = realpathSync.native(workspace);
  } catch {
    throw refuseScaffold('workspace_invalid');
  }
  let again: Dir;
  try {
    again = Dir.openForLookup(real);
  } catch {
    throw refuseScaffold('workspace_invalid');
  }
  try {
    if (!sameInode(again.stat(), root.stat())) throw refuseScaffold('workspace_invalid');
  } finally {
    again.close();
  }
  return real;
}

/** Output and staging paths are fixed below the workspace, so checking their joined real paths is exact. */
function checkOutsideStarterRepository(real: string, edition: EditionProfile, sourceId: string): void {
  const repository = starterRepositoryRoot();
  if (repository === undefined) return;
  const project = edition.projectDir === '.' ? real : join(real, edition.projectDir);
  const candidates = [
    real,
    project,
    join(project, ...OUTPUT_PARENTS, sourceId),
    join(project, STAGING_ROOT, sourceId),
  ];
  if (candidates.some((candidate) => isInside(repository, candidate))) {
    throw refuseScaffold('workspace_inside_starter_repo');
  }
}

/** The starter repository's layout (docs/scaffold.md#checks-in-order): `editions/Bigquery` or `editions/Snowflake`, of any type. */
function hasStarterLayout(root: Dir): boolean {
  const editions = lookAt(root, 'editions');
  if (editions.kind !== 'directory') return false;
  const dir = root.openDir('editions');
  try {
    return lookAt(dir, 'Bigquery').kind !== 'absent' || lookAt(dir, 'Snowflake').kind !== 'absent';
  } finally {
    dir.close();
  }
}

/**
 * The project folder below the root (Snowflake's kit/). Absent, it may be
 * a workspace of the other edition, whose project is the root itself: that
 * is the --edition flag's mistake (edition_project_mismatch, "use the
 * matching --edition"), not a missing workspace. Or the root may be this
 * edition's project folder itself (kit/ given as the workspace, the folder
 * `edition check` takes): workspace_is_project_folder names the folder to pass.
 */
function openProject(root: Dir, edition: EditionProfile): Dir {
  try {
    return root.openDir(edition.projectDir);
  } catch (error: unknown) {
    if (isFsError(error, 'ENOENT') || isFsError(error, 'ENOTDIR')) {
      const name = readDbtProject(root)?.name;
      if (name === edition.projectName) throw refuseScaffold('workspace_is_project_folder');
      throw refuseScaffold(
        isOtherEditionRoot(name, edition) ? 'edition_project_mismatch' : 'workspace_invalid',
      );
    }
    if (isFsError(error, 'ELOOP')) throw refuseScaffold('workspace_invalid');
    throw error;
  }
}

/** Whether the root is the dbt project of an edition other than `edition` (`name` is its dbt_project.yml's). */
function isOtherEditionRoot(name: string | undefined, edition: EditionProfile): boolean {
  return Object.values(EDITION_PROFILES).some(
    (other) => other.id !== edition.id && other.projectDir === '.' && other.projectName === name,
  );
}

/** models/ and migration/: a symlink is symlink_refused; absent or not a directory, not a workspace (docs/scaffold.md#checks-in-order). */
function openOutputParent(parent: Dir, name: string): Dir {
  try {
    return parent.openDir(name);
  } catch (error: unknown) {
    if (isFsError(error, 'ELOOP')) throw refuseScaffold('symlink_refused');
    if (isFsError(error, 'ENOENT') || isFsError(error, 'ENOTDIR')) {
      throw refuseScaffold('workspace_missing_migration_models');
    }
    throw error;
  }
}
