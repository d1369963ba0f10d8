import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli } from '../../../test/helpers/cli.js';
import { copyExample } from '../../contracts/fixtures/resources.js';

/**
 * A contract command missing a value it needs, or given an empty one (`''`,
 * `--out=`, an unset shell variable), is a usage error: exit 1, one line
 * naming the argument or flag, then the command's synopsis, and nothing read
 * or written — never a refusal about a folder named '' nor an internal error
 * (docs/cli.md#exit-codes). Each case runs the real CLI in a folder holding
 * only the example project `retail`.
 */

const work = mkdtempSync(join(tmpdir(), 'sealkit-contract-usage-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
copyExample(join(work, 'retail'));

const CASES: readonly (readonly [readonly string[], string])[] = [
  [['validate'], 'missing argument DIR'],
  [['validate', ''], 'argument DIR is an empty string'],
  [['project'], 'missing argument DIR'],
  [['project', '--out', 'x'], 'missing argument DIR'],
  [['project', ''], 'argument DIR is an empty string'],
  [['project', 'retail', '--out', ''], '--out takes a value, not an empty string: --out OUT'],
  [['project', 'retail', '--out='], '--out takes a value, not an empty string: --out OUT'],
  [['project', 'retail', '--resource', ''], '--resource takes a value, not an empty string: --resource ID'],
  [['schemas'], 'missing option --out'],
  [['schemas', '--out', ''], '--out takes a value, not an empty string: --out OUT'],
  [['schemas', '--out='], '--out takes a value, not an empty string: --out OUT'],
  [['affected', 'retail'], 'missing option --resource'],
  [['affected', '--resource', 'retail.source.orders'], 'missing argument DIR'],
  [['affected', '', '--resource', 'retail.source.orders'], 'argument DIR is an empty string'],
  [['affected', 'retail', '--resource', ''], '--resource takes a value, not an empty string: --resource ID'],
  [['classify'], 'missing argument BASELINE_FILE'],
  [['classify', 'a.json'], 'missing argument CANDIDATE_FILE'],
  [['classify', '', 'b.json'], 'argument BASELINE_FILE is an empty string'],
  [['classify', 'a.json', ''], 'argument CANDIDATE_FILE is an empty string'],
  [
    ['classify', 'a.json', 'b.json', '--fail-on', ''],
    '--fail-on takes a value, not an empty string: --fail-on compatible|widening|breaking',
  ],
  [['history', 'retail'], 'missing option --resource'],
  [['history', '', '--resource', 'retail.source.orders'], 'argument DIR is an empty string'],
  [['history', 'retail', '--resource', ''], '--resource takes a value, not an empty string: --resource ID'],
  [
    ['history', 'retail', '--resource', 'retail.source.orders', '--ledger', ''],
    '--ledger takes a value, not an empty string: --ledger URL',
  ],
  [['replay', ''], 'argument DIR is an empty string'],
  [['replay', '--project', ''], '--project takes a value, not an empty string: --project DIR'],
  [['replay', 'retail', '--ledger='], '--ledger takes a value, not an empty string: --ledger URL'],
  [['publish'], 'missing argument DIR'],
  [['publish', '--project', '', '--dry-run'], '--project takes a value, not an empty string: --project DIR'],
  [
    ['history', '--project', '', '--resource', 'retail.source.orders'],
    '--project takes a value, not an empty string: --project DIR',
  ],
  [['publish', '', '--dry-run'], 'argument DIR is an empty string'],
  [
    ['publish', 'retail', '--resource', 'retail.source.orders', '--resource', '', '--dry-run'],
    '--resource takes a value, not an empty string: --resource ID',
  ],
  [
    ['publish', 'retail', '--ledger', '', '--dry-run'],
    '--ledger takes a value, not an empty string: --ledger URL',
  ],
];

describe('contract commands: a missing or empty argument or flag is a usage error', () => {
  it.each(CASES)('sealkit contract %j', (args, message) => {
    const command = args[0] ?? '';
    const before = readdirSync(work).sort();
    const run = runCli(['contract', ...args], { cwd: work });
    expect(run.status).toBe(1);
    expect(run.stdout.toString('utf8')).toBe('');
    const lines = run.stderr.toString('utf8').trimEnd().split('\n');
    expect(lines[0]).toBe(`sealkit: ${message}`);
    // The synopsis follows at once, or after one line of advice.
    const usage = lines.findIndex((line) => line.startsWith(`Usage: sealkit contract ${command} `));
    expect([1, 2]).toContain(usage);
    expect(lines.at(-1)).toBe(`see 'sealkit contract ${command} --help'`);
    expect(run.stderr.toString('utf8')).not.toMatch(/error\[|ENOENT|internal/);
    // Nothing was read into a cache or written: no output folder, no .sealkit.
    expect(readdirSync(work).sort()).toEqual(before);
    expect(readdirSync(join(work, 'retail')).sort()).toEqual(['dashboards', 'models', 'semantic', 'sources']);

    const machine = runCli(['contract', ...args, '--json'], { cwd: work });
    expect(machine.status).toBe(1);
    expect(JSON.parse(machine.stdout.toString('utf8'))).toMatchObject({
      status: 'usage_error',
      reason_code: 'usage',
      message,
    });
  });
});

describe('contract commands: an --out whose bytes are not UTF-8', () => {
  // Node reads the byte 0xff as U+FFFD: a folder would be made under a name nobody typed.
  it.each([[['project', 'retail', '--out']], [['schemas', '--out']]])(
    'regression: sealkit contract %j with a non-UTF-8 path is a usage error, and nothing is written',
    (args) => {
      const before = readdirSync(work).sort();
      const script = `bin="$1"; shift; exec "$0" "$bin" contract "$@" "$(printf 'out\\377')"`;
      const run = spawnSync(
        'sh',
        ['-c', script, process.execPath, join(REPO_ROOT, 'bin', 'sealkit.js'), ...args],
        {
          cwd: work,
        },
      );
      expect(run.status).toBe(1);
      expect(run.stderr.toString('utf8').split('\n')[0]).toBe(
        "sealkit: --out 'out\\xff' holds bytes that are not UTF-8 (shown as \\xNN); sealkit takes only paths named in UTF-8",
      );
      expect(readdirSync(work).sort()).toEqual(before);
    },
  );

  it('takes an --out holding U+FFFD typed as UTF-8', () => {
    const run = runCli(['contract', 'schemas', '--out', 'schemas\uFFFD'], { cwd: work });
    expect(run.status).toBe(0);
    expect(readdirSync(work)).toContain('schemas\uFFFD');
    rmSync(join(work, 'schemas\uFFFD'), { recursive: true });
  });
});
