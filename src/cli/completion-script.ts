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
}

/** Every `--flag` a usage text names, sorted, with `--help`. */
export function flagsOfUsage(usage: string): readonly string[] {
  const flags = new Set<string>(['--help']);
  for (const match of usage.matchAll(/(?<![\w-])--[a-z][a-z0-9-]*/g)) flags.add(match[0]);
  return [...flags].sort();
}

export function completionCommands(
  entries: readonly CommandEntry[],
  usages: ReadonlyMap<string, string>,
): readonly CompletionCommand[] {
  return entries.map((entry) => ({
    path: entry.path,
    summary: entry.summary,
    flags: flagsOfUsage(usages.get(entry.path.join(' ')) ?? ''),
  }));
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
      lines.push(`complete -c sealkit -n ${quote(condition)} -l ${quote(flag.slice(2))} -F`);
    }
  }
  return `${lines.join('\n')}\n`;
}
