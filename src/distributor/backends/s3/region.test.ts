import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../../test/helpers/cli.js';
import { makeBundle } from '../../../../test/helpers/distributor-fixtures.js';

// Without a region the SDK fails every request with a plain error naming no
// cause, which was reported as an unreachable store with no hint.
const work = mkdtempSync(join(tmpdir(), 'sealkit-s3-region-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
mkdirSync(join(work, 'src'));
mkdirSync(join(work, 'home'));
makeBundle(join(work, 'src'), 'b1', [{ path: 'report.md', content: '# Report\n' }], {
  id: 'weather.b1',
  created: '2026-05-30T11:10:00Z',
});

/** The environment of a machine with credentials and no region anywhere. */
function withoutRegion(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) if (name.startsWith('AWS_')) delete env[name];
  return {
    ...env,
    HOME: join(work, 'home'),
    AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE',
    AWS_SECRET_ACCESS_KEY: 'zqSentinelSecret',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
}

describe('an S3 destination without a region', () => {
  it.each([
    ['without an endpoint', ''],
    ['with an endpoint', ', endpoint: http://127.0.0.1:9'],
  ])(
    'regression: %s is destination_region_missing at its entry, not an unreachable store',
    (_name, endpoint) => {
      writeFileSync(
        join(work, 'c.yaml'),
        [
          'pipelines:',
          '  - id: p',
          '    source: {root: src}',
          '    destinations:',
          `      - {id: archive, kind: s3, bucket: reports, prefix: site${endpoint}, outputs: {source: true, html: false}}`,
          '',
        ].join('\n'),
      );
      for (const dryRun of [[], ['--dry-run']]) {
        const run = runCli(['distribute', 'run', '--config', 'c.yaml', ...dryRun], {
          cwd: work,
          env: withoutRegion(),
        });
        expect(run.status).toBe(2);
        const stderr = run.stderr.toString();
        expect(stderr.split('\n').slice(0, 4)).toEqual([
          'error[destination_region_missing]: no region is set for the S3 destination: set region: in the configuration, or AWS_REGION (or a region in the AWS profile)',
          '  --> c.yaml:5:9',
          '  = at: pipelines[0].destinations[0]',
          // regression: a store of one's own has no region to look up, and rclone users never set one.
          endpoint === ''
            ? "  = help: destination 'archive', bundle 'b1'"
            : "  = help: destination 'archive', bundle 'b1': a store at endpoint: signs requests with a region too: Ceph RGW and MinIO take us-east-1 (the region rclone signs with when it is given none) unless their administrator set another; add region: us-east-1, or the store's own region",
        ]);
        expect(stderr + run.stdout.toString()).not.toContain('zqSentinelSecret');
      }
    },
  );
});

describe('an S3 destination on AWS whose region is misspelt', () => {
  it('regression: a region DNS has no S3 host for is said to be about region:, not an endpoint the file does not have', () => {
    // `us-east1` for `us-east-1`: the SDK looks up '<bucket>.s3.us-east1.amazonaws.com', which no DNS knows.
    writeFileSync(
      join(work, 'typo.yaml'),
      [
        'pipelines:',
        '  - id: p',
        '    source: {root: src}',
        '    destinations:',
        '      - id: archive',
        '        kind: s3',
        '        bucket: reports',
        '        prefix: site',
        '        region: us-east1',
        '        connect_timeout_seconds: 2',
        '        outputs: {source: true, html: false}',
        '',
      ].join('\n'),
    );
    const run = runCli(['distribute', 'run', '--config', 'typo.yaml'], { cwd: work, env: withoutRegion() });
    expect(run.status).toBe(2);
    const stderr = run.stderr.toString();
    expect(stderr.split('\n').slice(0, 3)).toEqual([
      'error[destination_unreachable]: the destination cannot be reached or did not answer in time (S3: check the endpoint, the network and the timeouts)',
      '  --> typo.yaml:9:9',
      '  = at: pipelines[0].destinations[0].region',
    ]);
    // NXDOMAIN where DNS answers; a machine whose resolver does not answer says so instead.
    expect(stderr).toMatch(
      /= help: destination 'archive', bundle 'b1': without endpoint: the SDK finds AWS S3 by a host name made from region: \('<bucket>\.s3\.<region>\.amazonaws\.com'\), and DNS (does not know it: check region: \(AWS regions read like us-east-1 or eu-central-1\), or set endpoint: for another store \(ENOTFOUND\)|did not answer for it: check the network, and region: \(AWS regions read like us-east-1 or eu-central-1\) \(EAI_AGAIN\))\n/,
    );
    expect(stderr).not.toContain("endpoint's host name");
    expect(stderr + run.stdout.toString()).not.toContain('zqSentinelSecret');
    expect(stderr).not.toContain('us-east1');
  });
});
