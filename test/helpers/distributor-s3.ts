// Fixtures for the distributor's S3 tests: the test radosgw for one test file
// (with a fresh bucket, a work folder and, if asked, a proxy in front), real
// source bundles on disk (the manifest's digests computed here, independently
// of sealkit's code), a configuration with one S3 destination on the test
// radosgw, and a reader of everything under a bucket prefix for "same state as
// an uninterrupted run" comparisons.
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll } from 'vitest';
import { distributeRun } from '../../src/distributor/run/run.js';
import { type RgwService, startRgw } from '../services/rgw.js';
import { type S3Proxy, startS3Proxy } from './s3-proxy.js';

export interface RgwFixtureOptions {
  /** Prefix of the work folder made under TMPDIR. */
  readonly work: string;
  /** Prefix of the fresh bucket; without it no bucket is made. */
  readonly bucket?: string;
  /**
   * Puts the test keys into this process's environment, for code under test
   * that runs in-process and finds them through the AWS SDK's standard chain.
   * Files that only start child processes pass `rgw.awsEnv` to them instead.
   */
  readonly awsEnv?: boolean;
  /** Starts an `S3Proxy` in front of the gateway (closed before it stops). */
  readonly proxy?: boolean;
}

/** What `useRgwFixture` gives the tests of its file, once `beforeAll` has run. */
export interface RgwFixture {
  readonly rgw: RgwService;
  /** A client for test assertions. */
  readonly s3: S3Client;
  readonly bucket: string;
  readonly work: string;
  readonly proxy: S3Proxy;
}

/**
 * Starts the test radosgw in the calling file's `beforeAll` and stops it, with
 * the proxy and the work folder, in its `afterAll`. The fields read what the
 * hooks made, so they are for tests and hooks, not for the file's top level.
 */
export function useRgwFixture(options: RgwFixtureOptions): RgwFixture {
  let rgw: RgwService | undefined;
  let s3: S3Client | undefined;
  let bucket: string | undefined;
  let work: string | undefined;
  let proxy: S3Proxy | undefined;

  beforeAll(async () => {
    rgw = await startRgw();
    if (options.awsEnv === true) Object.assign(process.env, rgw.awsEnv);
    s3 = rgw.client();
    if (options.bucket !== undefined) bucket = await rgw.createBucket(options.bucket);
    work = mkdtempSync(join(tmpdir(), options.work));
    if (options.proxy === true) proxy = await startS3Proxy(rgw.endpoint);
  });

  afterAll(async () => {
    await proxy?.close();
    await rgw?.stop();
    if (work !== undefined) rmSync(work, { recursive: true, force: true });
  });

  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined)
      throw new Error(`useRgwFixture: no ${what} (before beforeAll, or not asked for)`);
    return value;
  };
  return {
    get rgw() {
      return ready(rgw, 'gateway');
    },
    get s3() {
      return ready(s3, 'client');
    },
    get bucket() {
      return ready(bucket, 'bucket');
    },
    get work() {
      return ready(work, 'work folder');
    },
    get proxy() {
      return ready(proxy, 'proxy');
    },
  };
}

export type BundleFiles = Readonly<Record<string, string | Uint8Array>>;

export interface BundleSpec {
  readonly id: string;
  readonly created: string;
  readonly files: BundleFiles;
}

/** Writes the files and a valid manifest.json (files in the given order) under `root/dir`. */
export function writeBundle(root: string, dir: string, spec: BundleSpec): void {
  const bundleRoot = join(root, dir);
  const records: { path: string; sha256: string; size: number }[] = [];
  for (const [path, content] of Object.entries(spec.files)) {
    const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : Buffer.from(content);
    mkdirSync(dirname(join(bundleRoot, path)), { recursive: true });
    writeFileSync(join(bundleRoot, path), bytes);
    records.push({
      path,
      sha256: `sha256:${createHash('sha256').update(bytes).digest('hex')}`,
      size: bytes.length,
    });
  }
  // The bundle digest's payload (docs/distributor.md#source-bundles): path,
  // sha256, size in that order, no spaces.
  const payload = JSON.stringify(records.map((r) => ({ path: r.path, sha256: r.sha256, size: r.size })));
  const manifest = {
    schema_version: 1,
    id: spec.id,
    digest: `sha256:${createHash('sha256').update(payload, 'utf8').digest('hex')}`,
    created: spec.created,
    files: records,
  };
  mkdirSync(bundleRoot, { recursive: true });
  writeFileSync(join(bundleRoot, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
}

export interface S3DestinationSpec {
  readonly id?: string;
  readonly bucket: string;
  readonly prefix: string;
  readonly source?: boolean;
  readonly html?: boolean;
  readonly assets?: boolean;
  readonly lang?: string;
}

/**
 * Runs of `config` (from `s3Config`) with its destination reached through
 * the proxy at `proxyEndpoint`, which sees every request; `now` stamps the
 * states.
 */
export function runThroughProxy(config: ReturnType<typeof s3Config>, proxyEndpoint: string, now: () => Date) {
  const [pipeline] = config.pipelines;
  const [destination] = pipeline?.destinations ?? [];
  if (pipeline === undefined || destination === undefined) throw new Error('config');
  const proxied = {
    pipelines: [{ ...pipeline, destinations: [{ ...destination, endpoint: proxyEndpoint }] }],
  };
  return (options: { readonly checksum?: boolean; readonly dryRun?: boolean } = {}) =>
    distributeRun({
      config: proxied,
      now,
      ...(options.checksum === true ? { checksum: true } : {}),
      ...(options.dryRun === true ? { dryRun: true } : {}),
    });
}

/** One pipeline from `sourceRoot` to one S3 destination on the test gateway (no credentials in it). */
export function s3Config(rgw: RgwService, sourceRoot: string, destination: S3DestinationSpec) {
  return {
    pipelines: [
      {
        id: 'reports',
        source: { root: sourceRoot },
        destinations: [
          {
            id: destination.id ?? 'bucket',
            kind: 's3' as const,
            bucket: destination.bucket,
            prefix: destination.prefix,
            endpoint: rgw.endpoint,
            region: rgw.region,
            force_path_style: true,
            outputs: {
              source: destination.source ?? true,
              html: destination.html ?? true,
              ...(destination.assets === undefined ? {} : { assets: destination.assets }),
              ...(destination.lang === undefined ? {} : { lang: destination.lang }),
            },
          },
        ],
      },
    ],
  };
}

/** The same configuration as YAML, for the CLI. */
export function s3ConfigYaml(rgw: RgwService, sourceRoot: string, destination: S3DestinationSpec): string {
  return [
    'pipelines:',
    '  - id: reports',
    '    source:',
    `      root: ${JSON.stringify(sourceRoot)}`,
    '    destinations:',
    `      - id: ${destination.id ?? 'bucket'}`,
    '        kind: s3',
    `        bucket: ${JSON.stringify(destination.bucket)}`,
    `        prefix: ${JSON.stringify(destination.prefix)}`,
    `        endpoint: ${JSON.stringify(rgw.endpoint)}`,
    `        region: ${rgw.region}`,
    '        force_path_style: true',
    '        outputs:',
    `          source: ${destination.source ?? true}`,
    `          html: ${destination.html ?? true}`,
    '',
  ].join('\n');
}

export interface StoredObject {
  readonly sha256: string;
  readonly etag: string;
  readonly contentType: string | undefined;
  readonly bytes: Buffer;
}

/** Every object under `prefix` (all pages), key → bytes digest, ETag and Content-Type. */
export async function readPrefix(
  client: S3Client,
  bucket: string,
  prefix = '',
): Promise<Map<string, StoredObject>> {
  const objects = new Map<string, StoredObject>();
  for (const key of await listKeys(client, bucket, prefix)) {
    const response = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    const bytes = Buffer.from((await response.Body?.transformToByteArray()) ?? new Uint8Array());
    objects.set(key, {
      sha256: createHash('sha256').update(bytes).digest('hex'),
      etag: (response.ETag ?? '').replaceAll('"', ''),
      contentType: response.ContentType,
      bytes,
    });
  }
  return objects;
}

export async function listKeys(client: S3Client, bucket: string, prefix = ''): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await client.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
    );
    for (const entry of page.Contents ?? []) if (entry.Key !== undefined) keys.push(entry.Key);
    token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
  } while (token !== undefined);
  return keys;
}

/** Writes many small objects with bounded parallelism. */
export async function putMany(
  client: S3Client,
  bucket: string,
  entries: readonly (readonly [string, string | Uint8Array])[],
  parallel = 16,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < entries.length) {
      const entry = entries[next++];
      if (entry === undefined) return;
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: entry[0], Body: Buffer.from(entry[1]) }));
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
}

/** Empties a bucket prefix (test set-up only). */
export async function clearPrefix(client: S3Client, bucket: string, prefix: string): Promise<void> {
  // One DELETE per key: radosgw 16 wants Content-MD5 on a batch delete, which the SDK no longer sends.
  for (const key of await listKeys(client, bucket, prefix)) {
    await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
  }
}
