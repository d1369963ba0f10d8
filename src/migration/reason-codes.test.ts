import {
  chmodSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../test/helpers/cli.js';
import { collectTree, scanForSentinels } from '../../test/helpers/sentinels.js';
import { sha256Hex } from '../core/digest/index.js';
import { at } from '../core/list/index.js';
import { type EvidenceRefusalCode, refuseEvidence } from './refusals.js';
import {
  ALIAS,
  type BundlePaths,
  bindFiles,
  type Invocation,
  type MutableBundle,
  type PathChoice,
  refingerprint,
  sentinelBundle,
  sentinelsOf,
  summary,
  writeBundle,
} from './testing/bundles.js';

type Doc = Record<string, unknown>;

/**
 * One fixture per reason code (several for the admission codes, one per
 * role), each made by mutating the synthetic retail bundle. Every fixture
 * runs through the library on real files and through the built CLI, which
 * must print the same code, role and field and none of the planted values.
 */
interface Fixture {
  readonly name: string;
  readonly expected: { readonly code: EvidenceRefusalCode; readonly role?: string; readonly field?: string };
  readonly source?: 'sql' | 'csv';
  readonly mutate?: (bundle: MutableBundle) => void;
  /** File-level changes after the bundle is written; may replace paths. */
  readonly files?: (paths: BundlePaths) => PathChoice | undefined;
  readonly invocation?: Invocation;
  /** Extra sentinels planted by this fixture. */
  readonly planted?: readonly string[];
}

function rules(bundle: MutableBundle, table = 'customers'): Doc[] {
  const found = (bundle.mapping.tables as Record<string, Doc[]>)[table];
  if (found === undefined) throw new Error(`the bundle maps no table ${table}`);
  return found;
}

const FIXTURES: readonly Fixture[] = [
  // Admission: files.
  {
    name: 'the mapping file does not exist',
    expected: { code: 'scaffold_input_missing', role: 'mapping' },
    files: (paths) => ({ mappingFile: join(paths.dir, 'zqx_absent_mapping.json') }),
    planted: ['zqx_absent_mapping'],
  },
  {
    name: 'the dry run is not supplied',
    expected: { code: 'scaffold_input_missing', role: 'dry_run' },
    files: () => ({ dryRunFile: undefined }),
  },
  {
    name: 'the run manifest file does not exist',
    expected: { code: 'scaffold_input_missing', role: 'run_manifest' },
    files: (paths) => {
      unlinkSync(paths.runManifestFile);
      return undefined;
    },
  },
  {
    name: 'the dry run is readable by the group',
    expected: { code: 'scaffold_input_not_private', role: 'dry_run' },
    files: (paths) => {
      chmodSync(paths.dryRunFile, 0o640);
      return undefined;
    },
  },
  {
    name: 'the mapping file is a symlink to a valid mapping',
    expected: { code: 'scaffold_input_not_private', role: 'mapping' },
    files: (paths) => {
      const real = join(paths.dir, 'zqx_real_mapping.json');
      writeFileSync(real, '{}');
      unlinkSync(paths.mappingFile);
      symlinkSync(real, paths.mappingFile);
      return undefined;
    },
  },
  {
    name: 'the run manifest has a second hard link',
    expected: { code: 'scaffold_input_not_private', role: 'run_manifest' },
    files: (paths) => {
      linkSync(paths.runManifestFile, join(paths.dir, 'zqx_second_link.json'));
      return undefined;
    },
  },
  {
    name: 'the dry run sits in a directory others may list',
    expected: { code: 'scaffold_input_not_private', role: 'dry_run' },
    files: (paths) => {
      chmodSync(paths.dir, 0o755);
      return undefined;
    },
  },
  {
    name: 'the dry run is owned by another user',
    expected: { code: 'scaffold_input_not_private', role: 'dry_run' },
    files: () => ({
      dryRunFile:
        process.env.SEALKIT_ROOT_FIXTURES === undefined
          ? '/etc/passwd'
          : join(process.env.SEALKIT_ROOT_FIXTURES, 'foreign-owned.json'),
    }),
  },
  {
    name: 'regression: the mapping file cannot be read by its owner',
    expected: { code: 'scaffold_input_unreadable', role: 'mapping' },
    // Outside the bundle folder, whose files the test reads back to prove nothing was written.
    files: () => {
      const elsewhere = mkdtempSync(join(tmpdir(), 'sealkit-evidence-unreadable-'));
      roots.push(elsewhere);
      const mappingFile = join(elsewhere, 'zqx_unreadable_mapping.json');
      writeFileSync(mappingFile, '{}', { mode: 0o000 });
      return { mappingFile };
    },
    planted: ['zqx_unreadable_mapping'],
  },
  {
    name: 'regression: a directory is given as the mapping file',
    expected: { code: 'scaffold_input_not_regular', role: 'mapping' },
    files: (paths) => {
      const folder = join(paths.dir, 'zqx_mapping_folder');
      mkdirSync(folder);
      return { mappingFile: folder };
    },
    planted: ['zqx_mapping_folder'],
  },
  {
    name: 'a directory is given as the dry run',
    expected: { code: 'scaffold_input_not_regular', role: 'dry_run' },
    files: (paths) => {
      const folder = join(paths.dir, 'zqx_dry_run_folder');
      mkdirSync(folder, { mode: 0o700 });
      return { dryRunFile: folder };
    },
    planted: ['zqx_dry_run_folder'],
  },
  {
    name: 'the mapping file exceeds 1 MiB',
    expected: { code: 'scaffold_input_oversized', role: 'mapping' },
    files: (paths) => {
      writeFileSync(paths.mappingFile, `{}${' '.repeat(1024 * 1024 - 1)}`);
      return undefined;
    },
  },
  {
    name: 'the snapshot lists more than 1,000 tables',
    expected: { code: 'scaffold_input_oversized', role: 'run_manifest', field: 'source_schema_snapshot' },
    mutate: (bundle) => {
      bundle.runManifest.source_schema_snapshot = Array.from({ length: 1001 }, () => ({}));
    },
  },
  {
    name: 'the run manifest repeats a key',
    expected: { code: 'scaffold_input_malformed', role: 'run_manifest' },
    files: (paths) => {
      writeFileSync(paths.runManifestFile, '{"zqx_dup_key": 1, "zqx_dup_key": 2}', { mode: 0o600 });
      return undefined;
    },
    planted: ['zqx_dup_key'],
  },
  {
    name: 'the dry run is not UTF-8',
    expected: { code: 'scaffold_input_malformed', role: 'dry_run' },
    files: (paths) => {
      writeFileSync(paths.dryRunFile, Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]), {
        mode: 0o600,
      });
      return undefined;
    },
  },
  {
    name: 'the mapping is a JSON array',
    expected: { code: 'scaffold_input_malformed', role: 'mapping' },
    files: (paths) => {
      writeFileSync(paths.mappingFile, '[]');
      return undefined;
    },
  },
  // Field tables.
  {
    name: 'the mapping declares version 2',
    expected: { code: 'scaffold_input_unsupported_version', role: 'mapping', field: 'version' },
    mutate: (bundle) => {
      bundle.mapping.version = 2;
    },
  },
  {
    name: 'the dry run names another snapshot algorithm',
    expected: {
      code: 'scaffold_input_unsupported_version',
      role: 'dry_run',
      field: 'source_schema_snapshot_algorithm',
    },
    mutate: (bundle) => {
      bundle.dryRun.source_schema_snapshot_algorithm = 'zqx-snapshot-v9';
    },
    planted: ['zqx-snapshot-v9'],
  },
  {
    name: 'the dry run lacks its Bronze namespace',
    expected: { code: 'scaffold_field_missing', role: 'dry_run', field: 'bronze_namespace' },
    mutate: (bundle) => {
      delete bundle.dryRun.bronze_namespace;
    },
  },
  {
    name: 'the run manifest appends instead of replacing',
    expected: { code: 'scaffold_field_malformed', role: 'run_manifest', field: 'write_disposition' },
    mutate: (bundle) => {
      bundle.runManifest.write_disposition = 'zqx_append';
    },
    planted: ['zqx_append'],
  },
  {
    name: 'the run manifest is named after another run',
    expected: { code: 'scaffold_field_malformed', role: 'run_manifest', field: 'run_id' },
    mutate: (bundle) => {
      bundle.runManifest.run_id = '00000000-0000-4000-8000-000000000000';
    },
  },
  {
    name: 'a mapping rule casts to float',
    expected: { code: 'scaffold_mapping_invalid', role: 'mapping', field: 'tables[].cast' },
    mutate: (bundle) => {
      at(rules(bundle), 0).cast = 'zqx_float';
    },
    planted: ['zqx_float'],
  },
  {
    name: 'the dry run reports an invalid mapping',
    expected: { code: 'scaffold_mapping_invalid', role: 'dry_run', field: 'source_mapping_report.valid' },
    mutate: (bundle) => {
      (bundle.dryRun.source_mapping_report as Doc).valid = false;
    },
  },
  {
    name: 'the run manifest did not complete',
    expected: { code: 'scaffold_evidence_run_not_completed', role: 'run_manifest', field: 'status' },
    mutate: (bundle) => {
      bundle.runManifest.status = 'failed';
    },
  },
  {
    name: 'the run manifest may have partial writes',
    expected: {
      code: 'scaffold_evidence_run_not_completed',
      role: 'run_manifest',
      field: 'destination_write_may_be_partial',
    },
    mutate: (bundle) => {
      bundle.runManifest.destination_write_may_be_partial = true;
    },
  },
  {
    name: 'the schema drifted at extraction',
    expected: {
      code: 'scaffold_evidence_schema_not_matched',
      role: 'run_manifest',
      field: 'source_schema_fingerprint_status',
    },
    mutate: (bundle) => {
      bundle.runManifest.source_schema_fingerprint_status = 'drift_detected';
    },
  },
  // Binding steps.
  {
    name: 'a snapshot column was renamed without recomputing the fingerprints (step 1)',
    expected: {
      code: 'scaffold_fingerprint_recompute_mismatch',
      role: 'dry_run',
      field: 'source_schema_fingerprint',
    },
    mutate: (bundle) => {
      const snapshot = bundle.dryRun.source_schema_snapshot as Doc[];
      (at(snapshot, 0).columns as Doc[])[0] = { name: 'Zqx Renamed', type_family: 'integer' };
    },
    planted: ['Zqx Renamed'],
  },
  {
    name: 'the mapping file changed after the dry run (step 2)',
    expected: {
      code: 'scaffold_mapping_fingerprint_mismatch',
      role: 'dry_run',
      field: 'source_mapping_fingerprint',
    },
    mutate: (bundle) => {
      at(rules(bundle), 0).cast = 'string';
    },
  },
  {
    name: 'the run manifest records another reviewed schema (step 3)',
    expected: {
      code: 'scaffold_schema_confirmation_mismatch',
      role: 'run_manifest',
      field: 'schema_confirmation_fingerprint',
    },
    mutate: (bundle) => {
      // A load of the same mapping over a source with one extra (unmapped) column.
      const snapshot = bundle.runManifest.source_schema_snapshot as Doc[];
      (at(snapshot, 0).columns as Doc[]).push({ name: 'Zqx Extra Column', type_family: 'string' });
      refingerprint(bundle.runManifest);
    },
    planted: ['Zqx Extra Column'],
  },
  {
    name: 'the run manifest says CSV where the dry run says SQL (step 4)',
    expected: { code: 'scaffold_source_kind_mismatch', role: 'run_manifest', field: 'source_kind' },
    mutate: (bundle) => {
      bundle.runManifest.source_kind = 'csv';
    },
  },
  {
    name: 'the run manifest lacks the source binding alias (step 5)',
    expected: {
      code: 'scaffold_source_identity_unavailable',
      role: 'run_manifest',
      field: 'source_binding_id',
    },
    mutate: (bundle) => {
      delete bundle.runManifest.source_binding_id;
    },
  },
  {
    name: 'the invocation names another source binding alias (step 5)',
    expected: { code: 'scaffold_source_identity_mismatch', field: 'source_binding_id' },
    invocation: { sourceBindingId: 'zqx_other_alias' },
    planted: ['zqx_other_alias'],
  },
  {
    name: 'the SQL manifest lacks its source schema (step 6)',
    expected: {
      code: 'scaffold_source_schema_unavailable',
      role: 'run_manifest',
      field: 'source_identity.schema',
    },
    mutate: (bundle) => {
      delete (bundle.runManifest.source_identity as Doc).schema;
    },
  },
  {
    name: 'a CSV manifest records a source schema (step 6)',
    source: 'csv',
    expected: {
      code: 'scaffold_source_schema_unavailable',
      role: 'run_manifest',
      field: 'source_identity.schema',
    },
    mutate: (bundle) => {
      (bundle.runManifest.source_identity as Doc).schema = 'zqx_csv_schema';
    },
    planted: ['zqx_csv_schema'],
  },
  {
    name: 'the run manifest loaded another entity (step 7)',
    expected: { code: 'scaffold_selected_tables_mismatch', role: 'run_manifest', field: 'entities' },
    mutate: (bundle) => {
      (bundle.runManifest.entities as string[])[0] = 'zqx_other_entity';
    },
    planted: ['zqx_other_entity'],
  },
  {
    name: 'regression: a selected table has no inventory entry (step 7)',
    expected: { code: 'scaffold_selected_tables_mismatch', role: 'dry_run', field: 'inventory[].table' },
    mutate: (bundle) => {
      bundle.dryRun.inventory = (bundle.dryRun.inventory as Doc[]).slice(1);
    },
  },
  {
    name: 'regression: the dry run has an empty inventory (step 7)',
    expected: { code: 'scaffold_selected_tables_mismatch', role: 'dry_run', field: 'inventory[].table' },
    mutate: (bundle) => {
      bundle.dryRun.inventory = [];
    },
  },
  {
    name: 'regression: a ready inventory entry names a table that is not selected (step 7)',
    expected: { code: 'scaffold_selected_tables_mismatch', role: 'dry_run', field: 'inventory[].table' },
    mutate: (bundle) => {
      (bundle.dryRun.inventory as Doc[]).push({ table: 'zqx_unselected_table', status: 'empty' });
    },
    planted: ['zqx_unselected_table'],
  },
  {
    name: 'the run manifest loaded into Snowflake (step 8)',
    expected: { code: 'scaffold_destination_mismatch', role: 'run_manifest', field: 'destination' },
    mutate: (bundle) => {
      bundle.runManifest.destination = 'snowflake';
    },
  },
  {
    name: 'the Bronze namespace lacks the starterkit prefix (step 8)',
    expected: { code: 'scaffold_namespace_mismatch', role: 'dry_run', field: 'bronze_namespace' },
    mutate: (bundle) => {
      for (const doc of [bundle.dryRun, bundle.runManifest]) {
        doc.bronze_namespace = 'zqx_bronze_ns';
        doc.target_identity = `${String(doc.target_identity).split('/')[0]}/zqx_bronze_ns`;
      }
    },
    planted: ['zqx_bronze_ns'],
  },
  {
    name: 'the dry run has no target identity (step 8)',
    expected: { code: 'scaffold_target_identity_mismatch', role: 'dry_run', field: 'target_identity' },
    mutate: (bundle) => {
      bundle.dryRun.target_identity = null;
    },
  },
  {
    name: 'the destination is DuckDB (step 8)',
    expected: { code: 'scaffold_destination_edition_unbound', role: 'dry_run', field: 'destination' },
    mutate: (bundle) => {
      for (const doc of [bundle.dryRun, bundle.runManifest]) {
        doc.destination = 'duckdb';
        (doc.destination_type_profile as Doc).destination = 'duckdb';
      }
    },
  },
  {
    name: 'the dry run reports an unexpected blocker (step 9)',
    expected: { code: 'scaffold_evidence_not_ready', role: 'dry_run', field: 'blockers' },
    mutate: (bundle) => {
      (bundle.dryRun.blockers as string[]).push('zqx_source_unreachable');
    },
    planted: ['zqx_source_unreachable'],
  },
  {
    name: 'a selected table is not ready (step 9)',
    expected: { code: 'scaffold_evidence_not_ready', role: 'dry_run', field: 'inventory[].status' },
    mutate: (bundle) => {
      at(bundle.dryRun.inventory as Doc[], 0).status = 'zqx_error_status';
    },
    planted: ['zqx_error_status'],
  },
  {
    name: 'an inventory entry outside the selection is not ready (step 9)',
    expected: { code: 'scaffold_evidence_not_ready', role: 'dry_run', field: 'inventory[].status' },
    mutate: (bundle) => {
      (bundle.dryRun.inventory as Doc[]).push({ table: 'zqx_missing_table', status: 'missing' });
    },
    planted: ['zqx_missing_table'],
  },
  {
    name: 'the run finished longer ago than the maximum age (step 10)',
    expected: { code: 'scaffold_evidence_stale', role: 'run_manifest', field: 'finished_at_utc' },
    invocation: { maxAge: 1800 },
  },
  {
    name: 'the run finishes in the future (step 10)',
    expected: { code: 'scaffold_evidence_stale', role: 'run_manifest', field: 'finished_at_utc' },
    mutate: (bundle) => {
      bundle.runManifest.started_at_utc = '2099-01-01T00:00:00+00:00';
      bundle.runManifest.finished_at_utc = '2099-01-01T00:10:00+00:00';
    },
  },
  {
    name: 'no maximum evidence age is configured (step 10)',
    expected: { code: 'scaffold_evidence_freshness_unavailable', field: 'max_evidence_age' },
    invocation: { maxAge: undefined },
  },
  {
    name: 'a dry-run-only bundle has no run manifest to anchor freshness',
    expected: { code: 'scaffold_evidence_freshness_unavailable', role: 'run_manifest' },
    files: () => ({ runManifestFile: undefined }),
  },
];

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) {
    chmodSync(root, 0o700);
    rmSync(root, { recursive: true, force: true });
  }
});

function prepare(fixture: Fixture): { paths: PathChoice; sentinels: string[]; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'sealkit-evidence-code-'));
  roots.push(dir);
  const bundle = sentinelBundle({ source: fixture.source ?? 'sql' });
  fixture.mutate?.(bundle);
  const written = writeBundle(join(dir, 'zqx_bundle_dir'), bundle);
  const replaced = fixture.files?.(written) ?? {};
  return {
    paths: { ...written, ...replaced },
    sentinels: [
      ...sentinelsOf(bundle),
      ...(fixture.planted ?? []),
      dir,
      'zqx_bundle_dir',
      'customers',
      'order_items',
    ],
    dir,
  };
}

/** Every name and file digest under `dir`: what "nothing written" is checked against. */
function treeDigest(dir: string): string[] {
  return collectTree(dir).map((source) => `${source.label} ${sha256Hex(source.bytes)}`);
}

function cliArgs(paths: PathChoice, invocation: Invocation, json: boolean): string[] {
  const args = ['evidence', 'check'];
  if (paths.mappingFile !== undefined) args.push('--mapping-file', paths.mappingFile);
  if (paths.dryRunFile !== undefined) args.push('--inventory-file', paths.dryRunFile);
  if (paths.runManifestFile !== undefined) args.push('--run-manifest', paths.runManifestFile);
  const alias = 'sourceBindingId' in invocation ? invocation.sourceBindingId : ALIAS;
  if (alias !== undefined) args.push('--source-binding-id', alias);
  // The CLI runs on the real clock: ten years keeps the 2025 fixtures fresh.
  const maxAge = 'maxAge' in invocation ? invocation.maxAge : 3650 * 86_400;
  if (maxAge !== undefined) args.push('--max-evidence-age', String(maxAge));
  if (json) args.push('--json');
  return args;
}

describe('every reason code has a fixture made by mutating a synthetic bundle', () => {
  it('covers the reason-code table exactly', () => {
    const covered = new Set(FIXTURES.map((fixture) => fixture.expected.code));
    expect([...covered].sort()).toEqual([...refuseEvidence.codes].sort());
    expect(refuseEvidence.codes).toHaveLength(27);
  });

  it.each(FIXTURES.map((fixture) => [fixture.name, fixture] as const))('%s', (_name, fixture) => {
    const { paths, sentinels, dir } = prepare(fixture);
    const invocation = fixture.invocation ?? {};
    expect(summary(bindFiles(paths, invocation))).toEqual(fixture.expected);

    const before = treeDigest(dir);
    const json = runCli(cliArgs(paths, invocation, true));
    expect({ status: json.status, stderr: json.stderr.toString() }).toEqual({ status: 2, stderr: '' });
    const { code, ...place } = fixture.expected;
    expect(JSON.parse(json.stdout.toString())).toStrictEqual({
      status: 'refused',
      reason_code: code,
      category: refuseEvidence.table[code].category,
      message: refuseEvidence.table[code].message,
      ...place,
    });
    const human = runCli(cliArgs(paths, invocation, false));
    expect({ status: human.status, stdout: human.stdout.toString() }).toEqual({ status: 2, stdout: '' });
    expect(human.stdout.length).toBe(0);
    expect(human.stderr.toString()).toBe(
      `error[${fixture.expected.code}]: ${refuseEvidence.table[fixture.expected.code].message}\n${
        'role' in place && place.role !== undefined ? `  = in: ${place.role}\n` : ''
      }${'field' in place && place.field !== undefined ? `  = field: ${place.field}\n` : ''}`,
    );
    for (const run of [json, human]) expect(scanForSentinels(run, [], sentinels)).toEqual([]);
    // A check never writes: the tree is byte-for-byte what it was.
    expect(treeDigest(dir)).toEqual(before);
    expect(readdirSync(dir)).toEqual(['zqx_bundle_dir']);
  });
});

describe('a successful check', () => {
  it('prints the bound tables and none of the planted never-emitted values', () => {
    for (const source of ['sql', 'csv'] as const) {
      const { paths, sentinels, dir } = prepare({
        name: 'bound',
        expected: { code: 'scaffold_input_missing' },
        source,
      });
      expect(summary(bindFiles(paths))).toEqual({ code: 'bound' });
      // Table names are the model's subject and are printed; everything else planted must not be.
      const hidden = sentinels.filter((sentinel) => sentinel !== 'customers' && sentinel !== 'order_items');
      for (const json of [true, false]) {
        const run = runCli(cliArgs(paths, {}, json));
        expect({ status: run.status, stderr: run.stderr.toString() }).toEqual({ status: 0, stderr: '' });
        expect(run.stdout.toString()).toContain('order_items');
        expect(scanForSentinels(run, [], hidden)).toEqual([]);
      }
      expect(readdirSync(dir)).toEqual(['zqx_bundle_dir']);
    }
  });
});
