/**
 * A command line that sealkit cannot run: an unknown command or flag, a missing
 * or extra argument. Nothing is read or written before it is raised. Its text
 * is fixed by sealkit and may name the flag or command (they come from the
 * user's own command line, never from an artifact).
 */
export class UsageError extends Error {
  readonly usage: string;
  constructor(message: string, usage: string) {
    super(message);
    this.name = 'UsageError';
    this.usage = usage;
  }
}
