import { FAULTS_ENV } from '../../src/cli/commands/scaffold-faults.js';
import { CliChild } from './cli-child.js';

export type { ChildOutcome } from './cli-child.js';

/**
 * The test-only variable through which the CLI takes scaffold faults: a
 * scaffold test that runs the CLI sets it (docs/scaffold.md#the-test-only-fault-hook).
 */
export { FAULTS_ENV };

/**
 * The built CLI running `scaffold` as a live process with the scaffold
 * fault hook armed (docs/scaffold.md#the-test-only-fault-hook), for what
 * only a separate process shows: a lock held by another process, a
 * SIGKILL, a real SIGINT/SIGTERM. A `pause@POINT` rule stops the run at
 * POINT, which it announces on stderr; `release` lets it go on.
 */
export class ScaffoldChild extends CliChild {
  constructor(args: readonly string[], faults: string) {
    super(args, { env: { [FAULTS_ENV]: faults } });
  }
}
