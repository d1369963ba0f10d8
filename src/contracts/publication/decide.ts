import type { Sha256Prefixed } from '../../core/digest/index.js';
import { decodeProjection } from '../canonical/decode.js';
import { PROFILE } from '../projection/payload.js';
import { type ContractClassification, classifyContractVersion } from '../version/classify.js';
import { compareContractVersions, parseContractVersion } from '../version/semver.js';
import { splitApprovalTarget, type WideningApproval } from './approval.js';
import type {
  CompatibilityMode,
  LedgerEntry,
  PublicationCheck,
  PublicationVerdict,
  ResourceIdentity,
  SecurityResult,
  UnhashedEntry,
} from './entry.js';
import { isPublicationRefusal, type PublicationRefusal, refuseLedger } from './refusals.js';

/** Canonical bytes to publish and the digest the caller expects them to have. */
export interface PublicationCandidate {
  readonly bytes: Uint8Array;
  readonly digest: Sha256Prefixed;
}

export interface PublicationRequest {
  readonly candidate: PublicationCandidate;
  /** `genesis` for a first publication, otherwise the exact digest of the latest publication. */
  readonly baseline: Sha256Prefixed | 'genesis';
  readonly approval: WideningApproval | null;
}

/** An entry to append, before the ledger gives it a position and chains it. */
export type EntryContent = Omit<UnhashedEntry, 'position' | 'previousHash'>;

export type Decision =
  | {
      readonly status: 'unchanged';
      readonly resource: ResourceIdentity;
      readonly version: string;
      readonly entry: LedgerEntry;
    }
  | {
      readonly status: 'append';
      readonly resource: ResourceIdentity;
      readonly version: string;
      readonly content: EntryContent;
      readonly classification: ContractClassification | null;
    }
  | {
      readonly status: 'refused';
      readonly resource: ResourceIdentity | null;
      readonly version: string | null;
      readonly refusal: PublicationRefusal;
      readonly classification: ContractClassification | null;
    };

const refusedWith = (
  refusal: PublicationRefusal,
  resource: ResourceIdentity | null,
  version: string | null,
  classification: ContractClassification | null = null,
): Decision => ({ status: 'refused', resource, version, refusal, classification });

/**
 * The publication rules, as one pure function of a request and the verified
 * ledger entries (position order) of the resource its bytes name
 * (`undefined`: the state was not read for it, refused as incomplete). Publication plans use it, and
 * replay re-runs it over every stored entry, so the rules are written once.
 *
 * Order: decoding; idempotent re-publication of the latest bytes; a version
 * reused with other bytes; the baseline (genesis or the exact latest digest);
 * classification against the baseline; the version must increase; a breaking
 * change needs a higher major version; a change with any widening needs an
 * approval of exactly this ID@VERSION, and an approval is refused where
 * nothing widens.
 */
export function decidePublication(
  entriesOf: (id: string) => readonly LedgerEntry[] | undefined,
  request: PublicationRequest,
): Decision {
  const { candidate } = request;
  let resource: ResourceIdentity;
  let version: string;
  let compatibility: CompatibilityMode;
  try {
    const view = decodeProjection(candidate.bytes, candidate.digest);
    resource = { kind: view.resource.kind, id: view.resource.id };
    version = view.contract.version;
    compatibility = view.contract.compatibility;
  } catch (error: unknown) {
    if (isPublicationRefusal(error)) return refusedWith(error, null, null);
    throw error;
  }
  const refused = (
    code: Parameters<typeof refuseLedger>[0],
    field: string,
    classification?: ContractClassification,
    hint?: string,
  ) =>
    refusedWith(
      refuseLedger(code, { role: 'publication', field, ...(hint === undefined ? {} : { hint }) }),
      resource,
      version,
      classification ?? null,
    );

  const entries = entriesOf(resource.id);
  if (entries === undefined) return refused('contract_ledger_state_incomplete', 'resource');
  const latest = entries[entries.length - 1];
  if (
    latest !== undefined &&
    latest.digest === candidate.digest &&
    (request.baseline === latest.baseline || request.baseline === latest.digest)
  ) {
    return { status: 'unchanged', resource, version, entry: latest };
  }
  const sameVersion = entries.find((entry) => entry.version === version);
  if (sameVersion !== undefined && sameVersion.digest !== candidate.digest) {
    return refused(
      'contract_ledger_version_reused',
      'version',
      undefined,
      `${version} is published with other content: give this change a new version, above ${latest?.version ?? version}`,
    );
  }
  if (request.baseline === 'genesis') {
    if (latest !== undefined) return refused('contract_ledger_baseline_stale', 'baseline');
    if (request.approval !== null) return refused('contract_ledger_approval_unexpected', 'approval');
    return {
      status: 'append',
      resource,
      version,
      classification: null,
      content: content(
        resource,
        version,
        compatibility,
        request,
        'genesis',
        'unchanged',
        [],
        ['baseline_genesis', 'canonical_decoding', 'digest'],
      ),
    };
  }
  if (latest === undefined) return refused('contract_ledger_baseline_mismatch', 'baseline');
  if (latest.digest !== request.baseline) {
    const known = entries.some((entry) => entry.digest === request.baseline);
    return refused(
      known ? 'contract_ledger_baseline_stale' : 'contract_ledger_baseline_mismatch',
      'baseline',
    );
  }

  let classification: ContractClassification;
  try {
    classification = classifyContractVersion(latest.projection, candidate.bytes, {
      baselineDigest: latest.digest,
      candidateDigest: candidate.digest,
    });
  } catch (error: unknown) {
    if (isPublicationRefusal(error)) return refusedWith(error, resource, version);
    throw error;
  }
  const before = parseContractVersion(latest.version);
  const after = parseContractVersion(version);
  if (before === undefined || after === undefined || compareContractVersions(after, before) <= 0) {
    return refused(
      'contract_ledger_version_not_increasing',
      'version',
      classification,
      `write a version above ${latest.version}, the newest in the ledger`,
    );
  }
  const checks: PublicationCheck[] = [
    'baseline_current',
    'canonical_decoding',
    'classification',
    'digest',
    'version_increases',
  ];
  if (classification.verdict === 'breaking') {
    if (after.major <= before.major)
      return refused(
        'contract_ledger_major_bump_required',
        'version',
        classification,
        `the change is breaking: write version ${before.major + 1}.0.0 or above (the ledger's newest is ${latest.version})`,
      );
    checks.push('major_version_bump');
  }
  const widens = classification.changes.some((change) => change.verdict === 'widening');
  if (widens) {
    if (request.approval === null)
      return refused('contract_ledger_approval_required', 'approval', classification);
    const target = splitApprovalTarget(request.approval.approves);
    if (target?.id !== resource.id || target.version !== version) {
      return refused('contract_ledger_approval_mismatch', 'approval.approves', classification);
    }
    checks.push('widening_approval');
  } else if (request.approval !== null) {
    return refused('contract_ledger_approval_unexpected', 'approval', classification);
  }
  const rules = new Set(classification.changes.map((change) => change.rule));
  const security: SecurityResult = rules.has('field_classification_lowered')
    ? 'widened'
    : rules.has('field_classification_raised')
      ? 'narrowed'
      : 'unchanged';
  // `identical` cannot reach here: equal bytes have equal digests and were handled above.
  const verdict = classification.verdict as Exclude<PublicationVerdict, 'genesis'>;
  return {
    status: 'append',
    resource,
    version,
    classification,
    content: content(
      resource,
      version,
      compatibility,
      request,
      verdict,
      security,
      classification.changes,
      checks,
    ),
  };
}

function content(
  resource: ResourceIdentity,
  version: string,
  compatibility: CompatibilityMode,
  request: PublicationRequest,
  verdict: PublicationVerdict,
  security: SecurityResult,
  changes: ContractClassification['changes'],
  checks: readonly PublicationCheck[],
): EntryContent {
  return Object.freeze({
    profile: PROFILE,
    resource,
    version,
    compatibility,
    digest: request.candidate.digest,
    projection: request.candidate.bytes,
    baseline: request.baseline,
    verdict,
    security,
    changes,
    checks: [...checks].sort(),
    affected: resource,
    approval: request.approval,
  });
}
