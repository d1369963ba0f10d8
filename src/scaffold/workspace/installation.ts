import { existsSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The sealkit installation or checkout running this code: the starter
 * repository of §3.1 (it holds `editions/`). Found by walking up from this
 * module to the first directory with both `package.json` and `editions/`,
 * so the same code works from `src/` and `dist/src/`; symlinks resolved.
 * Undefined when no such directory exists (a bundled copy without the
 * editions): then nothing can lie inside it.
 */
export function starterRepositoryRoot(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let level = 0; level < 8; level += 1) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'editions'))) return realpathSync(dir);
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
  return undefined;
}

/** Whether `candidate` is `root` or lies below it (both absolute, already resolved). */
export function isInside(root: string, candidate: string): boolean {
  const rel = relative(root, candidate);
  return rel === '' || (!isAbsolute(rel) && rel !== '..' && !rel.startsWith('../'));
}
