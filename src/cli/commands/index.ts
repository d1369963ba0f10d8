import type { Command } from '../command.js';
import { contractProject, contractSchemas, contractValidate } from './contract.js';
import { contractAffected } from './contract-affected.js';
import { contractClassify } from './contract-classify.js';
import { contractHistory } from './contract-history.js';
import { contractPublish } from './contract-publish.js';
import { contractReplay } from './contract-replay.js';
import { distributeManifestCommand, distributeRunCommand, distributeVerifyCommand } from './distribute.js';
import { editionCheck } from './edition-check.js';
import { editionNew } from './edition-new.js';
import { evidenceCheck } from './evidence-check.js';
import { evidenceSynth } from './evidence-synth.js';
import { jsonCanonicalize, jsonDigest } from './json.js';
import { ownerSubjects, ownerVerify } from './owner.js';
import { scaffoldCommand } from './scaffold.js';

/** Every command sealkit has; `sealkit --help` lists them in this order. */
export const COMMANDS: readonly Command[] = [
  jsonCanonicalize,
  jsonDigest,
  evidenceCheck,
  evidenceSynth,
  distributeRunCommand,
  distributeVerifyCommand,
  distributeManifestCommand,
  editionNew,
  editionCheck,
  scaffoldCommand,
  ownerVerify,
  ownerSubjects,
  contractValidate,
  contractProject,
  contractSchemas,
  contractClassify,
  contractPublish,
  contractHistory,
  contractReplay,
  contractAffected,
];
