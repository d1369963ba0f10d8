import { isSourceBindingId, MAX_EVIDENCE_AGE_FORMS, parseMaxEvidenceAge } from '../../migration/index.js';
import { pathOption } from '../parse.js';
import { quotedValue } from '../quote-value.js';
import { UsageError } from '../usage-error.js';

/** The evidence flags `evidence check` and `scaffold` share, as typed on the command line. */
export interface EvidenceFlagValues {
  readonly 'mapping-file'?: string | undefined;
  readonly 'inventory-file'?: string | undefined;
  readonly 'run-manifest'?: string | undefined;
  readonly 'source-binding-id'?: string | undefined;
  readonly 'max-evidence-age'?: string | undefined;
}

/** The evidence flags once their form is checked; a flag not given stays undefined. */
export interface EvidenceFlags {
  readonly mappingFile: string | undefined;
  readonly inventoryFile: string | undefined;
  readonly runManifestFile: string | undefined;
  readonly sourceBindingId: string | undefined;
  /** Whole seconds. */
  readonly maxEvidenceAge: number | undefined;
}

/**
 * A flag given with a value that cannot be meant is a usage error naming the
 * flag and the form it takes, raised before anything is read
 * (docs/cli.md#exit-codes): an empty file path (`--mapping-file ''`, an
 * unset shell variable) would otherwise be refused as a missing artifact,
 * and an alias outside its pattern as a mismatch with the evidence. A flag
 * not given at all is left to the evidence contract, which refuses it with
 * its own reason code (docs/evidence.md#commands).
 */
export function evidenceFlags(values: EvidenceFlagValues, usage: string): EvidenceFlags {
  const rawAge = values['max-evidence-age'];
  const maxEvidenceAge = rawAge === undefined ? undefined : parseMaxEvidenceAge(rawAge);
  if (rawAge !== undefined && maxEvidenceAge === undefined) {
    throw new UsageError(
      `--max-evidence-age takes ${MAX_EVIDENCE_AGE_FORMS}, not ${quotedValue(rawAge)}`,
      usage,
    );
  }
  return {
    mappingFile: evidenceFile(values['mapping-file'], '--mapping-file', usage),
    inventoryFile: evidenceFile(values['inventory-file'], '--inventory-file', usage),
    runManifestFile: evidenceFile(values['run-manifest'], '--run-manifest', usage),
    sourceBindingId: sourceBindingIdOption(values['source-binding-id'], usage),
    maxEvidenceAge,
  };
}

/**
 * `--source-binding-id`: absent, or an alias of the documented pattern
 * `[a-z][a-z0-9_]{0,39}` (an empty value included, which breaks it too).
 * The value is the operator's own command line, so it is named as typed.
 */
export function sourceBindingIdOption(value: string | undefined, usage: string): string | undefined {
  if (value === undefined || isSourceBindingId(value)) return value;
  throw new UsageError(
    `--source-binding-id takes a lowercase letter, then up to 39 lowercase letters, digits or _, not ${quotedValue(value)}`,
    usage,
  );
}

/**
 * An evidence file is read from a path, never from standard input: the
 * inventory and the run manifest must be owner-only files (a pipe has no
 * owner or mode to check), and the three are read alike. `-` would
 * otherwise be looked up as a file of that name and called missing.
 */
function evidenceFile(value: string | undefined, flag: string, usage: string): string | undefined {
  if (value === '-') {
    throw new UsageError(`${flag} takes a file, not standard input ('-')`, usage, {
      hint: `save the document to a file and name it (a file called '-' is ./-)`,
    });
  }
  return pathOption(value, flag, usage);
}
