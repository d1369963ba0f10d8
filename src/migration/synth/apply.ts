import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../../core/digest/index.js';
import { Dir, fsPrimitivesAvailable, isFsError, renameNoReplace } from '../../core/fs/index.js';
import { guardRefusals } from '../../core/refusal/index.js';
import { guardPrivate } from '../private-boundary.js';
import { refuseSynth } from '../refusals.js';
import type { SynthesisPlan } from './plan.js';

export interface SynthesisResult {
  readonly status: 'written';
  readonly synthetic: true;
  readonly source: SynthesisPlan['source'];
  readonly destination: SynthesisPlan['destination'];
  readonly tables: readonly string[];
  /** Relative to the output directory. */
  readonly files: readonly string[];
}

/**
 * Publishes a plan as a new owner-only directory through one commit point:
 * everything is written into a fresh 0700 staging directory beside `out`
 * (files 0600, created exclusively, fsynced), read back and verified
 * byte for byte, then renamed onto `out` with RENAME_NOREPLACE. `out` must
 * not exist; on any failure only what this run created is removed.
 */
export function applySynthesisPlan(plan: SynthesisPlan, out: string): SynthesisResult {
  return guardPrivate(() => publishPlan(plan, out));
}

function publishPlan(plan: SynthesisPlan, out: string): SynthesisResult {
  const { parentPath, name } = splitOut(out);
  if (!fsPrimitivesAvailable()) throw refuseSynth('evidence_synth_unavailable');
  const parent = openParent(parentPath);
  try {
    if (exists(parent, name)) throw refuseSynth('evidence_synth_output_exists');
    const stagingName = `.${name}.sealkit-synth-${randomBytes(8).toString('hex')}`;
    const staging = attempt(() => parent.mkdirExclusive(stagingName, 0o700));
    const created: { readonly dir: Dir; readonly name: string; readonly kind: 'file' | 'dir' }[] = [];
    const held: Dir[] = [staging];
    let published = false;
    try {
      const dirs = new Map<string, Dir>([['', staging]]);
      for (const directory of plan.directories) {
        const { dir: parentDir, base } = locate(dirs, directory);
        const child = attempt(() => parentDir.mkdirExclusive(base, 0o700));
        created.push({ dir: parentDir, name: base, kind: 'dir' });
        held.push(child);
        dirs.set(directory, child);
      }
      for (const file of plan.files) {
        const { dir, base } = locate(dirs, file.path);
        const writable = attempt(() => dir.createExclusive(base, file.mode));
        created.push({ dir, name: base, kind: 'file' });
        try {
          attempt(() => {
            writable.write(Buffer.from(file.content, 'utf8'));
            writable.fsync();
          });
        } finally {
          writable.close();
        }
      }
      for (const dir of held) attempt(() => dir.fsync());
      verify(plan, dirs);
      try {
        renameNoReplace(parent, stagingName, parent, name);
      } catch (error: unknown) {
        throw isFsError(error, 'EEXIST') || isFsError(error, 'ENOTEMPTY')
          ? refuseSynth('evidence_synth_output_exists')
          : refuseSynth('evidence_synth_write_failed');
      }
      published = true;
      attempt(() => parent.fsync());
    } finally {
      if (!published) removeCreated(staging, created, parent, stagingName);
      for (const dir of held) dir.close();
    }
  } finally {
    parent.close();
  }
  return {
    status: 'written',
    synthetic: true,
    source: plan.source,
    destination: plan.destination,
    tables: plan.tables,
    files: plan.files.map((file) => file.path),
  };
}

/** Reads every staged file back through its directory and requires the planned bytes, mode and a single link. */
function verify(plan: SynthesisPlan, dirs: ReadonlyMap<string, Dir>): void {
  for (const file of plan.files) {
    const { dir, base } = locate(dirs, file.path);
    attempt(() => {
      const readable = dir.openFile(base);
      try {
        const stat = readable.stat();
        const bytes = readable.readUpTo(file.bytes + 1);
        if (
          stat.type !== 'file' ||
          stat.mode !== file.mode ||
          stat.nlink !== 1 ||
          sha256Hex(bytes) !== file.sha256
        ) {
          throw refuseSynth('evidence_synth_write_failed');
        }
      } finally {
        readable.close();
      }
    });
  }
}

/** Removes, newest first, only the entries this run created, then its staging directory. */
function removeCreated(
  staging: Dir,
  created: readonly { readonly dir: Dir; readonly name: string; readonly kind: 'file' | 'dir' }[],
  parent: Dir,
  stagingName: string,
): void {
  try {
    for (const entry of [...created].reverse()) {
      if (entry.kind === 'file') entry.dir.unlink(entry.name);
      else entry.dir.rmdir(entry.name);
    }
    if (staging.list().length === 0) parent.rmdir(stagingName);
  } catch {
    // Leaving a private staging directory behind is safe; deleting anything not ours is not.
  }
}

function locate(dirs: ReadonlyMap<string, Dir>, path: string): { readonly dir: Dir; readonly base: string } {
  const slash = path.lastIndexOf('/');
  const dir = dirs.get(slash === -1 ? '' : path.slice(0, slash));
  if (dir === undefined) throw refuseSynth('evidence_synth_write_failed');
  return { dir, base: path.slice(slash + 1) };
}

function splitOut(out: string): { readonly parentPath: string; readonly name: string } {
  const trimmed = out.length > 1 ? out.replace(/\/+$/, '') : out;
  const slash = trimmed.lastIndexOf('/');
  const name = trimmed.slice(slash + 1);
  if (name.length === 0 || name === '.' || name === '..' || out.includes('\0')) {
    throw refuseSynth('evidence_synth_option_invalid');
  }
  return { parentPath: slash === -1 ? '.' : slash === 0 ? '/' : trimmed.slice(0, slash), name };
}

function openParent(path: string): Dir {
  try {
    return Dir.open(path);
  } catch (error: unknown) {
    if (isFsError(error, 'ENOENT') || isFsError(error, 'ENOTDIR'))
      throw refuseSynth('evidence_synth_parent_missing');
    if (isFsError(error, 'ELOOP')) throw refuseSynth('evidence_synth_parent_unsafe');
    throw refuseSynth('evidence_synth_write_failed');
  }
}

function exists(dir: Dir, name: string): boolean {
  try {
    dir.stat(name);
    return true;
  } catch (error: unknown) {
    if (isFsError(error, 'ENOENT')) return false;
    throw refuseSynth('evidence_synth_write_failed');
  }
}

function attempt<T>(step: () => T): T {
  return guardRefusals(step, () => refuseSynth('evidence_synth_write_failed'));
}
