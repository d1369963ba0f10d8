import type { EvidenceRefusalCode } from '../migration/index.js';
import type { CanonicalTableName } from './canonical.js';
import type { ScaffoldEdition } from './editions.js';
import type { PublicationConditionCode, ScaffoldRefusalCode } from './refusals.js';

/** The statuses of docs/scaffold.md#the-result-object-and-exit-codes, with `plan_only` for --dry-run. */
export type ScaffoldStatus =
  | 'published'
  | 'published_permissions_not_normalized'
  | 'published_durability_unknown'
  | 'publish_unverified'
  | 'refused'
  | 'plan_only';

export type ScaffoldStage = 'preflight' | 'stage' | 'seal' | 'verify' | 'publish' | 'normalize';

/** The modes a leftover staging directory was left with (docs/scaffold.md#leftover-staging-and-recovery). */
export type StagingState = 'unsealed' | 'partially_sealed' | 'sealed';

export type ScaffoldReasonCode = ScaffoldRefusalCode | EvidenceRefusalCode | PublicationConditionCode;

/**
 * The one JSON object a run prints on stdout and the library returns: the
 * same object. Paths are project-relative; it never holds an absolute path,
 * a fingerprint, a Bronze or source name, an errno or exception text.
 */
export interface ScaffoldResult {
  readonly status: ScaffoldStatus;
  /** Every condition; empty for `published` and `plan_only`. */
  readonly reason_codes: readonly ScaffoldReasonCode[];
  readonly stage: ScaffoldStage;
  /** The fixed text of the first reason code. */
  readonly message?: string;
  /** For an evidence refusal: the artifact (`mapping`, `dry_run`, `run_manifest`) and allowlisted field. */
  readonly role?: string;
  readonly field?: string;
  /** For an input-rule refusal: the canonical table concerned. */
  readonly table?: CanonicalTableName;
  readonly edition?: ScaffoldEdition;
  readonly source_id?: string;
  /** The dbt project inside the workspace: '.' or 'kit'. Paths below are relative to it. */
  readonly project_dir?: '.' | 'kit';
  readonly output?: string;
  readonly staging?: string;
  readonly staging_state?: StagingState;
  /** A command to run from the project directory (repair of modes, or recovery of a leftover staging). */
  readonly repair?: string;
  /**
   * The planned (dry run) or published files: project-relative path and
   * SHA-256, and with `--dry-run --show` the exact text a run would write.
   */
  readonly files?: readonly { readonly path: string; readonly sha256: string; readonly content?: string }[];
}

const KEY_ORDER: readonly (keyof ScaffoldResult)[] = [
  'status',
  'reason_codes',
  'stage',
  'message',
  'role',
  'field',
  'table',
  'edition',
  'project_dir',
  'source_id',
  'output',
  'staging',
  'staging_state',
  'repair',
  'files',
];

/** The same result with its keys in one fixed order, so every run prints the same shape. */
export function inKeyOrder(result: ScaffoldResult): ScaffoldResult {
  const ordered: Record<string, unknown> = {};
  for (const key of KEY_ORDER) if (result[key] !== undefined) ordered[key] = result[key];
  // Sound: every key copied is a key of ScaffoldResult with its own value,
  // and only undefined ones are left out, so the object is the same result.
  return ordered as unknown as ScaffoldResult;
}

/**
 * The most severe status of a published run's conditions: the status is the
 * most severe, the codes list all (docs/scaffold.md#the-result-object-and-exit-codes).
 */
export function publishedStatus(conditions: ReadonlySet<PublicationConditionCode>): ScaffoldStatus {
  if (conditions.has('publish_identity_mismatch')) return 'publish_unverified';
  if (conditions.has('published_durability_unknown')) return 'published_durability_unknown';
  if (conditions.has('published_permissions_not_normalized')) return 'published_permissions_not_normalized';
  return 'published';
}

/** Listing order of conditions in `reason_codes`: most severe first. */
export const CONDITION_ORDER: readonly PublicationConditionCode[] = [
  'publish_identity_mismatch',
  'published_durability_unknown',
  'published_permissions_not_normalized',
];

export function repairCommand(output: string): string {
  return `chmod -R u+w ${output}`;
}

export function recoveryCommand(staging: string): string {
  return `chmod -R u+w ${staging} && rm -r ${staging}`;
}
