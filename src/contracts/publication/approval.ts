import { isResourceId, VERSION_PATTERN } from '../authoring/identifiers.js';
import { isWellFormedText } from '../authoring/text.js';
import { refuseLedger } from './refusals.js';

/**
 * An explicit approval of a widening publication: who approved which exact
 * resource version, when, and why. It is evidence bound into the ledger entry
 * (and so into its hash); it authorizes nothing else — deployment policy
 * reads it as an input.
 */
export interface WideningApproval {
  /** `ID@VERSION` of the publication approved. */
  readonly approves: string;
  readonly approver: string;
  /** RFC 3339 UTC to the second, e.g. `2026-03-01T09:30:00Z`. */
  readonly approvedAt: string;
  readonly reason: string;
}

export const MAX_APPROVER_LENGTH = 128;
export const MAX_REASON_LENGTH = 2000;
const UTC_SECOND = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z$/;

/** Text an approval may carry: well-formed, NFC, no control characters, no surrounding space. */
function plainText(text: string, max: number): boolean {
  if (text.length === 0 || text.length > max || text !== text.trim()) return false;
  if (!isWellFormedText(text) || text.normalize('NFC') !== text) return false;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x20 || (unit >= 0x7f && unit <= 0x9f) || unit >= 0xfffe) return false;
  }
  return true;
}

export function isUtcSecond(text: string): boolean {
  const match = UTC_SECOND.exec(text);
  if (match === null) return false;
  const date = new Date(text);
  return !Number.isNaN(date.getTime()) && date.toISOString() === text.replace('Z', '.000Z');
}

export function splitApprovalTarget(
  target: string,
): { readonly id: string; readonly version: string } | undefined {
  const at = target.lastIndexOf('@');
  if (at < 0) return undefined;
  const id = target.slice(0, at);
  const version = target.slice(at + 1);
  return isResourceId(id) && VERSION_PATTERN.test(version) ? { id, version } : undefined;
}

/** The form each part of an approval takes, for the hint of the part refused (docs/contracts.md#publication-ledger). */
export const APPROVAL_PART_FORMS = {
  'approval.approves':
    'expected <resource id>@MAJOR.MINOR.PATCH, the version the run publishes, e.g. retail.source.orders@1.4.0',
  'approval.approver': `expected the approver's name: 1 to ${MAX_APPROVER_LENGTH} characters of NFC text, without control characters or leading or trailing space`,
  'approval.approved_at': 'expected RFC 3339 UTC to the second, e.g. 2026-03-01T09:30:00Z',
  'approval.reason': `expected the reason: 1 to ${MAX_REASON_LENGTH.toLocaleString('en-US')} characters of NFC text, without control characters or leading or trailing space`,
} as const;

/** Refuses an approval that is incomplete or malformed; `field` names the part, `hint` its form. */
export function checkApproval(approval: WideningApproval): WideningApproval {
  const invalid = (field: keyof typeof APPROVAL_PART_FORMS) =>
    refuseLedger('contract_ledger_approval_invalid', {
      role: 'approval',
      field,
      hint: APPROVAL_PART_FORMS[field],
    });
  if (splitApprovalTarget(approval.approves) === undefined) throw invalid('approval.approves');
  if (!plainText(approval.approver, MAX_APPROVER_LENGTH)) throw invalid('approval.approver');
  if (!isUtcSecond(approval.approvedAt)) throw invalid('approval.approved_at');
  if (!plainText(approval.reason, MAX_REASON_LENGTH)) throw invalid('approval.reason');
  return Object.freeze({ ...approval });
}

/** The approval as stored in the ledger (snake case, sorted by RFC 8785). */
export function approvalJson(approval: WideningApproval): Readonly<Record<string, string>> {
  return {
    approved_at: approval.approvedAt,
    approver: approval.approver,
    approves: approval.approves,
    reason: approval.reason,
  };
}
