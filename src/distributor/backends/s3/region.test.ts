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
        expect(stderr.split('\n').slice(0, 2)).toEqual([
          'error[destination_region_missing]: no region is set for the S3 destination: set region: in the configuration, or AWS_REGION (or a region in the AWS profile)',
          '  --> c.yaml:5:9',
        ]);
        expect(stderr + run.stdout.toString()).not.toContain('zqSentinelSecret');
      }
    },
  );
});
