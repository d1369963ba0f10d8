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
  readonly helpCommand: string;

  constructor(
    message: string,
    usage: string,
    options: { readonly hint?: string; readonly brief?: boolean; readonly helpCommand?: string } = {},
  ) {
    super(message);
    this.name = 'UsageError';
    this.usage = usage;
    this.hint = options.hint;
    this.brief = options.brief ?? false;
    this.helpCommand = options.helpCommand ?? 'sealkit --help';
  }
}
