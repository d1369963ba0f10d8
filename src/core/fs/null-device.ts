import { closeSync, openSync } from 'node:fs';
import { libc } from './libc.js';

/**
 * Points each of `fds` at /dev/null (dup2), so what is still written to
 * them goes nowhere and reads end at once. For the standard descriptors of
 * a process whose terminal went away (src/cli/hung-up-terminal.ts).
 */
export function pointAtNullDevice(fds: readonly number[]): void {
  if (fds.length === 0) return;
  const nullFd = openSync('/dev/null', 'r+');
  try {
    for (const fd of fds) libc().dup2(nullFd, fd);
  } finally {
    closeSync(nullFd);
  }
}
