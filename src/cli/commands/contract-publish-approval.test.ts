import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../test/helpers/cli.js';
import { copyExample } from '../../contracts/fixtures/resources.js';

const work = mkdtempSync(join(tmpdir(), 'sealkit-contract-approval-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
copyExample(join(work, 'retail'));

const env = { ...process.env };
delete env.SEALKIT_LEDGER_URL;
delete env.DATABASE_URL;

const publish = (...flags: string[]) =>
  runCli(['contract', 'publish', 'retail', '--dry-run', ...flags], { cwd: work, env });

describe('contract publish: a malformed approval flag says the form it takes', () => {
  it('regression: --approve-widening without a full version and --approved-at not RFC 3339 get a hint with the form', () => {
    const version = publish(
      '--approve-widening',
      'retail.source.orders@1.4',
      '--approver',
      'Ada',
      '--reason',
      'ok',
    );
    expect(version.status).toBe(2);
    expect(version.stderr.toString('utf8')).toBe(
      [
        'error[contract_ledger_approval_invalid]: the widening approval is incomplete or malformed (ID@VERSION, approver, RFC 3339 UTC time, reason)',
        '  = field: approval.approves',
        '  = help: expected <resource id>@MAJOR.MINOR.PATCH, the version the run publishes, e.g. retail.source.orders@1.4.0',
        '',
      ].join('\n'),
    );
    const time = publish(
      '--approve-widening',
      'retail.source.orders@1.4.0',
      '--approver',
      'Ada',
      '--reason',
      'ok',
      '--approved-at',
      'yesterday',
      '--json',
    );
    expect(time.status).toBe(2);
    expect(JSON.parse(time.stdout.toString('utf8'))).toMatchObject({
      reason_code: 'contract_ledger_approval_invalid',
      field: 'approval.approved_at',
      hint: 'expected RFC 3339 UTC to the second, e.g. 2026-03-01T09:30:00Z',
    });
    const approver = publish(
      '--approve-widening',
      'retail.source.orders@1.4.0',
      '--approver',
      ' Ada',
      '--reason',
      'ok',
    );
    expect(approver.stderr.toString('utf8')).toContain(
      "= help: expected the approver's name: 1 to 128 characters of NFC text, without control characters or leading or trailing space",
    );
    // Refused before the ledger is opened: nothing was created in the project.
    expect(readdirSync(join(work, 'retail')).filter((name) => name.startsWith('.'))).toEqual([]);
  });
});
