import { basename } from 'node:path';
import type { JsonObject } from '../core/json/index.js';
import type { Refusal } from '../core/refusal/index.js';
import { bindRecords } from './binding.js';
import type { BoundEvidence } from './bound.js';
import { checkDryRunBounds, parseDryRun } from './dry-run.js';
import { checkMappingBounds, parseMapping } from './mapping.js';
import { readMappingDocument } from './mapping-file.js';
import { guardPrivate } from './private-boundary.js';
import { readPrivateEvidenceJson } from './private-json.js';
import { type EvidenceRefusalCode, refuseEvidence } from './refusals.js';
import { checkRunManifestBounds, parseRunManifest } from './run-manifest.js';
import { epochMicrosOf } from './timestamps.js';

export interface BindEvidenceOptions {
  /** The reviewed mapping file (version 1 JSON). */
  readonly mappingFile?: string | undefined;
  /** The saved `--dry-run` report: an owner-only file. */
  readonly dryRunFile?: string | undefined;
  /** `run-manifests/<run_id>.json` of a completed load: an owner-only file. */
  readonly runManifestFile?: string | undefined;
  /** The operator's source binding alias; required and compared exactly. */
  readonly sourceBindingId?: string | undefined;
  /** Maximum evidence age in whole seconds (see `parseMaxEvidenceAge`); no default exists. */
  readonly maxAge?: number | undefined;
  /** The generator clock; the current time when absent. */
  readonly now?: Date | undefined;
}

export interface RefusedEvidence {
  readonly status: 'refused';
  readonly refusal: Refusal<EvidenceRefusalCode>;
}

export type EvidenceOutcome = BoundEvidence | RefusedEvidence;

/** Artifacts already read and parsed as JSON objects; the run manifest with its file name. */
export interface EvidenceDocuments {
  readonly mapping: JsonObject | undefined;
  readonly dryRun: JsonObject | undefined;
  readonly runManifest: { readonly document: JsonObject; readonly fileName: string } | undefined;
}

/**
 * Reads the three artifacts through the readers of docs/evidence.md#library-api
 * and binds them: the single entry point a generator calls. Exactly one reason
 * code for the first failing check, in the order of
 * docs/evidence.md#check-order: admission (the files, then their bounds),
 * field tables (mapping, dry run, run manifest), binding steps 1–10.
 * Only an internal error (a bug) is thrown; it carries no input text.
 */
export function bindEvidence(options: BindEvidenceOptions): EvidenceOutcome {
  return outcomeOf(() => {
    const { mappingFile, dryRunFile, runManifestFile } = requireSupplied(options);
    const documents: EvidenceDocuments = {
      mapping: readMappingDocument(mappingFile),
      dryRun: readPrivateEvidenceJson(dryRunFile, 'dry_run'),
      runManifest: {
        document: readPrivateEvidenceJson(runManifestFile, 'run_manifest'),
        fileName: basename(runManifestFile),
      },
    };
    return bindDocumentsOrThrow(documents, options);
  });
}

/**
 * The same checks over documents already in memory, from the admission
 * bounds on: what `bindEvidence` runs after reading the files.
 */
export function bindEvidenceDocuments(
  documents: EvidenceDocuments,
  invocation: Pick<BindEvidenceOptions, 'sourceBindingId' | 'maxAge' | 'now'>,
): EvidenceOutcome {
  return outcomeOf(() => bindDocumentsOrThrow(documents, invocation));
}

function bindDocumentsOrThrow(
  documents: EvidenceDocuments,
  invocation: Pick<BindEvidenceOptions, 'sourceBindingId' | 'maxAge' | 'now'>,
): BoundEvidence {
  const { mapping, dryRun, runManifest } = documents;
  if (mapping === undefined) throw refuseEvidence('scaffold_input_missing', { role: 'mapping' });
  if (dryRun === undefined) throw refuseEvidence('scaffold_input_missing', { role: 'dry_run' });
  if (runManifest === undefined) throw noFreshnessAnchor();
  checkMappingBounds(mapping);
  checkDryRunBounds(dryRun);
  checkRunManifestBounds(runManifest.document);
  return bindRecords(
    {
      mapping: parseMapping(mapping),
      dryRun: parseDryRun(dryRun),
      runManifest: parseRunManifest(runManifest.document, runManifest.fileName),
    },
    {
      sourceBindingId: invocation.sourceBindingId,
      maxAge: invocation.maxAge,
      now: epochMicrosOf(invocation.now ?? new Date()),
    },
  );
}

/**
 * A bundle without a run manifest has nothing to anchor freshness (the dry
 * run has no timestamp): it is refused with
 * `scaffold_evidence_freshness_unavailable`, not as a missing input.
 */
function noFreshnessAnchor(): Refusal<EvidenceRefusalCode> {
  return refuseEvidence('scaffold_evidence_freshness_unavailable', { role: 'run_manifest' });
}

function requireSupplied(options: BindEvidenceOptions): {
  readonly mappingFile: string;
  readonly dryRunFile: string;
  readonly runManifestFile: string;
} {
  const { mappingFile, dryRunFile, runManifestFile } = options;
  if (mappingFile === undefined) throw refuseEvidence('scaffold_input_missing', { role: 'mapping' });
  if (dryRunFile === undefined) throw refuseEvidence('scaffold_input_missing', { role: 'dry_run' });
  if (runManifestFile === undefined) throw noFreshnessAnchor();
  return { mappingFile, dryRunFile, runManifestFile };
}

function outcomeOf(work: () => BoundEvidence): EvidenceOutcome {
  try {
    return guardPrivate(work);
  } catch (error: unknown) {
    if (refuseEvidence.is(error)) return { status: 'refused', refusal: error };
    throw error;
  }
}
