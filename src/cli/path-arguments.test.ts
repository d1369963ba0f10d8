import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../test/helpers/cli.js';

/**
 * A path whose bytes are not UTF-8 reaches sealkit with U+FFFD in their
 * place, so it would be reported as a file or folder that does not exist —
 * while it does, under its own bytes. Every command taking a path says what
 * the path is instead: a usage error (exit 1) showing the bytes. Each case
 * runs the real CLI from a shell, in a folder where that path exists.
 */
const work = mkdtempSync(join(tmpdir(), 'sealkit-path-arguments-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const NAME = Buffer.from([0x62, 0x61, 0x64, 0xff]); // "bad\xff"
mkdirSync(Buffer.concat([Buffer.from(`${work}/`), NAME]));
writeFileSync(Buffer.concat([Buffer.from(`${work}/`), NAME, Buffer.from('.json')]), '{}');

/** `sealkit ARGS... PATH`, PATH given by the shell as the bytes above (with a suffix). */
function runWithPath(args: readonly string[], suffix = '', after: readonly string[] = []) {
  const script = `bin="$1"; shift; n="$1"; shift; exec "$0" "$bin" "$@" "$(printf 'bad\\377')$n" ${after.map((word) => `'${word}'`).join(' ')}`;
  return spawnSync(
    'sh',
    ['-c', script, process.execPath, join(REPO_ROOT, 'bin', 'sealkit.js'), suffix, ...args],
    {
      cwd: work,
    },
  );
}

const NOT_TEXT = (name: string, suffix = '') =>
  `sealkit: ${name} 'bad\\xff${suffix}' holds bytes that are not UTF-8 (shown as \\xNN); sealkit takes only paths named in UTF-8`;

/** The other flags an evidence check needs, each naming a file that exists (the bad path is refused before any is read). */
const EVIDENCE_REST = [
  '--inventory-file',
  'x.json',
  '--source-binding-id',
  'shop_main',
  '--max-evidence-age',
  '36h',
];
const SCAFFOLD_REST = [
  '--edition',
  'bigquery',
  '--source-id',
  'shop',
  '--mapping-file',
  'x.json',
  ...EVIDENCE_REST,
];

describe('a path argument whose bytes are not UTF-8', () => {
  it.each([
    [['edition', 'check'], '', [], NOT_TEXT('PROJECT_DIR')],
    [['contract', 'validate'], '', [], NOT_TEXT('DIR')],
    [['contract', 'history'], '', ['--resource', 'a.b'], NOT_TEXT('DIR')],
    [['contract', 'classify'], '.json', ['x.json'], NOT_TEXT('BASELINE_FILE', '.json')],
    [['distribute', 'verify'], '', [], NOT_TEXT('BUNDLE_DIR')],
    [['json', 'canonicalize'], '.json', [], NOT_TEXT('FILE', '.json')],
    [['owner', 'verify'], '.json', ['--expected-sha256', '0'.repeat(64)], NOT_TEXT('FILE', '.json')],
    [['edition', 'check', '.', '--fixtures'], '', [], NOT_TEXT('--fixtures')],
    [['distribute', 'run', '--config'], '.json', [], NOT_TEXT('--config', '.json')],
    [['evidence', 'check', '--mapping-file'], '.json', EVIDENCE_REST, NOT_TEXT('--mapping-file', '.json')],
    [
      ['evidence', 'check', ...EVIDENCE_REST, '--run-manifest'],
      '.json',
      [],
      NOT_TEXT('--run-manifest', '.json'),
    ],
    [['scaffold', ...SCAFFOLD_REST, '--workspace'], '', [], NOT_TEXT('--workspace')],
    [
      ['owner', 'subjects', 'owner.json', '--expected-sha256', '0'.repeat(64), '--attempt'],
      '.json',
      [],
      NOT_TEXT('--attempt', '.json'),
    ],
    [
      [
        'owner',
        'verify',
        'owner.json',
        '--expected-sha256',
        '0'.repeat(64),
        '--qualification-owner',
        'q.json',
        '--qualification-grant',
        'g.json',
        '--execution-grant',
      ],
      '.json',
      [],
      NOT_TEXT('--execution-grant', '.json'),
    ],
  ] as const)(
    'regression: sealkit %j says the path is not UTF-8, not that it does not exist',
    (args, suffix, after, line) => {
      const run = runWithPath(args, suffix, after);
      expect(run.stderr.toString('utf8').split('\n')[0]).toBe(line);
      expect(run.status).toBe(1);
    },
  );
});
