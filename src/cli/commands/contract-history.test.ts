import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../test/helpers/cli.js';
import { Dir, lockExclusiveNonBlocking } from '../../core/fs/index.js';

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

describe('a ledger another process holds', () => {
  it('regression: a busy embedded ledger is named, with what to do', () => {
    const project = join(work, 'busy');
    mkdirSync(join(project, '.sealkit'), { recursive: true, mode: 0o700 });
    const sealkit = Dir.open(join(project, '.sealkit'));
    const held = lockExclusiveNonBlocking(sealkit, 'ledger.lock');
    try {
      expect(held.kind).toBe('acquired');
      const history = runCli(['contract', 'history', 'busy', '--resource', 'retail.source.orders'], {
        cwd: work,
      });
      expect(history.status).toBe(2);
      expect(history.stderr.toString()).toBe(
        [
          'error[contract_ledger_busy]: another sealkit process has the embedded ledger open',
          '  --> busy/.sealkit/ledger',
          '  = help: another publish, history or replay of this project holds the ledger: try again when it has finished',
          '',
        ].join('\n'),
      );
      const replay = runCli(['contract', 'replay', 'busy', '--json'], { cwd: work });
      expect(JSON.parse(replay.stdout.toString())).toMatchObject({
        reason_code: 'contract_ledger_busy',
        location: { path: 'busy/.sealkit/ledger' },
        hint: 'another publish, history or replay of this project holds the ledger: try again when it has finished',
      });
    } finally {
      if (held.kind === 'acquired') held.lock.release();
      sealkit.close();
    }
  });
});
