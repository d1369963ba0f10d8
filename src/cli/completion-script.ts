// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell code, whose ${...} is shell expansion
import type { CommandEntry } from './command.js';

/**
 * Shell completion scripts, generated from the command table and each
 * command's own usage text (the same text `--help` prints), so a command or
 * flag cannot be in one and missing from the other. See docs/cli.md#completion.
 */
export type Shell = 'bash' | 'zsh' | 'fish';
export const SHELLS: readonly Shell[] = ['bash', 'zsh', 'fish'];

export interface CompletionCommand {
  readonly path: readonly string[];
  readonly summary: string;
  readonly flags: readonly string[];
  /** The values of a flag whose synopsis lists them (`--edition bigquery|snowflake`). */
  readonly flagValues: ReadonlyMap<string, readonly string[]>;
  /** The values of the first argument, when the synopsis lists them (`completion bash|zsh|fish`). */
  readonly argumentValues: readonly string[];
}

/** Every `--flag` a usage text names, sorted, with `--help`. */
export function flagsOfUsage(usage: string): readonly string[] {
  const flags = new Set<string>(['--help']);
  for (const match of usage.matchAll(/(?<![\w-])--[a-z][a-z0-9-]*/g)) flags.add(match[0]);
  return [...flags].sort();
}

const CHOICES = /^[a-z0-9_]+(?:\|[a-z0-9_]+)+$/;

/**
 * The choices a usage synopsis (its text up to the first blank line) lists:
 * `--flag a|b|c` for a flag, and a bare `a|b|c` right after the command's
 * own words for its first argument.
 */
export function choicesOfUsage(
  usage: string,
  path: readonly string[],
): {
  readonly flagValues: ReadonlyMap<string, readonly string[]>;
  readonly argumentValues: readonly string[];
} {
  const end = usage.indexOf('\n\n');
  const words = (end === -1 ? usage : usage.slice(0, end)).split(/[\s[\]]+/).filter((word) => word !== '');
  const flagValues = new Map<string, readonly string[]>();
  words.forEach((word, index) => {
    const next = words[index + 1];
    if (word.startsWith('--') && next !== undefined && CHOICES.test(next))
      flagValues.set(word, next.split('|'));
  });
  const first = words[2 + path.length];
  const argumentValues = first !== undefined && CHOICES.test(first) ? first.split('|') : [];
  return { flagValues, argumentValues };
}

export function completionCommands(
  entries: readonly CommandEntry[],
  usages: ReadonlyMap<string, string>,
): readonly CompletionCommand[] {
  return entries.map((entry) => {
    const usage = usages.get(entry.path.join(' ')) ?? '';
    return {
      path: entry.path,
      summary: entry.summary,
      flags: flagsOfUsage(usage),
      ...choicesOfUsage(usage, entry.path),
    };
  });
}

function groupsOf(commands: readonly CompletionCommand[]): ReadonlyMap<string, readonly string[]> {
  const groups = new Map<string, string[]>();
  for (const command of commands) {
    const [first, second] = command.path;
    if (first === undefined) continue;
    const members = groups.get(first) ?? [];
    if (second !== undefined) members.push(second);
    groups.set(first, members);
  }
  return groups;
}

const quote = (word: string): string => `'${word.replaceAll("'", "'\\''")}'`;

export function completionScript(shell: Shell, commands: readonly CompletionCommand[]): string {
  if (shell === 'fish') return fishScript(commands);
  const bash = bashFunction(commands);
  if (shell === 'bash')
    return `# sealkit completion for bash: eval "$(sealkit completion bash)"\n${bash}complete -o default -F _sealkit sealkit\n`;
  return [
    '#compdef sealkit',
    '# sealkit completion for zsh: eval "$(sealkit completion zsh)", or save as _sealkit in a folder of $fpath',
    'autoload -U +X bashcompinit && bashcompinit',
    bash.trimEnd(),
    'complete -o default -F _sealkit sealkit',
    '',
  ].join('\n');
}

function bashFunction(commands: readonly CompletionCommand[]): string {
  const groups = groupsOf(commands);
  const top = [...groups.keys(), 'help'].join(' ');
  const lines: string[] = [
    '_sealkit() {',
    '  local cur="${COMP_WORDS[COMP_CWORD]}" word cmd=""',
    '  local -a words=()',
    '  for word in "${COMP_WORDS[@]:1:$((COMP_CWORD - 1))}"; do',
    '    [[ "$word" == -* ]] || words+=("$word")',
    '  done',
    '  case "${words[0]-} ${words[1]-}" in',
  ];
  for (const command of commands.filter((c) => c.path.length === 2)) {
    lines.push(`    ${quote(command.path.join(' '))}) cmd=${quote(command.path.join(' '))} ;;`);
  }
  lines.push('  esac');
  lines.push('  if [[ -z "$cmd" ]]; then');
  lines.push('    case "${words[0]-}" in');
  for (const command of commands.filter((c) => c.path.length === 1)) {
    lines.push(`      ${quote(command.path[0] ?? '')}) cmd=${quote(command.path[0] ?? '')} ;;`);
  }
  lines.push('    esac');
  lines.push('  fi');
  lines.push('  if [[ -z "$cmd" ]]; then');
  lines.push('    case "${#words[@]} ${words[0]-}" in');
  lines.push(`      '0 ') COMPREPLY=($(compgen -W ${quote(`${top} --help --version`)} -- "$cur")) ;;`);
  for (const [group, members] of groups) {
    if (members.length > 0)
      lines.push(
        `      ${quote(`1 ${group}`)}) COMPREPLY=($(compgen -W ${quote(members.join(' '))} -- "$cur")) ;;`,
      );
  }
  lines.push(`      '1 help') COMPREPLY=($(compgen -W ${quote([...groups.keys()].join(' '))} -- "$cur")) ;;`);
  lines.push('      *) COMPREPLY=() ;;');
  lines.push('    esac');
  lines.push('    return 0');
  lines.push('  fi');
  // A flag's value, then the first argument, where the synopsis lists the choices.
  lines.push('  local prev="${COMP_WORDS[COMP_CWORD - 1]}"');
  lines.push('  case "$cmd $prev" in');
  for (const command of commands) {
    for (const [flag, values] of command.flagValues) {
      lines.push(
        `    ${quote(`${command.path.join(' ')} ${flag}`)}) COMPREPLY=($(compgen -W ${quote(values.join(' '))} -- "$cur")); return 0 ;;`,
      );
    }
  }
  lines.push('  esac');
  lines.push('  case "${#words[@]} $cmd" in');
  for (const command of commands.filter((c) => c.argumentValues.length > 0)) {
    lines.push(
      `    ${quote(`${command.path.length} ${command.path.join(' ')}`)}) [[ "$cur" == -* ]] || { COMPREPLY=($(compgen -W ${quote(command.argumentValues.join(' '))} -- "$cur")); return 0; } ;;`,
    );
  }
  lines.push('  esac');
  lines.push('  if [[ "$cur" == -* ]]; then');
  lines.push('    case "$cmd" in');
  for (const command of commands) {
    lines.push(
      `      ${quote(command.path.join(' '))}) COMPREPLY=($(compgen -W ${quote(command.flags.join(' '))} -- "$cur")) ;;`,
    );
  }
  lines.push('    esac');
  lines.push('    return 0');
  lines.push('  fi');
  lines.push('  COMPREPLY=($(compgen -f -- "$cur"))');
  lines.push('}');
  return `${lines.join('\n')}\n`;
}

function fishScript(commands: readonly CompletionCommand[]): string {
  const groups = groupsOf(commands);
  const lines = ['# sealkit completion for fish: sealkit completion fish | source', 'complete -c sealkit -f'];
  const summaryOf = (path: readonly string[]): string =>
    commands.find((c) => c.path.join(' ') === path.join(' '))?.summary ?? `${path.join(' ')} commands`;
  for (const [group, members] of groups) {
    const description = members.length === 0 ? summaryOf([group]) : `${group} commands`;
    lines.push(`complete -c sealkit -n __fish_use_subcommand -a ${quote(group)} -d ${quote(description)}`);
    for (const member of members) {
      lines.push(
        `complete -c sealkit -n ${quote(`__fish_seen_subcommand_from ${group}; and not __fish_seen_subcommand_from ${members.join(' ')}`)} -a ${quote(member)} -d ${quote(summaryOf([group, member]))}`,
      );
    }
  }
  lines.push(`complete -c sealkit -n __fish_use_subcommand -a help -d 'show the help of a command'`);
  for (const command of commands) {
    const [group, member] = command.path;
    const condition =
      member === undefined
        ? `__fish_seen_subcommand_from ${group}`
        : `__fish_seen_subcommand_from ${group}; and __fish_seen_subcommand_from ${member}`;
    for (const flag of command.flags) {
      const values = command.flagValues.get(flag);
      lines.push(
        values === undefined
          ? `complete -c sealkit -n ${quote(condition)} -l ${quote(flag.slice(2))} -F`
          : `complete -c sealkit -n ${quote(condition)} -l ${quote(flag.slice(2))} -x -a ${quote(values.join(' '))}`,
      );
    }
    if (command.argumentValues.length > 0) {
      lines.push(
        `complete -c sealkit -n ${quote(condition)} -x -a ${quote(command.argumentValues.join(' '))}`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}
