import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../test/helpers/cli.js';
import { snapshotTree } from '../../test/helpers/edition-trees.js';
import { ScaffoldChild } from '../../test/helpers/scaffold-child.js';
import { type ScaffoldFixture, ScaffoldScratch, SOURCE_ID } from '../../test/helpers/scaffold-workspace.js';
import { scaffold } from './run.js';

// What only separate processes show: a lock held by another process, a
// SIGKILL (the kernel frees the lock), real SIGINT/SIGTERM, a platform
// without the primitives. Each run is the built CLI with the hook armed.
const scratch = new ScaffoldScratch('processes');
afterAll(() => scratch.dispose());

const OUTPUT = `models/migration/generated/${SOURCE_ID}`;

function mode(path: string): number {
  return lstatSync(path).mode & 0o7777;
}

function parsed(stdout: string): Record<string, unknown> {
  const lines = stdout.trim().split('\n');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0] ?? '') as Record<string, unknown>;
}

describe('a run in another process', () => {
  it('holds the lock while paused: other runs and dry runs refuse with staging_in_use; after it publishes, output_exists', async () => {
    const fixture = scratch.fixture('bigquery');
    const first = new ScaffoldChild(fixture.cliArgs(), 'pause@after_seal');
    await first.paused('after_seal#1');
    const before = fixture.snapshot();
    const second = runCli(fixture.cliArgs());
    const dry = runCli(fixture.cliArgs(['--dry-run']));
    expect(second.status).toBe(2);
    expect(parsed(second.stdout.toString())).toMatchObject({
      status: 'refused',
      reason_codes: ['staging_in_use'],
      staging: `.scaffold-staging/${SOURCE_ID}`,
    });
    expect(parsed(dry.stdout.toString())).toMatchObject({
      status: 'refused',
      reason_codes: ['staging_in_use'],
    });
    expect(fixture.snapshot()).toEqual(before);
    first.release();
    const outcome = await first.finished();
    expect(outcome.status).toBe(0);
    expect(parsed(outcome.stdout)).toMatchObject({ status: 'published' });
    expect((await scaffold(fixture.options())).reason_codes).toEqual(['output_exists']);
  });

  it.each(['after_mkdir#1', 'after_seal#1', 'after_unseal#1'])(
    'killed with SIGKILL at %s: the lock is free, a later run refuses with staging_exists (not staging_in_use)',
    async (point) => {
      const fixture = scratch.fixture('snowflake');
      const first = new ScaffoldChild(fixture.cliArgs(), `pause@${point}`);
      await first.paused(point);
      first.kill('SIGKILL');
      const outcome = await first.exited();
      expect(outcome.signal).toBe('SIGKILL');
      expect(outcome.stdout).toBe('');
      expect(existsSync(fixture.output)).toBe(false);
      const later = await scaffold(fixture.options());
      expect(later.reason_codes).toEqual(['staging_exists']);
    },
  );
});

describe('signals before publication', () => {
  const points = [
    ['after_lock#1', 'SIGINT', undefined],
    ['after_mkdir#1', 'SIGTERM', 'unsealed'],
    ['after_write#2', 'SIGINT', 'unsealed'],
    ['after_file_seal#3', 'SIGTERM', 'partially_sealed'],
    ['after_seal#1', 'SIGINT', 'sealed'],
    ['after_verify#1', 'SIGTERM', 'sealed'],
    ['after_unseal#1', 'SIGINT', 'partially_sealed'],
    ['before_rename#1', 'SIGTERM', 'partially_sealed'],
  ] as const;

  it.each(points)(
    'at %s, %s writes the refusal result and leaves the staging entries, modes and hashes as they were',
    async (point, signal, state) => {
      const fixture = scratch.fixture('bigquery');
      const child = new ScaffoldChild(fixture.cliArgs(), `pause@${point}`);
      await child.paused(point);
      const before = snapshotTree(fixture.stagingRoot);
      child.kill(signal);
      const outcome = await child.exited();
      expect(outcome.status).toBe(signal === 'SIGINT' ? 130 : 143);
      const result = parsed(outcome.stdout);
      expect(result).toMatchObject({ status: 'refused', reason_codes: ['interrupted'] });
      expect(result.staging_state).toBe(state);
      expect(snapshotTree(fixture.stagingRoot)).toEqual(before);
      expect(existsSync(fixture.output)).toBe(false);
    },
  );
});

describe('killed after the rename', () => {
  it.each([
    ['after_rename#1', 6],
    ['after_chmod#2', 4],
  ] as const)(
    'at %s: the complete output stays with read-only files, no result is written; the repair restores editability',
    async (point, readOnly) => {
      const fixture = scratch.fixture('bigquery');
      const child = new ScaffoldChild(fixture.cliArgs(), `pause@${point}`);
      await child.paused(point);
      child.kill('SIGKILL');
      const outcome = await child.exited();
      expect(outcome.stdout).toBe('');
      const modes = readdirSync(fixture.output).map((name) => mode(join(fixture.output, name)));
      expect(modes).toHaveLength(6);
      expect(modes.filter((m) => m === 0o400)).toHaveLength(readOnly);
      const later = await scaffold(fixture.options());
      // The manifest is normalized last, so its mode tells: the hint, from metadata only.
      expect(later).toMatchObject({ reason_codes: ['output_exists'], repair: `chmod -R u+w ${OUTPUT}` });
      expect(spawnSync('sh', ['-c', `chmod -R u+w ${OUTPUT}`], { cwd: fixture.project }).status).toBe(0);
      for (const name of readdirSync(fixture.output))
        expect(mode(join(fixture.output, name)) & 0o200).toBe(0o200);
      expect((await scaffold(fixture.options())).repair).toBeUndefined();
    },
  );

  it('a swap between the identity check and the rename exits 4 with publish_unverified', async () => {
    const fixture = scratch.fixture('snowflake');
    const child = new ScaffoldChild(fixture.cliArgs(), 'pause@before_rename');
    await child.paused('before_rename#1');
    renameSync(fixture.staging, join(fixture.stagingRoot, 'moved-away'));
    mkdirSync(fixture.staging, { mode: 0o700 });
    child.release();
    const outcome = await child.finished();
    expect(outcome.status).toBe(4);
    expect(parsed(outcome.stdout)).toMatchObject({
      status: 'publish_unverified',
      reason_codes: ['publish_identity_mismatch'],
    });
  });
});

describe('a platform without the held-descriptor primitives', () => {
  const built = fileURLToPath(new URL('../../dist/src/scaffold/index.js', import.meta.url));
  const PROBE = `
const [entry, options] = process.argv.slice(1);
Object.defineProperty(process, 'platform', { value: 'darwin' });
const { scaffold } = await import(entry);
process.stdout.write(JSON.stringify(await scaffold(JSON.parse(options))));
`;

  /** The run in a process that reports another platform; the clock stays the child's own (a Date is not JSON). */
  function probe(fixture: ScaffoldFixture, dryRun: boolean): Record<string, unknown> {
    const options = { ...fixture.options({ dryRun }), now: undefined };
    const result = spawnSync(
      process.execPath,
      ['--input-type=module', '-e', PROBE, built, JSON.stringify(options)],
      { encoding: 'utf8' },
    );
    expect(result.status).toBe(0);
    return JSON.parse(result.stdout) as Record<string, unknown>;
  }

  it.each([
    ['a run', false],
    ['a dry run', true],
  ])('%s refuses with atomic_publish_unavailable before any write', (_mode, dryRun) => {
    const fixture = scratch.fixture('bigquery');
    const before = fixture.snapshot();
    expect(probe(fixture, dryRun)).toMatchObject({
      status: 'refused',
      reason_codes: ['atomic_publish_unavailable'],
      stage: 'preflight',
    });
    expect(fixture.snapshot()).toEqual(before);
  });
});

describe('a signal after the result', () => {
  // The CLI paused by SEALKIT_SCAFFOLD_FAULTS after it printed its result,
  // before the process ends: before, the signal handlers were gone there and
  // the signal's default action ended a published run (a shell saw 130).
  it('regression: SIGINT after a publication changes nothing: exit 0, the published result, one note', async () => {
    const fixture = scratch.fixture('bigquery');
    const child = new ScaffoldChild(fixture.cliArgs(), 'pause@after_result');
    await child.paused('after_result#1');
    child.kill('SIGINT');
    await child.stderrHas('sealkit: SIGINT came after the publication completed; the result stands\n');
    const outcome = await child.finished();
    expect(outcome.signal).toBeNull();
    expect(outcome.status).toBe(0);
    expect(parsed(outcome.stdout)).toMatchObject({ status: 'published', reason_codes: [] });
    expect(readdirSync(fixture.output)).toHaveLength(6);
  });

  it('regression: SIGTERM after a refusal keeps the refusal’s exit 2; with --json stderr stays silent', async () => {
    const fixture = scratch.fixture('snowflake');
    expect((await scaffold(fixture.options())).status).toBe('published');
    const child = new ScaffoldChild(fixture.cliArgs(['--json']), 'pause@after_result');
    await child.paused('after_result#1');
    child.kill('SIGTERM');
    // The note is not printed under --json; give the handler a moment to run before releasing.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const outcome = await child.finished();
    expect(outcome.signal).toBeNull();
    expect(outcome.status).toBe(2);
    expect(parsed(outcome.stdout)).toMatchObject({ status: 'refused', reason_codes: ['output_exists'] });
    expect(outcome.stderr).toBe('sealkit scaffold fault: paused at after_result#1\n');
  });
});
