import { describe, expect, it } from 'vitest';
import { JsonFloat } from '../core/json/index.js';
import { at } from '../core/list/index.js';
import {
  bindBundle,
  type MutableBundle,
  PLANTED,
  retailBundle,
  sentinelBundle,
  summary,
} from './testing/bundles.js';

type Doc = Record<string, unknown>;
type Case = readonly [string, (bundle: MutableBundle) => unknown, string, string | undefined];
const BOUND = { code: 'bound' };

function outcomeAfter(change: (bundle: MutableBundle) => void, source: 'sql' | 'csv' = 'sql') {
  const bundle = retailBundle({ source });
  change(bundle);
  return summary(bindBundle(bundle));
}

const DRY_RUN_REQUIRED = [
  'mode',
  'source',
  'destination',
  'bronze_namespace',
  'target_identity',
  'resolved_tables',
  'destination_tables',
  'inventory',
  'source_schema_snapshot',
  'source_schema_snapshot_algorithm',
  'source_schema_fingerprint',
  'source_schema_fingerprint_algorithm',
  'typed_schema_fingerprint',
  'typed_schema_fingerprint_algorithm',
  'source_mapping_fingerprint',
  'schema_confirmation_fingerprint',
  'schema_confirmation_algorithm',
  'source_mapping_report',
  'normalized_identifier_safety',
  'destination_type_profile',
  'schema_drift_review',
  'blockers',
  'writes_performed',
] as const;

const MANIFEST_REQUIRED = [
  'run_id',
  'status',
  'kind',
  'destination',
  'bronze_namespace',
  'pipeline_name',
  'entities',
  'destination_tables',
  'write_disposition',
  'source_kind',
  'source_identity',
  'target_identity',
  'source_schema_fingerprint',
  'typed_schema_fingerprint',
  'source_mapping_fingerprint',
  'schema_confirmation_fingerprint',
  'source_schema_fingerprint_observed',
  'typed_schema_fingerprint_observed',
  'started_at_utc',
  'finished_at_utc',
  'source_schema_fingerprint_status',
  'typed_schema_fingerprint_status',
  'source_schema_snapshot',
  'source_schema_snapshot_algorithm',
  'source_schema_fingerprint_algorithm',
  'typed_schema_fingerprint_algorithm',
  'schema_confirmation_algorithm',
  'source_mapping_rule_count',
  'destination_type_profile',
  'destination_write_may_be_partial',
] as const;

describe('dry run field table', () => {
  it.each(DRY_RUN_REQUIRED)('refuses the dry run without %s as a missing field', (key) => {
    expect(outcomeAfter((b) => delete b.dryRun[key])).toEqual({
      code: 'scaffold_field_missing',
      role: 'dry_run',
      field: key,
    });
  });

  it.each(DRY_RUN_REQUIRED.filter((key) => key !== 'target_identity' && key !== 'schema_drift_review'))(
    'refuses a null %s as a missing field',
    (key) => {
      expect(outcomeAfter((b) => (b.dryRun[key] = null))).toEqual({
        code: 'scaffold_field_missing',
        role: 'dry_run',
        field: key,
      });
    },
  );

  it('accepts the nullable fields as null at the field table; binding decides', () => {
    expect(outcomeAfter((b) => (b.dryRun.schema_drift_review = null))).toEqual(BOUND);
    expect(outcomeAfter((b) => (b.dryRun.target_identity = null))).toMatchObject({
      code: 'scaffold_target_identity_mismatch',
    });
    const safety = (b: MutableBundle): Doc => b.dryRun.normalized_identifier_safety as Doc;
    const firstTable = (b: MutableBundle): Doc => at(safety(b).tables as Doc[], 0);
    expect(outcomeAfter((b) => (safety(b).safe_to_extract = null))).toEqual({
      code: 'scaffold_evidence_not_ready',
      role: 'dry_run',
      field: 'normalized_identifier_safety.safe_to_extract',
    });
    expect(outcomeAfter((b) => (safety(b).tables = null))).toEqual({
      code: 'scaffold_selected_tables_mismatch',
      role: 'dry_run',
      field: 'normalized_identifier_safety.tables',
    });
    expect(outcomeAfter((b) => (firstTable(b).normalized_destination_table = null))).toEqual({
      code: 'scaffold_selected_tables_mismatch',
      role: 'dry_run',
      field: 'normalized_identifier_safety.tables[].normalized_destination_table',
    });
    expect(outcomeAfter((b) => (firstTable(b).normalized_columns = null))).toEqual({
      code: 'scaffold_evidence_not_ready',
      role: 'dry_run',
      field: 'normalized_identifier_safety.tables[].normalized_columns',
    });
    expect(
      outcomeAfter((b) => (b.dryRun.schema_drift_review = { fresh_confirmation_verified: true })),
    ).toEqual(BOUND);
    expect(
      outcomeAfter((b) => (b.dryRun.schema_drift_review = { fresh_confirmation_verified: false })),
    ).toEqual({
      code: 'scaffold_evidence_not_ready',
      role: 'dry_run',
      field: 'schema_drift_review.fresh_confirmation_verified',
    });
  });

  it.each<Case>([
    [
      'mode apply',
      (b: MutableBundle) => (b.dryRun.mode = 'apply'),
      'scaffold_input_unsupported_version',
      'mode',
    ],
    [
      'a malformed alias',
      (b: MutableBundle) => (b.dryRun.source_binding_id = 'Shop-1'),
      'scaffold_field_malformed',
      'source_binding_id',
    ],
    [
      'a null alias',
      (b: MutableBundle) => (b.dryRun.source_binding_id = null),
      'scaffold_field_malformed',
      'source_binding_id',
    ],
    [
      'an alias of 41 characters',
      (b: MutableBundle) => (b.dryRun.source_binding_id = `a${'b'.repeat(40)}`),
      'scaffold_field_malformed',
      'source_binding_id',
    ],
    [
      'source parquet',
      (b: MutableBundle) => (b.dryRun.source = 'parquet'),
      'scaffold_field_malformed',
      'source',
    ],
    [
      'destination redshift',
      (b: MutableBundle) => (b.dryRun.destination = 'redshift'),
      'scaffold_field_malformed',
      'destination',
    ],
    [
      'an unsafe namespace',
      (b: MutableBundle) => (b.dryRun.bronze_namespace = 'starterkit migration'),
      'scaffold_field_malformed',
      'bronze_namespace',
    ],
    [
      'a target identity without a segment',
      (b: MutableBundle) => (b.dryRun.target_identity = 'project'),
      'scaffold_field_malformed',
      'target_identity',
    ],
    [
      'a target identity ending in a slash',
      (b: MutableBundle) => (b.dryRun.target_identity = 'project/'),
      'scaffold_field_malformed',
      'target_identity',
    ],
    [
      'unsorted resolved tables',
      (b: MutableBundle) => (b.dryRun.resolved_tables as string[]).reverse(),
      'scaffold_field_malformed',
      'resolved_tables',
    ],
    [
      'resolved tables equal ignoring case',
      (b: MutableBundle) => ((b.dryRun.resolved_tables as string[])[1] = 'CUSTOMERS'),
      'scaffold_field_malformed',
      'resolved_tables',
    ],
    [
      'fewer destination tables',
      (b: MutableBundle) => (b.dryRun.destination_tables as string[]).pop(),
      'scaffold_field_malformed',
      'destination_tables',
    ],
    [
      'an upper-case Bronze table',
      (b: MutableBundle) => ((b.dryRun.destination_tables as string[])[0] = 'Customers'),
      'scaffold_field_malformed',
      'destination_tables',
    ],
    [
      'an inventory entry without status',
      (b: MutableBundle) => delete at(b.dryRun.inventory as Doc[], 0).status,
      'scaffold_field_missing',
      'inventory[].status',
    ],
    [
      'an inventory entry with an unknown key',
      (b: MutableBundle) => (at(b.dryRun.inventory as Doc[], 0).owner = 'x'),
      'scaffold_field_malformed',
      'inventory[]',
    ],
    [
      'an unsorted snapshot',
      (b: MutableBundle) => (b.dryRun.source_schema_snapshot as Doc[]).reverse(),
      'scaffold_field_malformed',
      'source_schema_snapshot',
    ],
    [
      'a snapshot column with a raw type',
      (b: MutableBundle) =>
        ((at(b.dryRun.source_schema_snapshot as Doc[], 0).columns as Doc[])[0] = {
          name: 'a',
          type_family: 'BIGINT',
        }),
      'scaffold_field_malformed',
      'source_schema_snapshot[].columns[].type_family',
    ],
    [
      'an empty column name',
      (b: MutableBundle) =>
        ((at(b.dryRun.source_schema_snapshot as Doc[], 0).columns as Doc[])[0] = {
          name: '',
          type_family: 'string',
        }),
      'scaffold_field_malformed',
      'source_schema_snapshot[].columns[].name',
    ],
    [
      'an upper-case fingerprint',
      (b: MutableBundle) =>
        (b.dryRun.source_mapping_fingerprint = String(b.dryRun.source_mapping_fingerprint).toUpperCase()),
      'scaffold_field_malformed',
      'source_mapping_fingerprint',
    ],
    [
      'another confirmation algorithm',
      (b: MutableBundle) => (b.dryRun.schema_confirmation_algorithm = 'sha256-schema-and-mapping-v2'),
      'scaffold_input_unsupported_version',
      'schema_confirmation_algorithm',
    ],
    [
      'mapping report errors',
      (b: MutableBundle) => ((b.dryRun.source_mapping_report as Doc).errors = ['x']),
      'scaffold_mapping_invalid',
      'source_mapping_report.errors',
    ],
    [
      'a reported rule with a bad cast',
      (b: MutableBundle) => (at((b.dryRun.source_mapping_report as Doc).mappings as Doc[], 0).cast = 'money'),
      'scaffold_field_malformed',
      'source_mapping_report.mappings[].cast',
    ],
    [
      'safe_to_extract as a string',
      (b: MutableBundle) => ((b.dryRun.normalized_identifier_safety as Doc).safe_to_extract = 'true'),
      'scaffold_field_malformed',
      'normalized_identifier_safety.safe_to_extract',
    ],
    [
      'a repeated normalized column name',
      (b: MutableBundle) => {
        const table = at((b.dryRun.normalized_identifier_safety as Doc).tables as Doc[], 0);
        (table.normalized_columns as Doc[]).push({ ...at(table.normalized_columns as Doc[], 0) });
      },
      'scaffold_field_malformed',
      'normalized_identifier_safety.tables[].normalized_columns[].name',
    ],
    [
      'another type profile algorithm',
      (b: MutableBundle) => ((b.dryRun.destination_type_profile as Doc).algorithm = 'x'),
      'scaffold_input_unsupported_version',
      'destination_type_profile.algorithm',
    ],
    [
      'a blocker that is not text',
      (b: MutableBundle) => (b.dryRun.blockers as unknown[]).push(1),
      'scaffold_field_malformed',
      'blockers',
    ],
    [
      'writes performed',
      (b: MutableBundle) => (b.dryRun.writes_performed = true),
      'scaffold_field_malformed',
      'writes_performed',
    ],
    [
      'regression: an unknown top-level key, placed at top_level_keys',
      (b: MutableBundle) => (b.dryRun.report_version = 2),
      'scaffold_field_malformed',
      'top_level_keys',
    ],
  ])('refuses %s', (_label, change, code, field) => {
    expect(outcomeAfter(change)).toEqual({
      code,
      role: 'dry_run',
      ...(field === undefined ? {} : { field }),
    });
  });
});

describe('run manifest field table (evidence_index._validate_manifest, then the further rows)', () => {
  it.each(MANIFEST_REQUIRED)('refuses the run manifest without %s as a missing field', (key) => {
    expect(outcomeAfter((b) => delete b.runManifest[key])).toEqual({
      code: 'scaffold_field_missing',
      role: 'run_manifest',
      field: key,
    });
  });

  it('treats source_binding_id and load_evidence_incomplete as optional', () => {
    expect(outcomeAfter((b) => delete b.runManifest.load_evidence_incomplete)).toEqual(BOUND);
    expect(outcomeAfter((b) => delete b.runManifest.source_binding_id)).toEqual({
      code: 'scaffold_source_identity_unavailable',
      role: 'run_manifest',
      field: 'source_binding_id',
    });
  });

  it.each<Case>([
    [
      'an upper-case run ID',
      (b: MutableBundle) => (b.runManifest.run_id = String(b.runManifest.run_id).toUpperCase()),
      'scaffold_field_malformed',
      'run_id',
    ],
    [
      'a run ID without hyphens',
      (b: MutableBundle) => (b.runManifest.run_id = String(b.runManifest.run_id).replaceAll('-', '')),
      'scaffold_field_malformed',
      'run_id',
    ],
    [
      'status running',
      (b: MutableBundle) => (b.runManifest.status = 'running'),
      'scaffold_evidence_run_not_completed',
      'status',
    ],
    [
      'another kind',
      (b: MutableBundle) => (b.runManifest.kind = 'evidence_index'),
      'scaffold_field_malformed',
      'kind',
    ],
    [
      'an unsafe pipeline name',
      (b: MutableBundle) => (b.runManifest.pipeline_name = 'my pipeline'),
      'scaffold_field_malformed',
      'pipeline_name',
    ],
    [
      'entities equal ignoring case',
      (b: MutableBundle) => ((b.runManifest.entities as string[])[1] = 'Customers'),
      'scaffold_field_malformed',
      'entities',
    ],
    [
      'write disposition merge',
      (b: MutableBundle) => (b.runManifest.write_disposition = 'merge'),
      'scaffold_field_malformed',
      'write_disposition',
    ],
    [
      'a connection marker',
      (b: MutableBundle) => ((b.runManifest.source_identity as Doc).connection_identity = 'host=db'),
      'scaffold_field_malformed',
      'source_identity.connection_identity',
    ],
    [
      'another identity scope',
      (b: MutableBundle) => ((b.runManifest.source_identity as Doc).identity_scope = 'unique'),
      'scaffold_field_malformed',
      'source_identity.identity_scope',
    ],
    [
      'an identity with an unknown key',
      (b: MutableBundle) => ((b.runManifest.source_identity as Doc).host = 'db'),
      'scaffold_field_malformed',
      'source_identity',
    ],
    [
      'a null target identity',
      (b: MutableBundle) => (b.runManifest.target_identity = null),
      'scaffold_field_missing',
      'target_identity',
    ],
    [
      'a local-time start',
      (b: MutableBundle) => (b.runManifest.started_at_utc = '2025-03-14T09:20:00'),
      'scaffold_field_malformed',
      'started_at_utc',
    ],
    [
      'a non-UTC finish',
      (b: MutableBundle) => (b.runManifest.finished_at_utc = '2025-03-14T10:26:53+01:00'),
      'scaffold_field_malformed',
      'finished_at_utc',
    ],
    [
      'February 30',
      (b: MutableBundle) => (b.runManifest.finished_at_utc = '2025-02-30T00:00:00+00:00'),
      'scaffold_field_malformed',
      'finished_at_utc',
    ],
    [
      'a start after the finish',
      (b: MutableBundle) => (b.runManifest.started_at_utc = '2025-03-14T09:26:53.000001+00:00'),
      'scaffold_field_malformed',
      'started_at_utc',
    ],
    [
      'drift at extraction',
      (b: MutableBundle) => (b.runManifest.typed_schema_fingerprint_status = 'drift_detected'),
      'scaffold_evidence_schema_not_matched',
      'typed_schema_fingerprint_status',
    ],
    [
      'an observed fingerprint that differs',
      (b: MutableBundle) => (b.runManifest.source_schema_fingerprint_observed = '0'.repeat(64)),
      'scaffold_evidence_schema_not_matched',
      'source_schema_fingerprint_observed',
    ],
    [
      'a rule count written as 15.0',
      (b: MutableBundle) => (b.runManifest.source_mapping_rule_count = new JsonFloat('15.0')),
      'scaffold_field_malformed',
      'source_mapping_rule_count',
    ],
    [
      'a negative rule count',
      (b: MutableBundle) => (b.runManifest.source_mapping_rule_count = -1),
      'scaffold_field_malformed',
      'source_mapping_rule_count',
    ],
    [
      'partial writes',
      (b: MutableBundle) => (b.runManifest.destination_write_may_be_partial = true),
      'scaffold_evidence_run_not_completed',
      'destination_write_may_be_partial',
    ],
    [
      'incomplete load evidence',
      (b: MutableBundle) => (b.runManifest.load_evidence_incomplete = true),
      'scaffold_evidence_run_not_completed',
      'load_evidence_incomplete',
    ],
    [
      'load evidence flag as text',
      (b: MutableBundle) => (b.runManifest.load_evidence_incomplete = 'false'),
      'scaffold_field_malformed',
      'load_evidence_incomplete',
    ],
    [
      'regression: an unknown top-level key, placed at top_level_keys',
      (b: MutableBundle) => (b.runManifest.mapping_review = 'approved'),
      'scaffold_field_malformed',
      'top_level_keys',
    ],
  ])('refuses %s', (_label, change, code, field) => {
    expect(outcomeAfter(change)).toEqual({
      code,
      role: 'run_manifest',
      ...(field === undefined ? {} : { field }),
    });
  });

  it.each<readonly [string, (file: Doc) => unknown, string]>([
    [
      'a file name with a slash',
      (f: Doc) => (f.file_name = 'exports/orders.csv'),
      'source_identity.files[].file_name',
    ],
    ['an empty file name', (f: Doc) => (f.file_name = ''), 'source_identity.files[].file_name'],
    ['a negative size', (f: Doc) => (f.size_bytes = -1), 'source_identity.files[].size_bytes'],
    ['a size as text', (f: Doc) => (f.size_bytes = '10'), 'source_identity.files[].size_bytes'],
    ['an unsafe entity', (f: Doc) => (f.entity = 'order items'), 'source_identity.files[].entity'],
  ])('refuses a CSV identity with %s', (_label, change, field) => {
    expect(
      outcomeAfter((b) => change(at((b.runManifest.source_identity as Doc).files as Doc[], 0)), 'csv'),
    ).toEqual({ code: 'scaffold_field_malformed', role: 'run_manifest', field });
  });

  it('accepts a size beyond 2^53 written exactly, and Z as the UTC offset', () => {
    expect(
      outcomeAfter((b) => {
        at((b.runManifest.source_identity as Doc).files as Doc[], 0).size_bytes = 2n ** 60n;
        b.runManifest.finished_at_utc = '2025-03-14T09:26:53Z';
      }, 'csv'),
    ).toEqual(BOUND);
  });
});

describe('ignored fields are never read into the result and never copied anywhere', () => {
  const DRY_RUN_IGNORED = [
    'retail_value_profile',
    'retail_contract_compatibility',
    'extraction_limits',
    'readiness_note',
  ];
  const MANIFEST_IGNORED = [
    'source_row_counts',
    'accepted_extraction_progress',
    'dlt_prepared_row_counts',
    'load_ids',
    'load_package_count',
    'load_job_counts',
    'extraction_reject_summary',
    'extraction_limits',
    'allow_empty_tables',
  ];
  const garbage = { nested: [new JsonFloat('1.5'), null, 'x'], n: 2n ** 70n };

  it('binds whatever the ignored fields hold, or without them', () => {
    expect(
      outcomeAfter((b) => {
        for (const key of DRY_RUN_IGNORED) b.dryRun[key] = garbage;
        for (const key of MANIFEST_IGNORED) b.runManifest[key] = garbage;
        for (const entry of b.dryRun.inventory as Doc[]) {
          entry.row_count = garbage;
          entry.columns = garbage;
        }
        (b.runManifest.source_identity as Doc).note = garbage;
      }),
    ).toEqual(BOUND);
    expect(
      outcomeAfter((b) => {
        for (const key of DRY_RUN_IGNORED) delete b.dryRun[key];
        for (const key of MANIFEST_IGNORED) delete b.runManifest[key];
        for (const entry of b.dryRun.inventory as Doc[]) {
          delete entry.row_count;
          delete entry.columns;
        }
        delete (b.runManifest.source_identity as Doc).note;
      }),
    ).toEqual(BOUND);
  });

  it('returns bound evidence that holds none of the ignored or never-emitted values', () => {
    for (const source of ['sql', 'csv'] as const) {
      const outcome = bindBundle(sentinelBundle({ source }));
      expect(outcome.status).toBe('bound');
      const text = JSON.stringify(outcome);
      for (const planted of [
        PLANTED.schema,
        PLANTED.pipeline,
        PLANTED.project,
        PLANTED.loadId,
        String(PLANTED.rowCount),
        PLANTED.fileName,
        String(PLANTED.sizeBytes),
        PLANTED.dialectType,
        PLANTED.note,
        'starterkit_migration_retail',
      ]) {
        expect(text).not.toContain(planted);
      }
      // The mapped raw source name is the model's subject: it is kept.
      expect(text).toContain(PLANTED.rawColumn);
    }
  });
});
