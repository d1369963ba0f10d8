import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../../test/helpers/cli.js';
import type { S3DestinationConfig } from '../../config/types.js';
import { abortingWith, createS3Client, quietSdkNodeVersionNotice } from './client.js';
import { HeadObjectCommand, PutObjectCommand, S3Client } from './sdk.js';

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

// The SDK prints some warnings on the console unless its client has a logger
// of its own (its no-op logger included), and with any logger but its no-op
// one its log middleware copies every request and answer: sealkit gives a
// silent logger and removes that middleware.
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

  /** Runs `work` with AWS credentials in the environment and every console write captured. */
  async function quietly(work: () => Promise<void>): Promise<unknown[]> {
    const written: unknown[] = [];
    const savedEnv = { ...process.env };
    const saved = { warn: console.warn, error: console.error, log: console.log, info: console.info };
    Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE', AWS_SECRET_ACCESS_KEY: 'x' });
    console.warn = console.error = console.log = console.info = (...args: unknown[]) => written.push(args);
    try {
      await work();
    } finally {
      Object.assign(console, saved);
      process.env = savedEnv;
    }
    return written;
  }

  it('regression: a streamed upload the store refuses (503 SlowDown) prints nothing on the console', async () => {
    const server = createServer((_request, response) => {
      response.writeHead(503, { 'content-type': 'application/xml' });
      response.end('<Error><Code>SlowDown</Code><Message>slow down</Message></Error>');
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    try {
      const { port } = server.address() as AddressInfo;
      const client = createS3Client({ ...config, endpoint: `http://127.0.0.1:${port}` });
      let failure: unknown;
      const written = await quietly(async () => {
        failure = await client
          .send(
            new PutObjectCommand({
              Bucket: 'b',
              Key: 'k',
              Body: Readable.from([Buffer.from('abc')]),
              ContentLength: 3,
            }),
          )
          .catch((error: unknown) => error);
      });
      expect((failure as { name?: string }).name).toBe('SlowDown');
      expect(written).toEqual([]);
    } finally {
      server.close();
    }
  });

  it('regression: the SDK\u2019s request log middleware is not on the client, so no request is copied for it', () => {
    const stack = createS3Client(config).middlewareStack.identify();
    expect(stack.length).toBeGreaterThan(5);
    expect(stack.filter((entry) => entry.startsWith('loggerMiddleware'))).toEqual([]);
    expect(
      new S3Client({ region: 'us-east-1' }).middlewareStack
        .identify()
        .some((entry) => entry.startsWith('loggerMiddleware')),
    ).toBe(true);
  });

  it('gives the HTTP handler a logger whose every level prints nothing', async () => {
    const client = createS3Client(config);
    const handler = client.config.requestHandler as {
      httpHandlerConfigs(): { logger?: Record<string, unknown> };
    };
    const written = await quietly(async () => {
      // The handler resolves its configuration on its first request (refused: nothing listens on port 9).
      const failure = await client
        .send(new HeadObjectCommand({ Bucket: 'b', Key: 'k' }))
        .catch((error) => error);
      expect((failure as { code?: string }).code).toBe('ECONNREFUSED');
      const logger = handler.httpHandlerConfigs().logger ?? {};
      const levels = ['trace', 'debug', 'info', 'warn', 'error'] as const;
      expect(levels.map((level) => typeof logger[level])).toEqual(levels.map(() => 'function'));
      for (const level of levels) (logger[level] as (message: string) => void)('a warning');
    });
    expect(written).toEqual([]);
  });
});

describe('one signal over many requests at once', () => {
  it('regression: 40 requests in flight under the run\u2019s signal print no MaxListenersExceededWarning (printed on reruns that repaired markers)', async () => {
    const server = createServer((_request, response) => {
      // Held a little, so that every request is in flight at once.
      setTimeout(() => {
        response.writeHead(200, { 'content-length': '0', etag: '"0"' });
        response.end();
      }, 50);
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => {
      warnings.push(warning.name);
    };
    process.on('warning', onWarning);
    const savedEnv = { ...process.env };
    Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE', AWS_SECRET_ACCESS_KEY: 'x' });
    try {
      const { port } = server.address() as AddressInfo;
      const client = createS3Client({
        id: 'archive',
        kind: 's3',
        bucket: 'b',
        region: 'us-east-1',
        prefix: '',
        endpoint: `http://127.0.0.1:${port}`,
        force_path_style: true,
        outputs: { source: true, html: false, assets: false },
      });
      const run = new AbortController();
      const sent = abortingWith(client, run.signal);
      const answers = await Promise.all(
        Array.from({ length: 40 }, (_, index) =>
          sent.send(new HeadObjectCommand({ Bucket: 'b', Key: `k${index}` })),
        ),
      );
      expect(answers).toHaveLength(40);
      // Warnings are emitted on the next tick.
      await new Promise((done) => setImmediate(done));
      expect(warnings).toEqual([]);
      // The caller's own signal is left as it was.
      expect(run.signal.aborted).toBe(false);
    } finally {
      process.off('warning', onWarning);
      process.env = savedEnv;
      server.close();
    }
  });
});
