import type { Command } from '../command.js';
import { jsonCanonicalize, jsonDigest } from './json.js';

/** Every command sealkit has; `sealkit --help` lists them in this order. */
export const COMMANDS: readonly Command[] = [jsonCanonicalize, jsonDigest];
