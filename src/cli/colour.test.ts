import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli } from '../../test/helpers/cli.js';

// Colour only for a person at a terminal: `script` (util-linux) gives the CLI a
// real pseudo-terminal, as an interactive shell would.

const BIN = join(REPO_ROOT, 'bin', 'sealkit.js');
const ESC = '\u001b[';

/** What a terminal shows for `sealkit ARGS` (stdout and stderr both go to the terminal). */
function inTerminal(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): { status: number | null; shown: string } {
  const command = [process.execPath, BIN, ...args].map((word) => `'${word}'`).join(' ');
  const run = spawnSync('script', ['--quiet', '--return', '--command', command, '/dev/null'], {
    encoding: 'utf8',
    env,
  });
  return { status: run.status, shown: run.stdout };
}

const base: NodeJS.ProcessEnv = { ...process.env, TERM: 'xterm-256color' };
delete base.NO_COLOR;

describe('colour', () => {
  it('paints a refusal on a terminal', () => {
    const refused = inTerminal(['json', 'digest', '/nonexistent-zq'], base);
    expect(refused.status).toBe(2);
    expect(refused.shown).toContain(`${ESC}1;31merror[input_missing]`);
  });

  it('is never used with NO_COLOR set, even to an empty value, or with TERM=dumb', () => {
    for (const env of [
      { ...base, NO_COLOR: '' },
      { ...base, NO_COLOR: '1' },
      { ...base, TERM: 'dumb' },
    ]) {
      const run = inTerminal(['json', 'digest', '/nonexistent-zq'], env);
      expect(run.status).toBe(2);
      expect(run.shown).toContain('error[input_missing]');
      expect(run.shown).not.toContain(ESC);
    }
  });

  it('is never used when stderr is a pipe or a file', () => {
    const run = runCli(['json', 'digest', '/nonexistent-zq'], { env: base });
    expect(run.stderr.toString()).toMatch(/^error\[input_missing\]/);
    expect(run.stderr.toString()).not.toContain(ESC);
  });
});
