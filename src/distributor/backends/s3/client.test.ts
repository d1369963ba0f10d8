import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../../test/helpers/cli.js';
import type { S3DestinationConfig } from '../../config/types.js';
import { createS3Client, quietSdkNodeVersionNotice } from './client.js';
import { HeadObjectCommand, S3Client } from './sdk.js';

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

// Any logger but the SDK's own no-op one makes the SDK copy and filter every
// request and answer for the log; the HTTP handler still needs a silent one,
// or it writes its warnings to the console.
describe('the loggers of an S3 client', () => {
  const config: S3DestinationConfig = {
    id: 'archive',
    kind: 's3',
    bucket: 'b',
    region: 'us-east-1',
    prefix: '',
    endpoint: 'http://127.0.0.1:9',
    force_path_style: true,
    outputs: { source: true, html: false, assets: false },
  };

  it('regression: the client keeps the SDK’s no-op logger, so no request is copied for a log', () => {
    const sdkDefault = new S3Client({ region: 'us-east-1' }).config.logger;
    const client = createS3Client(config);
    expect(client.config.logger.constructor).toBe(sdkDefault.constructor);
  });

  it('gives the HTTP handler a logger whose every level prints nothing', async () => {
    const client = createS3Client(config);
    const handler = client.config.requestHandler as {
      httpHandlerConfigs(): { logger?: Record<string, unknown> };
    };
    // The handler resolves its configuration on its first request (refused: nothing listens on port 9).
    const savedEnv = { ...process.env };
    Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE', AWS_SECRET_ACCESS_KEY: 'x' });
    try {
      const failure = await client
        .send(new HeadObjectCommand({ Bucket: 'b', Key: 'k' }))
        .catch((error) => error);
      expect((failure as { code?: string }).code).toBe('ECONNREFUSED');
    } finally {
      process.env = savedEnv;
    }
    const logger = handler.httpHandlerConfigs().logger ?? {};
    const levels = ['trace', 'debug', 'info', 'warn', 'error'] as const;
    expect(levels.map((level) => typeof logger[level])).toEqual(levels.map(() => 'function'));
    const written: unknown[] = [];
    const saved = { warn: console.warn, error: console.error, log: console.log, info: console.info };
    console.warn = console.error = console.log = console.info = (...args: unknown[]) => written.push(args);
    try {
      for (const level of levels) (logger[level] as (message: string) => void)('a warning');
    } finally {
      Object.assign(console, saved);
    }
    expect(written).toEqual([]);
  });
});
