import { setTimeout as sleep } from 'node:timers/promises';
import { Dir, isFsError } from '../../../core/fs/index.js';
import { Refusal, toRefusal } from '../../../core/refusal/index.js';
import type {
  AppliedOutcome,
  ApplyContext,
  BackendOpenContext,
  BatchWrite,
  DestinationBackend,
  DestinationSnapshot,
  LockOptions,
  LockOutcome,
  OutputSource,
  ReadOptions,
  StepKind,
} from '../../backend.js';
import type { LocalDestinationConfig } from '../../config/types.js';
import { configuredPath, didYouMeanConfigured, TILDE_HINT } from '../../configured-path.js';
import type { BundleDir } from '../../model/types.js';
import type { PlannedWrite } from '../../plan/types.js';
import { refuseDistributor } from '../../refusals.js';
import { destinationWriteFailed } from '../../write-failure.js';
import { applyLocalBatch } from './apply.js';
import { holdsPath } from './holds.js';
import { startInspectLocal } from './inspect.js';
import { publishedBundleAroundRoot } from './nested-root.js';
import type { StepHook } from './tree.js';
import { LocalRoot } from './work-area.js';

/**
 * Local directory destinations. Destinations of one run that name the same
 * root directory (by device and inode) share one `LocalRoot`: one lock, one
 * work area (a configuration where two destinations share a root is refused
 * before this, see `run/overlap.ts`; the sharing keeps a library caller's
 * own configuration safe).
 */
export class LocalBackends {
  readonly #roots = new Map<string, LocalRoot>();

  create(config: LocalDestinationConfig, context: BackendOpenContext): DestinationBackend {
    const opened = this.#rootFor(config);
    return opened instanceof Refusal
      ? new LocalBackend(config, undefined, context, opened)
      : new LocalBackend(config, opened, context, undefined);
  }

  #rootFor(config: LocalDestinationConfig): LocalRoot | Refusal {
    const shownRoot = config.shown_root ?? config.root;
    let dir: Dir;
    try {
      dir = Dir.open(config.root);
    } catch (error: unknown) {
      return refuseDistributor('destination_root_unavailable', {
        role: 'destination',
        hint: pathCause('root', shownRoot, config.root, error, {
          written: config.written_root,
          configPath: config.root_origin?.path,
        }),
      });
    }
    const nested = publishedBundleAroundRoot(config.root, shownRoot);
    if (nested !== undefined) {
      dir.close();
      return nested;
    }
    let work: Dir | undefined;
    const shownWorkDir = config.shown_work_dir ?? config.work_dir;
    if (config.work_dir !== undefined) {
      try {
        work = Dir.open(config.work_dir);
      } catch (error: unknown) {
        dir.close();
        return refuseDistributor('work_dir_unavailable', {
          role: 'destination',
          hint: pathCause('work_dir', shownWorkDir ?? config.work_dir, config.work_dir, error, {
            written: config.written_work_dir,
            configPath: config.work_dir_origin?.path,
          }),
        });
      }
      const workNested = publishedBundleAroundRoot(
        config.work_dir,
        shownWorkDir ?? config.work_dir,
        'work_dir',
      );
      if (workNested !== undefined) {
        work.close();
        dir.close();
        return workNested;
      }
      if (workDirProblem(dir, work) !== undefined) {
        work.close();
        dir.close();
        return refuseDistributor('work_dir_other_filesystem', {
          role: 'destination',
          hint: `work_dir '${shownWorkDir ?? config.work_dir}' is not on the filesystem and mount of root '${shownRoot}': put it on the same one, since publication moves files by rename, never by copy`,
        });
      }
    }
    const stat = dir.stat();
    const key = `${stat.dev}:${stat.ino}`;
    const shared = this.#roots.get(key);
    if (shared !== undefined) {
      dir.close();
      work?.close();
      return shared;
    }
    const root = new LocalRoot(dir, work, { root: shownRoot, workBase: shownWorkDir ?? shownRoot });
    this.#roots.set(key, root);
    return root;
  }
}

/**
 * A work directory must be where a rename from it into the root works: the
 * same filesystem (device) and, where the kernel tells, the same mount (a
 * bind mount of the same filesystem still fails renames with EXDEV).
 */
function workDirProblem(root: Dir, work: Dir): 'work_dir_other_filesystem' | undefined {
  const a = root.stat();
  const b = work.stat();
  if (a.dev !== b.dev) return 'work_dir_other_filesystem';
  if (a.mountId !== undefined && b.mountId !== undefined && a.mountId !== b.mountId)
    return 'work_dir_other_filesystem';
  return undefined;
}

const LOCK_RETRY_MS = 250;

class LocalBackend implements DestinationBackend {
  readonly kind = 'local' as const;
  readonly destinationId: string;
  readonly #root: LocalRoot | undefined;
  readonly #context: BackendOpenContext;
  #scratch: Dir | undefined;
  #closed = false;

  readonly #problem: Refusal | undefined;

  constructor(
    config: LocalDestinationConfig,
    root: LocalRoot | undefined,
    context: BackendOpenContext,
    problem: Refusal | undefined,
  ) {
    this.destinationId = config.id;
    this.#root = root;
    this.#context = context;
    this.#problem = problem;
  }

  async peekLock(): Promise<LockOutcome> {
    const found = this.#usableRoot().peek();
    if (found.kind === 'denied') throw destinationWriteFailed(found.error);
    return { kind: found.kind === 'busy' ? 'busy' : 'acquired' };
  }

  async lock(options: LockOptions = {}): Promise<LockOutcome> {
    const root = this.#usableRoot();
    const started = Date.now();
    const deadline = started + (options.waitMs ?? 0);
    try {
      // Another run's lock is asked for again every quarter second until the
      // deadline: flock has no timeout, and a blocking call would stop the
      // whole process (every other destination) while it waits.
      for (;;) {
        if (root.acquire(this.#hook(this.#context.beforeStep))) return { kind: 'acquired' };
        const left = deadline - Date.now();
        if (left <= 0 || options.signal?.aborted === true) return { kind: 'busy' };
        options.onWait?.(Date.now() - started);
        // A signal ends the pause at once: Ctrl-C must not wait out a --wait of minutes.
        await sleep(
          Math.min(LOCK_RETRY_MS, left),
          undefined,
          options.signal === undefined ? {} : { signal: options.signal },
        ).catch(() => undefined);
      }
    } catch (error: unknown) {
      // The work area could not be made or locked (a read-only or full
      // filesystem, no permission): this destination's own failure.
      throw toRefusal(error, () => destinationWriteFailed(error));
    }
  }

  async inspect(bundleDir: BundleDir, options: ReadOptions = {}): Promise<DestinationSnapshot> {
    const root = this.#root;
    if (root === undefined) {
      return {
        kind: 'invalid',
        refusal: this.#problem ?? refuseDistributor('destination_root_unavailable', { role: 'destination' }),
      };
    }
    const inspection = startInspectLocal(
      root.parents,
      bundleDir,
      root.ancestors,
      root.shown.root,
      options.checksum !== true ? false : options.unreadableBySize === true ? 'readable' : true,
    );
    await inspection.settled();
    return inspection.finish();
  }

  async holds(paths: readonly string[]): Promise<ReadonlyMap<string, boolean>> {
    const found = new Map<string, boolean>();
    const root = this.#root;
    if (root === undefined) return found;
    for (const path of paths) {
      const held = holdsPath(root.root, path);
      if (held !== undefined) found.set(path, held);
    }
    return found;
  }

  async apply(write: PlannedWrite, source: OutputSource, context: ApplyContext): Promise<AppliedOutcome> {
    const [outcome] = await this.applyBatch([{ write, source }], context);
    return outcome ?? { outcome: 'refused', refusal: refuseDistributor('destination_write_failed') };
  }

  async applyBatch(writes: readonly BatchWrite[], context: ApplyContext): Promise<readonly AppliedOutcome[]> {
    const root = this.#usableRoot();
    if (!root.locked) throw refuseDistributor('destination_locked', { role: 'destination' });
    return applyLocalBatch(root, writes, context.now, this.#hook(context.beforeStep));
  }

  scratch(): Dir {
    if (this.#scratch !== undefined) return this.#scratch;
    const root = this.#usableRoot();
    const hook = this.#hook(this.#context.beforeStep);
    const runDir = root.runDir(hook);
    hook('mkdir');
    this.#scratch = runDir.mkdirExclusive(root.nextSnapshotName(), 0o700);
    return this.#scratch;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#scratch?.close();
    this.#scratch = undefined;
    const root = this.#root;
    if (root !== undefined && !root.closing) root.release(this.#hook(this.#context.beforeStep));
  }

  #usableRoot(): LocalRoot {
    if (this.#root === undefined)
      throw this.#problem ?? refuseDistributor('destination_root_unavailable', { role: 'destination' });
    return this.#root;
  }

  #hook(beforeStep: (step: { kind: StepKind; destination_id: string }) => void): StepHook {
    return (kind) => beforeStep({ kind, destination_id: this.destinationId });
  }
}

/**
 * Which of the causes `destination_root_unavailable` (or `work_dir_unavailable`)
 * covers, with the path as configured (`root 'site'`, `work_dir '/srv/work'`), so the operator knows what to fix (docs/distributor.md#local-destinations-atomicity-lock-crash-behaviour).
 * A path that does not exist gets the folder beside it near enough to be a
 * typo, in the terms the configuration writes it; `opened` is the path the
 * open used, resolved from `shown`.
 */
function pathCause(
  key: 'root' | 'work_dir',
  shown: string,
  opened: string,
  error: unknown,
  file: { readonly written: string | undefined; readonly configPath: string | undefined },
): string {
  const named = `${key} ${configuredPath(shown, file.written)}`;
  if (isFsError(error, 'ENOENT')) {
    if (namesTilde(named)) return `${named} does not exist: ${TILDE_HINT}`;
    const near =
      didYouMeanConfigured(shown, opened, file.written, file.configPath) ?? 'create it, or fix the path';
    return `${named} does not exist: ${near}`;
  }
  if (isFsError(error, 'ELOOP')) {
    return `${named} is reached through a symbolic link: name the real directory (every component is opened without following links)`;
  }
  if (isFsError(error, 'ENOTDIR')) return `${named} is not a directory`;
  if (isFsError(error, 'EACCES') || isFsError(error, 'EPERM')) {
    return `${named} cannot be opened: give the account running sealkit search permission on it and every directory above it`;
  }
  return `${named} cannot be opened`;
}

/**
 * sealkit does not expand `~` (a shell does, before a program sees it; a
 * YAML value never passes through a shell), so `root: ~/site` names a
 * folder called `~` (docs/distributor.md#configuration-sealkitdistributoryaml):
 * creating the folder the path names would not be what was meant.
 */
function namesTilde(named: string): boolean {
  return /^[a-z_]+ '(?:[^']*\/)?~/.test(named);
}
