import { parseFaultRules, type ScaffoldFaults } from '../../scaffold/index.js';
import { AFTER_RESULT, pauseOnStandardStreams } from '../fault-hooks.js';
import { quotedValue } from '../quote-value.js';
import { UsageError } from '../usage-error.js';

/**
 * The test-only variable the CLI turns into the scaffolder's `faults` option
 * (docs/scaffold.md#the-test-only-fault-hook). Only the CLI reads it: the
 * library takes faults as an option, never from the environment, so a
 * program embedding sealkit cannot have them armed behind its back.
 */
export const FAULTS_ENV = 'SEALKIT_SCAFFOLD_FAULTS';

/** The CLI's own rule: a pause after the result is printed, before the process ends. */
const AFTER_RESULT_RULE = /^pause@after_result(?:#([1-9][0-9]{0,3}))?$/;

/** The armed faults of one run: the scaffolder's, and the CLI's pause after the result. */
export interface ScaffoldCliFaults {
  readonly library: ScaffoldFaults | undefined;
  afterResult(): Promise<void>;
}

/**
 * The armed faults, inert unless the variable is set to a non-empty value.
 * A rule it cannot read is a usage error naming the variable and the rule,
 * before anything is read or written.
 */
export function faultsFromEnvironment(env: NodeJS.ProcessEnv, usage: string): ScaffoldCliFaults {
  const spec = env[FAULTS_ENV];
  if (spec === undefined || spec === '') return { library: undefined, afterResult: () => Promise.resolve() };
  const pause = pauseOnStandardStreams('sealkit scaffold');
  let pauseAfterResult = false;
  const rules = spec.split(',').flatMap((rule) => {
    const afterResult = AFTER_RESULT_RULE.exec(rule.trim());
    if (afterResult !== null) {
      // Reached once per run: a rule without #N, or with #1, pauses there.
      pauseAfterResult ||= afterResult[1] === undefined || afterResult[1] === '1';
      return [];
    }
    try {
      return parseFaultRules(rule);
    } catch {
      throw new UsageError(
        `invalid rule ${quotedValue(rule.trim())} in ${FAULTS_ENV} (a test-only variable: comma-separated fail@POINT[#N], pause@POINT[#N], errno@rename|parent_fsync|chmod[#N]=ERRNO, crossdev@preflight, pause@after_result; see docs/scaffold.md)`,
        usage,
      );
    }
  });
  return {
    library: { rules, pause },
    afterResult: async () => {
      if (pauseAfterResult) await pause(AFTER_RESULT, 1, new AbortController().signal);
    },
  };
}
