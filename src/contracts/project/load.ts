import { join, resolve } from 'node:path';
import { Dir, didYouMeanPath, isFsError, symlinkOnPath } from '../../core/fs/index.js';
import { guardRefusals } from '../../core/refusal/index.js';
import { refuseContract } from '../authoring/refusals.js';
import { EMBEDDED_LEDGER_DIR } from '../publication/location.js';
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
    if (isFsError(error, 'ENOENT')) {
      const hint = didYouMeanPath(path, 'folder');
      throw refuseContract('contract_project_missing', {
        role: ROLE,
        location,
        ...(hint === undefined ? {} : { hint }),
      });
    }
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

/** A contract project found in a folder that is not one itself (see `projectsInFolder`). */
export interface ProjectInFolder {
  /** The sub-folder as the operator names it: the folder as given, joined with its name. */
  readonly path: string;
  /** Its embedded ledger's folder (`path/.sealkit/ledger`), when it has one. */
  readonly ledger?: string;
}

/** Entries looked at, at most, while looking for projects in a folder: a home folder is not walked whole. */
const PROJECT_SCAN_BUDGET = 20_000;

/**
 * The contract projects a folder holds when it is not one itself, for a
 * command that looked for the folder's embedded ledger and found none
 * (docs/contracts.md#embedded-ledger). Its sub-folders are projects by the
 * rule that reads a project — they hold a resource file (`*.yaml`,
 * `*.yml`) within the depth bound, names starting with a dot skipped, no
 * link followed — or they have an embedded ledger of their own. The folder
 * is not a project when it has no ledger and one of its sub-folders has:
 * that sub-folder was published as a project of its own. Projects with a
 * ledger come first, each group in byte order of the name. Undefined when
 * the folder has a ledger, none of its sub-folders has one (its resource
 * files may well be one project spread over sub-folders), or it cannot be
 * read; a folder that cannot be read is passed over, as is a name that is
 * not UTF-8. Only reads: nothing is created.
 */
export function projectsInFolder(
  path: string,
  limits: ProjectLimits = DEFAULT_PROJECT_LIMITS,
): readonly ProjectInFolder[] | undefined {
  let root: Dir;
  try {
    root = Dir.open(path);
  } catch {
    return undefined;
  }
  const budget = { entries: PROJECT_SCAN_BUDGET };
  try {
    if (hasEmbeddedLedger(root)) return undefined;
    const withLedger: ProjectInFolder[] = [];
    const without: ProjectInFolder[] = [];
    for (const entry of listQuietly(root, budget)) {
      if (entry.bytes[0] === 0x2e || !entry.utf8 || !isDirectory(root, entry)) continue;
      let child: Dir;
      try {
        child = root.openDir(entry.bytes);
      } catch {
        continue; // a link (never followed) or a folder this account cannot open
      }
      try {
        const sub = join(path, entry.name);
        if (hasEmbeddedLedger(child))
          withLedger.push({ path: sub, ledger: join(sub, ...EMBEDDED_LEDGER_DIR) });
        else if (holdsResourceFile(child, 1, limits, budget)) without.push({ path: sub });
      } finally {
        child.close();
      }
    }
    return withLedger.length === 0 ? undefined : [...withLedger, ...without];
  } finally {
    root.close();
  }
}

/** How many folders up `projectAbove` looks. */
const ABOVE_LEVELS = 8;

/**
 * The nearest folder above `path` that has an embedded ledger, written
 * from `path` as the user gave it (`..`, `retail`): run in a sub-folder of
 * a published project (`retail/sources`), a reader finds no ledger there,
 * and publishing that folder would start a second ledger beside the
 * project's. Undefined when none of the folders above has one. Only reads.
 */
export function projectAbove(path: string): string | undefined {
  for (let up = 1; up <= ABOVE_LEVELS; up += 1) {
    const candidate = join(path, ...Array.from({ length: up }, () => '..'));
    let dir: Dir;
    try {
      dir = Dir.open(candidate);
    } catch {
      return undefined;
    }
    try {
      if (hasEmbeddedLedger(dir)) return candidate;
    } finally {
      dir.close();
    }
    if (resolve(candidate) === resolve(candidate, '..')) return undefined;
  }
  return undefined;
}

function hasEmbeddedLedger(dir: Dir): boolean {
  const [sealkitDir, ledgerDir] = EMBEDDED_LEDGER_DIR;
  try {
    const sealkit = dir.openDir(sealkitDir);
    try {
      return sealkit.stat(ledgerDir).type === 'directory';
    } finally {
      sealkit.close();
    }
  } catch {
    return false;
  }
}

function listQuietly(dir: Dir, budget: { entries: number }): ReturnType<Dir['list']> {
  if (budget.entries <= 0) return [];
  try {
    const entries = dir.list();
    budget.entries -= entries.length;
    return entries;
  } catch {
    return [];
  }
}

/** The entry's type, from the listing or else its own stat (never following a link); undefined when it is gone. */
function typeOf(dir: Dir, entry: ReturnType<Dir['list']>[number]): string | undefined {
  if (entry.type !== 'unknown') return entry.type;
  try {
    return dir.stat(entry.bytes).type;
  } catch {
    return undefined;
  }
}

function isDirectory(dir: Dir, entry: ReturnType<Dir['list']>[number]): boolean {
  return typeOf(dir, entry) === 'directory';
}

/** Whether reading `dir` as a project (its files at level `depth`) would find a resource file. */
function holdsResourceFile(
  dir: Dir,
  depth: number,
  limits: ProjectLimits,
  budget: { entries: number },
): boolean {
  const entries = listQuietly(dir, budget);
  for (const entry of entries) {
    if (entry.bytes[0] === 0x2e) continue;
    if (RESOURCE_FILE.test(entry.name) && typeOf(dir, entry) === 'file') return true;
  }
  if (depth >= limits.maxDepth) return false;
  for (const entry of entries) {
    if (entry.bytes[0] === 0x2e || !isDirectory(dir, entry)) continue;
    let child: Dir;
    try {
      child = dir.openDir(entry.bytes);
    } catch {
      continue;
    }
    try {
      if (holdsResourceFile(child, depth + 1, limits, budget)) return true;
    } finally {
      child.close();
    }
  }
  return false;
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
