import { lstatSync, realpathSync } from 'node:fs';
import { dirname, join, normalize, resolve } from 'node:path';
import type { Refusal } from '../../../core/refusal/index.js';
import { STATE_FILE } from '../../model/state.js';
import { refuseDistributor } from '../../refusals.js';

/**
 * A root that is itself a published bundle's folder, or lies inside one
 * (another configuration's, or another destination's): every bundle
 * published there would sit inside that bundle, which could then never be
 * replaced, since a replacement never deletes what its state does not
 * list. It is refused before the run locks the root or makes its work area
 * there, so a refused run leaves nothing inside the other publication
 * (docs/distributor.md#local-destinations-atomicity-lock-crash-behaviour).
 *
 * The folders are those the root really is in (its real path, up to `/`):
 * a root reached through a symbolic link is checked where it lands. A
 * folder that cannot be looked into counts as holding no bundle.
 */
export function publishedBundleAroundRoot(
  root: string,
  shownRoot: string,
  setting: 'root' | 'work_dir' = 'root',
): Refusal | undefined {
  let real: string;
  try {
    real = realpathSync.native(root);
  } catch {
    // The root was opened a moment ago; a root that cannot be resolved now is refused where it is used.
    return undefined;
  }
  let folder = real;
  for (let up = 0; ; up += 1) {
    if (holdsState(folder)) return nestedRootRefusal(shownRoot, root, folder, up, setting);
    const parent = dirname(folder);
    if (parent === folder) return undefined;
    folder = parent;
  }
}

function holdsState(folder: string): boolean {
  try {
    lstatSync(join(folder, STATE_FILE));
    return true;
  } catch {
    return false;
  }
}

function nestedRootRefusal(
  shownRoot: string,
  root: string,
  bundle: string,
  up: number,
  setting: 'root' | 'work_dir',
): Refusal {
  const where =
    up === 0
      ? `${setting} '${shownRoot}' is itself a published bundle's folder (it holds a ${STATE_FILE})`
      : `${setting} '${shownRoot}' lies inside the published bundle '${shownAbove(shownRoot, root, bundle, up)}' (it holds a ${STATE_FILE}, ${up === 1 ? '1 folder' : `${up} folders`} above the ${setting})`;
  const what = setting === 'root' ? 'files published here' : "this destination's work area";
  return refuseDistributor('destination_nested_bundle', {
    role: 'destination',
    field: setting,
    hint: `${where}, published by another configuration or destination: ${what} would lie inside that bundle and leave it unreplaceable, so nothing was written; set ${setting}: to a folder outside every published bundle`,
  });
}

/** The folder `up` levels above the root as the operator wrote the root, or its real path when a link makes them differ. */
function shownAbove(shownRoot: string, root: string, bundle: string, up: number): string {
  const levels = Array.from({ length: up }, () => '..');
  try {
    if (realpathSync.native(resolve(root, ...levels)) === bundle)
      return normalize(join(shownRoot, ...levels));
  } catch {
    // Fall through to the real path.
  }
  return bundle;
}
