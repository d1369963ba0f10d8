import { didYouMean } from '../../core/refusal/index.js';
import type { Command, CommandResult } from '../command.js';
import { completionCommands, completionScript, SHELLS, type Shell } from '../completion-script.js';
import { parseCommandArgs } from '../parse.js';
import { UsageError } from '../usage-error.js';

const OPTIONS = { help: { type: 'boolean', short: 'h' } } as const;

const USAGE = `Usage: sealkit completion bash|zsh|fish

Prints a shell completion script for sealkit's commands and flags.
zsh needs compinit loaded first (autoload -U compinit && compinit; Debian's zsh
does not run it for a new user), and fish the folder of its completions
(mkdir -p ~/.config/fish/completions).

Examples:
  eval "$(sealkit completion bash)"                 # this bash session; add it to ~/.bashrc to keep it
  sealkit completion bash > ~/.sealkit.bash         # or once, with 'source ~/.sealkit.bash' in ~/.bashrc
  eval "$(sealkit completion zsh)"                  # this zsh session; add it to ~/.zshrc to keep it
  sealkit completion fish > ~/.config/fish/completions/sealkit.fish

Flags:
  -h, --help   show this help

Exit codes: 0 printed, 1 usage error.`;

export const completionCommand: Command = {
  path: ['completion'],
  usage: USAGE,
  async run(args): Promise<CommandResult> {
    const { positionals } = parseCommandArgs(args, OPTIONS, USAGE, { min: 0, max: 1 });
    const shell = positionals[0];
    if (shell === undefined || !(SHELLS as readonly string[]).includes(shell)) {
      // The synopsis lists the shells, so `sealkit completion bash` is not a help command.
      const near = shell === undefined ? undefined : didYouMean(shell, SHELLS);
      throw new UsageError(
        shell === undefined ? 'missing argument SHELL' : `unknown shell '${shell}'`,
        USAGE,
        { hint: near ?? 'one of: bash, zsh, fish', helpCommand: 'sealkit completion --help' },
      );
    }
    // The table lists every command; each one's usage text is its flags' source.
    const { COMMANDS } = await import('./index.js');
    const usages = new Map<string, string>();
    for (const entry of COMMANDS) usages.set(entry.path.join(' '), (await entry.load()).usage);
    const script = completionScript(shell as Shell, completionCommands(COMMANDS, usages));
    return { text: script, json: { status: 'ok', shell, script } };
  },
};
