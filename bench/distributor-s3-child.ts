// Helper processes for `npm run bench -- distributor-s3`, each doing one thing
// so that its peak RSS and its time are its own:
//   start            start a detached Ceph RGW (mon, memstore OSD, gateway) and a bucket; print its
//                    handle (with the bucket name)
//   put FILE KEY     upload FILE with one plain streamed PutObject (the reference); print peak RSS
//   clear PREFIX     delete every object under PREFIX
//   requests DIR PREFIX
//                    the requests sealkit's design makes for each bundle folder of DIR (its one
//                    file hashed, a create-only marker, the file, a create-only state; the markers
//                    removed in one batched delete), made bare with the SDK, 16 bundles at once
//   requests-locked DIR PREFIX
//                    the same with one create-only lock for the whole prefix instead of a marker
//                    per bundle (a design sealkit does not use: what it would leave of the floor)
// The handle comes in SEALKIT_BENCH_RGW; credentials through the AWS SDK's environment variables.
import { createHash } from 'node:crypto';
import { createReadStream, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  CreateBucketCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { type DetachedRgw, startRgw } from '../test/services/rgw.js';
import { peakRssKiB } from './peak-rss.js';

const BENCH_BUCKET = 'sealkit-bench';

function client(handle: DetachedRgw): S3Client {
  return new S3Client({
    endpoint: handle.endpoint,
    region: handle.region,
    forcePathStyle: true,
    credentials: { accessKeyId: handle.accessKeyId, secretAccessKey: handle.secretAccessKey },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

async function main(argv: readonly string[]): Promise<void> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const [mode, first, second] = argv;
  if (mode === 'start') {
    const rgw = await startRgw({ detached: true, memstoreBytes: 2 * 1024 * 1024 * 1024 });
    const handle = rgw.detachedHandle();
    await client(handle).send(new CreateBucketCommand({ Bucket: BENCH_BUCKET }));
    process.stdout.write(`${JSON.stringify({ ...handle, bucket: BENCH_BUCKET })}\n`);
    // The daemons outlive this process; nothing else keeps it alive.
    process.exit(0);
  }
  const handle = JSON.parse(process.env.SEALKIT_BENCH_RGW ?? '{}') as DetachedRgw;
  const s3 = client(handle);
  if (mode === 'put' && first !== undefined && second !== undefined) {
    await s3.send(
      new PutObjectCommand({
        Bucket: BENCH_BUCKET,
        Key: second,
        Body: createReadStream(first, { highWaterMark: 1 << 20 }),
        ContentLength: statSync(first).size,
      }),
    );
    process.stdout.write(`${JSON.stringify({ maxRssKiB: peakRssKiB() })}\n`);
    return;
  }
  if (mode === 'clear' && first !== undefined) {
    let token: string | undefined;
    do {
      const page = await s3.send(
        new ListObjectsV2Command({ Bucket: BENCH_BUCKET, Prefix: first, ContinuationToken: token }),
      );
      for (const entry of page.Contents ?? []) {
        if (entry.Key !== undefined)
          await s3.send(new DeleteObjectCommand({ Bucket: BENCH_BUCKET, Key: entry.Key }));
      }
      token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
    return;
  }
  if ((mode === 'requests' || mode === 'requests-locked') && first !== undefined && second !== undefined) {
    await bareRequests(s3, first, second, mode === 'requests' ? 'marker-per-bundle' : 'one-lock');
    return;
  }
  throw new Error(
    'usage: distributor-s3-child start | put FILE KEY | clear PREFIX | requests[-locked] DIR PREFIX',
  );
}

/** Bundles in flight at once in `requests[-locked]`, as in sealkit's default `--transfers`. */
const BARE_TRANSFERS = 16;

/**
 * The floor of the 100-bundle benchmark for sealkit's design: per bundle, the
 * SHA-256 every publication must compute before it writes, then the three
 * PUTs that make a bundle all-or-nothing on S3 (a create-only marker that
 * claims the keys, the output, a create-only state written last), and one
 * batched delete of the markers at the end. No discovery, no manifest, no
 * probe, no upload verification: what sealkit adds above this is its own.
 * With `one-lock`, one create-only object claims the whole prefix (and could
 * hold every planned key and digest) in place of the marker per bundle, as
 * a local destination's lock does: the floor such a design would have.
 */
async function bareRequests(
  s3: S3Client,
  dir: string,
  prefix: string,
  locking: 'marker-per-bundle' | 'one-lock',
): Promise<void> {
  const bundles = readdirSync(dir).sort();
  const markers: string[] = [];
  let next = 0;
  const small = (key: string, body: string) =>
    s3.send(
      new PutObjectCommand({
        Bucket: BENCH_BUCKET,
        Key: key,
        Body: body,
        IfNoneMatch: '*',
        ContentType: 'application/json',
      }),
    );
  if (locking === 'one-lock') {
    const lock = `${prefix}/.distributor.lock.json`;
    await small(lock, `{"bundles":${bundles.length}}\n`);
    markers.push(lock);
  }
  const one = async (name: string): Promise<void> => {
    const bytes = readFileSync(join(dir, name, 'data.bin'));
    const sha256 = createHash('sha256').update(bytes).digest();
    if (locking === 'marker-per-bundle') {
      const marker = `${prefix}/${name}.pending.json`;
      await small(marker, `{"claims":["${name}/data.bin"],"sha256":"${sha256.toString('hex')}"}\n`);
      markers.push(marker);
    }
    await s3.send(
      new PutObjectCommand({
        Bucket: BENCH_BUCKET,
        Key: `${prefix}/${name}/data.bin`,
        Body: bytes,
        ChecksumSHA256: sha256.toString('base64'),
      }),
    );
    await small(`${prefix}/${name}/.distributor.json`, `{"sha256":"${sha256.toString('hex')}"}\n`);
  };
  await Promise.all(
    Array.from({ length: BARE_TRANSFERS }, async () => {
      while (next < bundles.length) {
        const name = bundles[next] ?? '';
        next += 1;
        await one(name);
      }
    }),
  );
  await s3.send(
    new DeleteObjectsCommand({
      Bucket: BENCH_BUCKET,
      Delete: { Objects: markers.sort().map((Key) => ({ Key })), Quiet: true },
    }),
  );
}

await main(process.argv.slice(2));
