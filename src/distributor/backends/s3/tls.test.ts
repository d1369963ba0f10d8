// A store behind TLS whose certificate a company CA signed (here one made for
// the test), through the built CLI: AWS_CA_BUNDLE, which the AWS CLI and the
// other AWS SDKs trust and the JavaScript SDK does not read, is trusted by
// sealkit too; without it the hint names it; a bundle that cannot be used is
// refused at the endpoint: line before any request, and nothing is written.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../../test/helpers/cli.js';
import {
  listKeys,
  s3ConfigYaml,
  useRgwFixture,
  writeBundle,
} from '../../../../test/helpers/distributor-s3.js';

const BIN = join(REPO_ROOT, 'bin', 'sealkit.js');

const ctx = useRgwFixture({ work: 's3-tls-', bucket: 'tls' });

let server: Server | undefined;
let endpoint = '';
let certificate = '';

beforeAll(async () => {
  // A self-signed certificate for 127.0.0.1, as a company CA's own root is.
  const dir = mkdtempSync(join(ctx.work, 'ca-'));
  certificate = join(dir, 'ca.pem');
  const key = join(dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      key,
      '-out',
      certificate,
    ],
    { stdio: 'ignore' },
  );
  // TLS in front of the gateway, forwarding every request as it comes.
  const target = new URL(ctx.rgw.endpoint);
  server = createServer({ key: readFileSync(key), cert: readFileSync(certificate) }, (req, res) => {
    const forward = httpRequest(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  endpoint = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
});

/** `distribute run` as a child that does not block this process, whose server must go on answering. */
function run(dir: string, env: NodeJS.ProcessEnv, ...args: string[]) {
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [BIN, 'distribute', 'run', ...args], { cwd: dir, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}

function setUp(name: string) {
  const dir = mkdtempSync(join(ctx.work, `${name}-`));
  writeBundle(join(dir, 'out'), 'weather/brentwood', {
    id: 'weather.daily.brentwood',
    created: '2026-05-30T11:10:00Z',
    files: { 'report.md': '# Brentwood\n' },
  });
  const yaml = s3ConfigYaml(ctx.rgw, join(dir, 'out'), { bucket: ctx.bucket, prefix: name });
  writeFileSync(
    join(dir, 'sealkit.distributor.yaml'),
    yaml.replace(JSON.stringify(ctx.rgw.endpoint), JSON.stringify(endpoint)),
  );
  const env: NodeJS.ProcessEnv = { ...process.env, ...ctx.rgw.awsEnv };
  delete env.AWS_CA_BUNDLE;
  delete env.NODE_EXTRA_CA_CERTS;
  delete env.AWS_CONFIG_FILE;
  delete env.AWS_PROFILE;
  // A home of its own: no shared AWS file of the user running the tests is read.
  env.HOME = join(dir, 'home');
  mkdirSync(env.HOME);
  return { dir, env };
}

describe('an S3 store behind TLS signed by a CA of its own', () => {
  it('regression: AWS_CA_BUNDLE is trusted as the AWS CLI trusts it; without it the hint names it', async () => {
    const { dir, env } = setUp('bundle');
    const untrusted = await run(dir, env);
    expect(untrusted.status).toBe(2);
    expect(untrusted.stderr).toContain(
      "= help: destination 'bucket', bundle 'weather/brentwood': the endpoint's TLS certificate is self-signed: set AWS_CA_BUNDLE (or NODE_EXTRA_CA_CERTS) to it (DEPTH_ZERO_SELF_SIGNED_CERT)\n",
    );
    expect(await listKeys(ctx.s3, ctx.bucket, 'bundle/')).toEqual([]);
    const trusted = await run(dir, { ...env, AWS_CA_BUNDLE: certificate });
    expect(trusted.stderr).toBe('');
    expect(trusted.status).toBe(0);
    expect(await listKeys(ctx.s3, ctx.bucket, 'bundle/')).toHaveLength(3);
    const again = await run(dir, { ...env, AWS_CA_BUNDLE: certificate });
    expect(again.status).toBe(0);
    expect(again.stdout).toContain('skipped_same');
  });

  it('regression: an AWS_CA_BUNDLE that cannot be used is refused at endpoint:, in a dry run too; nothing written', async () => {
    const { dir, env } = setUp('unusable');
    const cases: readonly [string, string][] = [
      [
        join(dir, 'missing.pem'),
        "the file AWS_CA_BUNDLE names cannot be read by this run (ENOENT): point AWS_CA_BUNDLE at the CA bundle the store's certificate is signed by, readable by the user the run is started as, or unset it",
      ],
      [
        join(dir, 'sealkit.distributor.yaml'),
        "the file AWS_CA_BUNDLE names holds no PEM certificate ('-----BEGIN CERTIFICATE-----'): point it at the CA bundle in PEM form, or unset it",
      ],
    ];
    for (const [bundle, help] of cases) {
      for (const args of [[], ['--dry-run']]) {
        const refused = await run(dir, { ...env, AWS_CA_BUNDLE: bundle }, ...args);
        expect(refused.status).toBe(2);
        expect(refused.stderr).toBe(
          [
            'error[destination_unreachable]: the destination cannot be reached or did not answer in time (S3: check the endpoint, the network and the timeouts)',
            '  --> sealkit.distributor.yaml:10:9',
            '  = at: pipelines[0].destinations[0].endpoint',
            `  = help: destination 'bucket', bundle 'weather/brentwood': ${help}`,
            '',
          ].join('\n'),
        );
      }
    }
    expect(await listKeys(ctx.s3, ctx.bucket, 'unusable/')).toEqual([]);
  });

  it('regression: ca_bundle in the profile of ~/.aws/config is trusted as the AWS CLI trusts it (was not read); AWS_CA_BUNDLE comes first', async () => {
    const { dir, env } = setUp('profile');
    const home = env.HOME ?? '';
    mkdirSync(join(home, '.aws'));
    const config = join(home, '.aws', 'config');
    writeFileSync(config, `[default]\nregion = us-east-1\nca_bundle = ${certificate}\n`);
    const trusted = await run(dir, env);
    expect(trusted.stderr).toBe('');
    expect(trusted.status).toBe(0);
    expect(await listKeys(ctx.s3, ctx.bucket, 'profile/')).toHaveLength(3);
    // The profile AWS_PROFILE names, not the default one.
    writeFileSync(
      config,
      `[default]\nca_bundle = ${join(dir, 'elsewhere.pem')}\n\n[profile store]\nca_bundle=${join(dir, 'missing.pem')}\n`,
    );
    const named = await run(dir, { ...env, AWS_PROFILE: 'store' }, '--dry-run');
    expect(named.status).toBe(2);
    expect(named.stderr).toContain(
      "= help: destination 'bucket', bundle 'weather/brentwood': the file ca_bundle of profile 'store' in ~/.aws/config names cannot be read by this run (ENOENT): point it at the CA bundle the store's certificate is signed by, readable by the user the run is started as, or remove the line\n",
    );
    // AWS_CA_BUNDLE, when set, is the one read (the default profile's names a file that is not there).
    const first = await run(dir, { ...env, AWS_CA_BUNDLE: certificate });
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    expect(first.stdout).toContain('skipped_same');
  });

  it('regression: AWS_CA_BUNDLE is not read for an http:// endpoint taken from AWS_ENDPOINT_URL_S3 (a bundle it could not read refused the run)', async () => {
    const dir = mkdtempSync(join(ctx.work, 'env-endpoint-'));
    writeBundle(join(dir, 'out'), 'weather/brentwood', {
      id: 'weather.daily.brentwood',
      created: '2026-05-30T11:10:00Z',
      files: { 'report.md': '# Brentwood\n' },
    });
    const yaml = s3ConfigYaml(ctx.rgw, join(dir, 'out'), { bucket: ctx.bucket, prefix: 'env-endpoint' });
    const withoutEndpoint = yaml.replace(`        endpoint: ${JSON.stringify(ctx.rgw.endpoint)}\n`, '');
    expect(withoutEndpoint).not.toContain('endpoint:');
    writeFileSync(join(dir, 'sealkit.distributor.yaml'), withoutEndpoint);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...ctx.rgw.awsEnv,
      AWS_ENDPOINT_URL_S3: ctx.rgw.endpoint,
    };
    delete env.NODE_EXTRA_CA_CERTS;
    const published = await run(dir, { ...env, AWS_CA_BUNDLE: join(dir, 'missing.pem') });
    expect(published.stderr).toBe('');
    expect(published.status).toBe(0);
    expect(await listKeys(ctx.s3, ctx.bucket, 'env-endpoint/')).toHaveLength(3);
  });
});
