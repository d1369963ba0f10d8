import { type Dir, isFsError } from '../../../core/fs/index.js';

/**
 * Whether `root` holds `path` (slash-separated, below it): true; false when
 * a folder on the way or the entry itself is not there (ENOENT, ENOTDIR);
 * undefined on any other doubt — a symbolic link on the way, a folder this
 * account may not search — which is never reported as missing.
 */
export function holdsPath(root: Dir, path: string): boolean | undefined {
  const segments = path.split('/');
  const last = segments.pop();
  if (last === undefined || last === '') return undefined;
  const opened: Dir[] = [];
  try {
    let dir = root;
    for (const segment of segments) {
      dir = dir.openDir(segment);
      opened.push(dir);
    }
    dir.stat(last);
    return true;
  } catch (error: unknown) {
    if (isFsError(error, 'ENOENT') || isFsError(error, 'ENOTDIR')) return false;
    return undefined;
  } finally {
    for (const dir of opened) dir.close();
  }
}
