import { shellWord } from '../../core/shell/index.js';
import './contract-schemas-interpreted.js';
import { replayLedger } from '../../contracts/index.js';
import type { Command, CommandResult } from '../command.js';
import { nonEmptyOption, optionalArgument, parseCommandArgs } from '../parse.js';
import {
  headJson,
  headText,
  LEDGER_EXIT_CODES,
  ledgerJson,
  ledgerLine,
  openReadingLedger,
  PROJECT_FLAG_HELP,
  projectFolderOf,
  readingLedger,
  refusedAtLedger,
} from './contract-ledger-output.js';

const USAGE = `Usage: sealkit contract replay [DIR] [--ledger URL] [--json]

Re-reads the whole publication ledger and re-validates everything: positions,
the hash chain, every stored column, the canonical bytes against their digests
and the publication decoder, baselines, and the publication rules re-run
(recomputed classifications, checks, versions, approvals). The first entry
that does not re-validate is refused with its position (exit 2). On success it
prints the head: keep it to detect a rewrite of the chain from some point on.
DIR is the contract project whose embedded ledger is replayed (default: the
current folder). The first line names the ledger read: \`ledger: embedded,
DIR/.sealkit/ledger\`, or the server and the flag or variable that named it
(a DIR given with a server is then said to be unused; one that does not
exist is refused).

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
    const given = projectFolderOf(
      optionalArgument(positionals[0], 'DIR', USAGE),
      values.project,
      USAGE,
      'replay',
    );
    const ledger = await readingLedger(nonEmptyOption(values.ledger, '--ledger', USAGE), given);
    let replay: Awaited<ReturnType<typeof replayLedger>>;
    try {
      const connection = await openReadingLedger(ledger);
      try {
        replay = await replayLedger(connection.session);
      } finally {
        await connection.close();
      }
    } catch (error: unknown) {
      return refusedAtLedger(error, ledger, false, (dir) => `sealkit contract replay ${shellWord(dir)}`);
    }
    return {
      text: `${ledgerLine(ledger)}replayed ${replay.entries} entries of ${replay.resources} resources: valid; ${headText(replay.head)}\n`,
      json: {
        status: 'ok',
        ...ledgerJson(ledger),
        entries: replay.entries,
        resources: replay.resources,
        head: headJson(replay.head),
      },
    };
  },
};
