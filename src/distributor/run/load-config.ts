import { dirname, resolve } from 'node:path';
import { didYouMeanPath, nearPath } from '../../core/fs/index.js';
import { readBoundedInput } from '../../core/input/index.js';
import { Refusal } from '../../core/refusal/index.js';
import { CONFIG_MAX_BYTES, DEFAULT_CONFIG_FILE, parseConfig } from '../config/parse.js';
import type { DistributorConfig } from '../config/types.js';

/**
 * Reads and parses a configuration file (default `sealkit.distributor.yaml` in
 * the working directory). Every refusal names the file as the caller gave it,
 * and a path that names nothing gets the file beside it one typo away
 * (docs/distributor.md#reading-an-error).
 */
export async function loadConfig(path?: string): Promise<DistributorConfig> {
  const shown = path ?? DEFAULT_CONFIG_FILE;
  const absolute = resolve(shown);
  let bytes: Uint8Array;
  try {
    bytes = await readBoundedInput(absolute, CONFIG_MAX_BYTES);
  } catch (error: unknown) {
    if (!(error instanceof Refusal)) throw error;
    throw error.at({ path: shown }, readHint(error.code, path));
  }
  return parseConfig(bytes, dirname(absolute), shown);
}

/** `given` is the path passed to --config; undefined when the default was looked for. */
function readHint(code: string, given: string | undefined): string | undefined {
  if (code === 'input_missing') {
    if (given === undefined) {
      // `sealkit.distributor.yml` beside it is the usual slip: it is not
      // read under another name, so the advice is to name it.
      const near = nearPath(DEFAULT_CONFIG_FILE, 'file');
      return near === undefined
        ? // Named: under cron the working directory is the home folder, not where the project is.
          `create ${DEFAULT_CONFIG_FILE} in the working directory (${process.cwd()}), or pass --config FILE`
        : `'${near}' is here: pass --config ${near}, or rename it to ${DEFAULT_CONFIG_FILE}`;
    }
    return didYouMeanPath(given, 'file') ?? 'check the path given to --config, or create the file';
  }
  if (code === 'input_not_regular') return 'the configuration must be a regular file';
  return undefined;
}
