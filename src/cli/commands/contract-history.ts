import { shellWord } from '../../core/shell/index.js';
import './contract-schemas-interpreted.js';
import {
  openContractProjectCached,
  readPublicationHistory,
  readPublishedResourceIds,
} from '../../contracts/index.js';
import { didYouMean } from '../../core/refusal/index.js';
import type { Command, CommandResult } from '../command.js';
import { nonEmptyOption, optionalArgument, parseCommandArgs } from '../parse.js';
import { UsageError } from '../usage-error.js';
import {
  ENTRY_HEADER,
  entryJson,
  entryLines,
  LEDGER_EXIT_CODES,
  type LedgerInUse,
  ledgerJson,
  ledgerLine,
  openReadingLedger,
  PROJECT_FLAG_HELP,
  projectFolderOf,
  readingLedger,
  refusedAtLedger,
} from './contract-ledger-output.js';

const USAGE = `Usage: sealkit contract history [DIR] --resource ID [--ledger URL] [--json]

Lists the publications of resource ID in ledger order: position, version,
verdict, digest and any widening approval, then each change that publication
recorded (with --json, every stored field). An ID with no publication that is
a project-local name in DIR is told so, with the ids it names.
Each entry is verified as it is read (entry hash, digest, baseline links); a
tampered entry is refused with its position. \`sealkit contract replay\`
re-validates the whole ledger. DIR is the contract project whose embedded
ledger is read (default: the current folder). The first line names the
ledger read: \`ledger: embedded, DIR/.sealkit/ledger\`, or the server and the
flag or variable that named it (a DIR given with a server is then said to
be unused; one that does not exist is refused).

Flags:
  --resource ID   the resource whose publications to list (required)
  --ledger URL    a postgres:// or postgresql:// URL (default:
                  SEALKIT_LEDGER_URL, DATABASE_URL, else the embedded ledger
                  of the contract project DIR; PG* variables and ~/.pgpass
                  fill what the URL leaves out)
  ${PROJECT_FLAG_HELP}
  --json          print one JSON object on stdout
  -h, --help      show this help

${LEDGER_EXIT_CODES}

Examples:
  sealkit contract history retail --resource retail.source.orders
  sealkit contract history --resource retail.source.orders --ledger postgres://ledger.internal/contracts --json`;

/**
 * When the ledger read is DIR's own embedded ledger, an id that matches no
 * publication may be a project-local name of DIR: the hint names the ids it
 * stands for, as publish and affected do. The project is read only then,
 * and a project that cannot be read gives no hint (the empty history stands).
 */
async function nameHint(ledger: LedgerInUse, id: string): Promise<string | undefined> {
  if (ledger.location.kind !== 'embedded') return undefined;
  let named: readonly string[];
  try {
    named = (await openContractProjectCached(ledger.location.projectDir)).project.idsNamed(id);
  } catch {
    return undefined;
  }
  return named.length === 0
    ? undefined
    : `'${id}' is the name of ${named.join(' and ')}; --resource takes an id`;
}

export const contractHistory: Command = {
  path: ['contract', 'history'],
  usage: USAGE,
  async run(args): Promise<CommandResult> {
    const { values, positionals } = parseCommandArgs(
      args,
      {
        resource: { type: 'string' },
        ledger: { type: 'string' },
        project: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      USAGE,
      { min: 0, max: 1 },
    );
    const id = values.resource;
    if (id === undefined) {
      throw new UsageError('missing option --resource', USAGE, {
        hint: 'sealkit contract history DIR --resource ID',
      });
    }
    nonEmptyOption(id, '--resource', USAGE);
    const given = projectFolderOf(
      optionalArgument(positionals[0], 'DIR', USAGE),
      values.project,
      USAGE,
      'history',
    );
    const ledger = await readingLedger(nonEmptyOption(values.ledger, '--ledger', USAGE), given);
    let entries: Awaited<ReturnType<typeof readPublicationHistory>>;
    let hint: string | undefined;
    try {
      const connection = await openReadingLedger(ledger);
      try {
        entries = await readPublicationHistory(connection.session, id);
        // No publication at all may be a project-local name or a mistyped id:
        // name the ids it stands for, else the nearest one the ledger holds.
        hint =
          entries.length === 0
            ? ((await nameHint(ledger, id)) ??
              didYouMean(id, await readPublishedResourceIds(connection.session)))
            : undefined;
      } finally {
        await connection.close();
      }
    } catch (error: unknown) {
      return refusedAtLedger(
        error,
        ledger,
        false,
        (dir) => `sealkit contract history ${shellWord(dir)} --resource ${shellWord(id)}`,
      );
    }
    return {
      text: `${ledgerLine(ledger)}${entries.length === 0 ? '' : ENTRY_HEADER}${entries.map(entryLines).join('')}${entries.length} publication${entries.length === 1 ? '' : 's'}${entries.length === 0 ? ` of '${id}' in this ledger` : ''}\n`,
      json: {
        status: 'ok',
        ...ledgerJson(ledger),
        resource: id,
        publications: entries.map(entryJson),
        ...(hint === undefined ? {} : { hint }),
      },
      ...(hint === undefined ? {} : { errors: `  = help: ${hint}\n` }),
    };
  },
};
