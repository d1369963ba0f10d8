// Test support: synthetic bundles in memory and as real owner-only files.
// Compiled with the package but not exported from its API.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Sha256Hex } from '../../core/digest/index.js';
import type { JsonObject } from '../../core/json/index.js';
import { bindEvidence, bindEvidenceDocuments, type EvidenceOutcome } from '../bind-evidence.js';
import {
  schemaConfirmationFingerprint,
  sourceSchemaFingerprint,
  typedSchemaFingerprint,
} from '../fingerprints.js';
import {
  type Cast,
  type Destination,
  fold,
  type SafeIdentifier,
  type SourceKind,
  type TypeFamily,
} from '../identifiers.js';
import { type BundleSpec, buildEvidenceBundle, type SynthTableSpec } from '../synth/bundle.js';
import { bundleSpecFor, renderJson } from '../synth/plan.js';
import { type EpochMicros, parseUtcTimestamp } from '../timestamps.js';

export const FINISHED_AT = '2025-03-14T09:26:53+00:00';
export const ALIAS = 'synthetic_retail';
/** One hour after the run finished: fresh for any maximum age of at least an hour. */
export const NOW = new Date(Date.UTC(2025, 2, 14, 10, 26, 53));
export const MAX_AGE = 86_400;

/** A bundle whose three documents are plain, freely mutable objects. */
export interface MutableBundle {
  mapping: Record<string, unknown>;
  dryRun: Record<string, unknown>;
  runManifest: Record<string, unknown>;
  runId: string;
}

export function retailSpec(
  options: { source?: SourceKind; destination?: Destination; tables?: readonly string[]; seed?: number } = {},
): BundleSpec {
  return bundleSpecFor({
    source: options.source ?? 'sql',
    destination: options.destination ?? 'bigquery',
    tables: options.tables,
    seed: options.seed ?? 7,
    finishedAt: FINISHED_AT,
  });
}

/** The canonical retail bundle (SQL → BigQuery unless told otherwise), as mutable JSON values. */
export function retailBundle(options: Parameters<typeof retailSpec>[0] = {}): MutableBundle {
  return fromSpec(retailSpec(options));
}

export function fromSpec(spec: BundleSpec): MutableBundle {
  const bundle = buildEvidenceBundle(spec);
  // Round-trip through text: every mutation starts from exactly what a file would hold.
  const copy = (value: JsonObject): Record<string, unknown> =>
    JSON.parse(renderJson(value)) as Record<string, unknown>;
  return {
    mapping: copy(bundle.mapping),
    dryRun: copy(bundle.dryRun),
    runManifest: copy(bundle.runManifest),
    runId: bundle.runId,
  };
}

/** A spec of `tables` generated tables with `columns` columns each (names `t0000`, `Column 0000`). */
export function generatedSpec(
  tables: number,
  columns: number,
  options: { columnName?: (i: number) => string } = {},
): BundleSpec {
  const base = retailSpec();
  const columnName = options.columnName ?? ((i: number) => `Column ${String(i).padStart(4, '0')}`);
  const specs: SynthTableSpec[] = Array.from({ length: tables }, (_, t) => ({
    table: `t${String(t).padStart(4, '0')}`,
    columns: Array.from({ length: columns }, (_, c) => ({
      raw: columnName(c),
      family: 'integer' as TypeFamily,
      dialectType: 'BIGINT',
      ...(c === 0 ? { rule: { target: 'id', cast: 'integer' as Cast } } : {}),
    })),
  }));
  return { ...base, tables: specs };
}

export interface Invocation {
  readonly sourceBindingId?: string | undefined;
  readonly maxAge?: number | undefined;
  readonly now?: Date | undefined;
}

const DEFAULT_INVOCATION: Invocation = { sourceBindingId: ALIAS, maxAge: MAX_AGE, now: NOW };

/** Binds in memory, from the admission bounds on, exactly as `bindEvidence` does after reading. */
export function bindBundle(bundle: MutableBundle, invocation: Invocation = {}): EvidenceOutcome {
  return bindEvidenceDocuments(
    {
      mapping: bundle.mapping as JsonObject,
      dryRun: bundle.dryRun as JsonObject,
      runManifest: { document: bundle.runManifest as JsonObject, fileName: `${bundle.runId}.json` },
    },
    { ...DEFAULT_INVOCATION, ...invocation },
  );
}

export interface BundlePaths {
  readonly dir: string;
  readonly mappingFile: string;
  readonly dryRunFile: string;
  readonly runManifestFile: string;
}

/**
 * Writes a bundle as the loader would leave it: a 0700 directory, 0600 files,
 * the manifest under run-manifests/<run_id>.json. `raw` replaces a file's bytes.
 */
export function writeBundle(
  dir: string,
  bundle: MutableBundle,
  raw: {
    mapping?: Uint8Array | string;
    dryRun?: Uint8Array | string;
    runManifest?: Uint8Array | string;
  } = {},
): BundlePaths {
  mkdirSync(join(dir, 'run-manifests'), { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  chmodSync(join(dir, 'run-manifests'), 0o700);
  const paths: BundlePaths = {
    dir,
    mappingFile: join(dir, 'mapping.json'),
    dryRunFile: join(dir, 'dry-run.json'),
    runManifestFile: join(dir, 'run-manifests', `${bundle.runId}.json`),
  };
  const text = (value: Record<string, unknown>): string => `${JSON.stringify(value, null, 2)}\n`;
  writeFileSync(paths.mappingFile, raw.mapping ?? text(bundle.mapping), { mode: 0o600 });
  writeFileSync(paths.dryRunFile, raw.dryRun ?? text(bundle.dryRun), { mode: 0o600 });
  writeFileSync(paths.runManifestFile, raw.runManifest ?? text(bundle.runManifest), { mode: 0o600 });
  return paths;
}

/** Paths to bind; an undefined role is one the invocation does not supply. */
export type PathChoice = { readonly [K in keyof BundlePaths]?: string | undefined };

export function bindFiles(paths: PathChoice, invocation: Invocation = {}): EvidenceOutcome {
  return bindEvidence({
    mappingFile: paths.mappingFile,
    dryRunFile: paths.dryRunFile,
    runManifestFile: paths.runManifestFile,
    ...DEFAULT_INVOCATION,
    ...invocation,
  });
}

/** The outcome as `{code, role, field}` (or `bound`), for exact assertions. */
export function summary(outcome: EvidenceOutcome): { code: string; role?: string; field?: string } {
  if (outcome.status === 'bound') return { code: 'bound' };
  const { code, role, field } = outcome.refusal;
  return { code, ...(role === undefined ? {} : { role }), ...(field === undefined ? {} : { field }) };
}

export function finishedAtMicros(): EpochMicros {
  return parseUtcTimestamp(FINISHED_AT) as EpochMicros;
}

/** Planted values a refusal or a successful check must never print (docs/evidence.md#privacy). */
export const PLANTED = {
  rawColumn: 'Zqx Secret Col',
  schema: 'zqx_secret_schema',
  pipeline: 'zqx_secret_pipeline',
  project: 'zqx-secret-project',
  loadId: '1234567890.424242',
  rowCount: 8675309,
  fileName: 'zqx_secret_file.csv',
  sizeBytes: 5550123,
  dialectType: 'ZQX_SECRET_TYPE(9)',
  note: 'zqx secret readiness note',
} as const;

/**
 * The retail bundle with distinctive values planted in every never-emitted
 * place: a raw column name, the SQL schema, the pipeline name, the target
 * identity's project, load IDs, row counts, CSV file names and sizes, raw
 * dialect types and the free-text notes. It still binds.
 */
export function sentinelBundle(options: Parameters<typeof retailSpec>[0] = {}): MutableBundle {
  const base = retailSpec(options);
  const spec: BundleSpec = {
    ...base,
    tables: base.tables.map((table, index) =>
      index === 0
        ? {
            ...table,
            columns: table.columns.map((column, c) =>
              c === 0 ? { ...column, raw: PLANTED.rawColumn } : column,
            ),
          }
        : table,
    ),
  };
  const bundle = fromSpec(spec);
  const target = `${PLANTED.project}/${String(bundle.dryRun.bronze_namespace)}`;
  bundle.dryRun.target_identity = target;
  bundle.runManifest.target_identity = target;
  bundle.runManifest.pipeline_name = PLANTED.pipeline;
  bundle.runManifest.load_ids = [PLANTED.loadId];
  bundle.dryRun.readiness_note = PLANTED.note;
  const identity = bundle.runManifest.source_identity as Record<string, unknown>;
  identity.note = PLANTED.note;
  if (identity.kind === 'sql') identity.schema = PLANTED.schema;
  else {
    for (const file of identity.files as Record<string, unknown>[]) {
      file.file_name = PLANTED.fileName;
      file.size_bytes = PLANTED.sizeBytes;
    }
  }
  for (const entry of bundle.dryRun.inventory as Record<string, unknown>[]) {
    entry.row_count = PLANTED.rowCount;
    for (const column of entry.columns as Record<string, unknown>[]) column.type = PLANTED.dialectType;
  }
  bundle.runManifest.source_row_counts = { customers: PLANTED.rowCount };
  return bundle;
}

/** Every planted value, the run ID, the target identity and the four fingerprints, as sentinel strings. */
export function sentinelsOf(bundle: MutableBundle): string[] {
  const manifest = bundle.runManifest;
  return [
    PLANTED.rawColumn,
    PLANTED.schema,
    PLANTED.pipeline,
    PLANTED.project,
    PLANTED.loadId,
    String(PLANTED.rowCount),
    PLANTED.fileName,
    String(PLANTED.sizeBytes),
    PLANTED.dialectType,
    PLANTED.note,
    bundle.runId,
    String(manifest.target_identity),
    String(manifest.source_schema_fingerprint),
    String(manifest.typed_schema_fingerprint),
    String(manifest.source_mapping_fingerprint),
    String(manifest.schema_confirmation_fingerprint),
    'mapping.json',
    'dry-run.json',
    'run-manifests',
  ];
}

/**
 * Recomputes a dry run's or run manifest's snapshot fingerprints (and
 * observed values) and its confirmation after a test changed its snapshot,
 * keeping the artifact internally consistent (binding step 1 passes).
 */
export function refingerprint(document: Record<string, unknown>): void {
  const snapshot = (
    document.source_schema_snapshot as { table: string; columns: { name: string; type_family: string }[] }[]
  ).map((table) => ({
    table: table.table as SafeIdentifier,
    folded: fold(table.table as SafeIdentifier),
    columns: table.columns.map((column) => ({
      name: column.name,
      typeFamily: column.type_family as TypeFamily,
    })),
  }));
  const sourceSchema = sourceSchemaFingerprint(snapshot);
  const typedSchema = typedSchemaFingerprint(snapshot);
  document.source_schema_fingerprint = sourceSchema;
  document.typed_schema_fingerprint = typedSchema;
  if ('source_schema_fingerprint_observed' in document)
    document.source_schema_fingerprint_observed = sourceSchema;
  if ('typed_schema_fingerprint_observed' in document)
    document.typed_schema_fingerprint_observed = typedSchema;
  document.schema_confirmation_fingerprint = schemaConfirmationFingerprint(
    document.source_mapping_fingerprint as Sha256Hex,
    sourceSchema,
    typedSchema,
  );
}
