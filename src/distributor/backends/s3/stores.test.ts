// The S3 destination on stores other than a plain RGW bucket, imitated on the
// real test radosgw: a versioned bucket (RGW ignores conditional writes
// there), an SDK that sends no conditional headers (a store that ignores
// them), and a proxy that returns opaque KMS ETags, corrupts a body, answers
// 503 SlowDown, or an endpoint that never answers; then credentials and
// permissions, object headers, and a foreign object at a key a crashed run
// claimed.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  DeleteBucketPolicyCommand,
  HeadObjectCommand,
  ListObjectVersionsCommand,
  PutBucketPolicyCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli } from '../../../../test/helpers/cli.js';
import {
  type BundleSpec,
  listKeys,
  readPrefix,
  s3Config,
  s3ConfigYaml,
  useRgwFixture,
  writeBundle,
} from '../../../../test/helpers/distributor-s3.js';
import {
  dropConditionals,
  isObjectPut,
  opaqueKmsEtag,
  type ProxiedRequest,
  type ProxyAction,
  startSilentEndpoint,
} from '../../../../test/helpers/s3-proxy.js';
import { type FileDigests, sha256Hex, sha256Prefixed } from '../../../core/digest/index.js';
import type { S3DestinationConfig } from '../../config/types.js';
import { distributeRun } from '../../run/run.js';
import { createS3Client } from './client.js';
import { THREAD_DIGEST_MIN_BYTES } from './digests.js';
import { createS3Backend, type S3BackendOptions } from './index.js';
import { MarkerRetirement } from './retire.js';
import { putVerified } from './upload.js';

const ctx = useRgwFixture({ work: 's3-stores-', bucket: 'stores', awsEnv: true, proxy: true });

const NOW = new Date('2026-06-01T12:00:00Z');
const FAST_RETRY = { attempts: 4, baseDelayMs: 20 };
let counter = 0;

const daily: BundleSpec = {
  id: 'weather.daily',
  created: '2026-05-30T11:10:00Z',
  files: { 'report.md': '# Daily\n\nSunny.\n', 'summary.txt': 'all clear\n' },
};

interface Fixture {
  readonly source: string;
  readonly prefix: string;
  readonly bundle: string;
  run(options?: {
    backend?: S3BackendOptions;
    destination?: Partial<S3DestinationConfig>;
  }): ReturnType<typeof distributeRun>;
}

/** A fresh source with one bundle and a fresh prefix; `endpoint` replaces the gateway's (the proxy). */
function fixture(spec: BundleSpec = daily, options: { bucket?: string; endpoint?: string } = {}): Fixture {
  counter += 1;
  const source = mkdtempSync(join(ctx.work, `src-${counter}-`));
  const prefix = `case-${counter}`;
  writeBundle(source, 'daily', spec);
  const base = s3Config(ctx.rgw, source, { bucket: options.bucket ?? ctx.bucket, prefix }).pipelines[0];
  const destination = base?.destinations[0];
  if (base === undefined || destination === undefined) throw new Error('fixture');
  return {
    source,
    prefix,
    bundle: `${prefix}/daily`,
    run: (run = {}) =>
      distributeRun({
        config: {
          pipelines: [
            {
              ...base,
              destinations: [
                {
                  ...destination,
                  ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
                  ...run.destination,
                },
              ],
            },
          ],
        },
        now: () => NOW,
        s3Backend: (c: S3DestinationConfig, context) =>
          createS3Backend(c, context, { retry: FAST_RETRY, ...run.backend }),
      }),
  };
}

/** An SDK client for the test bucket through `endpoint` (the gateway or the proxy), as a destination builds it. */
function clientOf(id: string, endpoint: string) {
  return createS3Client({
    id,
    kind: 's3',
    bucket: ctx.bucket,
    prefix: '',
    endpoint,
    region: ctx.rgw.region,
    force_path_style: true,
    outputs: { source: true, html: true },
  });
}

/** A PUT of a bundle output (not the marker, the state or the probe). */
const isOutputPut = (req: ProxiedRequest): boolean =>
  ['/daily/report.md', '/daily/report.html', '/daily/summary.txt'].some((key) => isObjectPut(req, key));

/** `work`'s result while a bucket policy denies `action` on every object of `bucket`; the policy is removed afterwards. */
async function withDenied<T>(bucket: string, action: string, work: () => Promise<T>): Promise<T> {
  await ctx.s3.send(
    new PutBucketPolicyCommand({
      Bucket: bucket,
      Policy: JSON.stringify({
        Version: '2012-10-17',
        Statement: [
          { Effect: 'Deny', Principal: '*', Action: [action], Resource: [`arn:aws:s3:::${bucket}/*`] },
        ],
      }),
    }),
  );
  try {
    return await work();
  } finally {
    await ctx.s3.send(new DeleteBucketPolicyCommand({ Bucket: bucket }));
  }
}

/** Hex SHA-256 of bytes (undefined when there are none, so a missing object never matches). */
const sha256Of = (bytes: string | Uint8Array | undefined): string | undefined =>
  bytes === undefined ? undefined : createHash('sha256').update(bytes).digest('hex');

const outcomeOf = async (report: ReturnType<typeof distributeRun>) => {
  const item = (await report).outcomes[0];
  return item?.reason_code ?? item?.outcome;
};

/** The outcome of `run` while the proxy decides by `action`; it forwards everything again afterwards. */
async function outcomeThrough(run: Fixture['run'], action: (req: ProxiedRequest) => ProxyAction) {
  ctx.proxy.decide(action);
  try {
    return await outcomeOf(run());
  } finally {
    ctx.proxy.decide(() => ({ kind: 'forward' }));
  }
}

describe('stores that do not honour conditional writes are refused before any write', () => {
  it('regression: a versioned radosgw bucket is refused up front as destination_versioning_unsupported, leaving no object version', async () => {
    const versioned = await ctx.rgw.createBucket('versioned');
    await ctx.s3.send(
      new PutBucketVersioningCommand({ Bucket: versioned, VersioningConfiguration: { Status: 'Enabled' } }),
    );
    const { prefix, run } = fixture(daily, { bucket: versioned });
    expect(await outcomeOf(run())).toBe('destination_versioning_unsupported');
    const versions = await ctx.s3.send(
      new ListObjectVersionsCommand({ Bucket: versioned, Prefix: `${prefix}/` }),
    );
    expect(versions.Versions ?? []).toEqual([]);
    expect(versions.DeleteMarkers ?? []).toEqual([]);
    // Nothing is held: the next run is refused the same way at once, not locked.
    const again = (await run()).outcomes[0];
    expect(again?.reason_code).toBe('destination_versioning_unsupported');
    // The help says what to do, and doing it lets the run publish.
    expect(again?.refusal?.hint).toBe(
      `destination 'bucket', bundle 'daily': the bucket's versioning is on: suspend it (aws s3api put-bucket-versioning --bucket ${versioned} --endpoint-url ${ctx.rgw.endpoint} --versioning-configuration Status=Suspended; the versions it kept stay), after which a store such as Ceph RGW honours conditional writes again and the next run's probe passes, or publish to a bucket without versioning`,
    );
    await ctx.s3.send(
      new PutBucketVersioningCommand({ Bucket: versioned, VersioningConfiguration: { Status: 'Suspended' } }),
    );
    expect(await outcomeOf(run())).toBe('published');
  });

  it('regression: a dry run to a versioned radosgw bucket says what it leaves unchecked and that versioning is on (it only said "would be published")', async () => {
    const versioned = await ctx.rgw.createBucket('dryversioned');
    await ctx.s3.send(
      new PutBucketVersioningCommand({ Bucket: versioned, VersioningConfiguration: { Status: 'Enabled' } }),
    );
    const dir = mkdtempSync(join(ctx.work, 'dry-versioned-'));
    writeBundle(join(dir, 'out'), 'daily', daily);
    const dryRun = (bucket: string, ...flags: string[]) => {
      writeFileSync(
        join(dir, 'sealkit.distributor.yaml'),
        s3ConfigYaml(ctx.rgw, join(dir, 'out'), { bucket, prefix: 'dry' }),
      );
      return runCli(['distribute', 'run', '--dry-run', ...flags], { cwd: dir, env: process.env });
    };
    const human = dryRun(versioned);
    expect(human.status).toBe(0);
    expect(human.stdout.toString('utf8')).toContain(
      [
        '  write .distributor.json (last)',
        '',
        'not checked by a dry run, as it takes a write: whether the store honours conditional writes; a real run probes it before its first write to each destination below, and refuses one that does not (destination_conditional_writes_unsupported)',
        '  reports -> bucket: the bucket has versioning on; Ceph RGW ignores conditional writes on a versioned bucket, so a real run there is refused destination_versioning_unsupported (AWS S3 honours them)',
        '',
        'would be: 1 published, 0 replaced, 0 skipped_same, 0 skipped_newer, 0 conflict, 0 refused',
      ].join('\n'),
    );
    const json = JSON.parse(dryRun(versioned, '--json').stdout.toString('utf8')) as { unchecked: unknown };
    expect(json.unchecked).toEqual([
      {
        pipeline_id: 'reports',
        destination_id: 'bucket',
        check: 'conditional_writes',
        bucket_versioning: 'enabled',
      },
    ]);
    // Read only: not an object, not a version.
    const versions = await ctx.s3.send(new ListObjectVersionsCommand({ Bucket: versioned }));
    expect(versions.Versions ?? []).toEqual([]);
    // The real run is refused as the dry run said it would be on this store.
    expect(runCli(['distribute', 'run'], { cwd: dir, env: process.env }).status).toBe(2);
    // An unversioned bucket: the probe is still left out, and that is all that is said.
    const plain = dryRun(ctx.bucket);
    expect(plain.status).toBe(0);
    expect(plain.stdout.toString('utf8')).toContain('  reports -> bucket: the bucket has no versioning\n');
    // Regression: versioning suspended was said to be refused; on this store the probe passes and the run publishes.
    await ctx.s3.send(
      new PutBucketVersioningCommand({ Bucket: versioned, VersioningConfiguration: { Status: 'Suspended' } }),
    );
    expect(dryRun(versioned).stdout.toString('utf8')).toContain(
      "  reports -> bucket: the bucket has versioning suspended (it was on once); the real run's probe decides whether the store honours conditional writes there\n",
    );
    expect(runCli(['distribute', 'run'], { cwd: dir, env: process.env }).status).toBe(0);
  });

  it.each([
    ['regression: a store that ignores If-None-Match and If-Match', ['if-none-match', 'if-match']],
    ['a store that ignores only If-None-Match', ['if-none-match']],
    ['a store that ignores only If-Match', ['if-match']],
  ] as const)(
    '%s is refused destination_conditional_writes_unsupported; nothing is written',
    async (_, headers) => {
      const { bundle, run } = fixture();
      const client = clientOf(`blind-${headers.join('-')}`, ctx.rgw.endpoint);
      dropConditionals(client, headers);
      try {
        expect(await outcomeOf(run({ backend: { client } }))).toBe(
          'destination_conditional_writes_unsupported',
        );
      } finally {
        client.destroy();
      }
      expect(await listKeys(ctx.s3, ctx.bucket, `${bundle}/`)).toEqual([]);
      // The probe removed its own objects too.
      expect(
        (await listKeys(ctx.s3, ctx.bucket, '')).filter((key) => key.includes('.distributor.probe-')),
      ).toEqual([]);
    },
  );
});

describe('uploads are verified without trusting the shape of an ETag', () => {
  it('regression: opaque ETags with SSE-KMS (as AWS gives) publish, verified by reading back', async () => {
    const { bundle, run } = fixture(daily, { endpoint: ctx.proxy.endpoint });
    // Output PUTs only: the ETags of the marker and the state must still be ones the store honours in If-Match.
    const before = ctx.proxy.seen.length;
    expect(
      await outcomeThrough(run, (req) =>
        isOutputPut(req) ? { kind: 'rewrite', headers: opaqueKmsEtag } : { kind: 'forward' },
      ),
    ).toBe('published');
    // Every output was read back once (the GETs of the two outputs and of the state).
    const gets = ctx.proxy.seen
      .slice(before)
      .filter((req) => req.method === 'GET' && req.url.includes('/daily/') && !req.url.includes('list-type'));
    expect(gets.length).toBeGreaterThanOrEqual(3);
    const stored = await readPrefix(ctx.s3, ctx.bucket, `${bundle}/`);
    expect(stored.get(`${bundle}/summary.txt`)?.bytes.toString('utf8')).toBe('all clear\n');
  });

  it('a body changed on the way behind an opaque ETag is caught by the read-back: destination_write_failed, no state', async () => {
    const { bundle, run } = fixture(daily, { endpoint: ctx.proxy.endpoint });
    expect(
      await outcomeThrough(run, (req) => {
        if (isObjectPut(req, '/daily/summary.txt')) return { kind: 'corrupt', offset: 3 };
        return isOutputPut(req) ? { kind: 'rewrite', headers: opaqueKmsEtag } : { kind: 'forward' };
      }),
    ).toBe('destination_write_failed');
    expect(await listKeys(ctx.s3, ctx.bucket, `${bundle}/`)).not.toContain(`${bundle}/.distributor.json`);
    // What it wrote is claimed with the digest of what the store holds: the next run converges.
    expect(await outcomeOf(run())).toBe('published');
    expect((await listKeys(ctx.s3, ctx.bucket, `${bundle}/`)).sort()).toEqual(
      ['.distributor.json', 'report.html', 'report.md', 'summary.txt'].map((name) => `${bundle}/${name}`),
    );
  });
});

describe('large outputs are hashed on a thread of their own, and still verified', () => {
  // Above THREAD_DIGEST_MIN_BYTES: the upload streams unhashed and is checked
  // against the snapshot file's digests, read on another thread.
  const large: BundleSpec = {
    id: 'weather.radar',
    created: '2026-05-30T11:10:00Z',
    files: {
      'report.md': '# Radar\n',
      'radar.bin': Buffer.alloc(THREAD_DIGEST_MIN_BYTES + 12_345, 0x2a),
    },
  };
  const isLargePut = (req: ProxiedRequest): boolean => isObjectPut(req, '/daily/radar.bin');
  const largeGets = (from: number): number =>
    ctx.proxy.seen
      .slice(from)
      .filter((req) => req.method === 'GET' && req.url.split('?')[0]?.endsWith('/daily/radar.bin')).length;

  it('regression: a large output publishes, proven by its MD5 ETag without reading it back', async () => {
    const { bundle, run } = fixture(large, { endpoint: ctx.proxy.endpoint });
    const before = ctx.proxy.seen.length;
    expect(await outcomeThrough(run, () => ({ kind: 'forward' }))).toBe('published');
    expect(largeGets(before)).toBe(0);
    const stored = await readPrefix(ctx.s3, ctx.bucket, `${bundle}/`);
    expect(sha256Of(stored.get(`${bundle}/radar.bin`)?.bytes)).toBe(sha256Of(large.files['radar.bin']));
  });

  it('a large output behind an opaque ETag is read back and publishes', async () => {
    const { bundle, run } = fixture(large, { endpoint: ctx.proxy.endpoint });
    const before = ctx.proxy.seen.length;
    expect(
      await outcomeThrough(run, (req) =>
        isLargePut(req) ? { kind: 'rewrite', headers: opaqueKmsEtag } : { kind: 'forward' },
      ),
    ).toBe('published');
    expect(largeGets(before)).toBe(1);
    const stored = await readPrefix(ctx.s3, ctx.bucket, `${bundle}/`);
    expect(sha256Of(stored.get(`${bundle}/radar.bin`)?.bytes)).toBe(sha256Of(large.files['radar.bin']));
  });

  it('regression: a large body changed on the way is caught (its ETag is not the MD5 the thread read): no state, and the rerun converges', async () => {
    const { bundle, run } = fixture(large, { endpoint: ctx.proxy.endpoint });
    expect(
      await outcomeThrough(run, (req) =>
        isLargePut(req) ? { kind: 'corrupt', offset: 3_000_000 } : { kind: 'forward' },
      ),
    ).toBe('destination_write_failed');
    expect(await listKeys(ctx.s3, ctx.bucket, `${bundle}/`)).not.toContain(`${bundle}/.distributor.json`);
    expect(await outcomeOf(run())).toBe('published');
    const stored = await readPrefix(ctx.s3, ctx.bucket, `${bundle}/`);
    expect(sha256Of(stored.get(`${bundle}/radar.bin`)?.bytes)).toBe(sha256Of(large.files['radar.bin']));
  });
});

describe('an upload checked against digests read on another thread', () => {
  const bytes = Buffer.alloc(300_000, 0x61);
  const sha256 = sha256Hex(bytes);
  const md5Hex = createHash('md5').update(bytes).digest('hex');

  async function put(digests: FileDigests | undefined) {
    counter += 1;
    const key = `digests-${counter}/data.bin`;
    const client = clientOf('digests', ctx.proxy.endpoint);
    const before = ctx.proxy.seen.length;
    try {
      await putVerified(
        { client, bucket: ctx.bucket, checksumVerified: false, retry: FAST_RETRY },
        key,
        {
          sha256: sha256Prefixed(bytes),
          size: bytes.length,
          headers: { contentType: 'application/octet-stream', cacheControl: 'no-cache' },
        },
        {
          kind: 'stream',
          open: async function* () {
            yield bytes;
          },
          digests: () => Promise.resolve(digests),
        },
        { kind: 'absent' },
        new AbortController().signal,
      );
    } finally {
      client.destroy();
    }
    return ctx.proxy.seen.slice(before).filter((req) => req.method === 'GET' && req.url.includes(key)).length;
  }

  it("counts the MD5 ETag when the digests are the plan's: no read-back", async () => {
    expect(await put({ sha256, md5Hex, bytes: bytes.length })).toBe(0);
  });

  it("regression: digests that are not the plan's (a snapshot changed after validation) make the object be read back", async () => {
    const other = sha256Hex(Buffer.from('other'));
    expect(await put({ sha256: other, md5Hex, bytes: bytes.length })).toBe(1);
    expect(await put({ sha256, md5Hex, bytes: bytes.length - 1 })).toBe(1);
  });

  it('digests the thread could not give make the object be read back', async () => {
    expect(await put(undefined)).toBe(1);
  });
});

describe('pending markers are removed in as few answers as the store can give quickly', () => {
  const deletesFrom = (from: number) => {
    const seen = ctx.proxy.seen.slice(from);
    return {
      single: seen.filter((req) => req.method === 'DELETE' && req.url.includes('.distributor.pending.json')),
      batched: seen.filter((req) => req.method === 'POST' && req.url.includes('delete')),
    };
  };

  it("regression: a lone bundle's marker goes by one DELETE, not a DeleteObjects whose answer radosgw holds back", async () => {
    const { bundle, run } = fixture(daily, { endpoint: ctx.proxy.endpoint });
    const before = ctx.proxy.seen.length;
    expect(await outcomeThrough(run, () => ({ kind: 'forward' }))).toBe('published');
    const { single, batched } = deletesFrom(before);
    expect(single.map((req) => req.url.split('?')[0])).toEqual([
      `/${ctx.bucket}/${bundle}/.distributor.pending.json`,
    ]);
    expect(batched).toEqual([]);
    expect(await listKeys(ctx.s3, ctx.bucket, `${bundle}/`)).not.toContain(
      `${bundle}/.distributor.pending.json`,
    );
  });

  it('more markers than a few go in one DeleteObjects', async () => {
    const client = clientOf('retire', ctx.proxy.endpoint);
    counter += 1;
    const keys = Array.from(
      { length: 6 },
      (_, index) => `retire-${counter}/b${index}/.distributor.pending.json`,
    );
    for (const key of keys)
      await ctx.s3.send(new PutObjectCommand({ Bucket: ctx.bucket, Key: key, Body: '{}' }));
    const before = ctx.proxy.seen.length;
    try {
      const retirement = new MarkerRetirement(client, ctx.bucket, 10_000);
      for (const key of keys) retirement.retire(key);
      await retirement.drain();
    } finally {
      client.destroy();
    }
    const { single, batched } = deletesFrom(before);
    expect(batched).toHaveLength(1);
    expect(single).toEqual([]);
    expect(await listKeys(ctx.s3, ctx.bucket, `retire-${counter}/`)).toEqual([]);
  });
});

describe('retries and timeouts', () => {
  it('regression: a 503 SlowDown on each output PUT is retried with the bytes read again, and the bundle publishes', async () => {
    const { bundle, run } = fixture(daily, { endpoint: ctx.proxy.endpoint });
    const refused = new Set<string>();
    expect(
      await outcomeThrough(run, (req) => {
        const key = req.url.split('?')[0] ?? '';
        if (req.method === 'PUT' && key.includes('/daily/') && !refused.has(key)) {
          refused.add(key);
          return { kind: 'answer', status: 503, code: 'SlowDown' };
        }
        return { kind: 'forward' };
      }),
    ).toBe('published');
    expect(refused.size).toBeGreaterThanOrEqual(3);
    const stored = await readPrefix(ctx.s3, ctx.bucket, `${bundle}/`);
    expect(stored.get(`${bundle}/report.md`)?.bytes.toString('utf8')).toBe('# Daily\n\nSunny.\n');
  });

  it('a store that stays busy refuses the bundle destination_write_failed and the marker expires at once', async () => {
    const { bundle, run } = fixture(daily, { endpoint: ctx.proxy.endpoint });
    expect(
      await outcomeThrough(run, (req) =>
        isObjectPut(req, '/daily/summary.txt')
          ? { kind: 'answer', status: 503, code: 'SlowDown' }
          : { kind: 'forward' },
      ),
    ).toBe('destination_write_failed');
    expect(await listKeys(ctx.s3, ctx.bucket, `${bundle}/`)).not.toContain(`${bundle}/.distributor.json`);
    expect(await outcomeOf(run())).toBe('published');
  });

  it('regression: an endpoint that accepts TCP and never answers is destination_unreachable, not a hang', async () => {
    const silent = await startSilentEndpoint();
    try {
      const { run } = fixture(daily, { endpoint: silent.endpoint });
      const report = await run({ destination: { connect_timeout_seconds: 1, request_timeout_seconds: 1 } });
      expect(report.outcomes[0]?.reason_code).toBe('destination_unreachable');
      expect(report.outcomes[0]?.refusal?.hint).toMatch(
        /: no answer in time: check the endpoint, and the store's health \(a full or degraded store can accept a request and never answer it\), or raise connect_timeout_seconds or request_timeout_seconds$/,
      );
      expect(silent.connections()).toBeGreaterThan(0);
    } finally {
      await silent.close();
    }
  }, 30_000);
});

describe('causes that look alike get codes of their own', () => {
  const withKeys = async (keys: { id: string; secret: string }, fixtureRun: Fixture['run']) => {
    const client = new S3Client({
      endpoint: ctx.rgw.endpoint,
      region: ctx.rgw.region,
      forcePathStyle: true,
      credentials: { accessKeyId: keys.id, secretAccessKey: keys.secret },
      maxAttempts: 1,
    });
    try {
      return await outcomeOf(fixtureRun({ backend: { client } }));
    } finally {
      client.destroy();
    }
  };

  it('a wrong secret and an unknown access key are destination_credentials_refused', async () => {
    const { run } = fixture();
    expect(await withKeys({ id: ctx.rgw.accessKeyId, secret: 'wrong-secret-wrong-secret' }, run)).toBe(
      'destination_credentials_refused',
    );
    expect(await withKeys({ id: 'AKIANOSUCHKEY0000000', secret: ctx.rgw.secretAccessKey }, run)).toBe(
      'destination_credentials_refused',
    );
  });

  it('a refused port is destination_unreachable', async () => {
    const { run } = fixture(daily, { endpoint: 'http://127.0.0.1:9' });
    expect(await outcomeOf(run({ destination: { connect_timeout_seconds: 1 } }))).toBe(
      'destination_unreachable',
    );
  });

  it('regression: a 403 on write (a bucket policy denying PutObject) is destination_access_denied, not write_failed', async () => {
    const denied = await ctx.rgw.createBucket('denied');
    const { run } = fixture(daily, { bucket: denied });
    expect(await outcomeOf(withDenied(denied, 's3:PutObject', () => run()))).toBe(
      'destination_access_denied',
    );
    expect(await listKeys(ctx.s3, denied, '')).toEqual([]);
  });

  it('regression: a bucket that denies DeleteObject is refused destination_access_denied before any bundle is written (it published, then locked its own next run out)', async () => {
    const denied = await ctx.rgw.createBucket('nodelete');
    const { run } = fixture(daily, { bucket: denied });
    const report = await withDenied(denied, 's3:DeleteObject', () => run());
    expect(report.status).toBe('refused');
    expect(report.outcomes.map((o) => [o.outcome, o.reason_code])).toEqual([
      ['refused', 'destination_access_denied'],
    ]);
    expect(JSON.stringify(report)).toContain('s3:DeleteObject');
    // Only the probe's own objects were written (the policy kept them); no bundle key, no marker.
    const keys = await listKeys(ctx.s3, denied, '');
    expect(keys.every((key) => /(^|\/)\.distributor\.probe-[0-9a-f]{32}$/.test(key))).toBe(true);
  });
});

describe('object headers for a static site', () => {
  it('sends the MIME type of every extension, the configured Cache-Control, the SHA-256 as metadata, and no Content-Disposition', async () => {
    const files = {
      'site.css': 'body{color:#333}\n',
      'app.js': 'console.log(1)\n',
      'logo.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>\n',
      'photo.jpg': Buffer.from([0xff, 0xd8, 0xff, 0xe0]),
      'font.woff2': Buffer.from('wOF2'),
      'report.md': '# Site\n',
      'blob.unknownext': 'x',
    };
    const { bundle, run } = fixture({ id: 'site', created: '2026-05-30T11:10:00Z', files });
    expect(await outcomeOf(run())).toBe('published');
    const expected: Record<string, string> = {
      'site.css': 'text/css; charset=utf-8',
      'app.js': 'text/javascript; charset=utf-8',
      'logo.svg': 'image/svg+xml',
      'photo.jpg': 'image/jpeg',
      'font.woff2': 'font/woff2',
      'report.md': 'text/markdown; charset=utf-8',
      'report.html': 'text/html; charset=utf-8',
      'blob.unknownext': 'application/octet-stream',
    };
    for (const [name, type] of Object.entries(expected)) {
      const head = await ctx.s3.send(new HeadObjectCommand({ Bucket: ctx.bucket, Key: `${bundle}/${name}` }));
      expect([name, head.ContentType]).toEqual([name, type]);
      expect(head.CacheControl).toBe('no-cache');
      expect(head.ContentDisposition).toBeUndefined();
      expect(head.Metadata?.sha256).toMatch(/^[0-9a-f]{64}$/);
    }
    // The state is JSON like any output: the same charset (regression: it had none).
    const state = await ctx.s3.send(
      new HeadObjectCommand({ Bucket: ctx.bucket, Key: `${bundle}/.distributor.json` }),
    );
    expect(state.ContentType).toBe('application/json; charset=utf-8');
    const configured = fixture();
    expect(await outcomeOf(configured.run({ destination: { cache_control: 'public, max-age=60' } }))).toBe(
      'published',
    );
    const head = await ctx.s3.send(
      new HeadObjectCommand({ Bucket: ctx.bucket, Key: `${configured.bundle}/summary.txt` }),
    );
    expect(head.CacheControl).toBe('public, max-age=60');
    expect(head.Metadata?.sha256).toBe(createHash('sha256').update('all clear\n').digest('hex'));
  });
});

describe('convergence never deletes what sealkit did not write', () => {
  it("regression: an operator's object at a key a killed run's marker claims is left in place; the bundle is destination_unlisted_entry", async () => {
    const { source, prefix, bundle } = fixture();
    const config = s3Config(ctx.rgw, source, { bucket: ctx.bucket, prefix });
    // Killed just before its second S3 write: the marker (claiming both outputs) is all it wrote.
    const killed = await new Promise<number | null>((resolve) => {
      const child = spawn(
        process.execPath,
        [
          join(REPO_ROOT, 'test/helpers/distribute-s3-child.mjs'),
          JSON.stringify({ config, now: NOW.toISOString(), killAtStep: 2 }),
        ],
        { env: { ...process.env, ...ctx.rgw.awsEnv }, stdio: 'ignore' },
      );
      child.once('exit', (_code, signal) => resolve(signal === 'SIGKILL' ? 0 : 1));
    });
    expect(killed).toBe(0);
    expect(await listKeys(ctx.s3, ctx.bucket, `${bundle}/`)).toEqual([`${bundle}/.distributor.pending.json`]);
    // The operator puts their own file at a claimed key; the producer trims the bundle.
    await ctx.s3.send(
      new PutObjectCommand({ Bucket: ctx.bucket, Key: `${bundle}/summary.txt`, Body: 'mine\n' }),
    );
    unlinkSync(join(source, 'daily', 'summary.txt'));
    writeBundle(source, 'daily', { ...daily, files: { 'report.md': daily.files['report.md'] ?? '' } });
    const later = await distributeRun({
      config,
      now: () => NOW,
      s3Backend: (c, context) =>
        createS3Backend(c, context, { clock: { now: () => new Date(Date.now() + 3_600_000) } }),
    });
    expect(later.outcomes[0]?.reason_code).toBe('destination_unlisted_entry');
    // Regression: the refusal did not say which object.
    expect(later.outcomes[0]?.refusal?.hint).toContain(
      `the object at 's3://${ctx.bucket}/${bundle}/summary.txt' holds bytes no sealkit run planned there, and it is left in place: move it to a key outside the bundle's folder`,
    );
    const stored = await readPrefix(ctx.s3, ctx.bucket, `${bundle}/`);
    expect(stored.get(`${bundle}/summary.txt`)?.bytes.toString('utf8')).toBe('mine\n');
    expect([...stored.keys()].sort()).toEqual([
      `${bundle}/.distributor.pending.json`,
      `${bundle}/summary.txt`,
    ]);
  }, 30_000);
});
