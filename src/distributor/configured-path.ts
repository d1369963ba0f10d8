import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { nearPath } from '../core/fs/index.js';

/*
 * A configured path is resolved against the configuration's folder, and a
 * refusal shows it as it is from the current folder (`cfg/x.yaml` saying
 * `root: ../site` shows `site`), so that it can be looked at from the shell.
 * When the configuration lies elsewhere, that is not what its line says,
 * and a suggestion in those terms would be wrong there (`root: site` in
 * `cfg/x.yaml` is `cfg/site`): these name the path as written too, and
 * suggest what to write (docs/distributor.md#reading-an-error).
 */

/**
 * The help for a configured path through a folder called `~` that does not
 * exist: sealkit never expands `~` (a shell does, and a YAML value passes
 * through none), so the path names a folder `~` beside the configuration;
 * creating what it names would not be what was meant.
 */
export const TILDE_HINT = "'~' is not expanded, so it names a folder called '~': write the full path";

/**
 * `'site'` as written, or, when the written path reads otherwise here, `'../site'
 * ('site' from the current folder)` (`'~/site' (that is
 * '/etc/sealkit/~/site')` for a configuration named by its full path).
 */
export function configuredPath(shown: string, written: string | undefined): string {
  if (written === undefined) return `'${shown}'`;
  // The same folder from here: named as the line writes it (`./out`, not `out`), to be found in the file.
  if (resolve(written) === resolve(shown)) return `'${written}'`;
  return isAbsolute(shown)
    ? `'${written}' (that is '${shown}')`
    : `'${written}' ('${shown}' from the current folder)`;
}

/**
 * `did you mean '<folder>'?` for a configured folder `shown` that does not
 * exist (opened as `opened`), in the terms the configuration at
 * `configPath` (as the user named it) writes it: from that file's folder
 * when `written` is relative.
 */
export function didYouMeanConfigured(
  shown: string,
  opened: string,
  written: string | undefined,
  configPath: string | undefined,
): string | undefined {
  const near = nearPath(shown, 'folder', opened);
  if (near === undefined) return undefined;
  if (
    written === undefined ||
    isAbsolute(written) ||
    configPath === undefined ||
    resolve(written) === resolve(shown)
  )
    return `did you mean '${near}'?`;
  return `did you mean '${relative(dirname(resolve(configPath)), resolve(near)) || '.'}'?`;
}
