import { readFileSync } from 'node:fs';

/**
 * This process's own peak resident set, in KiB: `VmHWM` of /proc/self/status.
 * Not `process.resourceUsage().maxRSS`: Linux carries a process's maximum
 * across `execve`, so a child's figure starts at the RSS its parent had when
 * it spawned the child (a benchmark holding a 256 MiB buffer made every
 * child report 270 MiB). `VmHWM` belongs to the address space the child
 * runs in, which `execve` creates afresh.
 */
export function peakRssKiB(): number {
  const found = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
  if (found?.[1] === undefined) throw new Error('no VmHWM in /proc/self/status');
  return Number(found[1]);
}
