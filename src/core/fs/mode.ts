import { FsError } from './errors.js';

/** Permission bits only: anything else would reach fchmod as a different request than the caller meant. */
export function checkMode(mode: number, syscall: string): void {
  if (!Number.isInteger(mode) || mode < 0 || mode > 0o7777) throw FsError.synthetic('EINVAL', syscall);
}
