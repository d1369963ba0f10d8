import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { Sha256Accumulator, type Sha256Prefixed, toHex, toPrefixed } from '../../../core/digest/index.js';
import { bareEtag, isMd5Etag } from './etag.js';

/** How a PUT guards the key: create only, replace exactly one version, or unconditionally (our own residue). */
export type PutCondition =
  | { readonly kind: 'absent' }
  | { readonly kind: 'etag'; readonly etag: string }
  | { readonly kind: 'any' };

export interface PlannedBytes {
  readonly sha256: Sha256Prefixed;
  readonly size: number;
  readonly contentType: string;
}

/**
 * One streamed PUT. The body is hashed chunk by chunk on its way to the
 * socket (SHA-256 and MD5), so memory stays flat and the digests describe
 * exactly the bytes sent. The request declares the planned length and the
 * planned SHA-256 (`x-amz-checksum-sha256`: servers that check it refuse a
 * mismatch themselves); afterwards the streamed SHA-256 and size must equal
 * the plan, and an MD5-form ETag must equal the streamed MD5 (the server
 * stored what was sent). Returns the new bare ETag.
 */
export async function putVerified(
  client: S3Client,
  bucket: string,
  key: string,
  planned: PlannedBytes,
  chunks: AsyncIterable<Uint8Array>,
  condition: PutCondition,
  signal: AbortSignal,
): Promise<string> {
  const sha256 = new Sha256Accumulator();
  const md5 = createHash('md5');
  const body = Readable.from(hashing(chunks, planned.size, sha256, md5), { objectMode: false });
  // A body that fails half-way must end the request at once: the server would
  // otherwise wait for the declared length until its timeout.
  const abort = new AbortController();
  const stop = () => abort.abort();
  body.once('error', stop);
  if (signal.aborted) stop();
  else signal.addEventListener('abort', stop, { once: true });
  let response: { ETag?: string | undefined };
  try {
    response = await client.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: key,
        Body: body,
        ContentLength: planned.size,
        ContentType: planned.contentType,
        ChecksumSHA256: Buffer.from(toHex(planned.sha256), 'hex').toString('base64'),
        ...(condition.kind === 'absent' ? { IfNoneMatch: '*' } : {}),
        ...(condition.kind === 'etag' ? { IfMatch: condition.etag } : {}),
      }),
      { abortSignal: abort.signal },
    );
  } finally {
    signal.removeEventListener('abort', stop);
    body.destroy();
  }
  const streamed = sha256.finish();
  if (streamed.bytes !== planned.size || toPrefixed(streamed.hex) !== planned.sha256)
    throw new UploadMismatch();
  const etag = bareEtag(response.ETag) ?? '';
  if (isMd5Etag(etag) && etag !== md5.digest('hex')) throw new UploadMismatch();
  return etag;
}

/** What was sent differs from the plan, or the server stored something else. */
export class UploadMismatch extends Error {
  constructor() {
    super('upload mismatch');
    this.name = 'UploadMismatch';
  }
}

async function* hashing(
  chunks: AsyncIterable<Uint8Array>,
  size: number,
  sha256: Sha256Accumulator,
  md5: ReturnType<typeof createHash>,
): AsyncGenerator<Uint8Array> {
  for await (const chunk of chunks) {
    // Never send more than the declared length: the request would be corrupt.
    if (sha256.bytes + chunk.byteLength > size) throw new UploadMismatch();
    sha256.update(chunk);
    md5.update(chunk);
    yield chunk;
  }
  // A short body would leave the server waiting for the declared length.
  if (sha256.bytes !== size) throw new UploadMismatch();
}

/** The Content-Type a static site needs for the files sealkit writes; everything else is opaque bytes. */
export function contentTypeOf(path: string): string {
  const dot = path.lastIndexOf('.');
  const extension = dot > path.lastIndexOf('/') ? path.slice(dot + 1).toLowerCase() : '';
  return CONTENT_TYPES[extension] ?? 'application/octet-stream';
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  html: 'text/html; charset=utf-8',
  md: 'text/markdown; charset=utf-8',
  txt: 'text/plain; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  json: 'application/json',
  pdf: 'application/pdf',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
};
