import { basename } from 'node:path';
import './contract-schemas-interpreted.js';
import { classifyContractVersion, refuseContractVersion } from '../../contracts/index.js';
import { didYouMeanPath } from '../../core/fs/index.js';
import { readBoundedInput } from '../../core/input/index.js';
import { didYouMean, Refusal } from '../../core/refusal/index.js';
import type { Command, CommandResult } from '../command.js';
import { formatRefusal, refusalJson } from '../output.js';
import { nonEmptyOption, parseCommandArgs, requireArgument } from '../parse.js';
import { quotedValue } from '../quote-value.js';
import { UsageError } from '../usage-error.js';
import { changeLines, classificationJson } from './contract-ledger-output.js';

/** What is read of each file; the decoder refuses anything over its own bound (also 32 MiB). */
const MAX_PROJECTION_BYTES = 32 * 1024 * 1024;

const USAGE = `Usage: sealkit contract classify BASELINE_FILE CANDIDATE_FILE
                                 [--fail-on compatible|widening|breaking] [--json]

Classifies the change from one canonical leapview.contract/v1 projection to
another (files as written by \`sealkit contract project --out\`): identical,
compatible, widening (readers may receive more values, or a wider audience may
see a field: needs an approval to publish) or breaking (needs a new major
version), with every change as path, rule and verdict. Both files are decoded
strictly (closed schema, exact RFC 8785 bytes, normal form); the command never
projects anything itself. Use - for standard input (one of the two).

Flags:
  --fail-on LEVEL   exit 2 when the verdict is LEVEL or worse: compatible,
                    widening or breaking (for CI; the report is printed as usual,
                    and error[contract_classify_fail_on_reached] on stderr)
  --json            print one JSON object on stdout
  -h, --help        show this help

Exit codes: 0 classified (and below --fail-on), 1 usage error, 2 the verdict
is at or above --fail-on, or refused (with a reason code), 70 internal error.

Examples:
  sealkit contract classify before/resources/retail.source.orders.json after/resources/retail.source.orders.json
  sealkit contract classify old.json new.json --fail-on breaking
  sealkit contract classify old.json new.json --fail-on widening --json`;

/** Verdicts from the mildest; `--fail-on` fails at its level and every one after it. */
const LEVELS = ['identical', 'compatible', 'widening', 'breaking'] as const;
const FAIL_ON_LEVELS: readonly string[] = ['compatible', 'widening', 'breaking'];

export const contractClassify: Command = {
  path: ['contract', 'classify'],
  usage: USAGE,
  async run(args, io): Promise<CommandResult> {
    const { values, positionals } = parseCommandArgs(
      args,
      { 'fail-on': { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      USAGE,
      { min: 0, max: 2 },
    );
    const baselinePath = requireArgument(positionals[0], 'BASELINE_FILE', USAGE);
    const candidatePath = requireArgument(positionals[1], 'CANDIDATE_FILE', USAGE);
    if (baselinePath === '-' && candidatePath === '-') throw new UsageError('only one input can be -', USAGE);
    const failOn = nonEmptyOption(values['fail-on'], '--fail-on', USAGE);
    if (failOn !== undefined && !FAIL_ON_LEVELS.includes(failOn)) {
      const near = didYouMean(failOn, FAIL_ON_LEVELS);
      throw new UsageError(
        `--fail-on takes compatible, widening or breaking, not ${quotedValue(failOn)}`,
        USAGE,
        {
          ...(near === undefined ? {} : { hint: near }),
        },
      );
    }
    const baseline = await located(baselinePath, () =>
      readBoundedInput(baselinePath, MAX_PROJECTION_BYTES, io.stdin),
    );
    const candidate = await located(candidatePath, () =>
      readBoundedInput(candidatePath, MAX_PROJECTION_BYTES, io.stdin),
    );
    // The refusal's role says which of the two files it is about.
    const result = await located(
      (role) => (role === 'candidate' ? candidatePath : baselinePath),
      async () => classifyContractVersion(baseline, candidate),
    );
    const head = `${result.resource.kind} ${result.resource.id} ${result.baseline.version} → ${result.candidate.version}: ${result.verdict}\n`;
    const failed =
      failOn !== undefined &&
      LEVELS.indexOf(result.verdict) >= LEVELS.indexOf(failOn as (typeof LEVELS)[number])
        ? failOnReached(result.verdict, failOn, candidatePath)
        : undefined;
    const { reason_code, category, message, location, hint } =
      failed === undefined ? {} : refusalJson(failed, 'located');
    return {
      text: `${head}${changeLines(result.changes, '  ')}`,
      json: {
        status: failed === undefined ? 'ok' : 'failed',
        ...classificationJson(result),
        ...(failOn === undefined ? {} : { fail_on: failOn }),
        // The refusal beside the report, as every refusal is printed (docs/cli.md#output).
        ...(failed === undefined ? {} : { reason_code, category, message, location, hint }),
      },
      ...(failed === undefined ? {} : { refused: true, errors: formatRefusal(failed, 'located') }),
    };
  },
};

/**
 * The verdict at or above `--fail-on`: a refusal like any other
 * (docs/contracts.md#reason-codes-classification-ledger-graph), at the
 * candidate file, the report still printed on stdout.
 */
function failOnReached(verdict: string, failOn: string, candidatePath: string): Refusal {
  return refuseContractVersion('contract_classify_fail_on_reached', {
    role: 'candidate',
    location: { path: candidatePath === '-' ? '<stdin>' : candidatePath },
    hint: `verdict ${verdict} is at or above --fail-on ${failOn}`,
  });
}

/**
 * Runs `step`; a refusal it throws names the file it is about, as the user
 * gave it (`<stdin>` for -), so a refusal of one of two inputs says which.
 */
async function located<T>(
  path: string | ((role: string | undefined) => string),
  step: () => Promise<T>,
): Promise<T> {
  try {
    return await step();
  } catch (error: unknown) {
    if (!(error instanceof Refusal) || error.category === 'internal') throw error;
    const named = typeof path === 'string' ? path : path(error.role);
    const near = error.code === 'input_missing' && named !== '-' ? didYouMeanPath(named, 'file') : undefined;
    throw error.at({ path: named === '-' ? '<stdin>' : named }, near ?? notAProjectHint(error, named));
  }
}

/**
 * The two files most often given instead of a projection, named as what
 * they are: a resource file of the project (YAML), and the `index.json`
 * that `project --out` writes beside the projections it lists.
 */
function notAProjectHint(error: Refusal, named: string): string | undefined {
  if (error.code !== 'contract_projection_malformed' || named === '-') return undefined;
  if (/\.ya?ml$/i.test(named)) {
    return "this is a resource file of a contract project (YAML), not a projection: classify compares the JSON files that 'sealkit contract project DIR --out OUT' writes under OUT/resources/";
  }
  if (basename(named) === 'index.json') {
    return "this index.json lists the projections 'sealkit contract project --out' wrote: classify takes one of the files under resources/ beside it";
  }
  return undefined;
}
