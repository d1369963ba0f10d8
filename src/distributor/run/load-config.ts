import { dirname, resolve } from 'node:path';
import { readBoundedInput } from '../../core/input/index.js';
import { CONFIG_MAX_BYTES, DEFAULT_CONFIG_FILE, parseConfig } from '../config/parse.js';
import type { DistributorConfig } from '../config/types.js';

/** Reads and parses a configuration file (default `sealkit.distributor.yaml` in the working directory). */
export async function loadConfig(path: string = DEFAULT_CONFIG_FILE): Promise<DistributorConfig> {
  const absolute = resolve(path);
  const bytes = await readBoundedInput(absolute, CONFIG_MAX_BYTES);
  return parseConfig(bytes, dirname(absolute));
}
