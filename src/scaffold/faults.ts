import { FsError } from '../core/fs/index.js';
import { refuseScaffold } from './refusals.js';

/**
 * The test-only failure injection (docs/scaffold.md#the-test-only-fault-hook),
 * given to `scaffold` as its `faults` option; production callers leave it
 * out, and the library never reads the environment for it. It can only make
 * a step fail, pause, or report a chosen errno instead of making a call; it
 * never writes anything itself and never changes what or where the
 * scaffolder writes, so it cannot widen the scaffolder's reach.
 */
export const FAULT_POINTS = [
  'after_preflight',
  'after_staging_root',
  'after_lock',
  'after_mkdir',
  'after_write',
  'after_file_fsync',
  'before_rehash',
  'after_staging_fsync',
  'after_file_seal',
  'before_dir_seal',
  'after_seal',
  'before_verify',
  'after_verify',
  'after_unseal',
  'before_generated',
  'after_generated',
  'before_identity_check',
  'before_rename',
  'after_rename',
  'after_parent_fsync',
  'after_chmod',
] as const;
export type FaultPoint = (typeof FAULT_POINTS)[number];

export const FAULT_CALLS = ['rename', 'parent_fsync', 'chmod'] as const;
export type FaultCall = (typeof FAULT_CALLS)[number];

/**
 * One armed fault. `nth` picks the Nth time its point or call is reached
 * (1-based); without it, every time.
 */
export type ScaffoldFault =
  | { readonly action: 'fail' | 'pause'; readonly point: FaultPoint; readonly nth?: number | undefined }
  | {
      readonly action: 'errno';
      readonly call: FaultCall;
      readonly errno: string;
      readonly nth?: number | undefined;
    }
  | { readonly action: 'crossdev' };

/** Called at a `pause` fault; the run resumes when it settles. `done` aborts once the run goes on. */
export type FaultPause = (point: FaultPoint, nth: number, done: AbortSignal) => Promise<void> | void;

/** The `faults` option of `scaffold`. */
export interface ScaffoldFaults {
  readonly rules: readonly ScaffoldFault[];
  /** Without it a `pause` fault goes on at once. */
  readonly pause?: FaultPause | undefined;
}

const RULE = /^(fail|pause|errno|crossdev)@([a-z_]+)(?:#([1-9][0-9]{0,3}))?(?:=(E[A-Z0-9]+))?$/;
const ERRNO = /^E[A-Z0-9]+$/;

/**
 * The text form the CLI reads from its test-only variable: comma-separated
 * `ACTION@POINT[#N][=ERRNO]` rules (docs/scaffold.md#the-test-only-fault-hook).
 * A rule it cannot read is `option_invalid`, like a malformed `faults` option.
 */
export function parseFaultRules(spec: string): readonly ScaffoldFault[] {
  const rules: ScaffoldFault[] = [];
  for (const token of spec.split(',').map((part) => part.trim())) {
    if (token === '') continue;
    const match = RULE.exec(token);
    if (match === null) throw refuseScaffold('option_invalid');
    const [, action, target, nthText, errno] = match;
    const nth = nthText === undefined ? undefined : Number(nthText);
    if (action === 'crossdev' && target === 'preflight') rules.push({ action: 'crossdev' });
    else if (action === 'errno' && isOneOf(FAULT_CALLS, target) && errno !== undefined) {
      rules.push({ action: 'errno', call: target, nth, errno });
    } else if (
      (action === 'fail' || action === 'pause') &&
      isOneOf(FAULT_POINTS, target) &&
      errno === undefined
    ) {
      rules.push({ action, point: target, nth });
    } else throw refuseScaffold('option_invalid');
  }
  return rules;
}

/** Whether a `faults` option has the shape of `ScaffoldFaults` (the library boundary is strict). */
export function isScaffoldFaults(value: unknown): value is ScaffoldFaults {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return (
    Object.keys(record).every((key) => key === 'rules' || key === 'pause') &&
    Array.isArray(record.rules) &&
    record.rules.every(isFault) &&
    (record.pause === undefined || typeof record.pause === 'function')
  );
}

function isFault(value: unknown): value is ScaffoldFault {
  if (typeof value !== 'object' || value === null) return false;
  const rule = value as Record<string, unknown>;
  const nthOk = rule.nth === undefined || (Number.isSafeInteger(rule.nth) && Number(rule.nth) >= 1);
  switch (rule.action) {
    case 'fail':
    case 'pause':
      return typeof rule.point === 'string' && isOneOf(FAULT_POINTS, rule.point) && nthOk;
    case 'errno':
      return (
        typeof rule.call === 'string' &&
        isOneOf(FAULT_CALLS, rule.call) &&
        typeof rule.errno === 'string' &&
        ERRNO.test(rule.errno) &&
        nthOk
      );
    case 'crossdev':
      return true;
    default:
      return false;
  }
}

function isOneOf<const T extends readonly string[]>(
  values: T,
  value: string | undefined,
): value is T[number] {
  return value !== undefined && (values as readonly string[]).includes(value);
}

/** One run's armed faults, counting how often each point and call was reached. */
export class Faults {
  readonly #rules: readonly ScaffoldFault[];
  readonly #pause: FaultPause | undefined;
  readonly #counts = new Map<string, number>();

  constructor(faults: ScaffoldFaults) {
    this.#rules = faults.rules;
    this.#pause = faults.pause;
  }

  /** Reached a named point: fail or pause if a rule says so. `resume` waits for the release. */
  async at(point: FaultPoint, resume: (wait: Promise<void>) => Promise<void>): Promise<void> {
    const nth = this.#count(point);
    for (const rule of this.#rules) {
      if (rule.action !== 'fail' && rule.action !== 'pause') continue;
      if (rule.point !== point || (rule.nth !== undefined && rule.nth !== nth)) continue;
      if (rule.action === 'fail') throw FsError.synthetic('EIO', 'fault');
      const done = new AbortController();
      try {
        await resume(Promise.resolve(this.#pause?.(point, nth, done.signal)));
      } finally {
        // An interrupted pause lets its listener go too, so nothing keeps the process alive.
        done.abort();
      }
    }
  }

  /** The errno a call must fail with this time, if a rule says so. */
  errnoFor(call: FaultCall): string | undefined {
    const nth = this.#count(call);
    for (const rule of this.#rules) {
      if (rule.action === 'errno' && rule.call === call && (rule.nth === undefined || rule.nth === nth)) {
        return rule.errno;
      }
    }
    return undefined;
  }

  get crossDevice(): boolean {
    return this.#rules.some((rule) => rule.action === 'crossdev');
  }

  #count(key: string): number {
    const nth = (this.#counts.get(key) ?? 0) + 1;
    this.#counts.set(key, nth);
    return nth;
  }
}

/** A failure the hook substitutes for a real call: the errno-shaped error the call would have thrown. */
export function injectedError(errno: string, syscall: string): FsError {
  return new FsError(errno, 0, syscall);
}
