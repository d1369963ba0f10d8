import { classifyContractVersion } from '../../contracts/index.js';
import { readBoundedInput } from '../../core/input/index.js';
import type { Command, CommandResult } from '../command.js';
import { parseCommandArgs } from '../parse.js';
import { UsageError } from '../usage-error.js';
import { changeLines, classificationJson, LEDGER_EXIT_CODES } from './contract-ledger-output.js';

/** What is read of each file; the decoder refuses anything over its own bound (also 32 MiB). */
const MAX_PROJECTION_BYTES = 32 * 1024 * 1024;

const USAGE = `Usage: sealkit contract classify BASELINE_FILE CANDIDATE_FILE [--json]

Classifies the change from one canonical leapview.contract/v1 projection to
another (files as written by \`sealkit contract project --out\`): identical,
compatible, widening (readers may receive more values, or a wider audience may
see a field: needs an approval to publish) or breaking (needs a new major
version), with every change as path, rule and verdict. Both files are decoded
strictly (closed schema, exact RFC 8785 bytes, normal form); the command never
projects anything itself. Use - for standard input (one of the two).

Flags:
  --json       print one JSON object on stdout
  -h, --help   show this help

${LEDGER_EXIT_CODES}

Examples:
  sealkit contract classify before/resources/retail.source.orders.json after/resources/retail.source.orders.json
  sealkit contract classify old.json new.json --json`;

export const contractClassify: Command = {
  path: ['contract', 'classify'],
  usage: USAGE,
  async run(args, io): Promise<CommandResult> {
    const { positionals } = parseCommandArgs(
      args,
      { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      USAGE,
      { min: 0, max: 2 },
    );
    const [baselinePath, candidatePath] = positionals;
    if (baselinePath === undefined || candidatePath === undefined)
      throw new UsageError('missing argument', USAGE);
    if (baselinePath === '-' && candidatePath === '-') throw new UsageError('only one input can be -', USAGE);
    const baseline = await readBoundedInput(baselinePath, MAX_PROJECTION_BYTES, io.stdin);
    const candidate = await readBoundedInput(candidatePath, MAX_PROJECTION_BYTES, io.stdin);
    const result = classifyContractVersion(baseline, candidate);
    const head = `${result.resource.kind} ${result.resource.id} ${result.baseline.version} → ${result.candidate.version}: ${result.verdict}\n`;
    return {
      text: `${head}${changeLines(result.changes, '  ')}`,
      json: { status: 'ok', ...classificationJson(result) },
    };
  },
};
