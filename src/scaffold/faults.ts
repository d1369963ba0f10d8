import { FsError } from '../core/fs/index.js';

/**
 * The test-only failure-injection hook (§7, "a test-only hook ... pauses or
 * fails at named stages"). Inert unless SEALKIT_SCAFFOLD_FAULTS is set. It can
 * only make a step fail, pause, or report a chosen errno instead of making a
 * call; it never writes anything itself and never changes what or where the
 * scaffolder writes, so it cannot widen the scaffolder's reach.
 *
 * Spec: comma-separated rules, each `ACTION@POINT[#N][=ERRNO]`:
 *   fail@after_mkdir          the step at that point fails (an I/O error)
 *   pause@after_seal          wait until released (see below)
 *   errno@rename=EXDEV        the call fails with that errno instead of running
 *   crossdev@preflight        preflight sees the staging root on another device
 * `#N` picks the Nth time a point is reached (1-based; default every time).
 * A paused CLI run prints `sealkit scaffold fault: paused at POINT#N` on
 * stderr and resumes on a line (or end of file) on standard input.
 */
export const FAULTS_ENV = 'SEALKIT_SCAFFOLD_FAULTS';

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

type Rule =
  | { readonly action: 'fail' | 'pause'; readonly point: FaultPoint; readonly nth: number | undefined }
  | {
      readonly action: 'errno';
      readonly call: FaultCall;
      readonly nth: number | undefined;
      readonly errno: string;
    }
  | { readonly action: 'crossdev' };

/** How a test in the same process drives the hook; a CLI run pauses on its standard streams instead. */
export interface FaultController {
  /** Replaces the environment's spec for this run (the variable must still be set). */
  readonly spec?: string;
  /** Called at a `pause` point; the run resumes when the promise settles. */
  pause?(point: FaultPoint, nth: number): Promise<void> | void;
}

const RULE = /^(fail|pause|errno|crossdev)@([a-z_]+)(?:#([1-9][0-9]{0,3}))?(?:=(E[A-Z0-9]+))?$/;

export function parseFaultSpec(spec: string): readonly Rule[] {
  const rules: Rule[] = [];
  for (const token of spec.split(',').map((part) => part.trim())) {
    if (token === '' || token === 'armed') continue;
    const match = RULE.exec(token);
    if (match === null) throw new Error('malformed scaffold fault rule');
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
    } else throw new Error('malformed scaffold fault rule');
  }
  return rules;
}

function isOneOf<const T extends readonly string[]>(
  values: T,
  value: string | undefined,
): value is T[number] {
  return value !== undefined && (values as readonly string[]).includes(value);
}

/** One run's armed faults, counting how often each point and call was reached. */
export class Faults {
  readonly #rules: readonly Rule[];
  readonly #controller: FaultController | undefined;
  readonly #counts = new Map<string, number>();

  private constructor(rules: readonly Rule[], controller: FaultController | undefined) {
    this.#rules = rules;
    this.#controller = controller;
  }

  /** Undefined (inert) unless the environment variable is set to a non-empty value. */
  static load(env: NodeJS.ProcessEnv, controller: FaultController | undefined): Faults | undefined {
    const armed = env[FAULTS_ENV];
    if (armed === undefined || armed === '') return undefined;
    return new Faults(parseFaultSpec(controller?.spec ?? armed), controller);
  }

  /** Reached a named point: fail or pause if a rule says so. `resume` waits for the release. */
  async at(point: FaultPoint, resume: (wait: Promise<void>) => Promise<void>): Promise<void> {
    const nth = this.#count(point);
    for (const rule of this.#rules) {
      if (rule.action !== 'fail' && rule.action !== 'pause') continue;
      if (rule.point !== point || (rule.nth !== undefined && rule.nth !== nth)) continue;
      if (rule.action === 'fail') throw FsError.synthetic('EIO', 'fault');
      const pause = this.#pause(point, nth);
      try {
        await resume(pause.released);
      } finally {
        // An interrupted pause stops listening too, so nothing keeps the process alive.
        pause.stop();
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

  #pause(point: FaultPoint, nth: number): Pause {
    if (this.#controller?.pause !== undefined) {
      return { released: Promise.resolve(this.#controller.pause(point, nth)), stop: () => undefined };
    }
    return pauseOnStandardStreams(point, nth);
  }
}

/** A failure the hook substitutes for a real call: the errno-shaped error the call would have thrown. */
export function injectedError(errno: string, syscall: string): FsError {
  return new FsError(errno, 0, syscall);
}

interface Pause {
  readonly released: Promise<void>;
  stop(): void;
}

function pauseOnStandardStreams(point: FaultPoint, nth: number): Pause {
  process.stderr.write(`sealkit scaffold fault: paused at ${point}#${nth}\n`);
  const stdin = process.stdin;
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const stop = (): void => {
    stdin.off('data', done);
    stdin.off('end', done);
    stdin.off('close', done);
    stdin.pause();
  };
  function done(): void {
    stop();
    release();
  }
  stdin.on('data', done);
  stdin.on('end', done);
  stdin.on('close', done);
  stdin.resume();
  return { released, stop };
}
