import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../core/json/index.js';
import { at } from '../core/list/index.js';
import { bindEvidenceDocuments } from './bind-evidence.js';
import {
  ALIAS,
  bindBundle,
  type Invocation,
  MAX_AGE,
  type MutableBundle,
  NOW,
  refingerprint,
  retailBundle,
  summary,
} from './testing/bundles.js';

type Doc = Record<string, unknown>;
type Fault = (bundle: MutableBundle) => Invocation | undefined;

/**
 * Two faults at once: the refusal is always the earlier check's code. Checks
 * run admission (files, then bounds: mapping, dry run, run manifest) → field
 * tables (mapping, dry run, run manifest) → binding steps 1–10.
 */
const faults = {
  mappingOversizedSource: (b) => {
    at((b.mapping.tables as Record<string, Doc[]>).customers as Doc[], 0).source = 's'.repeat(256);
    return undefined;
  },
  dryRunOversizedSnapshot: (b) => {
    b.dryRun.source_schema_snapshot = Array.from({ length: 1001 }, () => ({}));
    return undefined;
  },
  manifestOversizedEntities: (b) => {
    b.runManifest.entities = Array.from({ length: 1001 }, (_, i) => `e${i}`);
    return undefined;
  },
  mappingVersion: (b) => {
    b.mapping.version = 2;
    return undefined;
  },
  mappingBadCast: (b) => {
    at((b.mapping.tables as Record<string, Doc[]>).customers as Doc[], 0).cast = 'float';
    return undefined;
  },
  dryRunMode: (b) => {
    b.dryRun.mode = 'apply';
    return undefined;
  },
  dryRunMissingNamespace: (b) => {
    delete b.dryRun.bronze_namespace;
    return undefined;
  },
  manifestStatus: (b) => {
    b.runManifest.status = 'running';
    return undefined;
  },
  manifestKind: (b) => {
    b.runManifest.kind = 'evidence_index';
    return undefined;
  },
  manifestSchemaStatus: (b) => {
    b.runManifest.typed_schema_fingerprint_status = 'drift_detected';
    return undefined;
  },
  manifestWriteDisposition: (b) => {
    b.runManifest.write_disposition = 'merge';
    return undefined;
  },
  manifestUnknownKey: (b) => {
    b.runManifest.operator_comment = 'x';
    return undefined;
  },
  step1: (b) => {
    const snapshot = b.dryRun.source_schema_snapshot as Doc[];
    (at(snapshot, 0).columns as Doc[]).pop();
    return undefined;
  },
  step2: (b) => {
    at((b.mapping.tables as Record<string, Doc[]>).customers as Doc[], 0).cast = 'string';
    return undefined;
  },
  step3: (b) => {
    const snapshot = b.runManifest.source_schema_snapshot as Doc[];
    (at(snapshot, 1).columns as Doc[]).push({ name: 'Extra', type_family: 'string' });
    refingerprint(b.runManifest);
    return undefined;
  },
  step4: (b) => {
    b.runManifest.source_kind = 'csv';
    return undefined;
  },
  step5: (b) => {
    delete b.dryRun.source_binding_id;
    return undefined;
  },
  step6: (b) => {
    (b.runManifest.source_identity as Doc).schema = 'not safe';
    return undefined;
  },
  step7: (b) => {
    (b.runManifest.destination_tables as string[])[0] = 'other_table';
    return undefined;
  },
  step8: (b) => {
    (b.runManifest.destination_type_profile as Doc).name = 'other-profile';
    return undefined;
  },
  step9: (b) => {
    (b.dryRun.inventory as Doc[])[0] = { table: 'customers', status: 'missing' };
    return undefined;
  },
  step10: () => ({ maxAge: undefined }),
} satisfies Record<string, Fault>;

type FaultName = keyof typeof faults;

function outcome(...names: FaultName[]) {
  const bundle = retailBundle();
  let invocation: Invocation = {};
  for (const name of names) invocation = { ...invocation, ...(faults[name](bundle) ?? {}) };
  return summary(bindBundle(bundle, invocation));
}

describe('each fault alone gives its own code', () => {
  it.each([
    ['mappingOversizedSource', 'scaffold_input_oversized'],
    ['dryRunOversizedSnapshot', 'scaffold_input_oversized'],
    ['manifestOversizedEntities', 'scaffold_input_oversized'],
    ['mappingVersion', 'scaffold_input_unsupported_version'],
    ['mappingBadCast', 'scaffold_mapping_invalid'],
    ['dryRunMode', 'scaffold_input_unsupported_version'],
    ['dryRunMissingNamespace', 'scaffold_field_missing'],
    ['manifestStatus', 'scaffold_evidence_run_not_completed'],
    ['manifestKind', 'scaffold_field_malformed'],
    ['manifestSchemaStatus', 'scaffold_evidence_schema_not_matched'],
    ['manifestWriteDisposition', 'scaffold_field_malformed'],
    ['manifestUnknownKey', 'scaffold_field_malformed'],
    ['step1', 'scaffold_fingerprint_recompute_mismatch'],
    ['step2', 'scaffold_mapping_fingerprint_mismatch'],
    ['step3', 'scaffold_schema_confirmation_mismatch'],
    ['step4', 'scaffold_source_kind_mismatch'],
    ['step5', 'scaffold_source_identity_unavailable'],
    ['step6', 'scaffold_source_schema_unavailable'],
    ['step7', 'scaffold_selected_tables_mismatch'],
    ['step8', 'scaffold_destination_mismatch'],
    ['step9', 'scaffold_evidence_not_ready'],
    ['step10', 'scaffold_evidence_freshness_unavailable'],
  ] as const)('%s → %s', (name, code) => {
    expect(outcome(name).code).toBe(code);
  });
});

describe('two faults at once give the earlier check', () => {
  it.each([
    // Admission before field tables; within admission mapping, dry run, run manifest.
    ['dryRunOversizedSnapshot', 'mappingVersion', { code: 'scaffold_input_oversized', role: 'dry_run' }],
    [
      'manifestOversizedEntities',
      'mappingBadCast',
      { code: 'scaffold_input_oversized', role: 'run_manifest' },
    ],
    [
      'mappingOversizedSource',
      'dryRunOversizedSnapshot',
      { code: 'scaffold_input_oversized', role: 'mapping' },
    ],
    [
      'dryRunOversizedSnapshot',
      'manifestOversizedEntities',
      { code: 'scaffold_input_oversized', role: 'dry_run' },
    ],
    // Field tables in role order, and rows in the order of
    // docs/evidence.md#field-tables within a role.
    ['mappingBadCast', 'dryRunMissingNamespace', { code: 'scaffold_mapping_invalid', role: 'mapping' }],
    ['dryRunMissingNamespace', 'manifestStatus', { code: 'scaffold_field_missing', role: 'dry_run' }],
    ['dryRunMode', 'dryRunMissingNamespace', { code: 'scaffold_input_unsupported_version', role: 'dry_run' }],
    ['mappingVersion', 'mappingBadCast', { code: 'scaffold_input_unsupported_version', role: 'mapping' }],
    ['manifestStatus', 'manifestKind', { code: 'scaffold_evidence_run_not_completed', role: 'run_manifest' }],
    [
      'manifestWriteDisposition',
      'manifestSchemaStatus',
      { code: 'scaffold_field_malformed', role: 'run_manifest' },
    ],
    [
      'manifestSchemaStatus',
      'manifestUnknownKey',
      { code: 'scaffold_evidence_schema_not_matched', role: 'run_manifest' },
    ],
    // Field tables before binding.
    ['manifestWriteDisposition', 'step1', { code: 'scaffold_field_malformed', role: 'run_manifest' }],
    ['manifestSchemaStatus', 'step2', { code: 'scaffold_evidence_schema_not_matched', role: 'run_manifest' }],
    ['manifestUnknownKey', 'step10', { code: 'scaffold_field_malformed', role: 'run_manifest' }],
    // Binding steps in order.
    ['step1', 'step2', { code: 'scaffold_fingerprint_recompute_mismatch', role: 'dry_run' }],
    ['step2', 'step3', { code: 'scaffold_mapping_fingerprint_mismatch', role: 'dry_run' }],
    ['step3', 'step4', { code: 'scaffold_schema_confirmation_mismatch', role: 'run_manifest' }],
    ['step4', 'step5', { code: 'scaffold_source_kind_mismatch', role: 'run_manifest' }],
    ['step5', 'step6', { code: 'scaffold_source_identity_unavailable', role: 'dry_run' }],
    ['step6', 'step7', { code: 'scaffold_source_schema_unavailable', role: 'run_manifest' }],
    ['step7', 'step8', { code: 'scaffold_selected_tables_mismatch', role: 'run_manifest' }],
    ['step8', 'step9', { code: 'scaffold_destination_mismatch', role: 'run_manifest' }],
    ['step9', 'step10', { code: 'scaffold_evidence_not_ready', role: 'dry_run' }],
  ] as const)('%s + %s', (first, second, expected) => {
    expect(outcome(first, second)).toMatchObject(expected);
    expect(outcome(second, first)).toMatchObject(expected);
  });
});

describe('order of the supplied-role checks', () => {
  const invocation = { sourceBindingId: ALIAS, maxAge: MAX_AGE, now: NOW };
  it('refuses a missing mapping, then a missing dry run, before a dry-run-only bundle', () => {
    const { dryRun } = retailBundle();
    expect(
      summary(
        bindEvidenceDocuments({ mapping: undefined, dryRun: undefined, runManifest: undefined }, invocation),
      ),
    ).toEqual({
      code: 'scaffold_input_missing',
      role: 'mapping',
    });
    const { mapping } = retailBundle();
    expect(
      summary(
        bindEvidenceDocuments(
          { mapping: mapping as JsonObject, dryRun: undefined, runManifest: undefined },
          invocation,
        ),
      ),
    ).toEqual({
      code: 'scaffold_input_missing',
      role: 'dry_run',
    });
    expect(
      summary(
        bindEvidenceDocuments(
          { mapping: mapping as JsonObject, dryRun: dryRun as JsonObject, runManifest: undefined },
          invocation,
        ),
      ),
    ).toEqual({ code: 'scaffold_evidence_freshness_unavailable', role: 'run_manifest' });
  });
});
