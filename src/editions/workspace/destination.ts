import { realpathSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { Dir, didYouMeanPath, isFsError } from '../../core/fs/index.js';
import type { Refusal } from '../../core/refusal/index.js';
import { refuseEdition } from '../refusals.js';
import { componentEnds, symlinkHint } from '../symlink-on-path.js';
import { writeDeniedCause } from './write-cause.js';

/** A destination that passed every check, with its parent held open. */
export interface HeldDestination {
  readonly parent: Dir;
  readonly name: string;
}

const LONE_SURROGATE = /\p{Cs}/u;

/**
 * Splits DEST into the folder that will hold it and its own name, without
 * normalizing: `a/..` must be resolved by the filesystem (where `a` may be a
 * symlink), not by string rules.
 */
export function splitDestination(dest: string): { readonly parent: string; readonly name: string } {
  if (dest.length === 0 || dest.includes('\0') || LONE_SURROGATE.test(dest))
    throw refuseEdition('destination_invalid');
  const trimmed = dest.replace(/\/+$/, '');
  if (trimmed.length === 0) throw refuseEdition('destination_invalid');
  const slash = trimmed.lastIndexOf('/');
  const name = trimmed.slice(slash + 1);
  const parent = slash === -1 ? '.' : slash === 0 ? '/' : trimmed.slice(0, slash);
  if (name === '.' || name === '..') throw refuseEdition('destination_invalid');
  const bytes = Buffer.byteLength(name, 'utf8');
  // Linux filesystems take at most NAME_MAX (255) bytes per name: say so
  // rather than let the kernel's ENAMETOOLONG read as a bad parent folder.
  if (bytes > NAME_MAX)
    throw refuseEdition('destination_invalid', {
      hint: `the destination's own name is ${bytes} bytes long; a folder name takes at most ${NAME_MAX} bytes`,
    });
  return { parent, name };
}

const NAME_MAX = 255;

/** A path the kernel finds too long (a name over NAME_MAX, or over PATH_MAX in all). */
function tooLong(): Refusal {
  return refuseEdition('destination_invalid', { hint: TOO_LONG });
}

const TOO_LONG = 'the destination path, or a name in it, is longer than the filesystem allows (ENAMETOOLONG)';

/**
 * The physical path DEST would have: the longest existing ancestor resolved
 * with every symlink followed (realpath(3)), plus the components that do not
 * exist yet. Used only to decide whether DEST lies inside the installation.
 */
export function physicalPath(path: string): string {
  const pending: string[] = [];
  let current = path;
  for (;;) {
    try {
      const real = realpathSync.native(current);
      return pending.length === 0 ? real : resolve(real, ...pending.reverse());
    } catch (error: unknown) {
      const code = (error as NodeJS.ErrnoException).code ?? '';
      if (code === 'ENAMETOOLONG') throw tooLong();
      const split = code === 'ENOENT' || code === 'ENOTDIR' ? lastComponent(current) : undefined;
      // `missing/..` cannot be resolved by dropping `..`: the kernel goes
      // through `missing` first, so the path names no folder at all.
      if (split === undefined || split.parent === current || split.name === '.' || split.name === '..')
        throw unreachableParent(path, code);
      pending.push(split.name);
      current = split.parent;
    }
  }
}

/** `path` without its last component, and that component; no check, no normalization. */
function lastComponent(path: string): { readonly parent: string; readonly name: string } {
  const trimmed = path.replace(/\/+$/, '');
  const slash = trimmed.lastIndexOf('/');
  return {
    parent: slash === -1 ? '.' : slash === 0 ? '/' : trimmed.slice(0, slash),
    name: trimmed.slice(slash + 1),
  };
}

/**
 * The refusal for a parent folder the kernel cannot reach or open (errno
 * `code`), naming the first folder on the way, as the user wrote it, that
 * stops it: one that does not exist (with the folder beside it that is
 * near enough to be a typo), is not a folder, or may not be searched by
 * this account. Path-based lookups are enough here: they only say why,
 * after the real lookup failed.
 */
function unreachableParent(parent: string, code: string): Refusal {
  const blocked = blockedComponent(parent) ?? { folder: parent, code };
  const folder = blocked.folder;
  const link = symlinkHint(folder, 'the destination');
  if (link !== undefined) return refuseEdition('workspace_destination_symlink', { hint: link });
  switch (blocked.code) {
    case 'ENOENT':
      return refuseEdition('destination_parent_missing', {
        hint: parent.slice(folder.length).split('/').includes('..')
          ? `'${folder}' does not exist, and the '..' after it does not skip it (the filesystem goes through '${folder}' first): create it, or write the destination without it`
          : `'${folder}' does not exist: ${didYouMeanPath(folder, 'folder') ?? 'create it first, or choose a destination in an existing folder'}`,
      });
    case 'ENOTDIR':
      return refuseEdition('destination_parent_invalid', { hint: `'${folder}' is not a folder (ENOTDIR)` });
    case 'EACCES':
    case 'EPERM':
      return refuseEdition('destination_parent_invalid', {
        hint: `the account running sealkit may not open or search the folder '${folder}' (${blocked.code}): check its permissions`,
      });
    default:
      return refuseEdition('destination_parent_invalid', {
        hint: `the folder '${folder}' cannot be opened (${blocked.code})`,
      });
  }
}

/**
 * Walks `path` one component at a time and returns the folder that stops
 * it: the first prefix that does not exist (ENOENT), or the prefix before
 * the first one that fails otherwise (a file, ENOTDIR; a folder this account
 * may not search, EACCES). Each prefix is asked of the kernel with stat(2),
 * which resolves `..` as the open does (realpath(3) drops it as text).
 * Undefined when every prefix resolves.
 */
function blockedComponent(path: string): { readonly folder: string; readonly code: string } | undefined {
  let previous = path.startsWith('/') ? '/' : '.';
  for (const end of componentEnds(path)) {
    const prefix = path.slice(0, end);
    try {
      statSync(prefix);
    } catch (error: unknown) {
      const code = (error as NodeJS.ErrnoException).code ?? 'EIO';
      return { folder: code === 'ENOENT' ? prefix : previous, code };
    }
    previous = prefix;
  }
  return undefined;
}

export function isInside(root: string, candidate: string): boolean {
  const rel = relative(root, candidate);
  return rel === '' || (!isAbsolute(rel) && rel !== '..' && !rel.startsWith('../'));
}

/**
 * The workspace destination rules, checked in this order so each failure has
 * one code: a usable path (destination_invalid); outside the installation,
 * symlinks followed (destination_inside_installation); an existing parent
 * directory (destination_parent_missing / _invalid); DEST itself absent
 * (workspace_destination_symlink for a link, even a dangling one, and for a
 * link on the way to it; destination_exists for anything else). The parent
 * is opened as given with a no-follow walk and held: the rename that
 * publishes the workspace goes through this descriptor, so the parent
 * cannot be swapped afterwards.
 */
export function holdDestination(dest: string, installationRoot: string): HeldDestination {
  const { parent, name } = splitDestination(dest);
  const physicalParent = physicalPath(parent);
  if (isInside(installationRoot, resolve(physicalParent, name)))
    throw refuseEdition('destination_inside_installation', {
      // Another working folder helps only a relative path.
      hint: `a new workspace goes outside the sealkit checkout or installation that runs this command: give a path outside it${isAbsolute(dest) ? '' : ', or run the command from another folder (cd ~ first)'}`,
    });
  let held: Dir;
  try {
    // No link is followed on the way to DEST, as `edition check` follows
    // none on the way to the project it prints next: one rule for both.
    held = Dir.open(parent);
  } catch (error: unknown) {
    if (isFsError(error, 'ENAMETOOLONG')) throw tooLong();
    const hint = isFsError(error, 'ELOOP') ? symlinkHint(dest, 'the destination') : undefined;
    if (hint !== undefined) throw refuseEdition('workspace_destination_symlink', { hint });
    throw unreachableParent(parent, isFsError(error) ? error.code : 'EIO');
  }
  try {
    const existing = held.stat(name);
    throw refuseEdition(existing.type === 'symlink' ? 'workspace_destination_symlink' : 'destination_exists');
  } catch (error: unknown) {
    if (isFsError(error, 'ENOENT')) {
      // The kernel's own check, asked in a dry run as in a real run: the
      // staging folder and the rename both write into the parent.
      const denied = held.writeDenied();
      if (denied === undefined) return { parent: held, name };
      held.close();
      throw refuseEdition('workspace_write_failed', writeDeniedCause(denied));
    }
    held.close();
    if (isFsError(error, 'ENAMETOOLONG')) throw tooLong();
    if (isFsError(error)) throw refuseEdition('destination_parent_invalid');
    throw error;
  }
}
