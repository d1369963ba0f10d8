import type { Dir } from '../../../core/fs/index.js';
import type {
  AppliedOutcome,
  ApplyContext,
  BackendOpenContext,
  BatchWrite,
  DestinationBackend,
  DestinationSnapshot,
  LockOutcome,
  OutputSource,
  StepKind,
} from '../../backend.js';
import type { LocalDestinationConfig } from '../../config/types.js';
import type { BundleDir } from '../../model/types.js';
import type { PlannedWrite } from '../../plan/types.js';
import { refuseDistributor } from '../../refusals.js';
import { applyLocalBatch } from './apply.js';
import { inspectLocal } from './inspect.js';
import type { StepHook } from './tree.js';
import { LocalRoot, openRootDir } from './work-area.js';

/**
 * Local directory destinations. Destinations of one run that name the same
 * root directory (by device and inode) share one `LocalRoot`: one lock, one
 * work area.
 */
export class LocalBackends {
  readonly #roots = new Map<string, LocalRoot>();

  create(config: LocalDestinationConfig, context: BackendOpenContext): DestinationBackend {
    return new LocalBackend(config, this.#rootFor(config.root), context);
  }

  #rootFor(path: string): LocalRoot | undefined {
    const dir = openRootDir(path);
    if (dir === undefined) return undefined;
    const stat = dir.stat();
    const key = `${stat.dev}:${stat.ino}`;
    const shared = this.#roots.get(key);
    if (shared !== undefined) {
      dir.close();
      return shared;
    }
    const root = new LocalRoot(dir);
    this.#roots.set(key, root);
    return root;
  }
}

class LocalBackend implements DestinationBackend {
  readonly kind = 'local' as const;
  readonly destinationId: string;
  readonly #root: LocalRoot | undefined;
  readonly #context: BackendOpenContext;
  #scratch: Dir | undefined;
  #closed = false;

  constructor(config: LocalDestinationConfig, root: LocalRoot | undefined, context: BackendOpenContext) {
    this.destinationId = config.id;
    this.#root = root;
    this.#context = context;
  }

  async lock(): Promise<LockOutcome> {
    const root = this.#usableRoot();
    return root.acquire(this.#hook(this.#context.beforeStep)) ? { kind: 'acquired' } : { kind: 'busy' };
  }

  async inspect(bundleDir: BundleDir): Promise<DestinationSnapshot> {
    const root = this.#root;
    if (root === undefined) {
      return {
        kind: 'invalid',
        refusal: refuseDistributor('destination_root_unavailable', { role: 'destination' }),
      };
    }
    return inspectLocal(root.parents, bundleDir, root.ancestors);
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
      throw refuseDistributor('destination_root_unavailable', { role: 'destination' });
    return this.#root;
  }

  #hook(beforeStep: (step: { kind: StepKind; destination_id: string }) => void): StepHook {
    return (kind) => beforeStep({ kind, destination_id: this.destinationId });
  }
}
