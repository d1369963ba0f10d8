import { sha256Hex } from '../../core/digest/index.js';
import { isJsonObject, type JsonValue, parseStrict } from '../../core/json/index.js';
import { refuseInternal } from '../../core/refusal/index.js';
import { bindEvidenceDocuments } from '../bind-evidence.js';
import {
  DESTINATIONS,
  type Destination,
  isOneOf,
  isSourceBindingId,
  SOURCE_KINDS,
  type SourceKind,
} from '../identifiers.js';
import { guardPrivate } from '../private-boundary.js';
import { refuseSynth } from '../refusals.js';
import { type EpochMicros, parseUtcTimestamp } from '../timestamps.js';
import {
  type BundleSpec,
  buildEvidenceBundle,
  type EvidenceBundle,
  type SynthTableSpec,
  seededInt,
} from './bundle.js';
import { bronzeFixtures, FIXTURE_SOURCE, FIXTURES_DIR, FIXTURES_README } from './fixtures.js';
import { RETAIL_TABLE_NAMES, RETAIL_TABLES, SQL_DIALECT_TYPES } from './retail.js';

export const SYNTH_DEFAULTS = {
  sourceBindingId: 'synthetic_retail',
  namespace: 'starterkit_migration_retail',
  seed: 1,
} as const;

export interface SynthesizeOptions {
  readonly source: SourceKind;
  readonly destination: Destination;
  /** Canonical retail table names, in the order the load selected them; all four when absent. */
  readonly tables?: readonly string[] | undefined;
  readonly sourceBindingId?: string | undefined;
  /** UTC ISO-8601 (`Z` or `+00:00`); the current second when absent. */
  readonly finishedAt?: string | undefined;
  /** A non-negative integer; picks raw header variants, counts, sizes and the run ID. */
  readonly seed?: number | undefined;
}

export interface PlannedFile {
  /** Relative to the output directory, `/`-separated. */
  readonly path: string;
  readonly mode: 0o600;
  readonly sha256: string;
  readonly bytes: number;
  readonly content: string;
}

/**
 * What `applySynthesisPlan` writes, fully decided: directories (0700) and
 * files (0600) relative to the output directory, with their exact bytes.
 * Serializable; `sealkit evidence synth --dry-run` prints it.
 */
export interface SynthesisPlan {
  readonly synthetic: true;
  readonly source: SourceKind;
  readonly destination: Destination;
  readonly tables: readonly string[];
  readonly directories: readonly string[];
  readonly files: readonly PlannedFile[];
}

export const MAPPING_FILE = 'mapping.json';
export const DRY_RUN_FILE = 'dry-run.json';
export const RUN_MANIFEST_DIR = 'run-manifests';
const MAX_SEED = 2 ** 31 - 1;

/** Validates the options and decides every byte to be written. Pure: no I/O, no clock unless `finishedAt` is absent. */
export function planSynthesis(
  options: SynthesizeOptions,
  clock: () => Date = () => new Date(),
): SynthesisPlan {
  return guardPrivate(() => {
    const spec = bundleSpecFor(options, clock);
    const bundle = buildEvidenceBundle(spec);
    const files = filesOf(bundle);
    requireBinds(files, spec);
    return {
      synthetic: true,
      source: spec.source,
      destination: spec.destination,
      tables: spec.tables.map((table) => table.table),
      // Parents before children.
      directories: [RUN_MANIFEST_DIR, FIXTURES_DIR, `${FIXTURES_DIR}/${FIXTURE_SOURCE}`],
      files: [...files, ...fixtureFiles(spec)],
    };
  });
}

/**
 * The bytes about to be written must bind through the very readers a
 * generator uses (a DuckDB bundle must stop exactly at its missing edition);
 * anything else is a sealkit bug, never written.
 */
function requireBinds(files: readonly PlannedFile[], spec: BundleSpec): void {
  const [mapping, dryRun, manifest] = files.map((file) => parseStrict(Buffer.from(file.content, 'utf8')));
  if (mapping === undefined || dryRun === undefined || manifest === undefined)
    throw refuseInternal('internal_error');
  if (!isJsonObject(mapping) || !isJsonObject(dryRun) || !isJsonObject(manifest))
    throw refuseInternal('internal_error');
  const outcome = bindEvidenceDocuments(
    { mapping, dryRun, runManifest: { document: manifest, fileName: `${spec.runId}.json` } },
    { sourceBindingId: spec.sourceBindingId, maxAge: 1, now: new Date(Math.floor(spec.finishedAt / 1000)) },
  );
  const expected = spec.destination === 'duckdb' ? 'scaffold_destination_edition_unbound' : undefined;
  const actual = outcome.status === 'bound' ? undefined : outcome.refusal.code;
  if (actual !== expected) throw refuseInternal('internal_error');
}

export function bundleSpecFor(options: SynthesizeOptions, clock: () => Date = () => new Date()): BundleSpec {
  // The refusal names the option at fault by its library name (docs/evidence.md#synthetic-evidence).
  const invalid = (field: keyof SynthesizeOptions) => refuseSynth('evidence_synth_option_invalid', { field });
  if (!isOneOf(SOURCE_KINDS, options.source)) throw invalid('source');
  if (!isOneOf(DESTINATIONS, options.destination)) throw invalid('destination');
  const seed = options.seed ?? SYNTH_DEFAULTS.seed;
  if (!Number.isSafeInteger(seed) || seed < 0 || seed > MAX_SEED) throw invalid('seed');
  const sourceBindingId = options.sourceBindingId ?? SYNTH_DEFAULTS.sourceBindingId;
  if (!isSourceBindingId(sourceBindingId)) throw invalid('sourceBindingId');
  const names = options.tables ?? RETAIL_TABLE_NAMES;
  if (names.length === 0 || new Set(names).size !== names.length) throw invalid('tables');
  const tables = names.map((name) => {
    const table = RETAIL_TABLES.find((candidate) => candidate.table === name);
    if (table === undefined) throw invalid('tables');
    return table;
  });
  let finishedAt: EpochMicros;
  if (options.finishedAt === undefined) {
    finishedAt = (Math.floor(clock().getTime() / 1000) * 1_000_000) as EpochMicros;
  } else {
    const parsed = parseUtcTimestamp(options.finishedAt);
    if (parsed === undefined) throw invalid('finishedAt');
    finishedAt = parsed;
  }
  const duration = seededInt(seed, 'duration', 45, 900) * 1_000_000;
  return {
    source: options.source,
    destination: options.destination,
    tables: tables.map(
      (table): SynthTableSpec => ({
        table: table.table,
        columns: table.columns.map((column) => {
          const raw =
            column.rawVariants[
              seededInt(seed, `${table.table}.${column.target}`, 0, column.rawVariants.length - 1)
            ] ?? column.rawVariants[0];
          return {
            raw,
            family: column.family,
            dialectType: SQL_DIALECT_TYPES[column.family],
            rule: { target: column.target, cast: column.cast },
          };
        }),
      }),
    ),
    sourceBindingId,
    namespace: SYNTH_DEFAULTS.namespace,
    runId: syntheticRunId(seed, finishedAt, options),
    startedAt: (finishedAt - duration) as EpochMicros,
    finishedAt,
    seed,
  };
}

/** A canonical version-4-shaped UUID derived from the inputs, so a rerun with the same inputs names the same file. */
function syntheticRunId(seed: number, finishedAt: EpochMicros, options: SynthesizeOptions): string {
  const hex = sha256Hex(
    JSON.stringify([
      'sealkit-synthetic-run',
      seed,
      finishedAt,
      options.source,
      options.destination,
      options.tables ?? null,
    ]),
  );
  const variant = ((Number.parseInt(hex.charAt(16), 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

function filesOf(bundle: EvidenceBundle): readonly PlannedFile[] {
  return [
    file(MAPPING_FILE, bundle.mapping),
    file(DRY_RUN_FILE, bundle.dryRun),
    file(`${RUN_MANIFEST_DIR}/${bundle.runId}.json`, bundle.runManifest),
  ];
}

function file(path: string, value: JsonValue): PlannedFile {
  return textFile(path, renderJson(value));
}

function textFile(path: string, content: string): PlannedFile {
  return { path, mode: 0o600, sha256: sha256Hex(content), bytes: Buffer.byteLength(content), content };
}

/** The synthetic Bronze rows of the described tables, labelled synthetic by their README. */
function fixtureFiles(spec: BundleSpec): readonly PlannedFile[] {
  return [
    textFile(`${FIXTURES_DIR}/README.md`, FIXTURES_README),
    ...bronzeFixtures(spec).map((fixture) => textFile(`${FIXTURES_DIR}/${fixture.path}`, fixture.content)),
  ];
}

/** Sorted keys, two-space indent, LF, one trailing newline: same input, same bytes. */
export function renderJson(value: JsonValue): string {
  return `${JSON.stringify(sortKeys(value), null, 2)}\n`;
}

function sortKeys(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (isJsonObject(value)) {
    const record = value;
    return Object.fromEntries(
      Object.keys(record)
        .sort()
        .map((key) => [key, sortKeys(record[key] ?? null)]),
    );
  }
  return value;
}
