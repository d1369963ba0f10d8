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
export type EntryContent = Omit<UnhashedEntry, 'position' | 'previousHash' | 'resourceIndex'>;

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

type Refuser = (
  code: Parameters<typeof refuseLedger>[0],
  field: string,
  classification?: ContractClassification,
  hint?: string,
) => Decision;

/** What the candidate's bytes say it is. */
interface Decoded {
  readonly resource: ResourceIdentity;
  readonly version: string;
  readonly compatibility: CompatibilityMode;
}

/** One request, once its bytes are decoded and its resource's entries read. */
interface Subject extends Decoded {
  readonly request: PublicationRequest;
  readonly entries: readonly LedgerEntry[];
  readonly refused: Refuser;
}

/** The checks every publication after genesis passes; breaking and widening changes add theirs. */
const SUCCESSOR_CHECKS: readonly PublicationCheck[] = [
  'baseline_current',
  'canonical_decoding',
  'classification',
  'digest',
  'version_increases',
];

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
  const decoded = decodeCandidate(request.candidate);
  if ('status' in decoded) return decoded;
  const refused = refuserFor(decoded);
  const entries = entriesOf(decoded.resource.id);
  if (entries === undefined) return refused('contract_ledger_state_incomplete', 'resource');
  const subject: Subject = { ...decoded, request, entries, refused };
  const latest = entries.at(-1);
  const repeated = repeatedDecision(subject, latest);
  if (repeated !== undefined) return repeated;
  if (request.baseline === 'genesis') return genesisDecision(subject, latest);
  if (latest === undefined) return refused('contract_ledger_baseline_mismatch', 'baseline');
  return successorDecision(subject, latest);
}

function decodeCandidate(candidate: PublicationCandidate): Decoded | Decision {
  try {
    const view = decodeProjection(candidate.bytes, candidate.digest);
    return {
      resource: { kind: view.resource.kind, id: view.resource.id },
      version: view.contract.version,
      compatibility: view.contract.compatibility,
    };
  } catch (error: unknown) {
    if (isPublicationRefusal(error)) return refusedWith(error, null, null);
    throw error;
  }
}

function refuserFor({ resource, version }: Decoded): Refuser {
  return (code, field, classification, hint) =>
    refusedWith(
      refuseLedger(code, { role: 'publication', field, ...(hint === undefined ? {} : { hint }) }),
      resource,
      version,
      classification ?? null,
    );
}

/** The latest bytes again on the same baseline are unchanged; a published version with other bytes is refused. */
function repeatedDecision(subject: Subject, latest: LedgerEntry | undefined): Decision | undefined {
  const { request, resource, version } = subject;
  const { candidate } = request;
  if (
    latest !== undefined &&
    latest.digest === candidate.digest &&
    (request.baseline === latest.baseline || request.baseline === latest.digest)
  ) {
    return (
      unchangedApprovalRefusal(subject, latest) ?? { status: 'unchanged', resource, version, entry: latest }
    );
  }
  const sameVersion = subject.entries.find((entry) => entry.version === version);
  if (sameVersion !== undefined && sameVersion.digest !== candidate.digest) {
    // Classified against the latest entry, as the next attempt will be: the
    // changes show why a file nobody edited differs (a model's widened type
    // reaches the semantic model bound to it), and the hint what that attempt needs.
    const classification = latest === undefined ? undefined : classifiedAgainst(subject, latest);
    return subject.refused(
      'contract_ledger_version_reused',
      'version',
      classification,
      `${version} is published with other content: ${
        latest === undefined
          ? `give this change a new version, above ${version}`
          : nextAttemptAdvice(subject, latest, classification)
      }`,
    );
  }
  return undefined;
}

/**
 * An approval given for a resource this run leaves unchanged approves
 * nothing: refused, so that a file left unsaved or a version left unbumped
 * never passes as approved. The one exception is a retry of the very
 * publication that recorded it — the latest entry already holds an approval
 * of the same ID@VERSION — which stays idempotent.
 */
function unchangedApprovalRefusal(subject: Subject, latest: LedgerEntry): Decision | undefined {
  const { approval } = subject.request;
  if (approval === null || latest.approval?.approves === approval.approves) return undefined;
  const { resource, version } = subject;
  const target = splitApprovalTarget(approval.approves);
  const drop = `drop --approve-widening ${approval.approves}`;
  const unchanged = `${resource.id} is unchanged at ${version} (published at position ${latest.position})`;
  const hint =
    target === undefined || target.id !== resource.id
      ? `the approval names another resource, and ${unchanged}: ${drop}`
      : target.version === version
        ? `${unchanged} and nothing of it widened then: there is nothing to approve; ${drop}`
        : `${unchanged}, so this run publishes no ${target.version}: write version ${target.version} and the change into its file and save it, or ${drop}`;
  return subject.refused('contract_ledger_approval_unexpected', 'approval', undefined, hint);
}

/** The candidate classified against `latest`, or undefined when the two cannot be compared (another kind). */
function classifiedAgainst(subject: Subject, latest: LedgerEntry): ContractClassification | undefined {
  try {
    return classifyContractVersion(latest.projection, subject.request.candidate.bytes, {
      baselineDigest: latest.digest,
      candidateDigest: subject.request.candidate.digest,
    });
  } catch {
    return undefined;
  }
}

/**
 * Everything the next attempt needs, from the change against the latest
 * entry: a version above the newest — the next major when the change is
 * breaking (the version rule would refuse anything less), else e.g. the next
 * patch — and, when anything widens, the approval of exactly that version.
 */
function nextAttemptAdvice(
  subject: Subject,
  latest: LedgerEntry,
  classification: ContractClassification | undefined,
): string {
  const newest = parseContractVersion(latest.version);
  if (newest === undefined || classification === undefined)
    return `give this change a new version, above ${latest.version}`;
  const breaking = classification.verdict === 'breaking';
  const next = breaking ? `${newest.major + 1}.0.0` : `${newest.major}.${newest.minor}.${newest.patch + 1}`;
  const write = breaking
    ? `the change is breaking: write version ${next} or above (the ledger's newest is ${latest.version})`
    : `write a version above ${latest.version}, the newest in the ledger, e.g. ${next}`;
  if (!widens(classification)) return write;
  return `${write}; it also widens, so approve the version you write: --approve-widening ${subject.resource.id}@${next} --approver NAME --reason TEXT`;
}

function genesisDecision(subject: Subject, latest: LedgerEntry | undefined): Decision {
  if (latest !== undefined) return subject.refused('contract_ledger_baseline_stale', 'baseline');
  const { approval } = subject.request;
  if (approval !== null)
    return subject.refused(
      'contract_ledger_approval_unexpected',
      'approval',
      undefined,
      `${subject.resource.id} is published for the first time (genesis): there is no earlier version it could widen, so nothing needs approval; drop --approve-widening ${approval.approves}`,
    );
  return {
    status: 'append',
    resource: subject.resource,
    version: subject.version,
    classification: null,
    content: content(
      subject,
      'genesis',
      'unchanged',
      [],
      ['baseline_genesis', 'canonical_decoding', 'digest'],
    ),
  };
}

/** A publication on the latest entry: classified against it, then held to the version and approval rules. */
function successorDecision(subject: Subject, latest: LedgerEntry): Decision {
  const { request, resource, version } = subject;
  if (latest.digest !== request.baseline) {
    const known = subject.entries.some((entry) => entry.digest === request.baseline);
    return subject.refused(
      known ? 'contract_ledger_baseline_stale' : 'contract_ledger_baseline_mismatch',
      'baseline',
    );
  }
  let classification: ContractClassification;
  try {
    classification = classifyContractVersion(latest.projection, request.candidate.bytes, {
      baselineDigest: latest.digest,
      candidateDigest: request.candidate.digest,
    });
  } catch (error: unknown) {
    if (isPublicationRefusal(error)) return refusedWith(error, resource, version);
    throw error;
  }
  const refusal = versionRefusal(subject, latest, classification) ?? approvalRefusal(subject, classification);
  if (refusal !== undefined) return refusal;
  const checks = [...SUCCESSOR_CHECKS];
  if (classification.verdict === 'breaking') checks.push('major_version_bump');
  if (widens(classification)) checks.push('widening_approval');
  // `identical` cannot reach here: equal bytes have equal digests and were handled above.
  const verdict = classification.verdict as Exclude<PublicationVerdict, 'genesis'>;
  return {
    status: 'append',
    resource,
    version,
    classification,
    content: content(subject, verdict, securityOf(classification), classification.changes, checks),
  };
}

/** The version must increase over the latest; a breaking change needs a higher major version. */
function versionRefusal(
  subject: Subject,
  latest: LedgerEntry,
  classification: ContractClassification,
): Decision | undefined {
  const before = parseContractVersion(latest.version);
  const after = parseContractVersion(subject.version);
  if (before === undefined || after === undefined || compareContractVersions(after, before) <= 0) {
    return subject.refused(
      'contract_ledger_version_not_increasing',
      'version',
      classification,
      `${subject.version} is not above ${latest.version}; ${nextAttemptAdvice(subject, latest, classification)}`,
    );
  }
  if (classification.verdict === 'breaking' && after.major <= before.major) {
    return subject.refused(
      'contract_ledger_major_bump_required',
      'version',
      classification,
      nextAttemptAdvice(subject, latest, classification),
    );
  }
  return undefined;
}

/** A widening needs an approval of exactly this ID@VERSION; an approval where nothing widens is refused. */
function approvalRefusal(subject: Subject, classification: ContractClassification): Decision | undefined {
  const { approval } = subject.request;
  if (!widens(classification)) {
    return approval === null
      ? undefined
      : subject.refused(
          'contract_ledger_approval_unexpected',
          'approval',
          classification,
          `the change from ${classification.baseline.version} to ${subject.version} is ${classification.verdict}: nothing widens, so nothing needs approval; drop --approve-widening ${approval.approves}`,
        );
  }
  if (approval === null)
    return subject.refused('contract_ledger_approval_required', 'approval', classification);
  const target = splitApprovalTarget(approval.approves);
  if (target?.id !== subject.resource.id || target.version !== subject.version) {
    const named = target?.id === subject.resource.id ? `names ${target.version}` : 'names another resource';
    return subject.refused(
      'contract_ledger_approval_mismatch',
      'approval.approves',
      classification,
      `the approval ${named}; approve ${subject.resource.id}@${subject.version}, the version this run publishes: --approve-widening ${subject.resource.id}@${subject.version}`,
    );
  }
  return undefined;
}

function widens(classification: ContractClassification): boolean {
  return classification.changes.some((change) => change.verdict === 'widening');
}

function securityOf(classification: ContractClassification): SecurityResult {
  const rules = new Set(classification.changes.map((change) => change.rule));
  if (rules.has('field_classification_lowered')) return 'widened';
  if (rules.has('field_classification_raised')) return 'narrowed';
  return 'unchanged';
}

function content(
  subject: Subject,
  verdict: PublicationVerdict,
  security: SecurityResult,
  changes: ContractClassification['changes'],
  checks: readonly PublicationCheck[],
): EntryContent {
  const { resource, request } = subject;
  return Object.freeze({
    profile: PROFILE,
    resource,
    version: subject.version,
    compatibility: subject.compatibility,
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
