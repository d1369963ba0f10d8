import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../../test/helpers/cli.js';
import { quietSdkNodeVersionNotice } from './client.js';

// The SDK's multi-line Node version notice must not reach sealkit's stderr,
// also when the user set the SDK's switch to a value the SDK does not take.
describe('the AWS SDK Node version notice', () => {
  const buildClient = (value: string | undefined) => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE',
      AWS_SECRET_ACCESS_KEY: 'x',
    };
    delete env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED;
    if (value !== undefined) env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = value;
    // Building the client is what prints the notice.
    const script = [
      `const { createS3Client } = await import(${JSON.stringify(join(REPO_ROOT, 'dist/src/distributor/backends/s3/client.js'))});`,
      "createS3Client({ id: 'archive', kind: 's3', bucket: 'b', region: 'us-east-1', endpoint: 'http://127.0.0.1:9', force_path_style: true });",
    ].join('\n');
    return spawnSync(process.execPath, ['--input-type=module', '-e', script], { env, encoding: 'utf8' });
  };

  it.each([[undefined], ['1'], ['yes'], ['true']])(
    'regression: is not printed with the switch %s (a user\u2019s 1 printed it: the SDK takes only true)',
    (value) => {
      const run = buildClient(value);
      expect(run.status, run.stderr).toBe(0);
      expect(run.stderr).toBe('');
    },
  );

  it('stays on when the user switches it on (false, 0, no), and is written as true otherwise', () => {
    const switched = (value: string | undefined) => {
      const env: NodeJS.ProcessEnv =
        value === undefined ? {} : { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: value };
      quietSdkNodeVersionNotice(env);
      return env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED;
    };
    expect([undefined, '1', 'YES', 'true', 'false', '0', 'no'].map(switched)).toEqual([
      'true',
      'true',
      'true',
      'true',
      'false',
      '0',
      'no',
    ]);
  });
});
