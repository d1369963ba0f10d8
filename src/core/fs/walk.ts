import { AT_FDCWD } from './constants.js';
import { closeFdQuietly, libc } from './libc.js';
import { splitPath } from './names.js';
import { openChild } from './open-child.js';

/**
 * Opens the directory at `path` without following a symlink at any component:
 * from '/' for an absolute path, from the working directory otherwise, one
 * component at a time. Intermediate components are O_PATH (search permission
 * suffices); the last is opened O_RDONLY so it can be listed, fsynced and
 * chmodded (or O_PATH when `final` is 'path', for lookups in a directory the
 * user may search but not list). A symlink anywhere fails with ELOOP.
 */
export function walkToDirectory(path: string, final: 'read' | 'path' = 'read'): number {
  const c = libc();
  const { absolute, parts } = splitPath(path, 'openat');
  const { O_PATH, O_RDONLY, O_DIRECTORY } = c.flags;
  const start = Buffer.from(absolute ? '/\0' : '.\0', 'latin1');
  const finalFlags = (final === 'read' ? O_RDONLY : O_PATH) | O_DIRECTORY;
  if (parts.length === 0) return c.openat(AT_FDCWD, start, finalFlags);

  let fd = c.openat(AT_FDCWD, start, O_PATH | O_DIRECTORY);
  try {
    for (const [index, part] of parts.entries()) {
      const last = index === parts.length - 1;
      const previous = fd;
      fd = openChild(fd, part, last ? finalFlags : O_PATH | O_DIRECTORY);
      c.close(previous);
    }
    return fd;
  } catch (error: unknown) {
    closeFdQuietly(fd);
    throw error;
  }
}
