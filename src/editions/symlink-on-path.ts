import { symlinkOnPath } from '../core/fs/index.js';

export { componentEnds, symlinkOnPath } from '../core/fs/index.js';

/** The one hint for a named path that passes through a symbolic link: which component it is. */
export function symlinkHint(path: string, what: string): string | undefined {
  const link = symlinkOnPath(path);
  return link === undefined
    ? undefined
    : `'${link}' is a symbolic link, and sealkit follows none on the way to ${what}: name ${what} by a path without one`;
}
