import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where this copy of sealkit lives: the package root, which holds `editions/`
 * and `src/editions/dbt-jsonschema/`. The same code runs from `src/` (tests)
 * and from `dist/src/` (the CLI), so the root is found by walking up from this
 * module to the first directory holding both `package.json` and `editions/`,
 * instead of assuming a depth. Resolved with symlinks followed, because
 * callers compare user paths against it. Undefined for a copy without the
 * editions (a bundled build).
 */
export function packageRoot(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'editions'))) return realpathSync(dir);
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}
