import { describe, expect, it } from 'vitest';
import { classifyS3Error } from './errors.js';
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
    expect(classifyS3Error(answered(403, 'AccessDenied'))).toBe('failed');
    expect(classifyS3Error(answered(503, 'SlowDown'))).toBe('failed');
  });

  it('calls only socket failures and missing credentials unreachable; anything else failed', () => {
    expect(classifyS3Error(socket('ECONNREFUSED'))).toBe('unreachable');
    expect(classifyS3Error(socket('ENOTFOUND'))).toBe('unreachable');
    expect(classifyS3Error(Object.assign(new Error('x'), { name: 'CredentialsProviderError' }))).toBe(
      'unreachable',
    );
    expect(classifyS3Error(new Error('injected failure'))).toBe('failed');
    expect(classifyS3Error(Object.assign(new Error('aborted'), { name: 'AbortError' }))).toBe('failed');
    expect(classifyS3Error('a string')).toBe('failed');
    expect(classifyS3Error(null)).toBe('failed');
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
