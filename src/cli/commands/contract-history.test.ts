import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../test/helpers/cli.js';

const work = mkdtempSync(join(tmpdir(), 'sealkit-contract-history-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('reading a ledger that was never created', () => {
  it('regression: history and replay name where the ledger was looked for and how to create it', () => {
    const history = runCli(['contract', 'history', '--resource', 'retail.source.orders'], { cwd: work });
    expect(history.status).toBe(2);
    expect(history.stderr.toString()).toBe(
      [
        'error[contract_ledger_missing]: the ledger does not exist yet: nothing was ever published there',
        '  --> .sealkit/ledger',
        "  = help: publish first with 'sealkit contract publish .', or pass --ledger URL",
        '',
      ].join('\n'),
    );
    const replay = runCli(['contract', 'replay', '--json'], { cwd: work });
    expect(replay.status).toBe(2);
    expect(JSON.parse(replay.stdout.toString())).toMatchObject({
      reason_code: 'contract_ledger_missing',
      location: { path: '.sealkit/ledger' },
    });
  });
});
