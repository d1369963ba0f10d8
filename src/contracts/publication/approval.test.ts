import { describe, expect, it } from 'vitest';
import { checkApproval, isUtcSecond, splitApprovalTarget } from './approval.js';
import { approvalOf } from './fixtures.js';

const fieldOf = (work: () => unknown): string | undefined => {
  try {
    work();
  } catch (error: unknown) {
    expect((error as { code?: string }).code).toBe('contract_ledger_approval_invalid');
    return (error as { field?: string }).field;
  }
  return undefined;
};

describe('widening approvals', () => {
  it('accept exactly ID@VERSION, an approver, an RFC 3339 UTC second and a reason', () => {
    const approval = approvalOf('retail.source.orders@1.4.0');
    expect(checkApproval(approval)).toEqual(approval);
    expect(splitApprovalTarget('retail.source.orders@1.4.0')).toEqual({
      id: 'retail.source.orders',
      version: '1.4.0',
    });
  });

  it.each([
    ['approves', 'retail.source.orders', 'approval.approves'],
    ['approves', 'Retail.Orders@1.0.0', 'approval.approves'],
    ['approves', 'retail.source.orders@1.04.0', 'approval.approves'],
    ['approver', '', 'approval.approver'],
    ['approver', ' Ada', 'approval.approver'],
    ['approver', 'A\u0007da', 'approval.approver'],
    ['approver', 'x'.repeat(129), 'approval.approver'],
    ['approver', 'Cafe\u0301', 'approval.approver'],
    ['approvedAt', '2026-03-01', 'approval.approved_at'],
    ['approvedAt', '2026-03-01T09:30:00+01:00', 'approval.approved_at'],
    ['approvedAt', '2026-02-30T09:30:00Z', 'approval.approved_at'],
    ['approvedAt', '2026-03-01T09:30:00.5Z', 'approval.approved_at'],
    ['reason', '', 'approval.reason'],
    ['reason', 'line one\nline two', 'approval.reason'],
    ['reason', 'x'.repeat(2001), 'approval.reason'],
  ] as const)('refuses %s %j', (key, value, field) => {
    expect(fieldOf(() => checkApproval(approvalOf('t.source.orders@1.0.0', { [key]: value })))).toBe(field);
  });

  it('knows a UTC second', () => {
    expect(isUtcSecond('2024-02-29T23:59:59Z')).toBe(true);
    expect(isUtcSecond('2023-02-29T23:59:59Z')).toBe(false);
    expect(isUtcSecond('2024-02-29T24:00:00Z')).toBe(false);
  });
});
