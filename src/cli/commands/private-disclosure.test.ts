import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type CliRun, runCli } from '../../../test/helpers/cli.js';
import { ScaffoldScratch } from '../../../test/helpers/scaffold-workspace.js';
import {
  KEY_SENTINEL,
  LOCATED_FAULTS,
  scanForLocatedDetail,
  scanForSentinels,
} from '../../../test/helpers/sentinels.js';
import { retailBundle, sentinelBundle, sentinelsOf, writeBundle } from '../../migration/testing/bundles.js';
import { buildOwner, toCanonical } from '../../owner/fixtures/build.js';
import { MSSQL_CLICKHOUSE } from '../../owner/fixtures/cells.js';

/**
 * The private domains (migration evidence, the scaffolder, the owner codec)
 * print a code, a role and an allowlisted field, never where a fault is:
 * their inputs describe a customer's schema or carry the owner document's
 * payload (docs/refusals.md#two-policies). Each command is fed the same
 * located-style faults that `sealkit json` reports by file, line, column and
 * hint, from files and folders whose names are sentinels.
 */

/** In every folder and file name the commands are given. */
const NAME_SENTINEL = 'zqcustomer_acme';

const roots: string[] = [];
const scratch = new ScaffoldScratch(NAME_SENTINEL);
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
  scratch.dispose();
});

/** An owner-only folder (the evidence files must be private) whose name is a sentinel. */
function privateDir(): string {
  const dir = mkdtempSync(join(tmpdir(), `sealkit-private-${NAME_SENTINEL}-`));
  chmodSync(dir, 0o700);
  roots.push(dir);
  return dir;
}

function writePrivate(dir: string, name: string, bytes: Uint8Array | string): string {
  const path = join(dir, name);
  writeFileSync(path, bytes, { mode: 0o600 });
  return path;
}

/** Neither output shows a located mark or any sentinel; the refusal itself is still there. */
function expectSilent(runs: readonly CliRun[], sentinels: readonly string[]): void {
  for (const run of runs) {
    expect(run.status).toBe(2);
    expect(scanForLocatedDetail(run)).toEqual([]);
    expect(scanForSentinels(run, [], [NAME_SENTINEL, KEY_SENTINEL, ...sentinels])).toEqual([]);
  }
}

function humanAndJson(args: readonly string[]): readonly [CliRun, CliRun] {
  const human = runCli(args);
  const json = runCli([...args, '--json']);
  expect(human.stdout.length).toBe(0);
  expect(human.stderr.toString()).toMatch(/^error\[[a-z_]+\]: /);
  expect(JSON.parse(json.stdout.toString())).toMatchObject({ status: 'refused' });
  return [human, json];
}

/** `evidence check` of `mapping` beside a bundle's dry run and run manifest, in human form and with `--json`. */
function evidenceCheck(
  mapping: string,
  paths: { readonly dryRunFile: string; readonly runManifestFile: string },
): readonly [CliRun, CliRun] {
  return humanAndJson([
    'evidence',
    'check',
    '--mapping-file',
    mapping,
    '--inventory-file',
    paths.dryRunFile,
    '--run-manifest',
    paths.runManifestFile,
    '--source-binding-id',
    'synthetic_retail',
    '--max-evidence-age',
    '36500d',
  ]);
}

describe('the faults are located ones: sealkit json reports them by line and column', () => {
  it.each(LOCATED_FAULTS)('$name', ({ bytes }) => {
    // The control for every test below: the same bytes, given to a located command, are located.
    const path = writePrivate(privateDir(), `${NAME_SENTINEL}.json`, bytes);
    const run = runCli(['json', 'digest', '--json', path]);
    expect(run.status).toBe(2);
    const record = JSON.parse(run.stdout.toString()) as { location?: { line?: number } };
    expect(record.location?.line).toBeGreaterThanOrEqual(1);
    expect(scanForLocatedDetail(run)).not.toEqual([]);
  });
});

describe('sealkit evidence check prints no location', () => {
  const bundle = sentinelBundle({ destination: 'bigquery' });
  const roles = ['mapping', 'dryRun', 'runManifest'] as const;

  it.each(
    LOCATED_FAULTS.flatMap((fault) =>
      roles.map((role) => ({ label: `${fault.name} in ${role}`, fault, role })),
    ),
  )('$label', ({ fault, role }) => {
    const dir = privateDir();
    const paths = writeBundle(join(dir, `${NAME_SENTINEL}_evidence`), bundle, { [role]: fault.bytes });
    const [human, json] = evidenceCheck(paths.mappingFile, paths);
    expect(JSON.parse(json.stdout.toString())).toMatchObject({ reason_code: 'scaffold_input_malformed' });
    expectSilent([human, json], [...sentinelsOf(bundle), paths.dir]);
  });

  it('names no file that is missing', () => {
    const dir = privateDir();
    const paths = writeBundle(join(dir, 'bundle'), retailBundle({ destination: 'bigquery' }));
    const runs = evidenceCheck(join(dir, `${NAME_SENTINEL}_mapping.json`), paths);
    expect(JSON.parse(runs[1].stdout.toString())).toMatchObject({ reason_code: 'scaffold_input_missing' });
    expectSilent(runs, [dir]);
  });
});

describe('sealkit evidence synth prints no location', () => {
  const synth = (out: string): readonly [CliRun, CliRun] =>
    humanAndJson(['evidence', 'synth', '--out', out, '--source', 'sql', '--destination', 'bigquery']);

  it('names neither a missing parent nor an existing output', () => {
    const dir = privateDir();
    const missing = synth(join(dir, `${NAME_SENTINEL}_absent`, 'evidence'));
    expect(JSON.parse(missing[1].stdout.toString())).toMatchObject({
      reason_code: 'evidence_synth_parent_missing',
    });
    mkdirSync(join(dir, `${NAME_SENTINEL}_taken`));
    const taken = synth(join(dir, `${NAME_SENTINEL}_taken`));
    expect(JSON.parse(taken[1].stdout.toString())).toMatchObject({
      reason_code: 'evidence_synth_output_exists',
    });
    expectSilent([...missing, ...taken], [dir]);
  });
});

describe('sealkit scaffold prints no location', () => {
  function scaffoldRun(args: readonly string[]): CliRun {
    const run = runCli(args);
    const lines = run.stdout.toString().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({ status: 'refused', stage: 'preflight' });
    return run;
  }

  it.each(LOCATED_FAULTS)('$name in the mapping file', ({ bytes }) => {
    const bundle = sentinelBundle({ destination: 'bigquery' });
    const fixture = scratch.fixture('bigquery', { bundle });
    writeFileSync(fixture.evidence.mappingFile, bytes);
    const run = scaffoldRun(fixture.cliArgs());
    expect(JSON.parse(run.stdout.toString())).toMatchObject({ reason_codes: ['scaffold_input_malformed'] });
    expectSilent([run], [...sentinelsOf(bundle), fixture.evidence.dir]);
  });

  it('a dbt_project.yml repeating a key on line 3', () => {
    const fixture = scratch.fixture('bigquery');
    writeFileSync(
      join(fixture.project, 'dbt_project.yml'),
      `name: shop\nversion: "1.0"\n${KEY_SENTINEL}: 1\nprofile: shop\n${KEY_SENTINEL}: 2\n`,
    );
    const run = scaffoldRun(fixture.cliArgs());
    expectSilent([run], [fixture.workspace]);
  });
});

describe('sealkit owner prints no location', () => {
  const built = buildOwner(MSSQL_CLICKHOUSE);
  const owner = toCanonical(built.owner);
  const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

  it.each(LOCATED_FAULTS)('$name in the owner document (verify and subjects)', ({ bytes }) => {
    const file = writePrivate(privateDir(), `${NAME_SENTINEL}_owner.json`, bytes);
    // The digest is the faulty file's own, so decoding reaches the JSON parser.
    for (const command of ['verify', 'subjects']) {
      const runs = humanAndJson(['owner', command, file, '--expected-sha256', sha256(bytes)]);
      expect(JSON.parse(runs[1].stdout.toString())).toMatchObject({
        reason_code: 'scoped_execution_document',
      });
      expectSilent(runs, [file]);
    }
  });

  it.each(LOCATED_FAULTS)('$name in an original (qualification owner, attempt)', ({ bytes }) => {
    const dir = privateDir();
    const ownerFile = writePrivate(dir, 'owner.json', owner.bytes);
    const faulty = writePrivate(dir, `${NAME_SENTINEL}_original.json`, bytes);
    const grant = writePrivate(dir, 'grant.json', toCanonical(built.qualificationGrant).bytes);
    const verify = humanAndJson([
      'owner',
      'verify',
      ownerFile,
      '--expected-sha256',
      owner.sha256,
      '--qualification-owner',
      faulty,
      '--qualification-grant',
      grant,
      '--execution-grant',
      grant,
    ]);
    const subjects = humanAndJson([
      'owner',
      'subjects',
      ownerFile,
      '--expected-sha256',
      owner.sha256,
      '--attempt',
      faulty,
    ]);
    expect(JSON.parse(verify[1].stdout.toString())).toMatchObject({
      reason_code: 'scoped_execution_originals',
    });
    expect(JSON.parse(subjects[1].stdout.toString())).toMatchObject({
      reason_code: 'scoped_execution_attempt',
    });
    expectSilent([...verify, ...subjects], [dir]);
  });
});

describe('a misspelt path in a private domain gets no "did you mean"', () => {
  /** The control: the same misspelt path, given to a located command, is answered with the name beside it. */
  function expectLocatedSuggestion(misspelt: string): void {
    const run = runCli(['json', 'digest', '--json', misspelt]);
    expect(run.status).toBe(2);
    expect(JSON.parse(run.stdout.toString())).toMatchObject({
      hint: expect.stringMatching(/^did you mean '/),
    });
  }
  const expectNoSuggestion = (runs: readonly CliRun[], sentinels: readonly string[]): void => {
    for (const run of runs) expect(`${run.stdout}${run.stderr}`).not.toContain('did you mean');
    expectSilent(runs, sentinels);
  };

  it('owner verify and subjects', () => {
    const dir = privateDir();
    writePrivate(dir, `${NAME_SENTINEL}_owner.json`, '{}');
    const misspelt = join(dir, `${NAME_SENTINEL}_ownr.json`);
    expectLocatedSuggestion(misspelt);
    for (const command of ['verify', 'subjects']) {
      const runs = humanAndJson(['owner', command, misspelt, '--expected-sha256', '0'.repeat(64)]);
      expect(JSON.parse(runs[1].stdout.toString())).toMatchObject({
        reason_code: 'input_missing',
        role: 'owner',
      });
      expectNoSuggestion(runs, [dir]);
    }
  });

  it('evidence check', () => {
    const dir = privateDir();
    const paths = writeBundle(
      join(dir, `${NAME_SENTINEL}_bundle`),
      retailBundle({ destination: 'bigquery' }),
    );
    const misspelt = paths.mappingFile.slice(0, -1);
    expectLocatedSuggestion(misspelt);
    const runs = evidenceCheck(misspelt, paths);
    expect(JSON.parse(runs[1].stdout.toString())).toMatchObject({ reason_code: 'scaffold_input_missing' });
    expectNoSuggestion(runs, [dir]);
  });

  it('evidence synth', () => {
    const dir = privateDir();
    mkdirSync(join(dir, `${NAME_SENTINEL}_evidence`));
    const misspelt = join(dir, `${NAME_SENTINEL}_evidenc`, 'out');
    expectLocatedSuggestion(misspelt);
    const runs = humanAndJson([
      'evidence',
      'synth',
      '--out',
      misspelt,
      '--source',
      'sql',
      '--destination',
      'bigquery',
    ]);
    expect(JSON.parse(runs[1].stdout.toString())).toMatchObject({
      reason_code: 'evidence_synth_parent_missing',
    });
    expectNoSuggestion(runs, [dir]);
  });

  it('scaffold', () => {
    const fixture = scratch.fixture('bigquery');
    const misspelt = fixture.evidence.mappingFile.slice(0, -1);
    expectLocatedSuggestion(misspelt);
    const args = fixture.cliArgs().map((arg) => (arg === fixture.evidence.mappingFile ? misspelt : arg));
    const run = runCli(args);
    expect(run.status).toBe(2);
    expect(JSON.parse(run.stdout.toString().trim())).toMatchObject({
      reason_codes: ['scaffold_input_missing'],
    });
    expectNoSuggestion([run], [fixture.evidence.dir]);
  });
});
