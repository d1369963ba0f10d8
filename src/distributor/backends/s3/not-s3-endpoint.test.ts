import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeBundle } from '../../../../test/helpers/distributor-fixtures.js';
import type { DistributorConfig } from '../../config/types.js';
import { distributeRun } from '../../run/run.js';

// An endpoint that answers HTTP but not as S3 (a plain web server's 404
// page) was reported as "cannot be reached or did not answer in time"; one
// that does not answer at all is told by the socket's cause.

const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
let work: string;
const servers: Server[] = [];

/** A real HTTP server on 127.0.0.1 answering every request with `status` and `body`. */
async function serve(status: number, type: string, body: string): Promise<string> {
  const server = createServer((_request, response) => {
    response.writeHead(status, { 'content-type': type });
    response.end(body);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'sealkit-not-s3-'));
  makeBundle(join(work, 'src'), 'weather', [{ path: 'summary.txt', content: 'sunny\n' }], {
    id: 'weather',
    created: '2026-05-30T11:10:00Z',
  });
  process.env.AWS_ACCESS_KEY_ID = 'AKIAEXAMPLESEALKIT';
  process.env.AWS_SECRET_ACCESS_KEY = 'not-a-real-secret';
});
afterAll(async () => {
  for (const server of servers) await new Promise((resolve) => server.close(resolve));
  rmSync(work, { recursive: true, force: true });
  if (saved.id === undefined) delete process.env.AWS_ACCESS_KEY_ID;
  else process.env.AWS_ACCESS_KEY_ID = saved.id;
  if (saved.secret === undefined) delete process.env.AWS_SECRET_ACCESS_KEY;
  else process.env.AWS_SECRET_ACCESS_KEY = saved.secret;
});

const config = (endpoint: string, forcePathStyle = true): DistributorConfig => ({
  pipelines: [
    {
      id: 'weather',
      source: { root: join(work, 'src') },
      destinations: [
        {
          id: 'archive',
          kind: 's3',
          bucket: 'reports',
          prefix: 'weather',
          endpoint,
          region: 'us-east-1',
          force_path_style: forcePathStyle,
          connect_timeout_seconds: 2,
          request_timeout_seconds: 5,
          outputs: { source: true, html: false },
        },
      ],
    },
  ],
});

const outcomeOf = async (endpoint: string, dryRun: boolean, forcePathStyle = true) => {
  const report = await distributeRun({
    config: config(endpoint, forcePathStyle),
    ...(dryRun ? { dryRun } : {}),
  });
  const [item] = report.outcomes;
  return [item?.outcome, item?.reason_code, item?.refusal?.hint];
};

describe('an S3 endpoint that answers HTTP but not as S3', () => {
  it('regression: a plain 404 page is destination_unreachable saying the endpoint answered, not that it could not be reached', async () => {
    const endpoint = await serve(404, 'text/html', '<html><body><h1>Not Found</h1></body></html>');
    const hint =
      "destination 'archive', bundle 'weather': the endpoint answered HTTP 404 but not as an S3 service: check endpoint and bucket";
    expect(await outcomeOf(endpoint, true)).toEqual(['refused', 'destination_unreachable', hint]);
    expect(await outcomeOf(endpoint, false)).toEqual(['refused', 'destination_unreachable', hint]);
  });

  it('a 404 carrying an S3 error document is still told by its code (NoSuchBucket)', async () => {
    const endpoint = await serve(
      404,
      'application/xml',
      '<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchBucket</Code><Message>The specified bucket does not exist</Message><BucketName>reports</BucketName><RequestId>1</RequestId></Error>',
    );
    const [outcome, code, hint] = await outcomeOf(endpoint, true);
    expect([outcome, code]).toEqual(['refused', 'destination_bucket_missing']);
    expect(hint).not.toContain('not as an S3 service');
  });

  it('regression: a refused connection says nothing listens there (the hint named only the bundle)', async () => {
    const [outcome, code, hint] = await outcomeOf('http://127.0.0.1:9', true);
    expect([outcome, code]).toEqual(['refused', 'destination_unreachable']);
    expect(hint).toBe(
      "destination 'archive', bundle 'weather': nothing listens at the endpoint's host and port: check the port, and that the store runs (ECONNREFUSED)",
    );
  });

  it('regression: a host name DNS does not know is said so', async () => {
    const [outcome, code, hint] = await outcomeOf('http://no-such-host.invalid', true);
    expect([outcome, code]).toEqual(['refused', 'destination_unreachable']);
    // ENOTFOUND where a resolver answers, EAI_AGAIN where none can be asked.
    expect(hint).toMatch(
      /^destination 'archive', bundle 'weather': (the endpoint's host name is not known to DNS: check its spelling \(ENOTFOUND\)|DNS did not answer for the endpoint's host name: check the network \(EAI_AGAIN\))$/,
    );
  });

  it('regression: without force_path_style, an unknown <bucket>.<endpoint host> is said so, with force_path_style: true to set', async () => {
    // The SDK looked up 'reports.store.invalid' and the hint blamed the endpoint's host name.
    const [outcome, code, hint] = await outcomeOf('http://store.invalid:7480', true, false);
    expect([outcome, code]).toEqual(['refused', 'destination_unreachable']);
    // ENOTFOUND where a resolver answers, EAI_AGAIN where none can be asked.
    expect([
      "destination 'archive', bundle 'weather': DNS does not know the host name the SDK looked up, the bucket's name followed by a dot and the endpoint's host name: without force_path_style it puts the bucket in front of the endpoint's host name, and a store that takes the bucket in the path (Ceph RGW, MinIO, most self-hosted stores) has no such name; set force_path_style: true for such a store, else check the endpoint's spelling (ENOTFOUND)",
      "destination 'archive', bundle 'weather': DNS did not answer for the endpoint's host name: check the network (EAI_AGAIN)",
    ]).toContain(hint);
    // Told by its parts: a refusal shows no S3 setting.
    expect(hint).not.toMatch(/reports|store\.invalid/);
    // With the bucket in the path, the name looked up is the endpoint's own.
    const [, , pathStyle] = await outcomeOf('http://store.invalid:7480', true, true);
    expect(pathStyle).not.toContain('force_path_style');
  });

  it('regression: https:// to a plain HTTP server says the protocol is wrong', async () => {
    const endpoint = await serve(200, 'text/plain', 'hello');
    const [outcome, code, hint] = await outcomeOf(endpoint.replace('http://', 'https://'), true);
    expect([outcome, code]).toEqual(['refused', 'destination_unreachable']);
    expect(hint).toBe(
      "destination 'archive', bundle 'weather': the endpoint does not speak the protocol its URL names: check http:// against https:// (EPROTO)",
    );
  });
});

/** AWS S3's answer to a request for a bucket of another region: a HEAD gets the status and header only. */
async function serveOtherRegion(status: 301 | 400, region: string): Promise<string> {
  const body =
    status === 301
      ? '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>PermanentRedirect</Code><Message>The bucket you are attempting to access must be addressed using the specified endpoint. Please send all future requests to this endpoint.</Message><Endpoint>reports.s3.eu-west-1.amazonaws.com</Endpoint><Bucket>reports</Bucket><RequestId>1</RequestId><HostId>2</HostId></Error>'
      : `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AuthorizationHeaderMalformed</Code><Message>The authorization header is malformed; the region 'us-east-1' is wrong; expecting '${region}'</Message><Region>${region}</Region><RequestId>1</RequestId><HostId>2</HostId></Error>`;
  const server = createServer((request, response) => {
    response.writeHead(status, { 'content-type': 'application/xml', 'x-amz-bucket-region': region });
    response.end(request.method === 'HEAD' ? undefined : body);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('an S3 bucket in another region than the one requests are signed for', () => {
  it.each([
    [301, 'PermanentRedirect'],
    [400, 'AuthorizationHeaderMalformed'],
  ] as const)(
    'regression: AWS\'s %i (%s) names the bucket\'s region, not an endpoint that "answered but not as an S3 service"',
    async (status, _code) => {
      const endpoint = await serveOtherRegion(status, 'eu-west-1');
      const hint =
        "destination 'archive', bundle 'weather': the store answered that the bucket is in region 'eu-west-1', not in the one the requests were signed for (region:, else AWS_REGION or the AWS profile's): set region: eu-west-1, and endpoint: to that region's address (or leave endpoint: out for AWS S3)";
      expect(await outcomeOf(endpoint, true)).toEqual(['refused', 'destination_unreachable', hint]);
      expect(await outcomeOf(endpoint, false)).toEqual(['refused', 'destination_unreachable', hint]);
    },
  );

  it('a region that is not a region token is not repeated', async () => {
    const endpoint = await serveOtherRegion(301, 'eu west <1>');
    const [outcome, code, hint] = await outcomeOf(endpoint, true);
    expect([outcome, code]).toEqual(['refused', 'destination_unreachable']);
    expect(hint).not.toContain('eu west');
  });
});
