import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from './root.js';

/**
 * The package version, from the package.json at the package root: the same
 * code runs from `src/`, `dist/src/` and the CLI bundle in `dist/bundle/`, at
 * different depths.
 */
export function packageVersion(): string {
  const root = packageRoot();
  if (root === undefined) return '0.0.0';
  const raw = readFileSync(join(root, 'package.json'), 'utf8');
  const version = (JSON.parse(raw) as { version?: unknown }).version;
  return typeof version === 'string' ? version : '0.0.0';
}
