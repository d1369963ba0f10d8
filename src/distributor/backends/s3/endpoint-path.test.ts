// An endpoint written with a path (`http://host:port/s3`) in front of a store
// that is not served under it: the store reads the path's first segment as
// the bucket and answers NoSuchBucket for a bucket that exists. The refusal
// at bucket: must name the endpoint's path as the cause, against the real
// radosgw, and nothing may be written.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../../../test/helpers/cli.js';
import {
  listKeys,
  s3ConfigYaml,
  useRgwFixture,
  writeBundle,
} from '../../../../test/helpers/distributor-s3.js';

const ctx = useRgwFixture({ work: 's3-endpoint-path-', bucket: 'endpoint-path' });

function setUp(name: string, endpoint: string, bucket = ctx.bucket) {
  const dir = mkdtempSync(join(ctx.work, `${name}-`));
  const source = join(dir, 'out');
  writeBundle(source, 'weather/brentwood', {
    id: 'weather.daily.brentwood',
    created: '2026-05-30T11:10:00Z',
    files: { 'report.md': '# Brentwood\n' },
  });
  const yaml = s3ConfigYaml(ctx.rgw, source, { bucket, prefix: name }).replace(
    `endpoint: ${JSON.stringify(ctx.rgw.endpoint)}`,
    `endpoint: ${JSON.stringify(endpoint)}`,
  );
  expect(yaml).toContain(endpoint);
  writeFileSync(join(dir, 'sealkit.distributor.yaml'), yaml);
  const env = { ...process.env, ...ctx.rgw.awsEnv };
  return (...args: string[]) => runCli(['distribute', 'run', ...args], { cwd: dir, env });
}

describe('an S3 endpoint with a path', () => {
  it('regression: a bucket the store misses behind an endpoint path names that path as the cause, at bucket:; nothing written', async () => {
    const cli = setUp('with-path', `${ctx.rgw.endpoint}/s3`);
    const help =
      "destination 'bucket', bundle 'weather/brentwood': endpoint: has a path after its host and port, and a store not served under that path takes the path's first segment for the bucket, so it found no bucket with the name on the bucket: line: remove the path from endpoint: unless the store is served there; else create the bucket, or correct bucket:";
    for (const dry of [[], ['--dry-run']]) {
      const run = cli(...dry);
      expect(run.status).toBe(2);
      expect(run.stderr.toString('utf8')).toBe(
        [
          'error[destination_bucket_missing]: the bucket of the S3 destination does not exist: check the bucket name, the endpoint and the region',
          '  --> sealkit.distributor.yaml:8:9',
          '  = at: pipelines[0].destinations[0].bucket',
          `  = help: ${help}`,
          '',
        ].join('\n'),
      );
    }
    const json = cli('--json');
    expect(json.status).toBe(2);
    expect(JSON.parse(json.stdout.toString('utf8'))).toMatchObject({
      reason_code: 'destination_bucket_missing',
      location: { path: 'sealkit.distributor.yaml', line: 8, column: 9 },
      hint: help,
    });
    expect(await listKeys(ctx.s3, ctx.bucket)).toEqual([]);
  });

  it('a lone trailing slash is no path: a missing bucket keeps the plain hint, and an existing one publishes', async () => {
    const missing = setUp('slash-missing', `${ctx.rgw.endpoint}/`, 'no-such-bucket-here')();
    expect(missing.status).toBe(2);
    expect(missing.stderr.toString('utf8')).toContain(
      "= help: destination 'bucket', bundle 'weather/brentwood': the store has no bucket with the name on the bucket: line: create that bucket in the store, or correct bucket: (or endpoint: or region:, when they lead to another store)\n",
    );
    const run = setUp('trailing-slash', `${ctx.rgw.endpoint}/`)();
    expect(run.stderr.toString('utf8')).toBe('');
    expect(run.status).toBe(0);
    expect(await listKeys(ctx.s3, ctx.bucket, 'trailing-slash/')).toHaveLength(3);
  });
});
