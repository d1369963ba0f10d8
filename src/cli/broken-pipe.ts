import { EXIT } from './exit-codes.js';
import { releaseHungUpTerminal } from './hung-up-terminal.js';

/** The one line written to stderr when stdout fails for a reason other than a closed reader. */
export const OUTPUT_FAILED = 'sealkit: cannot write to standard output or standard error';

/**
 * A reader that goes away (`sealkit … --json | head -c 100`, `| true`) makes
 * the next write fail with EPIPE. A C program would be ended by SIGPIPE; Node
 * ignores that signal and would print a stack trace. sealkit ends at once
 * instead, writing nothing more, with the code a shell shows for a program
 * SIGPIPE ended (141). A publication cut short this way is left as after any
 * crash: the next run converges (docs/cli.md#exit-codes). Any other failure
 * of the standard streams (EIO of a file or device, ENOSPC on a redirect)
 * is one line on stderr and exit 70, never a stack trace; EIO of a terminal
 * that hung up is let pass (see below).
 */
export function endOnBrokenPipe(
  streams: readonly NodeJS.WritableStream[],
  exit: (code: number) => void,
  stderr: NodeJS.WritableStream,
): void {
  for (const stream of streams) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      // A terminal that hung up (a closed ssh session, a closed window)
      // fails every write with EIO, and sends SIGHUP, which stops the
      // command the way SIGTERM does: what it would still say is lost, but
      // it goes on to undo what it must and to its exit code (129).
      if (error.code === 'EIO' && isTerminal(stream)) {
        releaseHungUpTerminal();
        return;
      }
      if (error.code === 'EPIPE') {
        exit(EXIT.brokenPipe);
        return;
      }
      try {
        if (stream !== stderr) stderr.write(`${OUTPUT_FAILED} (${error.code ?? 'unknown error'})\n`);
      } finally {
        exit(EXIT.internal);
      }
    });
  }
}

function isTerminal(stream: NodeJS.WritableStream): boolean {
  return 'isTTY' in stream && stream.isTTY === true;
}
