import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../../core/digest/index.js';
import { Dir, fsPrimitivesAvailable, isFsError, renameNoReplace } from '../../core/fs/index.js';
import { guardRefusals, guardRefusalsAsync } from '../../core/refusal/index.js';
import {
  isStepFaults,
  STAGED_TREE_STEPS,
  type StagedTreeStep,
  type StepFaults,
  Steps,
} from '../../core/steps/index.js';
import { guardPrivate, guardPrivateAsync } from '../private-boundary.js';
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
 * The step boundaries of a synthesis, in run order, where SIGINT or SIGTERM
 * stops it and the test-only faults can be armed
 * (docs/evidence.md#interrupted-and-the-test-only-fault-hook). `after_dir`
 * and `after_file` are reached once per directory and file.
 */
export const SYNTH_STEPS = STAGED_TREE_STEPS;
export type SynthStep = StagedTreeStep;

/** The `faults` option of `applySynthesisPlan`: test-only; production callers leave it out. */
export type SynthFaults = StepFaults<SynthStep>;

export interface ApplySynthesisOptions {
  /**
   * Aborting stops the write at its next step boundary before the rename:
   * what the run staged is removed and it refuses with
   * `evidence_synth_interrupted` (the CLI wires SIGINT and SIGTERM to it).
   */
  readonly signal?: AbortSignal | undefined;
  readonly faults?: SynthFaults | undefined;
}

/**
 * Publishes a plan as a new owner-only directory through one commit point:
 * everything is written into a fresh 0700 staging directory beside `out`
 * (files 0600, created exclusively, fsynced), read back and verified
 * byte for byte, then renamed onto `out` with RENAME_NOREPLACE. `out` must
 * not exist; on any failure or interruption before the rename only what
 * this run created is removed. After the rename it completes.
 */
export function applySynthesisPlan(
  plan: SynthesisPlan,
  out: string,
  options: ApplySynthesisOptions = {},
): Promise<SynthesisResult> {
  return guardPrivateAsync(() => {
    if (options.faults !== undefined && !isStepFaults(options.faults, SYNTH_STEPS))
      throw refuseSynth('evidence_synth_option_invalid', { field: 'faults' });
    const steps = new Steps<SynthStep>({
      signal: options.signal,
      faults: options.faults,
      interrupted: () => refuseSynth('evidence_synth_interrupted'),
    });
    return publishPlan(plan, out, steps);
  });
}

/**
 * Checks `out` as a real run would before it writes, and writes nothing:
 * a usable name, the held-descriptor primitives, a parent directory
 * reached without a symbolic link, and nothing at `out` (not even an empty
 * directory or a dangling link). `--dry-run` refuses what the run would.
 */
export function checkSynthesisOut(out: string): void {
  guardPrivate(() => openOut(out).parent.close());
}

/**
 * The checks before any write, in the order a run makes them; the parent
 * stays held for the write. Whether this account may create entries in the
 * parent is asked of the kernel (faccessat: modes, ACLs, a read-only
 * mount), so a dry run refuses the parent the run would fail to write in.
 */
function openOut(out: string): { readonly parent: Dir; readonly name: string } {
  const { parentPath, name } = splitOut(out);
  if (Buffer.byteLength(stagingName(name, '0'.repeat(STAGING_TAG_HEX))) > NAME_MAX)
    throw refuseSynth('evidence_synth_name_too_long', { field: 'out' });
  if (!fsPrimitivesAvailable()) throw refuseSynth('evidence_synth_unavailable');
  const parent = openParent(parentPath);
  try {
    if (exists(parent, name)) throw refuseSynth('evidence_synth_output_exists');
    if (parent.writeDenied() !== undefined) throw refuseSynth('evidence_synth_parent_not_writable');
  } catch (error: unknown) {
    parent.close();
    throw error;
  }
  return { parent, name };
}

async function publishPlan(
  plan: SynthesisPlan,
  out: string,
  steps: Steps<SynthStep>,
): Promise<SynthesisResult> {
  const { parent, name } = openOut(out);
  try {
    await step(steps, 'after_preflight');
    const staged = stagingName(name, randomBytes(STAGING_TAG_HEX / 2).toString('hex'));
    const staging = makeStaging(parent, staged);
    const created: { readonly dir: Dir; readonly name: string; readonly kind: 'file' | 'dir' }[] = [];
    const held: Dir[] = [staging];
    let published = false;
    try {
      await step(steps, 'after_staging');
      const dirs = new Map<string, Dir>([['', staging]]);
      for (const directory of plan.directories) {
        const { dir: parentDir, base } = locate(dirs, directory);
        const child = attempt(() => parentDir.mkdirExclusive(base, 0o700));
        created.push({ dir: parentDir, name: base, kind: 'dir' });
        held.push(child);
        dirs.set(directory, child);
        await step(steps, 'after_dir');
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
        await step(steps, 'after_file');
      }
      for (const dir of held) attempt(() => dir.fsync());
      await step(steps, 'after_fsync');
      verify(plan, dirs);
      // The last boundary: the rename is the commit point, and nothing stops the run after it.
      await step(steps, 'before_rename');
      try {
        renameNoReplace(parent, staged, parent, name);
      } catch (error: unknown) {
        throw isFsError(error, 'EEXIST') || isFsError(error, 'ENOTEMPTY')
          ? refuseSynth('evidence_synth_output_exists')
          : refuseSynth('evidence_synth_write_failed');
      }
      published = true;
      attempt(() => parent.fsync());
    } finally {
      if (!published) removeCreated(staging, created, parent, staged);
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

const LONE_SURROGATE = /\p{Cs}/u;

function splitOut(out: string): { readonly parentPath: string; readonly name: string } {
  const trimmed = out.length > 1 ? out.replace(/\/+$/, '') : out;
  const slash = trimmed.lastIndexOf('/');
  const name = trimmed.slice(slash + 1);
  // A lone surrogate would be written as U+FFFD's bytes and name another directory.
  if (name.length === 0 || name === '.' || name === '..' || out.includes('\0') || LONE_SURROGATE.test(out)) {
    throw refuseSynth('evidence_synth_option_invalid', { field: 'out' });
  }
  return { parentPath: slash === -1 ? '.' : slash === 0 ? '/' : trimmed.slice(0, slash), name };
}

/** Every name on Linux's local filesystems is at most 255 bytes (NAME_MAX). */
const NAME_MAX = 255;
const STAGING_TAG_HEX = 16;

/** The hidden staging directory beside `out`, unique to this run. */
function stagingName(name: string, tag: string): string {
  return `.${name}.sealkit-synth-${tag}`;
}

/**
 * The run's first write. The preflight already asked whether the parent is
 * writable; a kernel that still says no (the parent changed since) gets the
 * same answer, not a bare write failure.
 */
function makeStaging(parent: Dir, name: string): Dir {
  return attempt(() => {
    try {
      return parent.mkdirExclusive(name, 0o700);
    } catch (error: unknown) {
      if (isFsError(error, 'EACCES') || isFsError(error, 'EPERM') || isFsError(error, 'EROFS'))
        throw refuseSynth('evidence_synth_parent_not_writable');
      if (isFsError(error, 'ENAMETOOLONG'))
        throw refuseSynth('evidence_synth_name_too_long', { field: 'out' });
      throw error;
    }
  });
}

function openParent(path: string): Dir {
  try {
    return Dir.open(path);
  } catch (error: unknown) {
    if (isFsError(error, 'ENOENT') || isFsError(error, 'ENOTDIR'))
      throw refuseSynth('evidence_synth_parent_missing');
    if (isFsError(error, 'ELOOP')) throw refuseSynth('evidence_synth_parent_unsafe');
    // The parent, or a folder above it, may not be entered (or read) by you.
    if (isFsError(error, 'EACCES') || isFsError(error, 'EPERM'))
      throw refuseSynth('evidence_synth_parent_not_writable');
    throw refuseSynth('evidence_synth_write_failed');
  }
}

function exists(dir: Dir, name: string): boolean {
  try {
    dir.stat(name);
    return true;
  } catch (error: unknown) {
    if (isFsError(error, 'ENOENT')) return false;
    // A parent you may read but not search (no x bit): nothing can be created in it either.
    if (isFsError(error, 'EACCES') || isFsError(error, 'EPERM'))
      throw refuseSynth('evidence_synth_parent_not_writable');
    throw refuseSynth('evidence_synth_write_failed');
  }
}

function attempt<T>(work: () => T): T {
  return guardRefusals(work, () => refuseSynth('evidence_synth_write_failed'));
}

/** A step boundary: an interruption stops the run with its own refusal; an injected failure is a failed write. */
function step(steps: Steps<SynthStep>, point: SynthStep): Promise<void> {
  return guardRefusalsAsync(
    () => steps.at(point),
    () => refuseSynth('evidence_synth_write_failed'),
  );
}
