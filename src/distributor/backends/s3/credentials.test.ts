// Credentials a store refuses or the SDK's chain passes over, through the
// built CLI against the test radosgw: the hint says which key to check and
// where the SDK took it from (the environment, or the profile AWS_PROFILE
// names, which makes the SDK pass over the environment's keys), never a key
// itself, and nothing is written.
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../../../test/helpers/cli.js';
import {
  listKeys,
  s3ConfigYaml,
  useRgwFixture,
  writeBundle,
} from '../../../../test/helpers/distributor-s3.js';
import { scanForSentinels } from '../../../../test/helpers/sentinels.js';

const ctx = useRgwFixture({ work: 's3-credentials-', bucket: 'credentials' });

const WRONG_SECRET = 'sentinel-wrong-secret-4b1d';
const UNKNOWN_KEY = 'SENTINELUNKNOWNKEY9C2';

function setUp(name: string) {
  const dir = mkdtempSync(join(ctx.work, `${name}-`));
  const source = join(dir, 'out');
  writeBundle(source, 'weather/brentwood', {
    id: 'weather.daily.brentwood',
    created: '2026-05-30T11:10:00Z',
    files: { 'report.md': '# Brentwood\n' },
  });
  writeFileSync(
    join(dir, 'sealkit.distributor.yaml'),
    s3ConfigYaml(ctx.rgw, source, { bucket: ctx.bucket, prefix: name }),
  );
  const base: NodeJS.ProcessEnv = { ...process.env, ...ctx.rgw.awsEnv };
  delete base.AWS_PROFILE;
  delete base.AWS_SESSION_TOKEN;
  const cli = (env: NodeJS.ProcessEnv, ...args: string[]) =>
    runCli(['distribute', 'run', ...args], { cwd: dir, env });
  return { dir, source, base, cli };
}

/** The lines of one refusal, as `distribute run` prints them on stderr. */
function refusal(code: string, message: string, at: string, line: number, help: string): string {
  return [
    `error[${code}]: ${message}`,
    `  --> sealkit.distributor.yaml:${line}:9`,
    `  = at: pipelines[0].destinations[0]${at}`,
    `  = help: destination 'bucket', bundle 'weather/brentwood': ${help}`,
    '',
  ].join('\n');
}

const REFUSED =
  'the S3 store refused the credentials (unknown access key, wrong secret or expired token): check the keys or the profile in use';
const MISSING =
  'no S3 credentials were found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE, or run where an instance role applies';

/** `destination_credentials_refused`, located at `endpoint:` (line 10), with its help. */
const refused = (help: string): string =>
  refusal('destination_credentials_refused', REFUSED, '.endpoint', 10, help);
/** `destination_credentials_missing`, located at the destination's entry (line 6), with its help. */
const missing = (help: string): string => refusal('destination_credentials_missing', MISSING, '', 6, help);

describe('credentials the store refuses or the SDK passes over', () => {
  it('regression: a wrong secret is said to be the secret, at endpoint:, in human and --json form; nothing written', async () => {
    const { source, base, cli } = setUp('wrong-secret');
    const env = { ...base, AWS_SECRET_ACCESS_KEY: WRONG_SECRET };
    const help =
      "the store knows the access key id, but the request's signature does not match it: AWS_SECRET_ACCESS_KEY is not that key's secret";
    const human = cli(env);
    expect(human.status).toBe(2);
    expect(human.stderr.toString('utf8')).toBe(refused(help));
    const json = cli(env, '--json');
    expect(json.status).toBe(2);
    expect(JSON.parse(json.stdout.toString('utf8'))).toMatchObject({
      reason_code: 'destination_credentials_refused',
      location: { line: 10, column: 9, pointer: 'pipelines[0].destinations[0].endpoint' },
      hint: `destination 'bucket', bundle 'weather/brentwood': ${help}`,
    });
    const sentinels = [WRONG_SECRET, ctx.rgw.secretAccessKey, ctx.rgw.accessKeyId];
    for (const run of [human, json]) expect(scanForSentinels(run, [source], sentinels)).toEqual([]);
    expect(await listKeys(ctx.s3, ctx.bucket, 'wrong-secret/')).toEqual([]);
  });

  it('regression: an access key id the store does not know is said to be the key id, not the secret', async () => {
    const { source, base, cli } = setUp('unknown-key');
    const run = cli({ ...base, AWS_ACCESS_KEY_ID: UNKNOWN_KEY });
    expect(run.status).toBe(2);
    expect(run.stderr.toString('utf8')).toBe(
      refused(
        'the store does not know the access key id in AWS_ACCESS_KEY_ID: check it (keys of another store or account are unknown here too)',
      ),
    );
    expect(scanForSentinels(run, [source], [UNKNOWN_KEY, ctx.rgw.secretAccessKey])).toEqual([]);
    expect(await listKeys(ctx.s3, ctx.bucket, 'unknown-key/')).toEqual([]);
  });

  it('regression: a temporary key id without its session token is said to lack the token, not to be unknown', async () => {
    const { source, base, cli } = setUp('no-token');
    const temporary = 'ASIASENTINELTEMP7Q3';
    const run = cli({ ...base, AWS_ACCESS_KEY_ID: temporary });
    expect(run.status).toBe(2);
    expect(run.stderr.toString('utf8')).toBe(
      refused(
        'AWS_ACCESS_KEY_ID is a temporary key id (it starts with ASIA), which a store knows only together with its session token, and AWS_SESSION_TOKEN is not set or empty: export the token that came with the keys, or get new ones',
      ),
    );
    expect(scanForSentinels(run, [source], [temporary, ctx.rgw.secretAccessKey])).toEqual([]);
    // With a token the store still does not know the key: then it is the key id to check.
    const withToken = cli({ ...base, AWS_ACCESS_KEY_ID: temporary, AWS_SESSION_TOKEN: 'sentinel-token-5e' });
    expect(withToken.status).toBe(2);
    expect(withToken.stderr.toString('utf8')).toContain(
      'the store does not know the access key id in AWS_ACCESS_KEY_ID: check it',
    );
    expect(scanForSentinels(withToken, [source], ['sentinel-token-5e'])).toEqual([]);
    expect(await listKeys(ctx.s3, ctx.bucket, 'no-token/')).toEqual([]);
  });

  it('regression: an access key without its secret (unset or empty) is said to be half a pair, not "no credentials" alone', async () => {
    const { source, base, cli } = setUp('half-pair');
    const unset: NodeJS.ProcessEnv = { ...base };
    delete unset.AWS_SECRET_ACCESS_KEY;
    const cases: readonly [NodeJS.ProcessEnv, string][] = [
      [unset, 'AWS_ACCESS_KEY_ID is set and AWS_SECRET_ACCESS_KEY is not set'],
      [{ ...base, AWS_SECRET_ACCESS_KEY: '' }, 'AWS_ACCESS_KEY_ID is set and AWS_SECRET_ACCESS_KEY is empty'],
      [
        { ...base, AWS_ACCESS_KEY_ID: '', AWS_SECRET_ACCESS_KEY: '' },
        'AWS_ACCESS_KEY_ID is empty and AWS_SECRET_ACCESS_KEY is empty',
      ],
    ];
    for (const [env, state] of cases) {
      const run = cli(env);
      expect(run.status).toBe(2);
      expect(run.stderr.toString('utf8')).toBe(
        missing(`${state}: the SDK takes keys from the environment only when both hold a value`),
      );
      expect(scanForSentinels(run, [source], [ctx.rgw.accessKeyId])).toEqual([]);
    }
    // Neither set: no half pair to speak of; what this run had is said instead.
    const none: NodeJS.ProcessEnv = { ...unset };
    delete none.AWS_ACCESS_KEY_ID;
    const bare = cli(none);
    expect(bare.status).toBe(2);
    expect(bare.stderr.toString('utf8')).toContain(
      "  = help: destination 'bucket', bundle 'weather/brentwood': this run has none of them: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_PROFILE are not set, and ",
    );
    expect(await listKeys(ctx.s3, ctx.bucket, 'half-pair/')).toEqual([]);
  });

  it("regression: with AWS_PROFILE set the environment's keys are passed over, and the hint says so", async () => {
    const { dir, source, base, cli } = setUp('profile-wins');
    const credentials = join(dir, 'aws-credentials');
    writeFileSync(
      credentials,
      `[reports]\naws_access_key_id = ${ctx.rgw.accessKeyId}\naws_secret_access_key = ${WRONG_SECRET}\n`,
    );
    const env = { ...base, AWS_SHARED_CREDENTIALS_FILE: credentials };
    // Right keys in the environment, a wrong secret in the profile: the profile is used.
    const wrong = cli({ ...env, AWS_PROFILE: 'reports' });
    expect(wrong.status).toBe(2);
    expect(wrong.stderr.toString('utf8')).toBe(
      refused(
        "the store knows the access key id, but the request's signature does not match it: the aws_secret_access_key of profile 'reports' (AWS_PROFILE) is not that key's secret (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are set too, but the SDK passes over them while AWS_PROFILE is set)",
      ),
    );
    // A profile the files do not hold: no credentials, although the environment has right ones.
    const absent = cli({ ...env, AWS_PROFILE: 'archive' });
    expect(absent.status).toBe(2);
    expect(absent.stderr.toString('utf8')).toBe(
      missing(
        `AWS_PROFILE names profile 'archive', which neither '${credentials}' nor '${ctx.rgw.awsEnv.AWS_CONFIG_FILE}' holds (they hold 'reports'): check the name, or unset AWS_PROFILE to use the other sources; AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are set too, but the SDK passes over them while AWS_PROFILE is set: unset AWS_PROFILE to use them`,
      ),
    );
    const sentinels = [WRONG_SECRET, ctx.rgw.secretAccessKey, ctx.rgw.accessKeyId];
    for (const run of [wrong, absent]) expect(scanForSentinels(run, [source], sentinels)).toEqual([]);
    expect(await listKeys(ctx.s3, ctx.bucket, 'profile-wins/')).toEqual([]);
    // The same environment without AWS_PROFILE publishes: the keys were right all along.
    const published = cli(env);
    expect(published.status).toBe(0);
    expect(await listKeys(ctx.s3, ctx.bucket, 'profile-wins/')).toHaveLength(3);
  });

  it('regression: a shared AWS file the run may not read, or none at all, is said so, not "no such profile"', async () => {
    const { dir, source, base, cli } = setUp('shared-files');
    const keyless: NodeJS.ProcessEnv = { ...base };
    delete keyless.AWS_ACCESS_KEY_ID;
    delete keyless.AWS_SECRET_ACCESS_KEY;
    // Right keys, in a file another user owns (a cron job started as the wrong user): mode 000.
    const locked = join(dir, 'aws-credentials-locked');
    writeFileSync(
      locked,
      `[reports]\naws_access_key_id = ${ctx.rgw.accessKeyId}\naws_secret_access_key = ${ctx.rgw.secretAccessKey}\n`,
    );
    chmodSync(locked, 0o000);
    const unreadable = `'${locked}' cannot be read by this run (EACCES), and the SDK passes over a file it cannot read: make it readable to the user the run is started as, or run as the user whose file it is`;
    const cases: readonly [NodeJS.ProcessEnv, string][] = [
      [
        { ...keyless, AWS_SHARED_CREDENTIALS_FILE: locked, AWS_PROFILE: 'reports' },
        `AWS_PROFILE names profile 'reports', but ${unreadable}`,
      ],
      [
        { ...keyless, AWS_SHARED_CREDENTIALS_FILE: locked },
        `AWS_PROFILE is not set, so the SDK looks for profile [default] in the shared AWS files, but ${unreadable}`,
      ],
      [
        { ...keyless, AWS_PROFILE: 'reports' },
        `AWS_PROFILE names profile 'reports', but neither '${ctx.rgw.awsEnv.AWS_SHARED_CREDENTIALS_FILE}' nor '${ctx.rgw.awsEnv.AWS_CONFIG_FILE}' exists: check the user the run is started as, or point AWS_SHARED_CREDENTIALS_FILE or AWS_CONFIG_FILE at the files`,
      ],
      // regression: nothing set at all had a help line naming the bundle and nothing more.
      [
        keyless,
        `this run has none of them: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_PROFILE are not set, and neither '${ctx.rgw.awsEnv.AWS_SHARED_CREDENTIALS_FILE}' nor '${ctx.rgw.awsEnv.AWS_CONFIG_FILE}' exists; check the path AWS_SHARED_CREDENTIALS_FILE and AWS_CONFIG_FILE name, or set the keys`,
      ],
    ];
    for (const [env, help] of cases) {
      const run = cli(env);
      expect(run.status).toBe(2);
      expect(run.stderr.toString('utf8')).toBe(missing(help));
      expect(scanForSentinels(run, [source], [ctx.rgw.accessKeyId, ctx.rgw.secretAccessKey])).toEqual([]);
    }
    // Readable, with the keys under another name and AWS_PROFILE not exported: the names are listed.
    chmodSync(locked, 0o600);
    const unnamed = cli({ ...keyless, AWS_SHARED_CREDENTIALS_FILE: locked });
    expect(unnamed.status).toBe(2);
    expect(unnamed.stderr.toString('utf8')).toBe(
      missing(
        "AWS_PROFILE is not set, so the SDK looks for profile [default] in the shared AWS files, which hold no [default] but 'reports': set AWS_PROFILE to the profile to use",
      ),
    );
    // A [default] with a region only, as `aws configure` leaves it: the other profiles are named too.
    const config = join(dir, 'aws-config');
    writeFileSync(config, '[default]\nregion = us-east-1\n');
    const regionOnly = cli({ ...keyless, AWS_SHARED_CREDENTIALS_FILE: locked, AWS_CONFIG_FILE: config });
    expect(regionOnly.status).toBe(2);
    expect(regionOnly.stderr.toString('utf8')).toBe(
      missing(
        "AWS_PROFILE is not set, so the SDK looks for profile [default] in the shared AWS files; they hold it, but it gave no credentials: check its keys, or its sso_*, role_arn or credential_process settings, or set AWS_PROFILE to the profile to use (they also hold 'reports')",
      ),
    );
    expect(await listKeys(ctx.s3, ctx.bucket, 'shared-files/')).toEqual([]);
    // regression: a misspelt AWS_PROFILE is answered with the profile the files hold, not only "check the name".
    const misspelt = cli({ ...keyless, AWS_SHARED_CREDENTIALS_FILE: locked, AWS_PROFILE: 'report' });
    expect(misspelt.status).toBe(2);
    expect(misspelt.stderr.toString('utf8')).toBe(
      missing(
        `AWS_PROFILE names profile 'report', which neither '${locked}' nor '${ctx.rgw.awsEnv.AWS_CONFIG_FILE}' holds: did you mean 'reports'?`,
      ),
    );
    expect(scanForSentinels(misspelt, [source], [ctx.rgw.accessKeyId, ctx.rgw.secretAccessKey])).toEqual([]);
    // As the hint says: with AWS_PROFILE set, the same file publishes.
    const published = cli({ ...keyless, AWS_SHARED_CREDENTIALS_FILE: locked, AWS_PROFILE: 'reports' });
    expect(published.status).toBe(0);
    expect(await listKeys(ctx.s3, ctx.bucket, 'shared-files/')).toHaveLength(3);
  });
});
