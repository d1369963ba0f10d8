import { parseFaultRules, type ScaffoldFaultPoint, type ScaffoldFaults } from '../../scaffold/index.js';
import { quotedValue } from '../quote-value.js';
import { UsageError } from '../usage-error.js';

/**
 * The test-only variable the CLI turns into the scaffolder's `faults` option
 * (docs/scaffold.md#the-test-only-fault-hook). Only the CLI reads it: the
 * library takes faults as an option, never from the environment, so a
 * program embedding sealkit cannot have them armed behind its back.
 */
export const FAULTS_ENV = 'SEALKIT_SCAFFOLD_FAULTS';

/**
 * The armed faults, or undefined (inert) unless the variable is set to a
 * non-empty value. A rule it cannot read is a usage error naming the
 * variable and the rule, before anything is read or written.
 */
export function faultsFromEnvironment(env: NodeJS.ProcessEnv, usage: string): ScaffoldFaults | undefined {
  const spec = env[FAULTS_ENV];
  if (spec === undefined || spec === '') return undefined;
  const rules = spec.split(',').flatMap((rule) => {
    try {
      return parseFaultRules(rule);
    } catch {
      throw new UsageError(
        `invalid rule ${quotedValue(rule.trim())} in ${FAULTS_ENV} (a test-only variable: comma-separated fail@POINT[#N], pause@POINT[#N], errno@rename|parent_fsync|chmod[#N]=ERRNO, crossdev@preflight; see docs/scaffold.md)`,
        usage,
      );
    }
  });
  return { rules, pause: pauseOnStandardStreams };
}

/**
 * A paused CLI run says where on stderr and resumes on a line (or end of
 * file) on standard input, so that a test in another process can act while
 * it waits.
 */
function pauseOnStandardStreams(point: ScaffoldFaultPoint, nth: number, done: AbortSignal): Promise<void> {
  process.stderr.write(`sealkit scaffold fault: paused at ${point}#${nth}\n`);
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
}
