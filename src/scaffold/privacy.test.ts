import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../test/helpers/cli.js';
import { FAULTS_ENV } from '../../test/helpers/scaffold-child.js';
import { ScaffoldScratch, SOURCE_ID } from '../../test/helpers/scaffold-workspace.js';
import { scanForSentinels } from '../../test/helpers/sentinels.js';
import { type MutableBundle, PLANTED, sentinelBundle, sentinelsOf } from '../migration/testing/bundles.js';

const scratch = new ScaffoldScratch('privacy');
afterAll(() => scratch.dispose());

function mode(path: string): number {
  return lstatSync(path).mode & 0o7777;
}

/** What must appear nowhere: planted values, the run ID, paths; on stdout/stderr also fingerprints and Bronze names. */
function sentinels(bundle: MutableBundle, paths: readonly string[]): { files: string[]; output: string[] } {
  const fingerprints = [
    String(bundle.dryRun.source_mapping_fingerprint),
    String(bundle.dryRun.schema_confirmation_fingerprint),
  ];
  const planted = sentinelsOf(bundle).filter((value) => !fingerprints.includes(value));
  const files = [
    ...planted,
    ...paths,
    String(bundle.dryRun.bronze_namespace),
    'MIGRATION_SOURCE_URL',
    'password',
  ];
  const bronze = ['zqx_secret_col', 'units_ordered', 'country_code', String(bundle.dryRun.bronze_namespace)];
  return { files, output: [...files, ...fingerprints, ...bronze] };
}

describe('privacy', () => {
  it('a published run: files and manifest hold no planted value, path or namespace; stdout and stderr not even fingerprints or Bronze names', () => {
    const bundle = sentinelBundle({ destination: 'snowflake' });
    const fixture = scratch.fixture('snowflake', { bundle });
    const run = runCli(fixture.cliArgs());
    expect(run.status).toBe(0);
    const { files, output } = sentinels(bundle, [scratch.base, fixture.workspace, fixture.evidence.dir]);
    expect(scanForSentinels(run, [fixture.output, fixture.stagingRoot], files)).toEqual([]);
    expect(scanForSentinels(run, [], output)).toEqual([]);
    // The planted raw column is read through its Bronze name only: it is in the SQL, never printed.
    expect(
      scanForSentinels({ stdout: '', stderr: '' }, [fixture.output], ['zqx_secret_col']).length,
    ).toBeGreaterThan(0);
    expect(mode(fixture.output)).toBe(0o700);
    for (const name of readdirSync(fixture.output)) expect(mode(join(fixture.output, name))).toBe(0o600);
    expect(mode(fixture.stagingRoot)).toBe(0o700);
    expect(mode(join(fixture.stagingRoot, `${SOURCE_ID}.lock`))).toBe(0o600);
  });

  it('a leftover staging directory and its refusal carry nothing either, and its modes match its state', () => {
    const bundle = sentinelBundle({ destination: 'bigquery' });
    const fixture = scratch.fixture('bigquery', { bundle });
    const run = runCli(fixture.cliArgs(), { env: { ...process.env, [FAULTS_ENV]: 'fail@before_dir_seal' } });
    expect(run.status).toBe(2);
    const result = JSON.parse(run.stdout.toString()) as { staging_state: string; reason_codes: string[] };
    expect(result).toMatchObject({
      reason_codes: ['staging_write_failed'],
      staging_state: 'partially_sealed',
    });
    expect(mode(fixture.staging)).toBe(0o700);
    for (const name of readdirSync(fixture.staging)) expect(mode(join(fixture.staging, name))).toBe(0o400);
    const { files, output } = sentinels(bundle, [scratch.base, fixture.workspace, fixture.evidence.dir]);
    expect(scanForSentinels(run, [fixture.stagingRoot], files)).toEqual([]);
    expect(scanForSentinels(run, [], output)).toEqual([]);
  });

  it('a refusal of planted evidence prints none of it', () => {
    const bundle = sentinelBundle({ destination: 'bigquery' });
    bundle.runManifest.source_binding_id = 'zqx_other_alias';
    const fixture = scratch.fixture('bigquery', { bundle });
    const run = runCli(fixture.cliArgs());
    expect(run.status).toBe(2);
    const { output } = sentinels(bundle, [scratch.base, fixture.workspace, fixture.evidence.dir]);
    expect(scanForSentinels(run, [], [...output, 'zqx_other_alias', PLANTED.rawColumn])).toEqual([]);
    expect(readdirSync(fixture.project)).not.toContain('.scaffold-staging');
  });

  it('--dry-run --show prints only what the files would hold; a wrong --edition prints no evidence value', () => {
    const bundle = sentinelBundle({ destination: 'bigquery' });
    const fixture = scratch.fixture('bigquery', { bundle });
    const shown = runCli(fixture.cliArgs(['--dry-run', '--show']));
    expect(shown.status).toBe(0);
    const { files, output } = sentinels(bundle, [scratch.base, fixture.workspace, fixture.evidence.dir]);
    // The file contents are the generated assets: Bronze names and the two integrity markers
    // may appear, as in the files; planted values, paths and the namespace may not.
    expect(scanForSentinels(shown, [], files)).toEqual([]);
    expect(readdirSync(fixture.project)).not.toContain('.scaffold-staging');

    const args = fixture.cliArgs();
    args[args.indexOf('--edition') + 1] = 'snowflake';
    args[args.indexOf('--workspace') + 1] = scratch.workspace('snowflake').workspace;
    const wrong = runCli(args);
    expect(wrong.status).toBe(2);
    expect(JSON.parse(wrong.stdout.toString())).toMatchObject({ reason_codes: ['edition_option_mismatch'] });
    expect(scanForSentinels(wrong, [], output)).toEqual([]);
  });
});
