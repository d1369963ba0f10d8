import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { refuseEdition } from './refusals.js';

/**
 * Where this copy of sealkit lives: the package root, which holds `editions/`
 * and `src/editions/dbt-jsonschema/`. The same code runs from `src/` (tests)
 * and from `dist/src/` (the CLI), so the root is found by walking up from this
 * module to the first directory holding both `package.json` and `editions/`,
 * instead of assuming a depth. Resolved with symlinks followed: the copier
 * compares destinations against this real path.
 */
export function installationRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let level = 0; level < 6; level += 1) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'editions'))) return realpathSync(dir);
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  throw refuseEdition('edition_source_missing');
}

export function editionsRoot(root: string = installationRoot()): string {
  return join(root, 'editions');
}

export function schemasRoot(root: string = installationRoot()): string {
  return join(root, 'src', 'editions', 'dbt-jsonschema');
}
