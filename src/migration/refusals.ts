import { defineRefusals } from '../core/refusal/index.js';

/**
 * The fixed reason codes of migration evidence, with their categories
 * (docs/evidence.md#reason-codes). Messages are fixed text:
 * they never interpolate names, paths, fingerprints or values, so a refusal
 * can be logged as it is. Checks run admission → field tables → binding
 * steps 1–10 and the first failing check decides the one code emitted.
 */
export type EvidenceRefusalCode =
  | 'scaffold_input_missing'
  | 'scaffold_input_not_private'
  | 'scaffold_input_unreadable'
  | 'scaffold_input_not_regular'
  | 'scaffold_input_oversized'
  | 'scaffold_input_malformed'
  | 'scaffold_input_unsupported_version'
  | 'scaffold_field_missing'
  | 'scaffold_field_malformed'
  | 'scaffold_mapping_invalid'
  | 'scaffold_fingerprint_recompute_mismatch'
  | 'scaffold_mapping_fingerprint_mismatch'
  | 'scaffold_schema_confirmation_mismatch'
  | 'scaffold_source_kind_mismatch'
  | 'scaffold_source_identity_unavailable'
  | 'scaffold_source_identity_mismatch'
  | 'scaffold_source_schema_unavailable'
  | 'scaffold_selected_tables_mismatch'
  | 'scaffold_destination_mismatch'
  | 'scaffold_namespace_mismatch'
  | 'scaffold_target_identity_mismatch'
  | 'scaffold_destination_edition_unbound'
  | 'scaffold_evidence_not_ready'
  | 'scaffold_evidence_run_not_completed'
  | 'scaffold_evidence_schema_not_matched'
  | 'scaffold_evidence_stale'
  | 'scaffold_evidence_freshness_unavailable';

export const refuseEvidence = defineRefusals<EvidenceRefusalCode>({
  scaffold_input_missing: {
    category: 'missing',
    message: 'a required evidence artifact was not supplied or does not exist',
  },
  scaffold_input_not_private: {
    category: 'malformed',
    message:
      'an evidence artifact fails the owner-only, no-symlink or single-link checks (the file: yours, no group or other permission bits, one link; its folder: yours, no group or other bits; no symlink on the path), or they cannot be verified',
  },
  scaffold_input_unreadable: {
    category: 'unavailable',
    message: 'an evidence artifact cannot be read: permission denied on the file or a folder above it',
  },
  scaffold_input_not_regular: {
    category: 'malformed',
    message: 'an evidence artifact is not a regular file (a directory, a FIFO, a socket or a device)',
  },
  scaffold_input_oversized: {
    category: 'oversized',
    message: 'an evidence artifact exceeds its size, table, column, entity or name bound',
  },
  scaffold_input_malformed: {
    category: 'malformed',
    message:
      'an evidence artifact is not a JSON object in UTF-8 without a byte-order mark, or it has a duplicate key',
  },
  scaffold_input_unsupported_version: {
    category: 'malformed',
    message: 'an evidence artifact has an unsupported version, mode or algorithm label',
  },
  scaffold_field_missing: {
    category: 'missing',
    message: 'a required evidence field is absent or null',
  },
  scaffold_field_malformed: {
    category: 'malformed',
    message:
      'an evidence field fails its type, pattern or allowed-value check, or an object holds a key its field table does not list',
  },
  scaffold_mapping_invalid: {
    category: 'malformed',
    message:
      'the mapping is invalid or empty (or holds a key the mapping format does not list), or the dry run reports an invalid mapping',
  },
  scaffold_fingerprint_recompute_mismatch: {
    category: 'mismatched',
    message: 'a recorded schema fingerprint differs from the value recomputed from the artifact',
  },
  scaffold_mapping_fingerprint_mismatch: {
    category: 'mismatched',
    message: 'the mapping file does not match the mapping recorded in the dry run or run manifest',
  },
  scaffold_schema_confirmation_mismatch: {
    category: 'mismatched',
    message: 'the dry run and the run manifest describe different reviewed schema states',
  },
  scaffold_source_kind_mismatch: {
    category: 'mismatched',
    message: 'the source kind differs between the dry run and the run manifest',
  },
  scaffold_source_identity_unavailable: {
    category: 'missing',
    message: 'a source binding alias is missing from an artifact or from the invocation',
  },
  scaffold_source_identity_mismatch: {
    category: 'mismatched',
    message: 'the source binding alias differs across the dry run, run manifest and invocation',
  },
  scaffold_source_schema_unavailable: {
    category: 'missing',
    message: 'the SQL source schema name is absent or unsafe, or a CSV source records one',
  },
  scaffold_selected_tables_mismatch: {
    category: 'mismatched',
    message: 'the selected tables or their Bronze table pairs differ across the evidence',
  },
  scaffold_destination_mismatch: {
    category: 'mismatched',
    message: 'the destination or the destination type profile differs across the evidence',
  },
  scaffold_namespace_mismatch: {
    category: 'mismatched',
    message: 'the Bronze namespace differs across the evidence or lacks the required prefix',
  },
  scaffold_target_identity_mismatch: {
    category: 'mismatched',
    message: 'the target identity is null, differs across the evidence, or names another namespace',
  },
  scaffold_destination_edition_unbound: {
    category: 'mismatched',
    message: 'the destination does not select a starter edition',
  },
  scaffold_evidence_not_ready: {
    category: 'stale',
    message:
      'the dry run reports a blocker, an unready table, unsafe identifiers or an unverified drift review',
  },
  scaffold_evidence_run_not_completed: {
    category: 'stale',
    message: 'the run is not completed, or its writes may be partial or its load evidence incomplete',
  },
  scaffold_evidence_schema_not_matched: {
    category: 'stale',
    message: 'the run manifest does not confirm that the schema matched at extraction',
  },
  scaffold_evidence_stale: {
    category: 'stale',
    message: 'the run finished longer ago than the maximum evidence age, or in the future',
  },
  scaffold_evidence_freshness_unavailable: {
    category: 'missing',
    message: 'no maximum evidence age was configured, or no completed run manifest anchors freshness',
  },
});

/** Why `synthesizeEvidence` wrote nothing. */
export type SynthRefusalCode =
  | 'evidence_synth_option_invalid'
  | 'evidence_synth_parent_missing'
  | 'evidence_synth_parent_unsafe'
  | 'evidence_synth_parent_not_writable'
  | 'evidence_synth_name_too_long'
  | 'evidence_synth_output_exists'
  | 'evidence_synth_unavailable'
  | 'evidence_synth_write_failed'
  | 'evidence_synth_interrupted';

export const refuseSynth = defineRefusals<SynthRefusalCode>({
  evidence_synth_option_invalid: {
    category: 'malformed',
    message: 'a synthetic evidence option is outside its allowed values',
  },
  evidence_synth_parent_missing: {
    category: 'missing',
    message:
      'the directory that should hold the synthetic evidence directory does not exist, or is not a directory',
  },
  evidence_synth_parent_unsafe: {
    category: 'malformed',
    message: 'the path to the synthetic evidence directory contains a symbolic link',
  },
  evidence_synth_parent_not_writable: {
    category: 'unavailable',
    message:
      'the directory that should hold the synthetic evidence directory is not writable by you, or you may not enter it or a folder above it (their permissions, or a read-only filesystem)',
  },
  evidence_synth_name_too_long: {
    category: 'oversized',
    message:
      'the synthetic evidence directory name is too long: with the staging suffix it gets while written, it exceeds 255 bytes',
  },
  evidence_synth_output_exists: {
    category: 'conflict',
    message: 'the synthetic evidence directory already exists; sealkit never overwrites it',
  },
  evidence_synth_unavailable: {
    category: 'unavailable',
    message: 'owner-only files cannot be written safely on this platform',
  },
  evidence_synth_write_failed: {
    category: 'unavailable',
    message: 'the synthetic evidence could not be written; nothing was published',
  },
  evidence_synth_interrupted: {
    category: 'unavailable',
    message:
      'writing the synthetic evidence was interrupted by a signal; what this run staged was removed and nothing was published',
  },
});
