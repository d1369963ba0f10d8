// `sealkit distribute run` (the real built CLI) against the test radosgw:
// credentials only from the environment (the AWS SDK's standard chain), one
// outcome per bundle in human and --json form, exit 2 on a refusal, and no
// endpoint or key in anything it prints; the bucket and prefix only in the
// s3:// location of a bundle a hint asks the operator to act on.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DeleteObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../../../test/helpers/cli.js';
import {
  listKeys,
  putMany,
  readPrefix,
  s3ConfigYaml,
  useRgwFixture,
  writeBundle,
} from '../../../../test/helpers/distributor-s3.js';
import { scanForSentinels } from '../../../../test/helpers/sentinels.js';

const ctx = useRgwFixture({ work: 's3-cli-', bucket: 'sentinel-bucket' });

const PREFIX = 'sentinel-prefix-7f3a';

function setUp(name: string) {
  const dir = mkdtempSync(join(ctx.work, `${name}-`));
  const source = join(dir, 'out');
  writeBundle(source, 'weather/brentwood', {
    id: 'weather.daily.brentwood',
    created: '2026-05-30T11:10:00Z',
    files: { 'report.md': '# Brentwood\n\nSunny.\n', 'summary.txt': 'all clear\n' },
  });
  const prefix = `${PREFIX}/${name}`;
  writeFileSync(
    join(dir, 'sealkit.distributor.yaml'),
    s3ConfigYaml(ctx.rgw, source, { bucket: ctx.bucket, prefix }),
  );
  const env = { ...process.env, ...ctx.rgw.awsEnv };
  const cli = (...args: string[]) => runCli(['distribute', 'run', ...args], { cwd: dir, env });
  return { dir, prefix, cli };
}

describe('sealkit distribute run with an S3 destination', () => {
  it('publishes (exit 0), then skips on the rerun; --json carries one outcome per bundle', async () => {
    const { prefix, cli } = setUp('publish');
    const first = cli('--json');
    expect(first.stderr.toString('utf8')).toBe('');
    expect(first.status).toBe(0);
    const report = JSON.parse(first.stdout.toString('utf8')) as {
      status: string;
      outcomes: { outcome: string; destination_id: string; outputs?: number }[];
    };
    expect(report.status).toBe('ok');
    expect(report.outcomes).toEqual([
      expect.objectContaining({ destination_id: 'bucket', outcome: 'published', outputs: 3 }),
    ]);
    expect((await listKeys(ctx.s3, ctx.bucket, `${prefix}/`)).sort()).toEqual(
      ['.distributor.json', 'report.html', 'report.md', 'summary.txt'].map(
        (name) => `${prefix}/weather/brentwood/${name}`,
      ),
    );
    const second = cli();
    expect(second.status).toBe(0);
    expect(second.stdout.toString('utf8')).toContain('skipped_same');
  });

  it('credentials come only from the SDK chain: without them the bundle is refused, exit 2, with fixed text', () => {
    const { dir } = setUp('nokeys');
    const env: NodeJS.ProcessEnv = { ...process.env, ...ctx.rgw.awsEnv };
    delete env.AWS_ACCESS_KEY_ID;
    delete env.AWS_SECRET_ACCESS_KEY;
    const run = runCli(['distribute', 'run', '--json'], { cwd: dir, env });
    expect(run.status).toBe(2);
    const report = JSON.parse(run.stdout.toString('utf8')) as { outcomes: { reason_code?: string }[] };
    expect(report.outcomes[0]?.reason_code).toBe('destination_credentials_missing');
  });

  it('regression: an edited .distributor.json is named by its s3:// location, with the key and its line, and no endpoint', async () => {
    const { dir, prefix, cli } = setUp('state-edited');
    expect(cli().status).toBe(0);
    const key = `${prefix}/weather/brentwood/.distributor.json`;
    const text = (await readPrefix(ctx.s3, ctx.bucket, key)).get(key)?.bytes.toString('utf8') ?? '';
    expect(text).not.toBe('');
    await putMany(ctx.s3, ctx.bucket, [[key, text.replace(/\n}\n$/, '\n  ,"note": "checked by ops"\n}\n')]]);
    const line = text.split('\n').length - 1;
    const edited = cli();
    expect(edited.status).toBe(2);
    expect(edited.stderr.toString('utf8')).toContain(
      `= help: destination 'bucket', bundle 'weather/brentwood': 's3://${ctx.bucket}/${prefix}/weather/brentwood/.distributor.json' is not one sealkit wrote: unknown key 'note' at line ${line}, column 4; restore the file sealkit wrote, or move or delete every object under 's3://${ctx.bucket}/${prefix}/weather/brentwood/', and the next run publishes it anew`,
    );
    const sentinels = [ctx.rgw.endpoint.replace('http://', ''), ctx.rgw.accessKeyId, ctx.rgw.secretAccessKey];
    expect(scanForSentinels(edited, [join(dir, 'out')], sentinels)).toEqual([]);
  });

  it('regression: AWS_PROFILE naming a profile the shared files do not hold is said so, by name; one without keys too', () => {
    const { dir } = setUp('profile');
    const credentials = join(dir, 'aws-credentials');
    const config = join(dir, 'aws-config');
    writeFileSync(credentials, '[reports]\nregion = us-east-1\n');
    writeFileSync(config, '[profile archive]\nregion = us-east-1\n');
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...ctx.rgw.awsEnv,
      AWS_SHARED_CREDENTIALS_FILE: credentials,
      AWS_CONFIG_FILE: config,
    };
    delete env.AWS_ACCESS_KEY_ID;
    delete env.AWS_SECRET_ACCESS_KEY;
    const run = (profile: string) =>
      runCli(['distribute', 'run'], { cwd: dir, env: { ...env, AWS_PROFILE: profile } });
    const unknown = run('nope');
    expect(unknown.status).toBe(2);
    expect(unknown.stderr.toString('utf8')).toContain(
      `= help: destination 'bucket', bundle 'weather/brentwood': AWS_PROFILE names profile 'nope', which neither '${credentials}' nor '${config}' holds (they hold 'reports', 'archive'): check the name, or unset AWS_PROFILE to use the other sources`,
    );
    for (const profile of ['reports', 'archive']) {
      const keyless = run(profile);
      expect(keyless.status).toBe(2);
      expect(keyless.stderr.toString('utf8')).toContain(
        `AWS_PROFILE names profile '${profile}', which the shared AWS files hold, but it gave no credentials: check its keys, or its sso_*, role_arn or credential_process settings`,
      );
    }
  });

  it('regression: a bucket the store does not have is refused at bucket:, with what to do and still without its name', () => {
    const dir = mkdtempSync(join(ctx.work, 'no-bucket-'));
    const source = join(dir, 'out');
    writeBundle(source, 'weather/brentwood', {
      id: 'weather.daily.brentwood',
      created: '2026-05-30T11:10:00Z',
      files: { 'report.md': '# Brentwood\n' },
    });
    writeFileSync(
      join(dir, 'sealkit.distributor.yaml'),
      s3ConfigYaml(ctx.rgw, source, { bucket: 'sentinel-no-such-bucket', prefix: PREFIX }),
    );
    const run = runCli(['distribute', 'run'], { cwd: dir, env: { ...process.env, ...ctx.rgw.awsEnv } });
    expect(run.status).toBe(2);
    const stderr = run.stderr.toString('utf8');
    expect(stderr).toContain('--> sealkit.distributor.yaml:8:9\n  = at: pipelines[0].destinations[0].bucket');
    expect(stderr).toContain(
      "= help: destination 'bucket', bundle 'weather/brentwood': the store has no bucket with the name on the bucket: line: create that bucket in the store, or correct bucket: (or endpoint: or region:, when they lead to another store)",
    );
    expect(scanForSentinels(run, [source], ['sentinel-no-such-bucket', PREFIX])).toEqual([]);
  });

  it('regression: a published output someone wrote over with other content is said to be there with another size, not gone', async () => {
    const { prefix, cli } = setUp('overwritten');
    expect(cli().status).toBe(0);
    await putMany(ctx.s3, ctx.bucket, [[`${prefix}/weather/brentwood/report.md`, 'hacked-longer\n']]);
    const run = cli();
    expect(run.status).toBe(2);
    const stderr = run.stderr.toString('utf8');
    expect(stderr).toContain(
      'error[destination_incomplete]: outputs that the destination .distributor.json lists are missing, or not the size or (compared by content) the SHA-256 it records',
    );
    expect(stderr).toContain(
      `= help: destination 'bucket', bundle 'weather/brentwood': outputs its .distributor.json lists are not as published in 's3://${ctx.bucket}/${prefix}/weather/brentwood/' (the only one: 'report.md' is there with 14 bytes, not the size it records, so something else wrote over it): sealkit never overwrites what it did not write; put the published object back, or delete every object under 's3://${ctx.bucket}/${prefix}/weather/brentwood/', and the next run publishes it anew`,
    );
    const json = JSON.parse(cli('--json').stdout.toString('utf8')) as {
      outcomes: { reason_code?: string; entry_path?: string; entry_size?: number }[];
    };
    expect(json.outcomes[0]).toMatchObject({
      reason_code: 'destination_incomplete',
      entry_path: 'report.md',
      entry_size: 14,
    });
  });

  it('regression: a newer bundle never deletes an output someone wrote over (was removed with the old outputs)', async () => {
    const { dir, prefix, cli } = setUp('overwritten-newer');
    expect(cli().status).toBe(0);
    const key = `${prefix}/weather/brentwood/summary.txt`;
    await putMany(ctx.s3, ctx.bucket, [[key, 'edited at the destination\n']]);
    writeBundle(join(dir, 'out'), 'weather/brentwood', {
      id: 'weather.daily.brentwood',
      created: '2026-06-01T00:00:00Z',
      files: { 'report.md': '# Brentwood\n\nRain.\n', 'summary.txt': 'wet\n' },
    });
    const run = cli('--json');
    expect(run.status).toBe(2);
    const json = JSON.parse(run.stdout.toString('utf8')) as {
      outcomes: { outcome?: string; reason_code?: string; entry_path?: string }[];
    };
    expect(json.outcomes[0]).toMatchObject({
      outcome: 'refused',
      reason_code: 'destination_incomplete',
      entry_path: 'summary.txt',
    });
    const kept = await readPrefix(ctx.s3, ctx.bucket, `${prefix}/weather/brentwood/`);
    expect(kept.get(key)?.bytes.toString('utf8')).toBe('edited at the destination\n');
  });

  it('regression: a malformed .distributor.pending.json is named as the marker, with its fault and the advice to delete it, not as an invalid .distributor.json', async () => {
    const { dir, prefix, cli } = setUp('marker-edited');
    expect(cli().status).toBe(0);
    const bundle = `${prefix}/weather/brentwood`;
    const before = await readPrefix(ctx.s3, ctx.bucket, `${bundle}/`);
    await putMany(ctx.s3, ctx.bucket, [[`${bundle}/.distributor.pending.json`, '{"hello":1}\n']]);
    const edited = cli();
    expect(edited.status).toBe(2);
    const stderr = edited.stderr.toString('utf8');
    expect(stderr).toContain(
      'error[destination_marker_invalid]: the destination .distributor.pending.json is not a pending marker written by the distributor; nothing of this bundle was written',
    );
    expect(stderr).toContain(
      `= help: destination 'bucket', bundle 'weather/brentwood': 's3://${ctx.bucket}/${bundle}/.distributor.pending.json' is not a marker sealkit wrote: unknown key 'hello' at line 1, column 2; a marker only names what a run is writing, and the published bundle does not depend on it: unless a sealkit run of another release is publishing this bundle right now, delete that object and run again`,
    );
    expect(stderr).not.toContain('.distributor.json ');
    const sentinels = [ctx.rgw.endpoint.replace('http://', ''), ctx.rgw.accessKeyId, ctx.rgw.secretAccessKey];
    expect(scanForSentinels(edited, [join(dir, 'out')], sentinels)).toEqual([]);
    // The published bundle was not touched, and deleting the marker is all it takes.
    const after = await readPrefix(ctx.s3, ctx.bucket, `${bundle}/`);
    for (const [key, object] of before) expect(after.get(key)?.sha256).toBe(object.sha256);
    await ctx.s3.send(
      new DeleteObjectCommand({ Bucket: ctx.bucket, Key: `${bundle}/.distributor.pending.json` }),
    );
    const rerun = cli();
    expect(rerun.status).toBe(0);
    expect(rerun.stdout.toString('utf8')).toContain('skipped_same');
  });

  it('refuses unmanaged content with exit 2; nothing printed names the endpoint or keys, and the hint names the bundle by its s3:// location', async () => {
    const { dir, prefix, cli } = setUp('unmanaged');
    await putMany(ctx.s3, ctx.bucket, [[`${prefix}/weather/brentwood/index.html`, 'hand-made']]);
    const human = cli();
    const json = cli('--json');
    for (const run of [human, json]) {
      expect(run.status).toBe(2);
      expect(`${run.stdout.toString('utf8')}`).toContain('destination_unmanaged');
    }
    expect(human.stderr.toString('utf8')).toContain(
      `the bundle path 's3://${ctx.bucket}/${prefix}/weather/brentwood/' holds objects that no .distributor.json lists (the first: 'index.html'), and sealkit never takes over a prefix it did not publish: move them to keys outside it, or publish under another prefix`,
    );
    const sentinels = [ctx.rgw.endpoint.replace('http://', ''), ctx.rgw.accessKeyId, ctx.rgw.secretAccessKey];
    for (const run of [human, json]) expect(scanForSentinels(run, [join(dir, 'out')], sentinels)).toEqual([]);
    expect(await listKeys(ctx.s3, ctx.bucket, `${prefix}/`)).toEqual([
      `${prefix}/weather/brentwood/index.html`,
    ]);
  });
});
