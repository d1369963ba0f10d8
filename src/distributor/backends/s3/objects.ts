import type { GetObjectCommandOutput, S3Client } from '@aws-sdk/client-s3';
import { Sha256Accumulator, type Sha256Prefixed, toPrefixed } from '../../../core/digest/index.js';
import { classifyS3Error } from './errors.js';
import { bareEtag } from './etag.js';
import { GetObjectCommand, HeadObjectCommand } from './sdk.js';

export interface ReadObject {
  readonly bytes: Uint8Array;
  readonly etag: string;
}

/** A small object's bytes and ETag, or undefined when it does not exist; larger than `maxBytes` throws. */
export async function readSmallObject(
  client: S3Client,
  bucket: string,
  key: string,
  maxBytes: number,
): Promise<ReadObject | undefined> {
  let response: GetObjectCommandOutput;
  try {
    response = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  } catch (error) {
    if (classifyS3Error(error) === 'absent') return undefined;
    throw error;
  }
  const body = response.Body as AsyncIterable<Uint8Array> | undefined;
  if ((response.ContentLength ?? 0) > maxBytes || body === undefined) {
    destroyBody(body);
    throw new ObjectTooLarge();
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += chunk.byteLength;
    if (total > maxBytes) {
      destroyBody(body);
      throw new ObjectTooLarge();
    }
    chunks.push(chunk);
  }
  return { bytes: Buffer.concat(chunks), etag: bareEtag(response.ETag) ?? '' };
}

/** The bare ETag of an object, or undefined when it does not exist. */
export async function headEtag(client: S3Client, bucket: string, key: string): Promise<string | undefined> {
  try {
    const response = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    return bareEtag(response.ETag) ?? '';
  } catch (error) {
    if (classifyS3Error(error) === 'absent') return undefined;
    throw error;
  }
}

export interface HashedObject {
  readonly sha256: Sha256Prefixed;
  readonly size: number;
  readonly etag: string;
}

/**
 * The SHA-256 and size of an object's bytes, streamed (memory stays flat), or
 * undefined when it does not exist. `versionId` pins the version a PUT just
 * wrote, where the bucket keeps versions.
 */
export async function hashObject(
  client: S3Client,
  bucket: string,
  key: string,
  versionId: string | undefined,
  signal?: AbortSignal,
): Promise<HashedObject | undefined> {
  let response: GetObjectCommandOutput;
  try {
    response = await client.send(
      new GetObjectCommand({
        Bucket: bucket,
        Key: key,
        ...(versionId === undefined ? {} : { VersionId: versionId }),
      }),
      signal === undefined ? {} : { abortSignal: signal },
    );
  } catch (error) {
    if (classifyS3Error(error) === 'absent') return undefined;
    throw error;
  }
  const body = response.Body as AsyncIterable<Uint8Array> | undefined;
  const hash = new Sha256Accumulator();
  if (body !== undefined) for await (const chunk of body) hash.update(chunk);
  const digest = hash.finish();
  return { sha256: toPrefixed(digest.hex), size: digest.bytes, etag: bareEtag(response.ETag) ?? '' };
}

export class ObjectTooLarge extends Error {
  constructor() {
    super('object too large');
    this.name = 'ObjectTooLarge';
  }
}

function destroyBody(body: unknown): void {
  if (typeof body === 'object' && body !== null && 'destroy' in body && typeof body.destroy === 'function') {
    body.destroy();
  }
}
