import { parseFaultRules, type ScaffoldFaultPoint, type ScaffoldFaults } from '../../scaffold/index.js';

/**
 * The test-only variable the CLI turns into the scaffolder's `faults` option
 * (docs/scaffold.md#the-test-only-fault-hook). Only the CLI reads it: the
 * library takes faults as an option, never from the environment, so a
 * program embedding sealkit cannot have them armed behind its back.
 */
export const FAULTS_ENV = 'SEALKIT_SCAFFOLD_FAULTS';

/** The armed faults, or undefined (inert) unless the variable is set to a non-empty value. */
export function faultsFromEnvironment(env: NodeJS.ProcessEnv): ScaffoldFaults | undefined {
  const spec = env[FAULTS_ENV];
  if (spec === undefined || spec === '') return undefined;
  return { rules: parseFaultRules(spec), pause: pauseOnStandardStreams };
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
