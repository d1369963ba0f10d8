import { isatty } from 'node:tty';
import { pointAtNullDevice } from '../core/fs/index.js';

/**
 * The standard descriptors that were a terminal when sealkit started. A
 * terminal that hung up no longer answers as one (its settings cannot be
 * read: EIO), which is how a hang-up is told apart from a `kill -HUP`.
 */
const startedOnTerminal: readonly number[] = [0, 1, 2].filter((fd) => isatty(fd));
let released = false;

/**
 * Once the terminal sealkit runs on has hung up (an ssh session that
 * dropped, a closed window), points the standard descriptors that were on
 * it at /dev/null. Every write to a hung-up terminal fails, and Node.js,
 * putting the terminal's settings back as the process exits, aborts the
 * process when that fails (SIGABRT: the exit code is lost). It leaves alone
 * a descriptor that names another file than when it started, and /dev/null
 * takes what is still written (docs/cli.md#signals). Called on SIGHUP, on
 * a terminal's EIO and at exit; does nothing while the terminal answers.
 */
export function releaseHungUpTerminal(): void {
  if (released) return;
  const hungUp = startedOnTerminal.filter((fd) => !isatty(fd));
  if (hungUp.length === 0) return;
  released = true;
  try {
    pointAtNullDevice(hungUp);
  } catch {
    // Without the FFI primitives (or /dev/null) the exit may still abort; nothing else can be done.
  }
}

process.on('exit', releaseHungUpTerminal);
