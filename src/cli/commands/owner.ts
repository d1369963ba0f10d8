import { readBoundedInput } from '../../core/input/index.js';
import {
  ActivationAttempt,
  CompositionGrant,
  MAX_ORIGINAL_BYTES,
  MAX_OWNER_BYTES,
  QualificationOwner,
  ScopedExecutionOwner,
  type SelectedEpoch,
} from '../../owner/index.js';
import type { CliIo, Command, CommandResult } from '../command.js';
import { type OptionSpecs, parseCommandArgs, pathOption, requireArgument, requireOption } from '../parse.js';
import { UsageError } from '../usage-error.js';

const COMMON = `FILE holds the exact canonical bytes of a dpone.composition-scoped-execution-owner.v1
document (at most 8 MiB; - reads standard input). --expected-sha256 is its
SHA-256, known independently of the file: decoding requires both. Originals
(attempt, grants, qualification owner) are canonical documents of at most 1 MiB.
A document written by another serializer (indented, a final newline) has other
bytes and another digest: sealkit json canonicalize --python FILE writes the
canonical bytes, sealkit json digest --python FILE their SHA-256.

The codec authenticates nothing: it checks a complete, exact document and
documentary equality with the originals supplied, not who produced them.

A refusal names which input it is about (\`= in: execution_grant\`, "role" in
--json) and an allowlisted field path, never a value from the documents.

Exit codes: 0 success, 1 usage error, 2 refused (a scoped_execution_* reason, or
input_missing, input_unreadable, input_not_regular for a file), 70 internal error.`;

const VERIFY_USAGE = `Usage: sealkit owner verify FILE --expected-sha256 HEX
         [--qualification-owner FILE --qualification-grant FILE --execution-grant FILE] [--bare] [--json]

Decodes and validates a scoped execution owner document and prints its owner
reference and key, R (the embedded activation request's SHA-256), E (the
owner document's SHA-256) and the execution epoch of every guard. With the
three originals, also requires them: the qualification owner named by the
handoff, and both grants over the owner's full scope and claims.

Flags:
  --expected-sha256 HEX        the document's SHA-256 (64 lowercase hex digits, or sha256:<hex>)
  --bare                       print digests as hex, without the sha256: prefix
  --qualification-owner FILE   the qualification owner original
  --qualification-grant FILE   the qualification grant original
  --execution-grant FILE       the execution grant original
  --json                       print one JSON object on stdout (epochs as decimal strings)
  -h, --help                   show this help

${COMMON}

Examples:
  sealkit owner verify owner.json --expected-sha256 HEX
  sealkit owner verify owner.json --expected-sha256 HEX --qualification-owner qualification-owner.json --qualification-grant qualification-grant.json --execution-grant execution-grant.json`;

const SUBJECTS_USAGE = `Usage: sealkit owner subjects FILE --expected-sha256 HEX [--attempt FILE] [--bare] [--json]

Prints the three subjects: R (the embedded activation request), E (the whole
owner document) and, with --attempt, A (the attempt) after validating the
attempt against R, its workload, constituents, pack and exact legacy write
epochs, together with the epochs all declared effects of its workload select.

Flags:
  --expected-sha256 HEX   the document's SHA-256 (64 lowercase hex digits, or sha256:<hex>)
  --bare                  print R, E and A as hex, without the sha256: prefix
  --attempt FILE          an activation attempt original
  --json                  print one JSON object on stdout (epochs as decimal strings)
  -h, --help              show this help

${COMMON}

Examples:
  sealkit owner subjects owner.json --expected-sha256 HEX
  sealkit owner subjects owner.json --expected-sha256 HEX --attempt attempt.json --json
  sealkit owner subjects owner.json --expected-sha256 HEX --bare`;

const VERIFY_OPTIONS = {
  'expected-sha256': { type: 'string' },
  bare: { type: 'boolean' },
  'qualification-owner': { type: 'string' },
  'qualification-grant': { type: 'string' },
  'execution-grant': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const SUBJECTS_OPTIONS = {
  'expected-sha256': { type: 'string' },
  bare: { type: 'boolean' },
  attempt: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The flags of `other` that `own` lacks, each said to belong to `command`. */
function onlyIn(other: OptionSpecs, own: OptionSpecs, command: string): Record<string, string> {
  return Object.fromEntries(
    Object.keys(other)
      .filter((name) => !Object.hasOwn(own, name))
      .map((name) => [name, command]),
  );
}

async function readOwner(
  file: string | undefined,
  expected: string | undefined,
  usage: string,
  io: CliIo,
): Promise<ScopedExecutionOwner> {
  const path = requireArgument(file, 'FILE', usage);
  const hex = expectedSha256(requireOption(expected, '--expected-sha256', usage), usage);
  const raw = await readBoundedInput(path, MAX_OWNER_BYTES, io.stdin, 'owner');
  return ScopedExecutionOwner.fromBytes(raw, { expectedSha256: hex });
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

/**
 * --expected-sha256 as the codec takes it: 64 lowercase hex digits, given
 * bare or in the form sealkit prints digests (sha256:<hex>). Any other form
 * is a usage error before anything is read, naming the flag and the form;
 * the value is not repeated, as sealkit prints no digest in a refusal
 * (docs/refusals.md#two-policies).
 */
function expectedSha256(given: string, usage: string): string {
  const hex = given.startsWith('sha256:') ? given.slice('sha256:'.length) : given;
  if (SHA256_HEX.test(hex)) return hex;
  throw new UsageError(
    '--expected-sha256 takes 64 lowercase hex digits, bare or as sha256:<hex>; the value given is not of that form',
    usage,
    SHA256_HEX.test(hex.toLowerCase()) ? { hint: 'write the hex digits in lower case' } : {},
  );
}

/** `role` names the flag's input in a refusal (`= in: execution_grant`): five files may be given. */
async function readOriginal(file: string, io: CliIo, role: OriginalRole): Promise<Uint8Array> {
  return readBoundedInput(file, MAX_ORIGINAL_BYTES, io.stdin, role);
}

type OriginalRole = 'qualification_owner' | 'qualification_grant' | 'execution_grant' | 'attempt';

/** Standard input can be read once: two inputs given as `-` is a usage error, before any is read. */
function refuseStdinTwice(files: readonly (string | undefined)[], usage: string): void {
  if (files.filter((file) => file === '-').length > 1) {
    throw new UsageError('only one input can be - (standard input)', usage);
  }
}

/** A digest in the one form sealkit prints (`sha256:<hex>`), or bare hex with --bare. */
function shown(hex: string, bare: boolean | undefined): string {
  return bare === true ? hex : `sha256:${hex}`;
}

function epochLines(epochs: readonly SelectedEpoch[]): string {
  return epochs.map((entry) => `  ${entry.guardId} ${entry.epoch}\n`).join('');
}

function epochsJson(epochs: readonly SelectedEpoch[]): { guard_id: string; execution_epoch: string }[] {
  return epochs.map((entry) => ({ guard_id: entry.guardId, execution_epoch: entry.epoch.toString() }));
}

export const ownerVerify: Command = {
  path: ['owner', 'verify'],
  usage: VERIFY_USAGE,
  async run(args, io): Promise<CommandResult> {
    const { values, positionals } = parseCommandArgs(
      args,
      VERIFY_OPTIONS,
      VERIFY_USAGE,
      { min: 0, max: 1 },
      onlyIn(SUBJECTS_OPTIONS, VERIFY_OPTIONS, 'sealkit owner subjects'),
    );
    const originalFiles = [
      pathOption(values['qualification-owner'], '--qualification-owner', VERIFY_USAGE),
      pathOption(values['qualification-grant'], '--qualification-grant', VERIFY_USAGE),
      pathOption(values['execution-grant'], '--execution-grant', VERIFY_USAGE),
    ];
    const given = originalFiles.filter((file) => file !== undefined).length;
    if (given !== 0 && given !== 3) {
      throw new UsageError(
        'give all of --qualification-owner, --qualification-grant and --execution-grant, or none',
        VERIFY_USAGE,
      );
    }
    refuseStdinTwice([positionals[0], ...originalFiles], VERIFY_USAGE);
    const owner = await readOwner(positionals[0], values['expected-sha256'], VERIFY_USAGE, io);
    const summary = owner.describe();
    let originals: 'matched' | 'not_supplied' = 'not_supplied';
    if (given === 3) {
      const [ownerFile, qualificationFile, executionFile] = originalFiles as [string, string, string];
      const qualificationOwner = QualificationOwner.fromBytes(
        await readOriginal(ownerFile, io, 'qualification_owner'),
      );
      const qualificationGrant = CompositionGrant.fromBytes(
        await readOriginal(qualificationFile, io, 'qualification_grant'),
        { role: 'qualification_grant' },
      );
      const executionGrant = CompositionGrant.fromBytes(
        await readOriginal(executionFile, io, 'execution_grant'),
        { role: 'execution_grant' },
      );
      owner.requireOriginals({ qualificationOwner, qualificationGrant, executionGrant });
      originals = 'matched';
    }
    const text =
      'owner document: verified\n' +
      `owner reference: ${summary.ownerReference.kind} ${summary.ownerReference.activationId}\n` +
      `owner key: ${summary.ownerKey}\n` +
      `R (request): ${shown(summary.requestSha256, values.bare)}\n` +
      `E (owner subject): ${shown(summary.subjectSha256, values.bare)}\n` +
      `guard epochs (execution):\n${epochLines(summary.guardEpochs)}` +
      `originals: ${originals === 'matched' ? 'matched (qualification owner, qualification grant, execution grant)' : 'not supplied'}\n`;
    return {
      text,
      json: {
        status: 'ok',
        owner_reference: {
          kind: summary.ownerReference.kind,
          activation_id: summary.ownerReference.activationId,
        },
        owner_key: summary.ownerKey,
        request_sha256: summary.requestSha256,
        subject_sha256: summary.subjectSha256,
        guard_epochs: epochsJson(summary.guardEpochs),
        originals,
      },
    };
  },
};

export const ownerSubjects: Command = {
  path: ['owner', 'subjects'],
  usage: SUBJECTS_USAGE,
  async run(args, io): Promise<CommandResult> {
    const { values, positionals } = parseCommandArgs(
      args,
      SUBJECTS_OPTIONS,
      SUBJECTS_USAGE,
      { min: 0, max: 1 },
      onlyIn(VERIFY_OPTIONS, SUBJECTS_OPTIONS, 'sealkit owner verify'),
    );
    const attemptFile = pathOption(values.attempt, '--attempt', SUBJECTS_USAGE);
    refuseStdinTwice([positionals[0], attemptFile], SUBJECTS_USAGE);
    const owner = await readOwner(positionals[0], values['expected-sha256'], SUBJECTS_USAGE, io);
    const summary = owner.describe();
    let text = `R ${shown(summary.requestSha256, values.bare)}\nE ${shown(summary.subjectSha256, values.bare)}\n`;
    if (attemptFile === undefined) {
      return {
        text,
        json: { status: 'ok', request_sha256: summary.requestSha256, subject_sha256: summary.subjectSha256 },
      };
    }
    const attempt = ActivationAttempt.fromBytes(await readOriginal(attemptFile, io, 'attempt'));
    const selected = owner.requireAttempt(attempt);
    const attemptSha256 = attempt.sha256;
    text += `A ${shown(attemptSha256, values.bare)}\nselected epochs (all declared effects of the attempt's workload):\n${epochLines(selected)}`;
    return {
      text,
      json: {
        status: 'ok',
        request_sha256: summary.requestSha256,
        subject_sha256: summary.subjectSha256,
        attempt_sha256: attemptSha256,
        selected_epochs: epochsJson(selected),
      },
    };
  },
};
