import { join } from 'node:path';
import { Dir, isFsError, symlinkOnPath } from '../../core/fs/index.js';
import { guardRefusals } from '../../core/refusal/index.js';
import { refuseContract } from '../authoring/refusals.js';
import type { ProjectFile } from './contract-project.js';

/** Bounds on what one project may ask sealkit to read. */
export interface ProjectLimits {
  readonly maxFiles: number;
  readonly maxFileBytes: number;
  readonly maxTotalBytes: number;
  readonly maxDepth: number;
}

export const DEFAULT_PROJECT_LIMITS: ProjectLimits = {
  maxFiles: 20_000,
  maxFileBytes: 1024 * 1024,
  maxTotalBytes: 256 * 1024 * 1024,
  maxDepth: 8,
};

const ROLE = 'project';
const RESOURCE_FILE = /\.ya?ml$/;

/**
 * Reads every `*.yaml` / `*.yml` file under the project folder through held
 * directory descriptors: no symlink is followed anywhere (one is refused),
 * entries that are neither files nor directories are refused, names starting
 * with a dot (such as `.sealkit/`, `.git/`) are skipped, and every bound is
 * checked before bytes are held. Files come back in byte order of their
 * relative path.
 */
export function readContractProjectFiles(
  path: string,
  limits: ProjectLimits = DEFAULT_PROJECT_LIMITS,
): ProjectFile[] {
  return guardRefusals(
    () => {
      const root = openRoot(path);
      const files: ProjectFile[] = [];
      const total = { bytes: 0 };
      try {
        walk(root, '', 1, files, total, limits, path);
      } finally {
        root.close();
      }
      if (files.length === 0)
        throw refuseContract('contract_project_empty', { role: ROLE, location: { path } });
      return files.sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)));
    },
    () => refuseContract('contract_project_unreadable', { role: ROLE }),
  );
}

const LINK_INSIDE =
  'this entry is a symbolic link, which sealkit never follows: put the file or folder itself there';
const FOLDER_UNREADABLE = 'this account cannot open or list this folder (its permissions)';
const FILE_UNREADABLE = 'this account cannot open or read this file (its permissions, or an I/O error)';

/** A folder of the project that cannot be opened or listed, where the operator finds it. */
function folderUnreadable(path: string) {
  return refuseContract('contract_project_unreadable', {
    role: ROLE,
    location: { path },
    hint: FOLDER_UNREADABLE,
  });
}

/**
 * Refuses a contract project folder that does not exist, is not a folder or
 * is a symbolic link, as reading the project would, without reading it: for
 * commands that only open the project's embedded ledger.
 */
export function requireContractProjectFolder(path: string): void {
  openRoot(path).close();
}

function openRoot(path: string): Dir {
  const location = { path };
  try {
    return Dir.open(path);
  } catch (error: unknown) {
    if (isFsError(error, 'ENOENT'))
      throw refuseContract('contract_project_missing', { role: ROLE, location });
    // A link at any component of the path, the project folder itself or a
    // folder above it: the open refuses it, the hint names which one.
    const link = isFsError(error, 'ELOOP') || isFsError(error, 'ENOTDIR') ? symlinkOnPath(path) : undefined;
    if (link !== undefined || isFsError(error, 'ELOOP')) {
      throw refuseContract('contract_project_symlink', {
        role: ROLE,
        location,
        ...(link === undefined ? {} : { hint: symlinkHint(link, path) }),
      });
    }
    if (isFsError(error, 'ENOTDIR')) {
      throw refuseContract('contract_project_not_directory', {
        role: ROLE,
        location,
        hint: 'this is a file: name the contract project folder instead, whose resource files are read together (references between them are checked as one graph)',
      });
    }
    throw folderUnreadable(path);
  }
}

/** What to do about a link on the way to the project, worded as edition check words it. */
function symlinkHint(link: string, path: string): string {
  return `'${link}' is a symbolic link, and sealkit follows none on the way to the project: name the project by a path without one, such as the one 'realpath ${path}' prints`;
}

function walk(
  dir: Dir,
  prefix: string,
  depth: number,
  files: ProjectFile[],
  total: { bytes: number },
  limits: ProjectLimits,
  root: string,
): void {
  let entries: ReturnType<Dir['list']>;
  try {
    entries = dir.list();
  } catch {
    throw folderUnreadable(prefix === '' ? root : join(root, prefix));
  }
  for (const entry of entries) {
    if (entry.bytes[0] === 0x2e) continue; // dot entries: tool state, VCS metadata
    const relative = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    // Where the entry is, as the operator finds it (a non-UTF-8 name is shown escaped by the refusal).
    const location = { path: join(root, relative) };
    const type = entry.type === 'unknown' ? dir.stat(entry.bytes).type : entry.type;
    if (type === 'symlink')
      throw refuseContract('contract_project_symlink', { role: ROLE, location, hint: LINK_INSIDE });
    if (type === 'directory') {
      if (depth >= limits.maxDepth) {
        throw refuseContract('contract_project_too_large', {
          role: ROLE,
          location,
          hint: `a project is at most ${limits.maxDepth} levels deep (its own files are at level 1); the files of this folder would be at level ${depth + 1} (${boundsOf(limits)})`,
        });
      }
      let child: Dir;
      try {
        child = dir.openDir(entry.bytes);
      } catch (error: unknown) {
        if (isFsError(error, 'ELOOP'))
          throw refuseContract('contract_project_symlink', { role: ROLE, location, hint: LINK_INSIDE });
        throw folderUnreadable(location.path);
      }
      try {
        walk(child, relative, depth + 1, files, total, limits, root);
      } finally {
        child.close();
      }
      continue;
    }
    if (type !== 'file') throw refuseContract('contract_project_entry_unsupported', { role: ROLE, location });
    if (!RESOURCE_FILE.test(entry.name)) continue;
    if (!entry.utf8) throw refuseContract('contract_project_entry_unsupported', { role: ROLE, location });
    if (files.length >= limits.maxFiles) {
      throw refuseContract('contract_project_too_large', {
        role: ROLE,
        location: { path: root },
        hint: `a project holds at most ${count(limits.maxFiles)} resource files (${boundsOf(limits)})`,
      });
    }
    files.push({ path: relative, bytes: readFile(dir, entry.bytes, total, limits, location, root) });
  }
}

/** `20,000` */
function count(value: number): string {
  return value.toLocaleString('en-US');
}

/** `256 MiB` for whole mebibytes, else the bytes. */
function sizeOf(bytes: number): string {
  const mebibytes = bytes / (1024 * 1024);
  return Number.isInteger(mebibytes) ? `${count(mebibytes)} MiB` : `${count(bytes)} bytes`;
}

/** Every bound of a project, for the hint of the one crossed (docs/contracts.md#limits). */
function boundsOf(limits: ProjectLimits): string {
  const levels = `${limits.maxDepth} level${limits.maxDepth === 1 ? '' : 's'}`;
  return `bounds: ${count(limits.maxFiles)} files, ${sizeOf(limits.maxFileBytes)} each, ${sizeOf(limits.maxTotalBytes)} in total, ${levels} deep`;
}

function readFile(
  dir: Dir,
  name: Uint8Array,
  total: { bytes: number },
  limits: ProjectLimits,
  location: { readonly path: string },
  root: string,
): Uint8Array {
  let file: ReturnType<Dir['openFile']>;
  try {
    file = dir.openFile(name);
  } catch (error: unknown) {
    if (isFsError(error, 'ELOOP'))
      throw refuseContract('contract_project_symlink', { role: ROLE, location, hint: LINK_INSIDE });
    throw refuseContract('contract_project_unreadable', { role: ROLE, location, hint: FILE_UNREADABLE });
  }
  try {
    // The listing could be stale: the opened inode itself must be a regular file.
    if (file.stat().type !== 'file')
      throw refuseContract('contract_project_entry_unsupported', { role: ROLE, location });
    let bytes: Uint8Array;
    try {
      bytes = file.readUpTo(limits.maxFileBytes + 1);
    } catch {
      throw refuseContract('contract_project_unreadable', { role: ROLE, location, hint: FILE_UNREADABLE });
    }
    if (bytes.length > limits.maxFileBytes)
      throw refuseContract('contract_file_too_large', {
        role: 'resource',
        location,
        hint: `at most ${limits.maxFileBytes} bytes`,
      });
    total.bytes += bytes.length;
    if (total.bytes > limits.maxTotalBytes) {
      throw refuseContract('contract_project_too_large', {
        role: ROLE,
        location: { path: root },
        hint: `the resource files of a project hold at most ${sizeOf(limits.maxTotalBytes)} together (${boundsOf(limits)})`,
      });
    }
    return bytes;
  } finally {
    file.close();
  }
}
