import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../test/helpers/cli.js';
import { scanForSentinels } from '../../../test/helpers/sentinels.js';
import { copyExample } from '../../contracts/fixtures/resources.js';

const work = mkdtempSync(join(tmpdir(), 'sealkit-contract-ledger-output-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
copyExample(join(work, 'retail'));

/** The environment with only the ledger variables given here. */
function envWith(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of ['SEALKIT_LEDGER_URL', 'DATABASE_URL', 'PGHOST', 'PGPORT', 'PGUSER', 'PGDATABASE'])
    delete env[name];
  return { ...env, ...extra };
}

describe('a ledger server that cannot be used says which one, and where its URL came from', () => {
  it('regression: an unreachable DATABASE_URL ledger is placed at the server shown, from DATABASE_URL, never the password', () => {
    const env = envWith({ DATABASE_URL: 'postgres://u:zqSentinelPassword@127.0.0.1:1/x' });
    const runs = [
      runCli(['contract', 'publish', 'retail', '--dry-run'], { cwd: work, env }),
      runCli(['contract', 'history', 'retail', '--resource', 'retail.source.orders'], { cwd: work, env }),
      runCli(['contract', 'replay', 'retail'], { cwd: work, env }),
    ];
    for (const run of runs) {
      expect(run.status).toBe(2);
      expect(run.stderr.toString('utf8')).toBe(
        [
          'error[contract_ledger_unavailable]: the ledger database cannot be opened or reached',
          '  --> postgres://u@127.0.0.1:1/x (from DATABASE_URL)',
          '  = help: nothing listens at that host and port (connection refused): check the host and port, and that the server runs',
          '',
        ].join('\n'),
      );
    }
    const asJson = runCli(['contract', 'publish', 'retail', '--dry-run', '--json'], { cwd: work, env });
    expect(JSON.parse(asJson.stdout.toString('utf8'))).toMatchObject({
      reason_code: 'contract_ledger_unavailable',
      location: { path: 'postgres://u@127.0.0.1:1/x (from DATABASE_URL)' },
    });
    for (const run of [...runs, asJson])
      expect(scanForSentinels(run, [], ['zqSentinelPassword'])).toEqual([]);
  });

  it('regression: a DATABASE_URL that is no postgres:// URL is named as the variable at fault, without its value', () => {
    const env = envWith({ DATABASE_URL: 'zqSentinelGarbage' });
    const run = runCli(['contract', 'publish', 'retail', '--dry-run'], { cwd: work, env });
    expect(run.status).toBe(2);
    expect(run.stderr.toString('utf8')).toBe(
      [
        'error[contract_ledger_location_invalid]: the ledger location is not a postgres:// or postgresql:// URL that can be read',
        '  = help: the variable DATABASE_URL holds no postgres:// or postgresql:// URL: set it to one, name the ledger with --ledger URL, or unset it for the embedded ledger',
        '',
      ].join('\n'),
    );
    // A URL of the right scheme that cannot be read: the hint says whose URL it is.
    const badPort = runCli(['contract', 'replay', 'retail', '--json'], {
      cwd: work,
      env: envWith({ SEALKIT_LEDGER_URL: 'postgres://u:zqSentinelPassword@127.0.0.1:notaport/x' }),
    });
    expect(JSON.parse(badPort.stdout.toString('utf8'))).toMatchObject({
      reason_code: 'contract_ledger_location_invalid',
      hint: 'the URL in SEALKIT_LEDGER_URL: check its port (a number), its percent-encoding, and the files its sslcert, sslkey and sslrootcert name',
    });
    for (const one of [run, badPort])
      expect(scanForSentinels(one, [], ['zqSentinelPassword', 'zqSentinelGarbage'])).toEqual([]);
  });
});
