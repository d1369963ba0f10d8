import type { CliIo, CommandEntry } from './command.js';
import { COMMANDS } from './commands/index.js';
import { EXIT, type ExitCode, exitCodeFor, exitCodeForResult } from './exit-codes.js';
import { reportFailure, writeJson } from './output.js';
import { UsageError } from './usage-error.js';
import { packageVersion } from './version.js';

function topUsage(commands: readonly CommandEntry[]): string {
  const width = Math.max(...commands.map((c) => c.path.join(' ').length));
  const lines = commands.map((c) => `  sealkit ${c.path.join(' ').padEnd(width)}  ${c.summary}`);
  return [
    'Usage: sealkit <command> [options]',
    '',
    'sealkit publishes the artifacts of a data platform canonically, content-addressed,',
    'bounded, and refused with a fixed reason code rather than guessed.',
    '',
    'Commands:',
    ...lines,
    '',
    'Options:',
    '  -h, --help       show help (also after a command: sealkit json digest --help)',
    '  -V, --version    print the version',
    '',
    'Every command: exit 0 success, 1 usage error (nothing written), 2 refused,',
    '70 internal error; --json prints one JSON object on stdout.',
  ].join('\n');
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

export async function main(argv: readonly string[], io: CliIo): Promise<ExitCode> {
  const json = argv.includes('--json');
  const usage = topUsage(COMMANDS);
  try {
    if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
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
      const group = COMMANDS.filter((c) => c.path[0] === argv[0]);
      if (group.length > 0 && (argv.length === 1 || argv[1] === '--help' || argv[1] === '-h')) {
        const groupUsage = topUsage(group);
        if (json) writeJson(io, { status: 'ok', usage: groupUsage });
        else io.stdout.write(`${groupUsage}\n`);
        return EXIT.ok;
      }
      throw new UsageError('unknown command', usage);
    }
    const command = await found.command.load();
    const result = await command.run(found.rest, io);
    if (json) writeJson(io, result.json);
    else io.stdout.write(result.text);
    return exitCodeForResult(result);
  } catch (error: unknown) {
    reportFailure(io, error, json);
    return exitCodeFor(error);
  }
}
