import { spawnSync } from 'node:child_process';
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../test/helpers/cli.js';
import { FAULTS_ENV } from '../../test/helpers/scaffold-child.js';
import { ScaffoldScratch, SOURCE_ID } from '../../test/helpers/scaffold-workspace.js';

const scratch = new ScaffoldScratch('umask');
afterAll(() => scratch.dispose());

const BIN = join(REPO_ROOT, 'bin', 'sealkit.js');

/** The built CLI under a umask set by the shell, as an operator's session would have it. */
function scaffoldUnder(umask: string, args: readonly string[], faults?: string) {
  const run = spawnSync('sh', ['-c', `umask ${umask} && exec "$0" "$@"`, process.execPath, BIN, ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...(faults === undefined ? {} : { [FAULTS_ENV]: faults }) },
    encoding: 'utf8',
  });
  return {
    status: run.status,
    result: JSON.parse(run.stdout.split('\n')[0] ?? '{}') as Record<string, unknown>,
  };
}

const mode = (path: string): number => lstatSync(path).mode & 0o7777;

// Regression: with umask 0277 the lock file was created 0400 and every later
// run refused with staging_root_invalid; with umask 0777 the staging root was
// left at 0000. Everything the scaffolder creates gets exactly the mode it
// names, set through the held descriptor right after creation.
describe.each(['0277', '0777'])('under umask %s', (umask) => {
  it('creates the staging root 0700, the lock 0600, generated/ and the output 0700, files 0600', () => {
    const fixture = scratch.fixture('bigquery');
    const first = scaffoldUnder(umask, fixture.cliArgs());
    expect(first).toMatchObject({ status: 0, result: { status: 'published', reason_codes: [] } });
    expect(mode(fixture.stagingRoot)).toBe(0o700);
    expect(mode(join(fixture.stagingRoot, `${SOURCE_ID}.lock`))).toBe(0o600);
    expect(mode(join(fixture.project, 'models', 'migration', 'generated'))).toBe(0o700);
    expect(mode(fixture.output)).toBe(0o700);
    const files = readdirSync(fixture.output);
    expect(files).toHaveLength(6);
    for (const name of files) expect(mode(join(fixture.output, name)), name).toBe(0o600);

    // Later runs read the staging state as valid: another source id publishes,
    // the same one is output_exists (never staging_root_invalid).
    const otherArgs = fixture.cliArgs();
    otherArgs[otherArgs.indexOf('--source-id') + 1] = 'other';
    const other = scaffoldUnder(umask, otherArgs);
    expect(other).toMatchObject({ status: 0, result: { status: 'published' } });
    expect(mode(join(fixture.stagingRoot, 'other.lock'))).toBe(0o600);
    const again = scaffoldUnder(umask, fixture.cliArgs());
    expect(again).toMatchObject({ status: 2, result: { reason_codes: ['output_exists'] } });
  });

  it('seals the staging directory at exactly 0500 with files 0400', () => {
    const fixture = scratch.fixture('snowflake');
    const run = scaffoldUnder(umask, fixture.cliArgs(), 'fail@after_seal');
    expect(run).toMatchObject({ status: 2, result: { staging_state: 'sealed' } });
    expect(mode(fixture.stagingRoot)).toBe(0o700);
    expect(mode(fixture.staging)).toBe(0o500);
    for (const name of readdirSync(fixture.staging))
      expect(mode(join(fixture.staging, name)), name).toBe(0o400);
  });
});
