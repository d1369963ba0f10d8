import type { Dir } from './dir.js';
import { isFsError } from './errors.js';
import type { EntryName } from './names.js';

/**
 * A child directory held open, created with exactly `mode` when `create`
 * allows it and it is absent; undefined when it is absent and may not be
 * created. Two processes creating it at once both end up holding the one
 * that won.
 */
export function openOrCreateDir(
  parent: Dir,
  name: EntryName,
  mode: number,
  create: boolean,
): Dir | undefined {
  try {
    return parent.openDir(name);
  } catch (error: unknown) {
    if (!isFsError(error, 'ENOENT')) throw error;
    if (!create) return undefined;
  }
  try {
    return parent.mkdirExclusive(name, mode);
  } catch (error: unknown) {
    if (isFsError(error, 'EEXIST')) return parent.openDir(name);
    throw error;
  }
}
