import { join } from 'node:path';
import { packageRoot } from '../core/package/index.js';
import { refuseEdition } from './refusals.js';

/** The package root (see `packageRoot`); refused when this copy has no editions. */
export function installationRoot(): string {
  const root = packageRoot();
  if (root === undefined) throw refuseEdition('edition_source_missing');
  return root;
}

export function editionsRoot(root: string = installationRoot()): string {
  return join(root, 'editions');
}

export function schemasRoot(root: string = installationRoot()): string {
  return join(root, 'src', 'editions', 'dbt-jsonschema');
}
