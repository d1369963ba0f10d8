import { describe, expect, it } from 'vitest';
import { classifyS3Error, isTransient, s3Refusal, s3RefusalCode } from './errors.js';
import { forEachLimited } from './parallel.js';

// The shapes the AWS SDK gives its errors: an HTTP answer carries
// `$metadata.httpStatusCode`; a socket failure carries a Node error code.
const answered = (status: number, name: string) =>
  Object.assign(new Error('server text that must never be shown'), {
    name,
    $metadata: { httpStatusCode: status },
  });
const socket = (code: string) => Object.assign(new Error('connect failed'), { code, $metadata: {} });

describe('classifyS3Error', () => {
  it('tells conditional-write losses, absent objects and missing buckets apart', () => {
    expect(classifyS3Error(answered(412, 'PreconditionFailed'))).toBe('precondition');
    expect(classifyS3Error(answered(409, 'ConditionalRequestConflict'))).toBe('precondition');
    expect(classifyS3Error(answered(409, 'BucketAlreadyExists'))).toBe('failed');
    expect(classifyS3Error(answered(404, 'NoSuchKey'))).toBe('absent');
    expect(classifyS3Error(answered(404, 'NotFound'))).toBe('absent');
    expect(classifyS3Error(answered(404, 'NoSuchBucket'))).toBe('no_bucket');
    expect(classifyS3Error(answered(403, 'AccessDenied'))).toBe('access_denied');
    expect(classifyS3Error(answered(403, 'Forbidden'))).toBe('access_denied');
    expect(classifyS3Error(answered(403, 'InvalidAccessKeyId'))).toBe('credentials_refused');
    expect(classifyS3Error(answered(403, 'SignatureDoesNotMatch'))).toBe('credentials_refused');
    expect(classifyS3Error(answered(403, 'QuotaExceeded'))).toBe('quota_exceeded');
    expect(classifyS3Error(answered(503, 'SlowDown'))).toBe('failed');
  });

  it('calls only socket failures unreachable, missing credentials their own kind; anything else failed', () => {
    expect(classifyS3Error(socket('ECONNREFUSED'))).toBe('unreachable');
    expect(classifyS3Error(socket('ENOTFOUND'))).toBe('unreachable');
    expect(classifyS3Error(Object.assign(new Error('x'), { name: 'TimeoutError', code: 'ETIMEDOUT' }))).toBe(
      'unreachable',
    );
    expect(classifyS3Error(Object.assign(new Error('x'), { name: 'CredentialsProviderError' }))).toBe(
      'credentials_missing',
    );
    expect(classifyS3Error(new Error('injected failure'))).toBe('failed');
    expect(classifyS3Error(Object.assign(new Error('aborted'), { name: 'AbortError' }))).toBe('failed');
    expect(classifyS3Error('a string')).toBe('failed');
    expect(classifyS3Error(null)).toBe('failed');
  });
});

describe('isTransient', () => {
  it('retries busy answers, resets and timeouts; never a refused connection, a 4xx or a lost condition', () => {
    expect(isTransient(answered(503, 'SlowDown'))).toBe(true);
    expect(isTransient(answered(500, 'InternalError'))).toBe(true);
    expect(isTransient(answered(429, 'TooManyRequests'))).toBe(true);
    expect(isTransient(answered(400, 'RequestTimeout'))).toBe(true);
    expect(isTransient(socket('ECONNRESET'))).toBe(true);
    expect(isTransient(Object.assign(new Error('x'), { name: 'TimeoutError' }))).toBe(true);
    expect(isTransient(socket('ECONNREFUSED'))).toBe(false);
    expect(isTransient(answered(412, 'PreconditionFailed'))).toBe(false);
    expect(isTransient(answered(403, 'AccessDenied'))).toBe(false);
    expect(isTransient(answered(404, 'NoSuchKey'))).toBe(false);
  });
});

describe('s3RefusalCode', () => {
  it('gives each cause its own code, and a lost condition on a write destination_changed', () => {
    expect(s3RefusalCode('credentials_missing', 'read')).toBe('destination_credentials_missing');
    expect(s3RefusalCode('credentials_refused', 'read')).toBe('destination_credentials_refused');
    expect(s3RefusalCode('access_denied', 'write')).toBe('destination_access_denied');
    expect(s3RefusalCode('no_bucket', 'read')).toBe('destination_bucket_missing');
    expect(s3RefusalCode('unreachable', 'write')).toBe('destination_unreachable');
    expect(s3RefusalCode('absent', 'write')).toBe('destination_changed');
    expect(s3RefusalCode('precondition', 'write')).toBe('destination_changed');
    expect(s3RefusalCode('failed', 'write')).toBe('destination_write_failed');
    expect(s3RefusalCode('quota_exceeded', 'write')).toBe('destination_write_failed');
  });
});

describe('forEachLimited', () => {
  it('never runs more than the limit at once and visits every item once', async () => {
    let running = 0;
    let peak = 0;
    const seen: number[] = [];
    await forEachLimited([...Array(25).keys()], 4, async (item) => {
      running += 1;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setTimeout(resolve, item % 3));
      seen.push(item);
      running -= 1;
    });
    expect(peak).toBe(4);
    expect(seen.sort((a, b) => a - b)).toEqual([...Array(25).keys()]);
  });

  it('starts nothing new after a failure, lets the started ones finish, then throws the first failure', async () => {
    const started: number[] = [];
    const finished: number[] = [];
    const run = forEachLimited([...Array(10).keys()], 3, async (item) => {
      started.push(item);
      if (item === 1) throw new Error('first');
      await new Promise((resolve) => setTimeout(resolve, 5));
      finished.push(item);
    });
    await expect(run).rejects.toThrow('first');
    expect(started).toEqual([0, 1, 2]);
    expect(finished.sort()).toEqual([0, 2]);
  });
});

describe('s3Refusal of a DNS failure', () => {
  const dns = (code: string, hostname: string) =>
    Object.assign(new Error(`getaddrinfo ${code} ${hostname}`), { code, hostname, $metadata: {} });
  const aws = { bucket: 'reports', endpointHost: undefined, forcePathStyle: false, endpointHasPath: false };
  it('regression: without endpoint, an AWS host made from region: is said to be about region:', () => {
    expect(s3Refusal(dns('ENOTFOUND', 'reports.s3.us-east1.amazonaws.com'), 'read', aws).hint).toBe(
      "without endpoint: the SDK finds AWS S3 by a host name made from region: ('<bucket>.s3.<region>.amazonaws.com'), and DNS does not know it: check region: (AWS regions read like us-east-1 or eu-central-1), or set endpoint: for another store (ENOTFOUND)",
    );
    expect(s3Refusal(dns('EAI_AGAIN', 'reports.s3.eu-central-1.amazonaws.com'), 'read', aws).hint).toMatch(
      /and DNS did not answer for it: check the network, and region: .* \(EAI_AGAIN\)$/,
    );
    // A host from elsewhere (AWS_ENDPOINT_URL_S3, a profile's endpoint_url) keeps the endpoint's hint,
    expect(s3Refusal(dns('ENOTFOUND', 'store.internal'), 'read', aws).hint).toBe(
      "the endpoint's host name is not known to DNS: check its spelling (ENOTFOUND)",
    );
    // and, with the bucket put before it (no force_path_style), says so as for endpoint:.
    expect(s3Refusal(dns('ENOTFOUND', 'reports.localhost'), 'read', aws).hint).toMatch(
      /^DNS does not know the host name the SDK looked up, the bucket's name followed by a dot and the endpoint's host name: .*set force_path_style: true for such a store, else check the endpoint's spelling \(ENOTFOUND\)$/,
    );
    expect(
      s3Refusal(dns('ENOTFOUND', 'reports.localhost'), 'read', { ...aws, forcePathStyle: true }).hint,
    ).toBe("the endpoint's host name is not known to DNS: check its spelling (ENOTFOUND)");
    expect(
      s3Refusal(dns('ENOTFOUND', 's3.us-east-1.amazonaws.com'), 'read', {
        ...aws,
        endpointHost: 'minio.internal',
      }).hint,
    ).toBe("the endpoint's host name is not known to DNS: check its spelling (ENOTFOUND)");
  });
});
