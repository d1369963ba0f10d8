import { existsSync, readFileSync } from 'node:fs';
import {
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RgwService, startRgw } from './rgw.js';

let rgw: RgwService;
let s3: S3Client;
let bucket: string;

beforeAll(async () => {
  rgw = await startRgw();
  s3 = rgw.client();
  bucket = await rgw.createBucket('harness');
  process.stderr.write(`radosgw harness: started in ${rgw.startupMs} ms\n`);
});

afterAll(async () => {
  await rgw?.stop();
});

async function statusOf(promise: Promise<unknown>): Promise<number> {
  try {
    await promise;
    return 200;
  } catch (error) {
    if (error instanceof S3ServiceException) return error.$metadata.httpStatusCode ?? -1;
    throw error;
  }
}

describe('radosgw test service', () => {
  it('listens on a port below the ephemeral range, which outgoing connections cannot take before it binds', () => {
    const port = Number(new URL(rgw.endpoint).port);
    const [ephemeralLow] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    expect(port).toBeGreaterThanOrEqual(20_000);
    expect(port).toBeLessThan(Math.min(32_000, Number(ephemeralLow)));
  });

  it('runs every daemon as the unprivileged test user, with its data in a private temp directory', () => {
    const uid = process.geteuid?.();
    expect(uid).not.toBe(0);
    const pids = rgw.daemonPids();
    expect(pids).toHaveLength(3);
    for (const pid of pids) {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const realUid = /^Uid:\s+(\d+)/m.exec(status)?.[1];
      expect(Number(realUid)).toBe(uid);
    }
    expect(rgw.dataDir.startsWith(process.env.TMPDIR ?? '/nonexistent')).toBe(true);
  });

  it('honours If-None-Match: * and If-Match on PUT (the facts the S3 backend relies on)', async () => {
    const put = (body: string, conditions: { IfNoneMatch?: string; IfMatch?: string }) =>
      s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'cond/state', Body: body, ...conditions }));
    const first = await put('one', { IfNoneMatch: '*' });
    expect(await statusOf(put('two', { IfNoneMatch: '*' }))).toBe(412);
    expect(await statusOf(put('two', { IfMatch: 'deadbeefdeadbeefdeadbeefdeadbeef' }))).toBe(412);
    const etag = (first.ETag ?? '').replaceAll('"', '');
    expect(etag).toMatch(/^[0-9a-f]{32}$/);
    // radosgw 16 compares If-Match against the bare ETag: the quoted form fails.
    expect(await statusOf(put('two', { IfMatch: `"${etag}"` }))).toBe(412);
    expect(await statusOf(put('two', { IfMatch: etag }))).toBe(200);
    const read = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'cond/state' }));
    expect(await read.Body?.transformToString()).toBe('two');
  });

  it('paginates listings with MaxKeys and continuation tokens', async () => {
    await Promise.all(
      Array.from({ length: 25 }, (_, i) =>
        s3.send(
          new PutObjectCommand({
            Bucket: bucket,
            Key: `page/${String(i).padStart(2, '0')}`,
            Body: new Uint8Array(0),
          }),
        ),
      ),
    );
    const keys: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await s3.send(
        new ListObjectsV2Command({ Bucket: bucket, Prefix: 'page/', MaxKeys: 10, ContinuationToken: token }),
      );
      pages += 1;
      keys.push(...(page.Contents ?? []).map((object) => object.Key ?? ''));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
    expect(pages).toBe(3);
    expect(keys).toEqual(Array.from({ length: 25 }, (_, i) => `page/${String(i).padStart(2, '0')}`));
  });

  it('stop() kills every daemon and removes its directory; a second stop is harmless', async () => {
    const other = await startRgw();
    const pids = other.daemonPids();
    const dir = other.dataDir;
    expect(other.dataDir).not.toBe(rgw.dataDir);
    await other.stop();
    await other.stop();
    for (const pid of pids) expect(existsSync(`/proc/${pid}`)).toBe(false);
    expect(existsSync(dir)).toBe(false);
  });
});
