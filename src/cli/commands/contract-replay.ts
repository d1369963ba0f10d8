import './contract-schemas-interpreted.js';
import { replayLedger } from '../../contracts/index.js';
import type { Command, CommandResult } from '../command.js';
import { nonEmptyOption, optionalArgument, parseCommandArgs } from '../parse.js';
import {
  headJson,
  headText,
  LEDGER_EXIT_CODES,
  openExistingLedger,
  PROJECT_FLAG_HELP,
  projectFolderOf,
  refusedByTamper,
} from './contract-ledger-output.js';

const USAGE = `Usage: sealkit contract replay [DIR] [--ledger URL] [--json]

Re-reads the whole publication ledger and re-validates everything: positions,
the hash chain, every stored column, the canonical bytes against their digests
and the publication decoder, baselines, and the publication rules re-run
(recomputed classifications, checks, versions, approvals). The first entry
that does not re-validate is refused with its position (exit 2). On success it
prints the head: keep it to detect a rewrite of the chain from some point on.
DIR is the contract project whose embedded ledger is replayed (default: the
current folder), as for the other contract commands.

Flags:
  --ledger URL    a postgres:// or postgresql:// URL (default:
                  SEALKIT_LEDGER_URL, DATABASE_URL, else the embedded ledger
                  of the contract project DIR; PG* variables and ~/.pgpass
                  fill what the URL leaves out)
  ${PROJECT_FLAG_HELP}
  --json          print one JSON object on stdout
  -h, --help      show this help

${LEDGER_EXIT_CODES}

Examples:
  sealkit contract replay retail
  sealkit contract replay --ledger postgres://ledger.internal/contracts --json`;

export const contractReplay: Command = {
  path: ['contract', 'replay'],
  usage: USAGE,
  async run(args): Promise<CommandResult> {
    const { values, positionals } = parseCommandArgs(
      args,
      {
        ledger: { type: 'string' },
        project: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      USAGE,
      { min: 0, max: 1 },
    );
    const dir = projectFolderOf(
      optionalArgument(positionals[0], 'DIR', USAGE),
      values.project,
      USAGE,
      'replay',
    );
    const connection = await openExistingLedger(nonEmptyOption(values.ledger, '--ledger', USAGE), dir ?? '.');
    try {
      let replay: Awaited<ReturnType<typeof replayLedger>>;
      try {
        replay = await replayLedger(connection.session);
      } catch (error: unknown) {
        return refusedByTamper(error);
      }
      return {
        text: `replayed ${replay.entries} entries of ${replay.resources} resources: valid; ${headText(replay.head)}\n`,
        json: {
          status: 'ok',
          entries: replay.entries,
          resources: replay.resources,
          head: headJson(replay.head),
        },
      };
    } finally {
      await connection.close();
    }
  },
};
