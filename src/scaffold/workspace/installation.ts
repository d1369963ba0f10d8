import { isAbsolute, relative } from 'node:path';
import { packageRoot } from '../../core/package/index.js';

/**
 * The sealkit installation or checkout running this code (it holds
 * `editions/`); undefined when there is none, and then nothing can lie
 * inside it.
 */
export function starterRepositoryRoot(): string | undefined {
  return packageRoot();
}

/** Whether `candidate` is `root` or lies below it (both absolute, already resolved). */
export function isInside(root: string, candidate: string): boolean {
  const rel = relative(root, candidate);
  return rel === '' || (!isAbsolute(rel) && rel !== '..' && !rel.startsWith('../'));
}
