import { parseStepFaults, type StepFault, type StepFaults } from '../core/steps/index.js';
import { quotedValue } from './quote-value.js';
import { UsageError } from './usage-error.js';

/**
 * The test-only fault variables of the commands that write in steps
 * (`SEALKIT_EDITION_FAULTS`, `SEALKIT_SYNTH_FAULTS`, `SEALKIT_DISTRIBUTE_FAULTS`;
 * docs/editions.md#the-test-only-fault-hook). Only the CLI reads them: a
 * library takes faults as an option, never from the environment, so a
 * program embedding sealkit cannot have them armed behind its back. Unset
 * or empty, a command is inert.
 */

/** The CLI's own point: after the result is printed, before the process ends. */
export const AFTER_RESULT = 'after_result';

export interface FaultVariable<P extends string> {
  /** The variable's name, e.g. `SEALKIT_EDITION_FAULTS`. */
  readonly name: string;
  /** The library's step boundaries (empty for a command whose only point is the CLI's). */
  readonly points: readonly P[];
  /** Printed before `fault: paused at …`, e.g. `sealkit edition new`. */
  readonly label: string;
  /** Where the variable is documented, for the usage error. */
  readonly doc: string;
}

/** The armed faults of one run: the library's, and a pause after the result. */
export interface CliFaults<P extends string> {
  /** For the library's `faults` option; undefined when none is armed there. */
  readonly library: StepFaults<P> | undefined;
  /** Waits at `after_result` when a rule arms it; resolves at once otherwise. */
  afterResult(): Promise<void>;
}

/**
 * The faults `variable` arms in `env`. A rule it cannot read is a usage
 * error naming the variable and the rule, before anything is read or written.
 */
export function faultsFromVariable<P extends string>(
  variable: FaultVariable<P>,
  env: NodeJS.ProcessEnv,
  usage: string,
): CliFaults<P> {
  const spec = env[variable.name];
  if (spec === undefined || spec === '') return { library: undefined, afterResult: () => Promise.resolve() };
  const points: readonly (P | typeof AFTER_RESULT)[] = [...variable.points, AFTER_RESULT];
  const rules = spec.split(',').flatMap((token) => {
    const parsed = parseStepFaults(token, points);
    const readable = parsed?.every((rule) => rule.point !== AFTER_RESULT || rule.action === 'pause');
    if (parsed !== undefined && readable === true) return parsed;
    throw new UsageError(
      `invalid rule ${quotedValue(token.trim())} in ${variable.name} (a test-only variable: comma-separated fail@POINT[#N] or pause@POINT[#N], POINT one of ${points.join(', ')}; fail is not taken at ${AFTER_RESULT}; see ${variable.doc})`,
      usage,
    );
  });
  const pause = pauseOnStandardStreams(variable.label);
  const library = rules.filter((rule): rule is StepFault<P> => rule.point !== AFTER_RESULT);
  const afterResult = rules.filter((rule) => rule.point === AFTER_RESULT);
  return {
    library: library.length === 0 ? undefined : { rules: library, pause },
    async afterResult() {
      // Reached once per run: a rule without #N, or with #1, pauses here.
      if (afterResult.some((rule) => rule.nth === undefined || rule.nth === 1))
        await pause(AFTER_RESULT, 1, new AbortController().signal);
    },
  };
}

/**
 * A paused CLI run says where on stderr (`<label> fault: paused at POINT#N`)
 * and resumes on a line (or end of file) on standard input, so that a test
 * in another process can act while it waits.
 */
export function pauseOnStandardStreams(
  label: string,
): (point: string, nth: number, done: AbortSignal) => Promise<void> {
  return (point, nth, done) => {
    process.stderr.write(`${label} fault: paused at ${point}#${nth}\n`);
    const stdin = process.stdin;
    return new Promise<void>((resolve) => {
      const stop = (): void => {
        stdin.off('data', release);
        stdin.off('end', release);
        stdin.off('close', release);
        done.removeEventListener('abort', stop);
        stdin.pause();
      };
      function release(): void {
        stop();
        resolve();
      }
      stdin.on('data', release);
      stdin.on('end', release);
      stdin.on('close', release);
      // The run went on without us (interrupted): stop listening, so nothing keeps the process alive.
      done.addEventListener('abort', stop, { once: true });
      stdin.resume();
    });
  };
}
