import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../test/helpers/cli.js';
import { COMMANDS } from './commands/index.js';

// sealkit off Linux, or where koffi's binary cannot load: the commands that
// need the Linux primitives refuse at once, the others work
// (docs/development.md#platforms).

const BIN = join(REPO_ROOT, 'bin', 'sealkit.js');
const work = mkdtempSync(join(tmpdir(), 'sealkit-platform-'));
const AS_DARWIN = "data:text/javascript,Object.defineProperty(process,'platform',{value:'darwin'})";
// koffi is loaded with require on first use; this preload makes that load fail
// as a missing or foreign prebuilt binary would.
const NO_KOFFI = join(work, 'no-koffi.cjs');
writeFileSync(
  NO_KOFFI,
  `const Module = require('node:module');
const load = Module._load;
Module._load = function (request, ...rest) {
  if (request === 'koffi') throw new Error('cannot load');
  return load.call(this, request, ...rest);
};
`,
);
writeFileSync(join(work, 'doc.json'), '{"b":1,"a":2}');

function sealkit(nodeArgs: readonly string[], args: readonly string[]) {
  return spawnSync(process.execPath, [...nodeArgs, BIN, ...args], { cwd: work, encoding: 'utf8' });
}

const settings: readonly (readonly [string, readonly string[]])[] = [
  ['another operating system', ['--import', AS_DARWIN]],
  ['a koffi that cannot load', ['--require', NO_KOFFI]],
];

describe.each(settings)('on %s', (_name, nodeArgs) => {
  it('the portable commands work', () => {
    const run = sealkit(nodeArgs, ['json', 'canonicalize', 'doc.json']);
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('{"a":2,"b":1}');
    expect(run.status).toBe(0);
  });

  it('a command that needs the Linux primitives refuses at once, before reading or writing anything', () => {
    const before = readdirSync(work).sort();
    const run = sealkit(nodeArgs, ['edition', 'new', '--edition', 'bigquery', 'workspace']);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^error\[platform_unsupported\]: this command needs Linux with glibc/);
    expect(readdirSync(work).sort()).toEqual(before);
    const json = sealkit(nodeArgs, ['distribute', 'run', '--json']);
    expect(json.status).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({ status: 'refused', reason_code: 'platform_unsupported' });
  });

  it('help still works for every command', () => {
    const run = sealkit(nodeArgs, ['scaffold', '--help']);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^Usage: sealkit scaffold/);
  });
});

describe('the command table', () => {
  it('marks as portable exactly the commands that read through plain Node I/O', () => {
    expect(
      COMMANDS.filter((entry) => entry.portable)
        .map((entry) => entry.path.join(' '))
        .sort(),
    ).toEqual([
      'completion',
      'contract classify',
      'json canonicalize',
      'json digest',
      'owner subjects',
      'owner verify',
    ]);
  });
});
