import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fsPrimitivesAvailable, refusePlatform } from '../core/fs/index.js';
import { packageRoot, packageVersion } from '../core/package/index.js';
import { didYouMean } from '../core/refusal/index.js';
import type { CliIo, CommandEntry, Disclosure } from './command.js';
import { COMMANDS } from './commands/index.js';
import { flagsOfUsage, shortFlagsOfUsage } from './completion-script.js';
import { EXIT, type ExitCode, exitCodeFor, exitCodeForResult } from './exit-codes.js';
import { fitColumns } from './fit-columns.js';
import { decideExitCode } from './interruption.js';
import { paintRefusals, reportFailure, wantsColour, writeJson } from './output.js';
import { redactingIo } from './redact-credentials.js';
import { UsageError } from './usage-error.js';

export { endOnBrokenPipe } from './broken-pipe.js';

/** Help is read on 80-column terminals too: wider lines wrap there and break the columns. */
function topUsage(commands: readonly CommandEntry[], group?: string): string {
  const width = Math.max(...commands.map((c) => c.path.join(' ').length));
  // A summary too long for its line goes on under itself (fitColumns).
  const lines = commands.map((c) => `  sealkit ${c.path.join(' ').padEnd(width)}  ${c.summary}`);
  return fitColumns(
    [
      group === undefined
        ? 'Usage: sealkit <command> [options]'
        : `Usage: sealkit ${group} <command> [options]`,
      '',
      ...(group === undefined
        ? [
            'sealkit publishes report bundles, data contracts and generated dbt models:',
            'every input checked, every output written once and atomically, and every',
            'refusal a fixed reason code that says where.',
            '',
          ]
        : []),
      'Commands:',
      ...lines,
      '',
      'Flags:',
      group === undefined
        ? "  -h, --help       show this list; sealkit distribute run --help shows a command's help"
        : `  -h, --help       show this list; sealkit ${group} ${commands[0]?.path[1] ?? ''} --help shows a command's help`,
      '  -V, --version    print the version',
      '',
      ...exitLines(group),
      ...guideLines(group),
    ].join('\n'),
  );
}

/**
 * The exit codes, as far as the commands listed use them: a group's help
 * names only its own (a distribute user has no use for scaffold's 3 and 4).
 */
function exitLines(group: string | undefined): string[] {
  const common = 'exit 0 success, 1 usage error (nothing written), 2 refused, 70 internal error';
  const json = '--json prints one JSON object on stdout';
  if (group === undefined)
    return [
      'Every command: exit 0 success, 1 usage error (nothing written), 2 refused,',
      '70 internal error (scaffold also: 3 published with a condition, 4 published',
      'but unverified; distribute run, edition new, evidence synth and scaffold also',
      '130 / 143 / 129 when SIGINT / SIGTERM / SIGHUP stopped them before their',
      'commit point);',
      `${json} (scaffold always does).`,
    ];
  const signals = (who: string) =>
    `; ${who} also 130 / 143 / 129 when SIGINT / SIGTERM / SIGHUP stopped it before its commit point`;
  const interruptible = INTERRUPTIBLE[group];
  return [`Every command: ${common}${interruptible === undefined ? '' : signals(interruptible)}; ${json}.`];
}

/** Per group: the command a signal can stop before its commit point (scaffold, its own group of one, has its own help). */
const INTERRUPTIBLE: Readonly<Record<string, string>> = {
  distribute: 'distribute run',
  edition: 'edition new',
  evidence: 'evidence synth',
};

/** The guide of each command group, installed with sealkit under docs/. */
const GUIDES: Readonly<Record<string, string>> = {
  contract: 'contracts.md',
  distribute: 'distributor.md',
  edition: 'editions.md',
  evidence: 'evidence.md',
  scaffold: 'scaffold.md',
  owner: 'owner.md',
  json: 'json.md',
};

/**
 * Where the guides are, as a path that works from any folder: an installed
 * package's hints name `docs/…` relative to it, which means nothing in the
 * user's own folder. Nothing when this copy ships no docs.
 */
function guideLines(group: string | undefined): string[] {
  const root = packageRoot();
  const docs = root === undefined ? undefined : join(root, 'docs');
  if (docs === undefined || !existsSync(docs)) return [];
  const guide = group === undefined ? undefined : GUIDES[group];
  if (guide !== undefined)
    return ['', 'Guide (Markdown, with every flag, example and reason code):', `  ${join(docs, guide)}`];
  return [
    '',
    'sealkit help <command> prints the help of a command.',
    'Guides (Markdown), one per command group:',
    `  ${docs}/`,
    '  distributor.md (sealkit.distributor.yaml), contracts.md, editions.md,',
    '  scaffold.md, evidence.md, owner.md, json.md, cli.md;',
    '  JSON Schemas for editors in schemas/',
  ];
}

/** Finds the longest command path that prefixes argv. */
function resolve(argv: readonly string[]): { command: CommandEntry; rest: readonly string[] } | undefined {
  let best: CommandEntry | undefined;
  for (const command of COMMANDS) {
    const matches = command.path.every((word, i) => argv[i] === word);
    if (matches && (best === undefined || command.path.length > best.path.length)) best = command;
  }
  return best === undefined ? undefined : { command: best, rest: argv.slice(best.path.length) };
}

function groupUsage(group: string): string | undefined {
  const members = COMMANDS.filter((c) => c.path[0] === group && c.path.length > 1);
  return members.length === 0 ? undefined : topUsage(members, group);
}

/**
 * Words users reach for that name an existing command under another name
 * (`contract check` for `contract validate`); offered when no command is
 * spelled close to the word given.
 */
export const OTHER_NAMES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  contract: { check: 'validate', lint: 'validate', log: 'history', verify: 'replay', diff: 'classify' },
  distribute: { publish: 'run', push: 'run', sync: 'run', check: 'verify', validate: 'verify' },
  edition: { create: 'new', init: 'new', validate: 'check', test: 'check' },
  json: { canonicalise: 'canonicalize', format: 'canonicalize', hash: 'digest', sha256: 'digest' },
  evidence: { validate: 'check', verify: 'check', generate: 'synth' },
  owner: { check: 'verify', validate: 'verify' },
};

/**
 * An unknown command: one line with the word given, the nearest command when
 * one is close, and where to look. Within a known group the suggestion and
 * the pointer are the group's.
 */
function unknownCommand(argv: readonly string[], usage: string): UsageError {
  const words = argv.filter((word) => !word.startsWith('-'));
  if (argv[0]?.startsWith('-') === true && argv[0] !== '-') return unknownTopFlag(argv, words, usage);
  const group = words[0] !== undefined ? groupUsage(words[0]) : undefined;
  if (group !== undefined && words[0] !== undefined) {
    const given = words[1] ?? '';
    const members = COMMANDS.filter((c) => c.path[0] === words[0]).map((c) => c.path[1] ?? '');
    // An option where the group's command goes (`sealkit contract --version`,
    // `sealkit distribute -q run`): named as an option, with where it
    // belongs, not as a command '' nor as the command that follows it.
    const option = argv[1];
    // The group's command after the options, a flag's value among them
    // (`sealkit distribute --config x.yaml run`): `x.yaml` is no command.
    const at = argv.findIndex((word, index) => index > 1 && members.includes(word));
    // With no command after the options, a word there is a flag's value
    // (`sealkit distribute --config x.yaml`), unless it is spelled close to
    // a command (`sealkit distribute -q runn`): then the typo is the news.
    const misspelt = at === -1 && words[1] !== undefined && didYouMean(given, members) !== undefined;
    if (!misspelt && option?.startsWith('-') === true && option !== '-') {
      const top = TOP_FLAGS.find(([short, long]) => option === short || option === long);
      const moved =
        at === -1
          ? commandFirst([words[0], '<command>'], argv.slice(1))
          : [...commandFirst([words[0], argv[at] ?? ''], argv.slice(at + 1)), ...argv.slice(1, at)];
      return new UsageError(`unknown option ${option} where a command of '${words[0]}' goes`, group, {
        brief: true,
        helpCommand: `sealkit ${words[0]} --help`,
        hint:
          top !== undefined && top[1] === '--version'
            ? 'sealkit --version prints the version'
            : `options go after the command: sealkit ${moved.join(' ')}`,
      });
    }
    const otherName = OTHER_NAMES[words[0]]?.[given];
    const hint =
      didYouMean(given, members) ?? (otherName === undefined ? undefined : `did you mean '${otherName}'?`);
    return new UsageError(`unknown command '${words[0]} ${given}'`, group, {
      brief: true,
      helpCommand: `sealkit ${words[0]} --help`,
      ...(hint !== undefined ? { hint } : {}),
    });
  }
  const given = words[0] ?? argv[0] ?? '';
  const hint =
    given === 'version'
      ? "did you mean '--version'?"
      : didYouMean(
          given,
          COMMANDS.map((c) => c.path[0] ?? ''),
        );
  return new UsageError(`unknown command '${given}'`, usage, {
    brief: true,
    helpCommand: 'sealkit --help',
    ...(hint !== undefined ? { hint } : {}),
  });
}

/**
 * The command (`head`) with every word written after it, flags and their
 * values in their order: what stays in place when the options written
 * before the command move after it. Dropping the flags alone would leave
 * their values behind as arguments (`run --pipeline p` → `run p`). Only
 * `--json` is left out: the hint reads the same in both output forms.
 */
function commandFirst(head: readonly string[], after: readonly string[]): string[] {
  return [...head, ...after.filter((word) => word !== '--json')];
}

/** The flags sealkit itself takes before a command, short and long. */
const TOP_FLAGS: readonly (readonly [string, string])[] = [
  ['-h', '--help'],
  ['-V', '--version'],
];

/**
 * A flag where the command goes (`sealkit -v`): named as a flag, not as an
 * unknown command, with sealkit's own flag it is close to (`-v` is `-V`
 * with the wrong case, as many tools spell it) or, before a command, where
 * a command's flags go. Reading the words after it as a command would
 * suggest a command the user did type.
 */
function unknownTopFlag(argv: readonly string[], words: readonly string[], usage: string): UsageError {
  const given = argv.find((word) => word.startsWith('-') && word !== '--json') ?? argv[0] ?? '';
  const short = TOP_FLAGS.find(
    ([flag]) => !given.startsWith('--') && flag.toLowerCase() === given.toLowerCase(),
  );
  const near =
    short !== undefined
      ? `did you mean '${short[0]}' (${short[1]})?`
      : didYouMean(
          given.replace(/^-+/, '--'),
          TOP_FLAGS.map(([, long]) => long),
        );
  // The command after the options, a flag's value among them (`sealkit
  // --config x.yaml distribute run`): `x.yaml` is no command.
  const groups = new Set(COMMANDS.map((c) => c.path[0]));
  const at = argv.findIndex((word) => groups.has(word));
  const [group, member] = [argv[at], argv[at + 1]];
  const pair = COMMANDS.some((c) => c.path[0] === group && c.path[1] === member);
  const head =
    at === -1
      ? []
      : commandFirst(pair ? [group ?? '', member ?? ''] : [group ?? ''], argv.slice(at + (pair ? 2 : 1)));
  const moved =
    at === -1
      ? words.length > 0
        ? [...words, given]
        : undefined
      : [...head, ...argv.slice(0, at).filter((word) => word !== '--json')];
  const hint =
    near ?? (moved === undefined ? undefined : `options go after the command: sealkit ${moved.join(' ')}`);
  return new UsageError(`unknown option ${given}`, usage, {
    brief: true,
    helpCommand: 'sealkit --help',
    ...(hint !== undefined ? { hint } : {}),
  });
}

/**
 * An unknown `--flag` that a sibling command takes (`contract validate
 * --resource`, `edition check --edition`), with no nearer hint of the
 * command's own, names the commands that take it: the user is most often
 * one command away (docs/cli.md#exit-codes).
 */
async function withSiblingHint(error: unknown, command: CommandEntry): Promise<unknown> {
  if (!(error instanceof UsageError) || error.hint !== undefined) return error;
  const flag = /^unknown option (--[a-z][a-z0-9-]*|-[A-Za-z])$/.exec(error.message)?.[1];
  if (flag === undefined) return error;
  const takers: string[] = [];
  let long: string | undefined;
  for (const sibling of COMMANDS) {
    if (sibling.path[0] !== command.path[0] || sibling === command) continue;
    const { usage } = await sibling.load();
    // A short flag (`-q`) is one a sibling lists as `-q, --quiet`.
    const named: string | undefined = flag.startsWith('--') ? flag : shortFlagsOfUsage(usage).get(flag);
    if (named !== undefined && flagsOfUsage(usage).includes(named)) {
      takers.push(sibling.path.at(-1) ?? '');
      if (named !== flag) long = named;
    }
  }
  if (takers.length === 0) return error;
  const last = takers.pop();
  const names = takers.length === 0 ? `${last}` : `${takers.join(', ')} and ${last}`;
  return new UsageError(error.message, error.usage, {
    hint: `${flag}${long === undefined ? '' : ` (${long})`} is an option of sealkit ${command.path[0]} ${names}`,
    brief: error.brief,
    full: error.full,
    helpCommand: error.helpCommand,
  });
}

export async function main(argv: readonly string[], given: CliIo): Promise<ExitCode> {
  const io = redactingIo(given);
  const json = argv.includes('--json');
  const usage = topUsage(COMMANDS);
  let disclosure: Disclosure = 'located';
  try {
    // `sealkit help -h`, `sealkit help help`, `sealkit help --json`: help about help is the usage.
    const helpAlone =
      argv[0] === 'help' && argv.slice(1).every((word) => ['-h', '--help', 'help', '--json'].includes(word));
    if (argv[0] === 'help' && argv.length > 1 && !helpAlone) {
      // `sealkit help distribute run` is `sealkit distribute run --help`.
      // `sealkit help help distribute`: help about help is still help.
      const words = argv.slice(1).filter((word) => word !== '--json');
      const topic = words.slice(words.findIndex((word) => word !== 'help'));
      const found = resolve(topic);
      if (found !== undefined && found.rest.length === 0)
        return await main([...topic, '--help', ...(json ? ['--json'] : [])], io);
      // `sealkit help completion bash`: the command exists, the word after it is what is extra.
      if (found !== undefined) {
        const named = topic.slice(0, topic.length - found.rest.length).join(' ');
        throw new UsageError(`unexpected argument '${found.rest[0] ?? ''}'`, usage, {
          hint: `help takes a command alone: sealkit help ${named}`,
        });
      }
      const group = topic.length === 1 && topic[0] !== undefined ? groupUsage(topic[0]) : undefined;
      if (group === undefined) throw unknownCommand(topic, usage);
      if (json) writeJson(io, { status: 'ok', usage: group });
      else io.stdout.write(`${group}\n`);
      return EXIT.ok;
    }
    // No command is a usage error (exit 1), like a missing argument: a
    // script that forgot its command must not pass (docs/cli.md#exit-codes).
    if (argv.length === 0 || (json && argv.length === 1))
      throw new UsageError('missing command', usage, { full: true });
    if (argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
      if (json) writeJson(io, { status: 'ok', usage });
      else io.stdout.write(`${usage}\n`);
      return EXIT.ok;
    }
    if (argv[0] === '--version' || argv[0] === '-V') {
      const version = packageVersion();
      if (json) writeJson(io, { status: 'ok', version });
      else io.stdout.write(`${version}\n`);
      return EXIT.ok;
    }
    const found = resolve(argv);
    if (found === undefined) {
      const group = argv[0] === undefined ? undefined : groupUsage(argv[0]);
      if (group !== undefined && argv.filter((word) => word !== '--json').length === 1) {
        throw new UsageError(`missing command after '${argv[0]}'`, group, {
          full: true,
          helpCommand: `sealkit ${argv[0]} --help`,
        });
      }
      if (group !== undefined && (argv[1] === '--help' || argv[1] === '-h')) {
        if (json) writeJson(io, { status: 'ok', usage: group });
        else io.stdout.write(`${group}\n`);
        return EXIT.ok;
      }
      throw unknownCommand(argv, usage);
    }
    disclosure = found.command.disclosure;
    const wantsHelp = found.rest.includes('--help') || found.rest.includes('-h');
    if (!found.command.portable && !wantsHelp && !fsPrimitivesAvailable())
      throw refusePlatform('platform_unsupported');
    const command = await found.command.load();
    // Help is answered here, for every command alike, before its arguments
    // are checked: `--help` after a mistyped flag still shows the help.
    if (wantsHelp) {
      const help = fitColumns(command.usage);
      if (json) writeJson(io, { status: 'ok', usage: help });
      else io.stdout.write(`${help}\n`);
      return EXIT.ok;
    }
    const result = await command.run(found.rest, io).catch(async (error: unknown) => {
      throw await withSiblingHint(error, found.command);
    });
    const code = exitCodeForResult(result);
    decideExitCode(code);
    if (json) {
      if (result.printed !== true) writeJson(io, result.json);
    } else {
      io.stdout.write(result.text);
      if (result.errors !== undefined && result.errors !== '') {
        io.stderr.write(wantsColour(io.stderr) ? paintRefusals(result.errors) : result.errors);
      }
    }
    await result.afterOutput?.();
    return code;
  } catch (error: unknown) {
    reportFailure(io, error, json, disclosure);
    return exitCodeFor(error);
  }
}
