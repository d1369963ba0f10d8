import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { PutObjectCommandOutput, S3Client } from '@aws-sdk/client-s3';
import mime from 'mime';
import {
  type FileDigests,
  Sha256Accumulator,
  type Sha256Prefixed,
  toHex,
  toPrefixed,
} from '../../../core/digest/index.js';
import { classifyS3Error, isTransient } from './errors.js';
import { bareEtag } from './etag.js';
import { hashObject } from './objects.js';
import { PutObjectCommand } from './sdk.js';

/** How a PUT guards the key: create only, replace exactly one version, or unconditionally (our own residue). */
export type PutCondition =
  | { readonly kind: 'absent' }
  | { readonly kind: 'etag'; readonly etag: string }
  | { readonly kind: 'any' };

export interface ObjectHeaders {
  readonly contentType: string;
  readonly cacheControl: string;
}

export interface PlannedBytes {
  readonly sha256: Sha256Prefixed;
  readonly size: number;
  readonly headers: ObjectHeaders;
}

/**
 * The bytes of one PUT: re-opened from the run's verified snapshot for every
 * attempt, or held in memory. A large snapshot file comes with `digests`,
 * its SHA-256 and MD5 read on another thread: the stream is then not hashed.
 */
export type PutBody =
  | {
      readonly kind: 'stream';
      open(): AsyncIterable<Uint8Array>;
      readonly digests?: () => Promise<FileDigests | undefined>;
    }
  | { readonly kind: 'bytes'; readonly bytes: Uint8Array };

export interface RetryPolicy {
  /** Attempts per request, the first included. */
  readonly attempts: number;
  /** First backoff; doubled per attempt, with full jitter, at most 20 times this. */
  readonly baseDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 4, baseDelayMs: 200 };

export interface UploadTarget {
  readonly client: S3Client;
  readonly bucket: string;
  /** The store refuses a PUT whose body does not match its `x-amz-checksum-sha256` (the probe found out). */
  readonly checksumVerified: boolean;
  readonly retry: RetryPolicy;
}

/**
 * One verified PUT, retried with backoff when the store is busy (5xx,
 * `SlowDown`), the connection breaks or a timeout passes; each attempt reads
 * the planned bytes again. The body is hashed chunk by chunk on its way to
 * the socket (SHA-256 and MD5), so memory stays flat and the digests describe
 * exactly the bytes sent — or, for a large file, on another thread from the
 * snapshot file itself (`PutBody.digests`), the stream only counted. The
 * request declares the planned length, the planned SHA-256
 * (`x-amz-checksum-sha256`, also kept as the object's `sha256` metadata),
 * the content type and Cache-Control.
 *
 * Afterwards the streamed SHA-256 and size must equal the plan, and the
 * stored object is checked with what the store offers, without trusting an
 * ETag's shape: the returned SHA-256 checksum where the store verifies it;
 * else the ETag as an MD5 when the response says the object is neither
 * KMS- nor customer-key encrypted; else (or when that MD5 differs) the object
 * is read back and hashed. With digests from the other thread, the ETag
 * counts only when they match the plan: the store then holds the bytes whose
 * MD5 the thread read, and those are the planned bytes; otherwise (digests
 * unknown or not the plan's) the object is read back.
 *
 * A conditional PUT that finds its condition failed may be looking at its
 * own earlier attempt (an answer lost to a reset, or the SDK's own retry of a
 * buffered body): when the key then holds exactly the planned bytes, the PUT
 * succeeded. Returns the new bare ETag.
 *
 * `sent` hears of a streamed body's bytes as they go to the socket, for
 * progress; an attempt that fails takes its bytes back (a negative count),
 * since the next attempt sends them again.
 */
export async function putVerified(
  target: UploadTarget,
  key: string,
  planned: PlannedBytes,
  body: PutBody,
  condition: PutCondition,
  signal: AbortSignal,
  sent?: (bytes: number) => void,
): Promise<string> {
  for (let attempt = 1; ; attempt += 1) {
    if (signal.aborted) throw abortError();
    try {
      return await putOnce(target, key, planned, body, condition, signal, sent);
    } catch (error) {
      if (error instanceof UploadMismatch || signal.aborted) throw error;
      const kind = classifyS3Error(error);
      const lostCondition = kind === 'precondition' || (kind === 'absent' && condition.kind === 'etag');
      if (lostCondition && (attempt > 1 || body.kind === 'bytes')) {
        const etag = await holdsPlanned(target, key, planned, signal);
        if (etag !== undefined) return etag;
      }
      if (!isTransient(error) || attempt >= target.retry.attempts) throw error;
      await sleep(backoffMs(target.retry, attempt), signal);
    }
  }
}

async function putOnce(
  target: UploadTarget,
  key: string,
  planned: PlannedBytes,
  body: PutBody,
  condition: PutCondition,
  signal: AbortSignal,
  sent: ((bytes: number) => void) | undefined,
): Promise<string> {
  const sha256 = new Sha256Accumulator();
  let reported = 0;
  const md5 = createHash('md5');
  const known = body.kind === 'stream' ? body.digests : undefined;
  // A body that fails half-way must end the request at once: the server would
  // otherwise wait for the declared length until its timeout.
  const abort = new AbortController();
  const stop = () => abort.abort();
  let stream: Readable | undefined;
  let payload: Uint8Array | Readable;
  if (body.kind === 'bytes') {
    sha256.update(body.bytes);
    md5.update(body.bytes);
    payload = body.bytes;
  } else {
    const chunks =
      known === undefined
        ? hashing(body.open(), planned.size, sha256, md5)
        : counted(body.open(), planned.size);
    const told =
      sent === undefined
        ? chunks
        : reporting(chunks, (bytes) => {
            reported += bytes;
            sent(bytes);
          });
    stream = Readable.from(told, { objectMode: false });
    stream.once('error', stop);
    payload = stream;
  }
  if (signal.aborted) stop();
  else signal.addEventListener('abort', stop, { once: true });
  const checksum = Buffer.from(toHex(planned.sha256), 'hex').toString('base64');
  let response: PutObjectCommandOutput;
  try {
    response = await target.client.send(
      new PutObjectCommand({
        Bucket: target.bucket,
        Key: key,
        Body: payload,
        ContentLength: planned.size,
        ContentType: planned.headers.contentType,
        CacheControl: planned.headers.cacheControl,
        Metadata: { sha256: toHex(planned.sha256) },
        ChecksumSHA256: checksum,
        ...(condition.kind === 'absent' ? { IfNoneMatch: '*' } : {}),
        ...(condition.kind === 'etag' ? { IfMatch: condition.etag } : {}),
      }),
      { abortSignal: abort.signal },
    );
  } catch (error) {
    // The next attempt sends these bytes again.
    if (reported > 0) sent?.(-reported);
    throw error;
  } finally {
    signal.removeEventListener('abort', stop);
    stream?.destroy();
  }
  const etag = bareEtag(response.ETag) ?? '';
  if (known === undefined) {
    const streamed = sha256.finish();
    if (streamed.bytes !== planned.size || toPrefixed(streamed.hex) !== planned.sha256)
      throw new UploadMismatch(toPrefixed(streamed.hex));
    if (target.checksumVerified && response.ChecksumSHA256 === checksum) return etag;
    if (md5Describes(response, etag) && etag === md5.digest('hex')) return etag;
  } else {
    if (target.checksumVerified && response.ChecksumSHA256 === checksum) return etag;
    const digests = await known();
    const planHolds =
      digests !== undefined &&
      digests.bytes === planned.size &&
      toPrefixed(digests.sha256) === planned.sha256;
    if (planHolds && md5Describes(response, etag) && etag === digests.md5Hex) return etag;
  }
  // An opaque ETag (encrypted, multipart, or a store's own scheme): read the object back.
  const stored = await hashObject(target.client, target.bucket, key, response.VersionId, signal);
  if (stored === undefined || stored.size !== planned.size || stored.sha256 !== planned.sha256)
    throw new UploadMismatch(stored?.sha256);
  return etag;
}

/**
 * The key's bare ETag when it holds exactly the planned bytes (a SHA-256 of
 * what is stored), else undefined. Used after a lost condition only.
 */
async function holdsPlanned(
  target: UploadTarget,
  key: string,
  planned: PlannedBytes,
  signal: AbortSignal,
): Promise<string | undefined> {
  try {
    const stored = await hashObject(target.client, target.bucket, key, undefined, signal);
    return stored !== undefined && stored.size === planned.size && stored.sha256 === planned.sha256
      ? stored.etag
      : undefined;
  } catch {
    return undefined;
  }
}

const MD5_HEX = /^[0-9a-f]{32}$/;

/**
 * True when the response allows reading its ETag as the MD5 of the bytes:
 * 32 hex digits (not a multipart `…-N` ETag) and neither SSE-KMS nor SSE-C
 * (AWS's ETags of such objects are not MD5s). A store may still use an
 * opaque 32-hex ETag; a differing value is then read back, not refused.
 */
function md5Describes(response: PutObjectCommandOutput, etag: string): boolean {
  const sse = response.ServerSideEncryption ?? '';
  return MD5_HEX.test(etag) && !sse.startsWith('aws:kms') && response.SSECustomerAlgorithm === undefined;
}

/** What was sent differs from the plan, or the server stored something else. */
export class UploadMismatch extends Error {
  /** The digest of the bytes the store acknowledged, when a PUT landed with bytes other than planned. */
  readonly stored: Sha256Prefixed | undefined;
  constructor(stored?: Sha256Prefixed) {
    super('upload mismatch');
    this.name = 'UploadMismatch';
    this.stored = stored;
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

/** The chunks as they are, each told to `sent` as the request takes it. */
async function* reporting(
  chunks: AsyncIterable<Uint8Array>,
  sent: (bytes: number) => void,
): AsyncGenerator<Uint8Array> {
  for await (const chunk of chunks) {
    yield chunk;
    // After the yield: the request has taken the chunk and asks for the next.
    sent(chunk.byteLength);
  }
}

/** The chunks as they are, never more or fewer than the declared length (see `hashing`). */
async function* counted(chunks: AsyncIterable<Uint8Array>, size: number): AsyncGenerator<Uint8Array> {
  let bytes = 0;
  for await (const chunk of chunks) {
    if (bytes + chunk.byteLength > size) throw new UploadMismatch();
    bytes += chunk.byteLength;
    yield chunk;
  }
  if (bytes !== size) throw new UploadMismatch();
}

function backoffMs(policy: RetryPolicy, attempt: number): number {
  const ceiling = Math.min(policy.baseDelayMs * 2 ** (attempt - 1), policy.baseDelayMs * 20);
  return Math.floor(ceiling / 2 + (Math.random() * ceiling) / 2);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(abortError());
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError());
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function abortError(): Error {
  return Object.assign(new Error('aborted'), { name: 'AbortError' });
}

/**
 * The Content-Type of an output: the type the MIME table (`mime`, the IANA
 * and Apache tables) gives its extension, with `charset=utf-8` for text
 * types, `application/octet-stream` when the extension is unknown.
 */
export function contentTypeOf(path: string): string {
  const slash = path.lastIndexOf('/');
  const name = path.slice(slash + 1);
  const type = name.includes('.') ? mime.getType(name) : null;
  if (type === null) return 'application/octet-stream';
  return type.startsWith('text/') || type === 'application/json' ? `${type}; charset=utf-8` : type;
}
