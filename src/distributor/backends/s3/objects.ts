import {
  GetObjectCommand,
  type GetObjectCommandOutput,
  HeadObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { classifyS3Error } from './errors.js';
import { bareEtag } from './etag.js';

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
