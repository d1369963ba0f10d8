import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../../core/digest/index.js';
import { Dir, didYouMeanPath, isFsError, renameNoReplace, writeFailureCause } from '../../core/fs/index.js';
import { guardRefusals, Refusal } from '../../core/refusal/index.js';
import { refuseContract } from '../authoring/refusals.js';

/** One file of an output tree: its path components under the output folder and its bytes. */
export interface OutputFile {
  readonly path: readonly string[];
  readonly bytes: Uint8Array;
}

const ROLE = 'output';
const DIR_MODE = 0o755;
const FILE_MODE = 0o644;

/**
 * Publishes a tree create-only through one commit point: everything is
 * written into a fresh staging folder beside the target (exclusive creates,
 * fsync of every file and folder), read back and compared, then moved into
 * place with one atomic rename that never replaces anything. On any failure
 * only what this call created is removed; an existing target is never
 * touched.
 */
export function writeTreeCreateOnly(outPath: string, files: readonly OutputFile[]): void {
  guardRefusals(
    () => publish(outPath, files),
    (error) => outFailed(outPath, error),
  );
}

/** The output folder as given, with the cause when the errno says it. */
function outFailed(outPath: string, error: unknown): Refusal {
  const known = isFsError(error)
    ? (writeFailureCause(error.code, 'the output folder') ?? `the write failed (${error.code})`)
    : undefined;
  return refuseContract('contract_out_failed', {
    role: ROLE,
    location: { path: outPath },
    ...(known === undefined ? {} : { hint: known }),
  });
}

/**
 * The output folder is the operator's own path: a refusal names it as given
 * and says what to do (docs/contracts.md#reading-an-error).
 */
function outExists(outPath: string): Refusal {
  return refuseContract('contract_out_exists', {
    role: ROLE,
    location: { path: outPath },
    hint: 'choose a folder that does not exist yet: --out creates it and never writes into an existing one',
  });
}

/** `near`: the output path with a misspelt folder above it corrected, when one is close. */
function parentMissing(outPath: string, parent: string | undefined, near?: string): Refusal {
  return refuseContract('contract_out_parent_missing', {
    role: ROLE,
    location: { path: outPath },
    hint:
      parent === undefined
        ? "name the new folder itself, not '.' or '..': e.g. --out projections"
        : (near ??
          `create the parent folder '${parent}' first, or choose an output folder in an existing one`),
  });
}

function splitTarget(outPath: string): { parent: string; name: string } {
  const trimmed = outPath.replace(/\/+$/, '');
  const slash = trimmed.lastIndexOf('/');
  const name = slash === -1 ? trimmed : trimmed.slice(slash + 1);
  const parent = slash === -1 ? '.' : slash === 0 ? '/' : trimmed.slice(0, slash);
  if (name === '' || name === '.' || name === '..') throw parentMissing(outPath, undefined);
  return { parent, name };
}

function publish(outPath: string, files: readonly OutputFile[]): void {
  const { parent, name } = splitTarget(outPath);
  let parentDir: Dir;
  try {
    parentDir = Dir.open(parent);
  } catch (error: unknown) {
    const near = isFsError(error, 'ENOENT') ? didYouMeanPath(outPath, 'folder') : undefined;
    throw parentMissing(outPath, parent, near);
  }
  const created: { dir: Dir; name: string; kind: 'file' | 'dir' }[] = [];
  const held: Dir[] = [];
  const stagingName = `.${name}.sealkit-staging-${randomBytes(8).toString('hex')}`;
  let published = false;
  try {
    if (exists(parentDir, name)) throw outExists(outPath);
    const staging = parentDir.mkdirExclusive(stagingName, 0o700);
    held.push(staging);
    created.push({ dir: parentDir, name: stagingName, kind: 'dir' });

    const dirs = new Map<string, Dir>([['', staging]]);
    const dirFor = (components: readonly string[]): Dir => {
      let key = '';
      let current = staging;
      for (const component of components) {
        const next = key === '' ? component : `${key}/${component}`;
        let child = dirs.get(next);
        if (child === undefined) {
          child = current.mkdirExclusive(component, DIR_MODE);
          held.push(child);
          created.push({ dir: current, name: component, kind: 'dir' });
          dirs.set(next, child);
        }
        key = next;
        current = child;
      }
      return current;
    };

    for (const file of files) {
      const dir = dirFor(file.path.slice(0, -1));
      const fileName = file.path[file.path.length - 1] as string;
      const handle = dir.createExclusive(fileName, FILE_MODE);
      created.push({ dir, name: fileName, kind: 'file' });
      try {
        handle.write(file.bytes);
        handle.fsync();
      } finally {
        handle.close();
      }
    }
    // Verify before publishing: every file reads back with the digest it was written with.
    for (const file of files) {
      const dir = dirFor(file.path.slice(0, -1));
      const handle = dir.openFile(file.path[file.path.length - 1] as string);
      try {
        const back = handle.readUpTo(file.bytes.length + 1);
        if (sha256Hex(back) !== sha256Hex(file.bytes))
          throw refuseContract('contract_out_failed', {
            role: ROLE,
            location: { path: outPath },
            hint: 'a file read back differs from the bytes written: check the disk',
          });
      } finally {
        handle.close();
      }
    }
    for (const dir of [...dirs.values()].reverse()) dir.fsync();
    staging.chmod(DIR_MODE);
    staging.fsync();
    try {
      renameNoReplace(parentDir, stagingName, parentDir, name);
    } catch (error: unknown) {
      if (isFsError(error, 'EEXIST') || isFsError(error, 'ENOTEMPTY')) {
        throw outExists(outPath);
      }
      throw error;
    }
    published = true;
    parentDir.fsync();
  } catch (error: unknown) {
    if (!published) removeCreated(created);
    throw error instanceof Refusal ? error : outFailed(outPath, error);
  } finally {
    for (const dir of held) dir.close();
    parentDir.close();
  }
}

function exists(dir: Dir, name: string): boolean {
  try {
    dir.stat(name);
    return true;
  } catch (error: unknown) {
    if (isFsError(error, 'ENOENT')) return false;
    throw error;
  }
}

/** Removes, newest first, only the entries this call created. */
function removeCreated(created: readonly { dir: Dir; name: string; kind: 'file' | 'dir' }[]): void {
  for (const entry of [...created].reverse()) {
    try {
      if (entry.kind === 'file') entry.dir.unlink(entry.name);
      else entry.dir.rmdir(entry.name);
    } catch {
      // Best effort: a leftover staging folder is hidden, named as ours, and never published.
    }
  }
}
