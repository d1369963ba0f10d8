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
  /** The flags whose value names a file or folder (`--config FILE`, `--fixtures DIR`). */
  readonly pathFlags: readonly string[];
  /** The other flags that take a value (`--pipeline ID`, `--wait SECONDS`): neither a path nor a listed choice. */
  readonly textFlags: readonly string[];
  /** The values of the first argument, when the synopsis lists them (`completion bash|zsh|fish`). */
  readonly argumentValues: readonly string[];
  /** Whether the command's arguments name files or folders (`FILE|-`, `PROJECT_DIR`, `DEST`). */
  readonly pathArguments: boolean;
}

/**
 * Every flag a usage text gives the command, sorted, with `--help`: those of
 * its synopsis (the text up to the first blank line) and those its flag
 * list describes, one a line (`  -q, --quiet   …`). A flag the prose only
 * mentions is another command's (`evidence check` reads "the saved
 * --dry-run report", `contract classify` reads files "written by contract
 * project --out") and is not offered.
 */
export function flagsOfUsage(usage: string): readonly string[] {
  const flags = new Set<string>(['--help']);
  const end = usage.indexOf('\n\n');
  const synopsis = end === -1 ? usage : usage.slice(0, end);
  for (const match of synopsis.matchAll(/(?<![\w-])--[a-z][a-z0-9-]*/g)) flags.add(match[0]);
  for (const match of usage.matchAll(/^ +(?:-[A-Za-z], )?(--[a-z][a-z0-9-]*)/gm))
    if (match[1] !== undefined) flags.add(match[1]);
  return [...flags].sort();
}

/** The short flags a usage text lists under its flags (`  -q, --quiet`), each with its long name. */
export function shortFlagsOfUsage(usage: string): ReadonlyMap<string, string> {
  const flags = new Map<string, string>();
  for (const match of usage.matchAll(/^ +(-[A-Za-z]), (--[a-z][a-z0-9-]*)/gm))
    if (match[1] !== undefined && match[2] !== undefined) flags.set(match[1], match[2]);
  return flags;
}

const CHOICES = /^[a-z0-9_]+(?:\|[a-z0-9_]+)+$/;

/**
 * The placeholders a usage text writes for a file or folder: `FILE`, `DIR`,
 * `BUNDLE_DIR`, `BASELINE_FILE`, `OUT` (a folder to create), `DEST`. Any
 * other placeholder (`ID`, `SECONDS`, `YAML`, `GLOB`, a bundle-relative
 * pattern) names no file of the current folder.
 */
const PATH_PLACEHOLDER = /^(?:[A-Z]+_)*(?:FILE|DIR)$|^(?:OUT|DEST)$/;

const isPath = (placeholder: string): boolean =>
  placeholder.split('|').some((alternative) => PATH_PLACEHOLDER.test(alternative));

export interface Synopsis {
  /** Each flag the synopsis shows with a value, and that value's placeholder or choices (`FILE`, `a|b`). */
  readonly flagArguments: ReadonlyMap<string, string>;
  /** The arguments, in order, as the synopsis names them (`FILE|-`, `DIR`, `bash|zsh|fish`). */
  readonly positionals: readonly string[];
}

/**
 * Reads a usage synopsis (its text up to the first blank line) word by
 * word, keeping its brackets: `[--config FILE]` takes a value, `[--json]`
 * closes before the next word, so `[--json] DEST` is a switch and an
 * argument, and `[--dry-run [--show]]` is two switches.
 */
export function synopsisOf(usage: string, path: readonly string[]): Synopsis {
  const end = usage.indexOf('\n\n');
  const words = (end === -1 ? usage : usage.slice(0, end))
    .split(/\s+/)
    .filter((word) => word !== '')
    .slice(2 + path.length);
  const bare = (word: string): string => word.replace(/^\[+/, '').replace(/[\].]+$/, '');
  const flagArguments = new Map<string, string>();
  const positionals: string[] = [];
  for (let index = 0; index < words.length; index += 1) {
    const word = words[index] ?? '';
    const name = bare(word);
    if (name === '') continue;
    if (name.startsWith('-')) {
      const next = words[index + 1];
      if (!name.startsWith('--') || word.endsWith(']') || next === undefined) continue;
      if (next.startsWith('[') || bare(next).startsWith('-') || bare(next) === '') continue;
      flagArguments.set(name, bare(next));
      index += 1;
    } else positionals.push(name);
  }
  // A flag the synopsis leaves out is described in the flag list: `  --project DIR   the same as DIR`.
  for (const match of usage.matchAll(/^ +(?:-[A-Za-z], )?(--[a-z][a-z0-9-]*) ([^\s-]\S*)/gm)) {
    const [, flag, value] = match;
    if (flag !== undefined && value !== undefined && !flagArguments.has(flag)) flagArguments.set(flag, value);
  }
  return { flagArguments, positionals };
}

export function completionCommands(
  entries: readonly CommandEntry[],
  usages: ReadonlyMap<string, string>,
): readonly CompletionCommand[] {
  return entries.map((entry) => {
    const usage = usages.get(entry.path.join(' ')) ?? '';
    const { flagArguments, positionals } = synopsisOf(usage, entry.path);
    const flags = flagsOfUsage(usage);
    const flagValues = new Map<string, readonly string[]>();
    const pathFlags: string[] = [];
    const textFlags: string[] = [];
    for (const flag of flags) {
      const value = flagArguments.get(flag);
      if (value === undefined) continue;
      if (CHOICES.test(value)) flagValues.set(flag, value.split('|'));
      else if (isPath(value)) pathFlags.push(flag);
      else textFlags.push(flag);
    }
    const first = positionals[0];
    return {
      path: entry.path,
      summary: entry.summary,
      flags,
      flagValues,
      pathFlags,
      textFlags,
      argumentValues: first !== undefined && CHOICES.test(first) ? first.split('|') : [],
      pathArguments: positionals.some(isPath),
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
    // zsh keeps `--config=d` one word, which bashcompinit hands over whole:
    // it is completed as the flag followed by its value, the `--config=`
    // kept as a prefix, so the value completes as after `--config d`.
    '_sealkit_zsh() {',
    '  if [[ $PREFIX == --[a-z]*=* ]]; then',
    '    local flag=${PREFIX%%=*}',
    '    compset -P 1 "*="',
    '    words=("${(@)words[1,CURRENT-1]}" "$flag" "$PREFIX$SUFFIX" "${(@)words[CURRENT+1,-1]}")',
    '    (( CURRENT += 1 ))',
    '  fi',
    '  _bash_complete -o default -F _sealkit',
    '}',
    // Without compinit there is no compdef: say what to add rather than
    // zsh's "command not found: compdef" (docs/cli.md#completion).
    'if (( $+functions[compdef] )); then',
    '  compdef _sealkit_zsh sealkit',
    'else',
    `  print -ru2 -- "sealkit: zsh completion needs compinit loaded first: add 'autoload -U compinit && compinit' before this line in ~/.zshrc"`,
    'fi',
    // Saved as _sealkit in a folder of $fpath, this file is the body of the
    // first completion's call: it completes that call too, not only the next.
    // An `if`, not `&&`: loaded by eval, the script's status is 0, not a failed test.
    'if [[ ${funcstack[1]-} == _sealkit ]]; then _sealkit_zsh "$@"; fi',
    '',
  ].join('\n');
}

function bashFunction(commands: readonly CompletionCommand[]): string {
  const groups = groupsOf(commands);
  const top = [...groups.keys(), 'help'].join(' ');
  const lines: string[] = [
    '_sealkit() {',
    '  local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD - 1]}" word cmd=""',
    // bash splits `--edition=b` into `--edition`, `=` and `b` (COMP_WORDBREAKS
    // holds '='), and replaces only what follows the '=': the value is
    // completed as after `--edition b`.
    '  if [[ "$cur" == = ]]; then',
    '    cur=""',
    '  elif [[ "$prev" == = ]] && (( COMP_CWORD > 1 )); then',
    '    prev="${COMP_WORDS[COMP_CWORD - 2]}"',
    '  fi',
    '  local -a words=()',
    '  for word in "${COMP_WORDS[@]:1:$((COMP_CWORD - 1))}"; do',
    '    [[ "$word" == -* || "$word" == = ]] || words+=("$word")',
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
  lines.push('    case "${#words[@]} ${words[0]-}${words[1]+ ${words[1]}}" in');
  lines.push(`      '0 ') COMPREPLY=($(compgen -W ${quote(`${top} --help --version`)} -- "$cur")) ;;`);
  for (const [group, members] of groups) {
    if (members.length > 0)
      lines.push(
        `      ${quote(`1 ${group}`)}) COMPREPLY=($(compgen -W ${quote(members.join(' '))} -- "$cur")) ;;`,
      );
  }
  lines.push(`      '1 help') COMPREPLY=($(compgen -W ${quote([...groups.keys()].join(' '))} -- "$cur")) ;;`);
  for (const [group, members] of groups) {
    if (members.length > 0)
      lines.push(
        `      ${quote(`2 help ${group}`)}) COMPREPLY=($(compgen -W ${quote(members.join(' '))} -- "$cur")) ;;`,
      );
  }
  lines.push('      *) COMPREPLY=() ;;');
  lines.push('    esac');
  lines.push('    return 0');
  lines.push('  fi');
  // A flag's value, then the first argument, where the synopsis lists the choices.
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
  // No candidates: the shell's own file-name completion (`complete -o
  // default`) takes over, which ends a folder with '/' rather than a space
  // and quotes a name with spaces, as at any other command.
  lines.push('  COMPREPLY=()');
  lines.push('}');
  return `${lines.join('\n')}\n`;
}

/**
 * fish completes file names unless a matching entry says not to. Command
 * words and commands without arguments must not offer them, so the script
 * turns them off for every word, then turns them back on where the synopsis
 * names a file or folder: a path argument (`-F` on the command), a path
 * flag's value (`-r -F`: `-r` tells fish the next word is the flag's value,
 * which otherwise reads as an argument, so `--config d` and `--config=d`
 * complete alike). A flag with another value takes it with `-x`, so its value
 * is not completed as an argument either.
 */
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
  // `sealkit help <TAB>` offers what `sealkit <TAB>` does; the group's
  // members then come from the group's own entries above.
  const names = [...groups.keys()];
  for (const [group, members] of groups) {
    const description = members.length === 0 ? summaryOf([group]) : `${group} commands`;
    lines.push(
      `complete -c sealkit -n ${quote(`__fish_seen_subcommand_from help; and not __fish_seen_subcommand_from ${names.join(' ')}`)} -a ${quote(group)} -d ${quote(description)}`,
    );
  }
  lines.push(`complete -c sealkit -n __fish_use_subcommand -s h -l help -d 'show help'`);
  lines.push(`complete -c sealkit -n __fish_use_subcommand -s V -l version -d 'print the version'`);
  for (const command of commands) {
    const [group, member] = command.path;
    const condition = quote(
      member === undefined
        ? `__fish_seen_subcommand_from ${group}`
        : `__fish_seen_subcommand_from ${group}; and __fish_seen_subcommand_from ${member}`,
    );
    for (const flag of command.flags) {
      const values = command.flagValues.get(flag);
      const long = `complete -c sealkit -n ${condition} -l ${quote(flag.slice(2))}`;
      if (values !== undefined) lines.push(`${long} -x -a ${quote(values.join(' '))}`);
      else if (command.pathFlags.includes(flag)) lines.push(`${long} -r -F`);
      else if (command.textFlags.includes(flag)) lines.push(`${long} -x`);
      else lines.push(long);
    }
    if (command.argumentValues.length > 0) {
      lines.push(`complete -c sealkit -n ${condition} -x -a ${quote(command.argumentValues.join(' '))}`);
    } else if (command.pathArguments) {
      lines.push(`complete -c sealkit -n ${condition} -F`);
    }
  }
  return `${lines.join('\n')}\n`;
}
