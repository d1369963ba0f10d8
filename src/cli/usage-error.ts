/**
 * A command line that sealkit cannot run: an unknown command or flag, a missing
 * or extra argument. Nothing is read or written before it is raised. Its text
 * is fixed by sealkit and may name the flag or command (they come from the
 * user's own command line, never from an artifact).
 */
export class UsageError extends Error {
  readonly usage: string;
  /** One line of advice, e.g. `did you mean 'distribute'?`. */
  readonly hint: string | undefined;
  /**
   * A brief error prints one line and `see '<helpCommand>'` instead of the
   * whole usage text (an unknown command or flag: the usage is one command away).
   */
  readonly brief: boolean;
  /**
   * The whole usage text follows the error (a missing command: the list of
   * commands is the answer). Otherwise a usage error prints the command's
   * synopsis and where its help is, not forty lines of help.
   */
  readonly full: boolean;
  readonly helpCommand: string;

  constructor(
    message: string,
    usage: string,
    options: {
      readonly hint?: string;
      readonly brief?: boolean;
      readonly full?: boolean;
      readonly helpCommand?: string;
    } = {},
  ) {
    super(message);
    this.name = 'UsageError';
    this.usage = usage;
    this.hint = options.hint;
    this.brief = options.brief ?? false;
    this.full = options.full ?? false;
    this.helpCommand = options.helpCommand ?? helpCommandOf(usage);
  }
}

/**
 * `sealkit distribute run --help` for a usage text that starts `Usage:
 * sealkit distribute run …`. A word of a list of choices is an argument, not
 * the command: `sealkit completion bash|zsh|fish` is `sealkit completion`.
 */
function helpCommandOf(usage: string): string {
  const command = /^Usage: (sealkit(?: [a-z][a-z-]*(?![a-z|-]))*)/.exec(usage)?.[1];
  return `${command ?? 'sealkit'} --help`;
}

/** The synopsis: the usage text up to its first blank line. */
export function synopsisOf(usage: string): string {
  const end = usage.indexOf('\n\n');
  return end === -1 ? usage : usage.slice(0, end);
}
