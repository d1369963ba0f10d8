import type { BoundEvidence, BoundTable } from './bound.js';
import type { DryRunRecord } from './dry-run.js';
import { EDITIONS } from './edition.js';
import type { EvidenceField, EvidenceRole } from './fields.js';
import { mappingsFingerprint } from './fingerprints.js';
import { isMaxEvidenceAge } from './freshness.js';
import { type FoldedIdentifier, fold, isSafeIdentifier, type SafeIdentifier } from './identifiers.js';
import { type Mapping, mappingRuleCount } from './mapping.js';
import { targetNamespaceSegment } from './record-fields.js';
import { type EvidenceRefusalCode, refuseEvidence } from './refusals.js';
import { reviewedSchemaFromRecord } from './reviewed-schema.js';
import type { RunManifestRecord } from './run-manifest.js';
import type { EpochMicros } from './timestamps.js';

export const BRONZE_NAMESPACE_PREFIX = 'starterkit_migration_';
/** A config-only dry run always reports these; any other blocker means not ready. */
export const ALLOWED_BLOCKERS: ReadonlySet<string> = new Set([
  'target_not_verified',
  'table_list_not_confirmed',
  'namespace_not_verified_by_config_resolving_dry_run',
]);
const READY_STATUSES: ReadonlySet<string> = new Set(['ready', 'empty']);

/** What the invocation supplies besides the three artifacts. */
export interface BindingInvocation {
  /** `--source-binding-id`; required for a bound result, compared exactly. */
  readonly sourceBindingId: string | undefined;
  /** Maximum evidence age in seconds; no default exists. */
  readonly maxAge: number | undefined;
  /** The generator clock. */
  readonly now: EpochMicros;
}

export interface ParsedEvidence {
  readonly mapping: Mapping;
  readonly dryRun: DryRunRecord;
  readonly runManifest: RunManifestRecord;
}

/** `role` is undefined when the invocation itself (alias, maximum age) is at fault. */
function fail(code: EvidenceRefusalCode, role: EvidenceRole | undefined, field: EvidenceField): never {
  throw refuseEvidence(code, role === undefined ? { field } : { role, field });
}

/**
 * Binding steps 1–10, in the order of docs/evidence.md#binding-steps-110, over
 * artifacts that already passed admission and their field tables. The role
 * of a cross-artifact mismatch is the artifact that disagrees with those
 * checked before it (mapping, then dry run, then run manifest).
 */
export function bindRecords(evidence: ParsedEvidence, invocation: BindingInvocation): BoundEvidence {
  const { mapping, runManifest } = evidence;
  // Step 1: internal integrity of each JSON artifact on its own.
  const dryRun = reviewedSchemaFromRecord(evidence.dryRun, 'dry_run');
  reviewedSchemaFromRecord(runManifest, 'run_manifest');
  checkMappingFingerprint(mapping, dryRun, runManifest);
  // Step 3: the combined fingerprint covers names, type families and mapping.
  if (dryRun.schemaConfirmationFingerprint !== runManifest.schemaConfirmationFingerprint) {
    fail('scaffold_schema_confirmation_mismatch', 'run_manifest', 'schema_confirmation_fingerprint');
  }
  // Step 4: source kind.
  if (runManifest.sourceKind !== dryRun.source)
    fail('scaffold_source_kind_mismatch', 'run_manifest', 'source_kind');
  if (runManifest.sourceIdentity.kind !== runManifest.sourceKind) {
    fail('scaffold_source_kind_mismatch', 'run_manifest', 'source_identity.kind');
  }
  const sourceBindingId = checkSourceBinding(dryRun, runManifest, invocation.sourceBindingId);
  checkSourceSchema(runManifest);
  checkSelectedTables(mapping, dryRun, runManifest);
  const { destination, edition } = checkDestination(dryRun, runManifest);
  checkReadiness(dryRun);
  checkFreshness(runManifest, invocation);
  return {
    status: 'bound',
    destination,
    edition,
    sourceKind: dryRun.source,
    sourceBindingId,
    tables: boundTables(mapping, dryRun),
    integrity: {
      sourceMappingFingerprint: dryRun.sourceMappingFingerprint,
      schemaConfirmationFingerprint: dryRun.schemaConfirmationFingerprint,
    },
  };
}

/** Step 2: the file's fingerprint equals both recorded ones; the report restates the file's rules; the count matches. */
function checkMappingFingerprint(
  mapping: Mapping,
  dryRun: DryRunRecord,
  runManifest: RunManifestRecord,
): void {
  const fingerprint = mappingsFingerprint(mapping);
  if (fingerprint !== dryRun.sourceMappingFingerprint) {
    fail('scaffold_mapping_fingerprint_mismatch', 'dry_run', 'source_mapping_fingerprint');
  }
  if (fingerprint !== runManifest.sourceMappingFingerprint) {
    fail('scaffold_mapping_fingerprint_mismatch', 'run_manifest', 'source_mapping_fingerprint');
  }
  const fileRules = new Set(
    mapping.tables.flatMap((table) =>
      table.rules.map((rule) => ruleKey(table.table, rule.source, rule.target, rule.cast)),
    ),
  );
  const reported = new Set(
    dryRun.reportedRules.map((rule) => ruleKey(rule.table, rule.source, rule.target, rule.cast)),
  );
  if (!sameSet(fileRules, reported)) {
    fail('scaffold_mapping_fingerprint_mismatch', 'dry_run', 'source_mapping_report.mappings');
  }
  if (runManifest.sourceMappingRuleCount !== BigInt(mappingRuleCount(mapping))) {
    fail('scaffold_mapping_fingerprint_mismatch', 'run_manifest', 'source_mapping_rule_count');
  }
}

/** Table names compare folded (the fingerprint folds them); source, target and cast exactly. */
function ruleKey(table: SafeIdentifier, source: string, target: string, cast: string): string {
  return JSON.stringify([fold(table), source, target, cast]);
}

/** Step 5: the alias is required in both artifacts and the invocation, and must be equal everywhere. */
function checkSourceBinding(
  dryRun: DryRunRecord,
  runManifest: RunManifestRecord,
  invoked: string | undefined,
): NonNullable<DryRunRecord['sourceBindingId']> {
  const recorded = dryRun.sourceBindingId;
  if (recorded === undefined) fail('scaffold_source_identity_unavailable', 'dry_run', 'source_binding_id');
  if (runManifest.sourceBindingId === undefined) {
    fail('scaffold_source_identity_unavailable', 'run_manifest', 'source_binding_id');
  }
  if (invoked === undefined) fail('scaffold_source_identity_unavailable', undefined, 'source_binding_id');
  if (runManifest.sourceBindingId !== recorded) {
    fail('scaffold_source_identity_mismatch', 'run_manifest', 'source_binding_id');
  }
  if (invoked !== recorded) fail('scaffold_source_identity_mismatch', undefined, 'source_binding_id');
  return recorded;
}

/**
 * Step 6: a SQL source names a safe schema; a CSV source has none.
 * Single-sourced (gap 3, docs/evidence.md#evidence-gaps).
 */
function checkSourceSchema(runManifest: RunManifestRecord): void {
  const { kind, schema } = runManifest.sourceIdentity;
  const ok = kind === 'sql' ? schema.present && schema.safe !== undefined : !schema.present;
  if (!ok) fail('scaffold_source_schema_unavailable', 'run_manifest', 'source_identity.schema');
}

/**
 * Step 7: five table sets equal ignoring case, an inventory entry for each selected table and
 * none ready outside them, equal (entity, Bronze table) pairs, mapping tables selected.
 */
function checkSelectedTables(mapping: Mapping, dryRun: DryRunRecord, runManifest: RunManifestRecord): void {
  const selected = foldedSet(dryRun.resolvedTables);
  const code = 'scaffold_selected_tables_mismatch';
  if (!sameSet(selected, foldedSet(runManifest.entities))) fail(code, 'run_manifest', 'entities');
  const identity = runManifest.sourceIdentity;
  if (!sameSet(selected, foldedSet(identity.entities))) {
    fail(
      code,
      'run_manifest',
      identity.kind === 'sql' ? 'source_identity.tables' : 'source_identity.files[].entity',
    );
  }
  if (!sameSet(selected, foldedSet(dryRun.snapshot.map((table) => table.table)))) {
    fail(code, 'dry_run', 'source_schema_snapshot');
  }
  if (!sameSet(selected, foldedSet(runManifest.snapshot.map((table) => table.table)))) {
    fail(code, 'run_manifest', 'source_schema_snapshot');
  }
  const normalized = dryRun.normalizedTables;
  if (normalized === null || !sameSet(selected, foldedSet(normalized.map((table) => table.table)))) {
    fail(code, 'dry_run', 'normalized_identifier_safety.tables');
  }
  // `resolved_tables` are the selected entities whose inventory status is
  // ready or empty: every selected table has its entry (without one, nothing
  // says it is ready, and step 9 would pass vacuously), and a ready or empty
  // entry outside the selection contradicts it. An entry with another status
  // is left to step 9, which refuses it as not ready.
  const inventory = foldedSet(dryRun.inventory.map((entry) => entry.table));
  const ready = dryRun.inventory.filter((entry) => READY_STATUSES.has(entry.status));
  if (
    [...selected].some((table) => !inventory.has(table)) ||
    ready.some((entry) => !selected.has(fold(entry.table)))
  ) {
    fail(code, 'dry_run', 'inventory[].table');
  }
  const pairs = pairMap(dryRun.resolvedTables, dryRun.destinationTables);
  if (!sameSet(pairSet(pairs), pairSet(pairMap(runManifest.entities, runManifest.destinationTables)))) {
    fail(code, 'run_manifest', 'destination_tables');
  }
  for (const table of mapping.tables) {
    if (!selected.has(table.folded)) fail(code, 'mapping', 'tables');
  }
  for (const table of normalized) {
    const destination = table.normalizedDestinationTable;
    if (destination === null || fold(destination) !== pairs.get(fold(table.table))) {
      fail(code, 'dry_run', 'normalized_identifier_safety.tables[].normalized_destination_table');
    }
  }
}

/** Step 8: destination, namespace, target identity, type profile, then the edition the destination selects. */
function checkDestination(
  dryRun: DryRunRecord,
  runManifest: RunManifestRecord,
): Pick<BoundEvidence, 'destination' | 'edition'> {
  const destination = dryRun.destination;
  if (runManifest.destination !== destination)
    fail('scaffold_destination_mismatch', 'run_manifest', 'destination');
  const namespace = fold(dryRun.bronzeNamespace);
  if (fold(runManifest.bronzeNamespace) !== namespace) {
    fail('scaffold_namespace_mismatch', 'run_manifest', 'bronze_namespace');
  }
  if (!namespace.startsWith(BRONZE_NAMESPACE_PREFIX))
    fail('scaffold_namespace_mismatch', 'dry_run', 'bronze_namespace');
  const target = dryRun.targetIdentity;
  if (target === null) fail('scaffold_target_identity_mismatch', 'dry_run', 'target_identity');
  if (runManifest.targetIdentity !== target)
    fail('scaffold_target_identity_mismatch', 'run_manifest', 'target_identity');
  const segment = targetNamespaceSegment(target);
  if (!isSafeIdentifier(segment) || fold(segment) !== namespace) {
    fail('scaffold_target_identity_mismatch', 'dry_run', 'target_identity');
  }
  if (dryRun.typeProfile.destination !== destination) {
    fail('scaffold_destination_mismatch', 'dry_run', 'destination_type_profile.destination');
  }
  const profile = runManifest.typeProfile;
  if (
    profile.destination !== dryRun.typeProfile.destination ||
    profile.name !== dryRun.typeProfile.name ||
    profile.algorithm !== dryRun.typeProfile.algorithm
  ) {
    fail('scaffold_destination_mismatch', 'run_manifest', 'destination_type_profile');
  }
  if (destination === 'duckdb') fail('scaffold_destination_edition_unbound', 'dry_run', 'destination');
  return { destination, edition: EDITIONS[destination] };
}

/**
 * Step 9: every inventory status ready or empty, identifiers safe to extract
 * (and a column map recorded for every table), only the three expected
 * blockers, any drift review verified.
 */
function checkReadiness(dryRun: DryRunRecord): void {
  const notReady = (field: EvidenceField): void => fail('scaffold_evidence_not_ready', 'dry_run', field);
  if (dryRun.inventory.some((entry) => !READY_STATUSES.has(entry.status))) notReady('inventory[].status');
  if (dryRun.safeToExtract !== true) notReady('normalized_identifier_safety.safe_to_extract');
  if ((dryRun.normalizedTables ?? []).some((table) => table.normalizedColumns === null)) {
    notReady('normalized_identifier_safety.tables[].normalized_columns');
  }
  if (dryRun.blockers.some((blocker) => !ALLOWED_BLOCKERS.has(blocker))) notReady('blockers');
  if (dryRun.driftReviewVerified === false) notReady('schema_drift_review.fresh_confirmation_verified');
}

/**
 * Step 10: the completed manifest (its status and extraction matches were
 * established by its field table) finished within the configured maximum age
 * and not in the future. The dry run has no timestamp (gap 2,
 * docs/evidence.md#evidence-gaps).
 */
function checkFreshness(runManifest: RunManifestRecord, invocation: BindingInvocation): void {
  if (!isMaxEvidenceAge(invocation.maxAge)) {
    fail('scaffold_evidence_freshness_unavailable', undefined, 'max_evidence_age');
  }
  const age = invocation.now - runManifest.finishedAt;
  if (age < 0 || age > invocation.maxAge * 1_000_000) {
    fail('scaffold_evidence_stale', 'run_manifest', 'finished_at_utc');
  }
}

function boundTables(mapping: Mapping, dryRun: DryRunRecord): readonly BoundTable[] {
  const snapshot = new Map(dryRun.snapshot.map((entry) => [entry.folded, entry.columns]));
  const normalized = new Map(
    (dryRun.normalizedTables ?? []).map((entry) => [fold(entry.table), entry.normalizedColumns]),
  );
  const rules = new Map(mapping.tables.map((entry) => [entry.folded, entry.rules]));
  return dryRun.resolvedTables.map((table, index): BoundTable => {
    const folded = fold(table);
    return {
      table,
      bronzeTable: dryRun.destinationTables[index] ?? table,
      sourceColumns: snapshot.get(folded) ?? [],
      bronzeColumns: normalized.get(folded) ?? [],
      rules: rules.get(folded) ?? [],
    };
  });
}

function foldedSet(names: readonly SafeIdentifier[]): Set<FoldedIdentifier> {
  return new Set(names.map(fold));
}

function pairMap(
  entities: readonly SafeIdentifier[],
  tables: readonly SafeIdentifier[],
): Map<FoldedIdentifier, FoldedIdentifier> {
  const pairs = new Map<FoldedIdentifier, FoldedIdentifier>();
  entities.forEach((entity, index) => {
    const table = tables[index];
    if (table !== undefined) pairs.set(fold(entity), fold(table));
  });
  return pairs;
}

function pairSet(pairs: ReadonlyMap<FoldedIdentifier, FoldedIdentifier>): Set<string> {
  return new Set([...pairs].map(([entity, table]) => `${entity}\u0000${table}`));
}

function sameSet<T>(a: ReadonlySet<T>, b: ReadonlySet<T>): boolean {
  if (a.size !== b.size) return false;
  for (const item of a) if (!b.has(item)) return false;
  return true;
}
