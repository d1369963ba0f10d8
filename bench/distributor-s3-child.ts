// Helper processes for `npm run bench -- distributor-s3`, each doing one thing
// so that its peak RSS and its time are its own:
//   start            start a detached Ceph RGW (mon, memstore OSD, gateway) and a bucket; print its
//                    handle (with the bucket name)
//   put FILE KEY     upload FILE with one plain streamed PutObject (the reference); print peak RSS
//   clear PREFIX     delete every object under PREFIX
// The handle comes in SEALKIT_BENCH_RGW; credentials through the AWS SDK's environment variables.
import { createReadStream, statSync } from 'node:fs';
import {
  CreateBucketCommand,
  DeleteObjectCommand,
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
  throw new Error('usage: distributor-s3-child start | put FILE KEY | clear PREFIX');
}

await main(process.argv.slice(2));
