import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { PutObjectCommandInput, S3Client } from '@aws-sdk/client-s3';
import { Refusal } from '../../../core/refusal/index.js';
import { shellWord } from '../../../core/shell/index.js';
import { refuseDistributor } from '../../refusals.js';
import { classifyS3Error, type S3FailureKind, s3Refusal } from './errors.js';
import { bareEtag } from './etag.js';
import { DeleteObjectCommand, GetBucketVersioningCommand, PutObjectCommand } from './sdk.js';

/** What the probe learnt about a store, beyond the guarantees every destination needs. */
export interface StoreCapabilities {
  /** The store refuses a body whose `x-amz-checksum-sha256` does not match, so an echoed checksum proves the bytes. */
  readonly checksumVerified: boolean;
}

/** A probe object: under the destination prefix, beside (never inside) any bundle prefix. */
export function probeKey(destinationPrefix: string, run: string): string {
  const name = `.distributor.probe-${run}`;
  return destinationPrefix === '' ? name : `${destinationPrefix}/${name}`;
}

/**
 * Finds out, before the first write of a run to a destination, whether the
 * store does what every publication relies on (docs/distributor.md, "What a
 * store must do"), with objects of its own under the destination prefix:
 *
 * 1. a create-only PUT (`If-None-Match: *`) of a new key succeeds;
 * 2. the same create-only PUT again is refused (412);
 * 3. a PUT with `If-Match` of the current ETag succeeds;
 * 4. a PUT with `If-Match` of an older ETag is refused (412);
 * 5. a PUT whose `x-amz-checksum-sha256` does not match its body is refused
 *    (only recorded: stores that accept it are verified another way).
 *
 * Steps 1–2 and 1, 3–4 run on two objects at the same time, step 5 on a
 * third; no two writes to one object are ever under way together (AWS may
 * answer conditional writes racing on one key with 409). A 412 is decided
 * by its status line, without waiting for its body (`decidedByStatus`).
 *
 * Every version the probe wrote is then deleted. A store that breaks 2–4 is
 * refused `destination_conditional_writes_unsupported`, or
 * `destination_versioning_unsupported` when the bucket has versioning on
 * (Ceph RGW ignores `If-None-Match` and fails every `If-Match` there). A
 * store that lets sealkit write but not delete (a policy denying
 * `s3:DeleteObject`) is refused `destination_access_denied` here, before any
 * bundle is written: a run could then publish but never remove its own
 * markers, and would lock its own next run out. A request failure is the
 * destination's own refusal (credentials, access, bucket, network). Throws
 * the refusal.
 */
export async function probeStore(
  client: S3Client,
  bucket: string,
  destinationPrefix: string,
  signal?: AbortSignal,
  endpoint?: string,
): Promise<StoreCapabilities> {
  const object = () => {
    const run = randomBytes(16).toString('hex');
    return new ProbeObject(client, bucket, probeKey(destinationPrefix, run), probeKey('', run), signal);
  };
  const created = object();
  const matched = object();
  const checksum = object();
  const outcomes = await Promise.allSettled([
    createOnlyHolds(created),
    ifMatchHolds(matched),
    checksum.put('sealkit probe 5\n', { ChecksumSHA256: Buffer.alloc(32, 0).toString('base64') }),
  ] as const);
  const removed = await Promise.all([created.remove(), matched.remove(), checksum.remove()]);
  const createOnly = settled(outcomes[0], destinationPrefix);
  const ifMatch = settled(outcomes[1], destinationPrefix);
  const checked = settled(outcomes[2], destinationPrefix);
  if (!createOnly || !ifMatch) return await unsupported(client, bucket, signal, endpoint);
  if (removed.includes('access_denied')) {
    // What stays behind is named as the operator finds it: directly under the prefix, which is not shown.
    const left = [created, matched, checksum]
      .filter((_, index) => removed[index] === 'access_denied')
      .map((probe) => `'${probe.name}'`);
    throw refuseDistributor('destination_access_denied', {
      role: 'destination',
      hint: `the store let sealkit write under the prefix but not delete there: sealkit needs s3:DeleteObject to remove its pending markers and the outputs a new edition drops; the objects it wrote to check the store could not be deleted either and stay directly under the destination's prefix, beside the bundles (${listed(left)}): remove them once the permission is granted`,
    });
  }
  return { checksumVerified: checked === 'refused' };
}

/** A probe step's answer, or its failure as the destination's refusal. */
function settled<T>(outcome: PromiseSettledResult<T>, destinationPrefix: string): T {
  if (outcome.status === 'fulfilled') return outcome.value;
  throw outcome.reason instanceof Refusal
    ? outcome.reason
    : s3Refusal(outcome.reason, 'write', undefined, destinationPrefix);
}

/** `'a'`, `'a' and 'b'`, `'a', 'b' and 'c'`. */
function listed(names: readonly string[]): string {
  return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

/** Steps 1 and 2: a create-only PUT succeeds, and the same PUT again is refused. */
async function createOnlyHolds(probe: ProbeObject): Promise<boolean> {
  const first = await probe.put('sealkit probe 1\n', { IfNoneMatch: '*' });
  if (first === 'refused') return false;
  return (await probe.put('sealkit probe 2\n', { IfNoneMatch: '*' })) === 'refused';
}

/** Steps 1, 3 and 4: `If-Match` of the current ETag succeeds, of the one before it is refused. */
async function ifMatchHolds(probe: ProbeObject): Promise<boolean> {
  const first = await probe.put('sealkit probe 1\n', { IfNoneMatch: '*' });
  if (first === 'refused') return false;
  const matched = await probe.put('sealkit probe 3\n', { IfMatch: first.etag });
  if (matched === 'refused') return false;
  return (await probe.put('sealkit probe 4\n', { IfMatch: first.etag })) === 'refused';
}

/**
 * One object the probe writes, with every version it made (a versioned
 * bucket keeps each). Its writes are abandoned once `signal` is aborted
 * (SIGINT, SIGTERM): a store that takes connections and never answers a
 * PUT would otherwise hold the signal for every attempt's timeout. Its
 * deletes are not: what it wrote is removed whenever the store answers.
 */
class ProbeObject {
  readonly #client: S3Client;
  readonly #bucket: string;
  readonly #key: string;
  readonly #signal: AbortSignal | undefined;
  readonly #versions: string[] = [];
  #wrote = false;
  /** Its name under the destination's prefix (the key without the prefix). */
  readonly name: string;

  constructor(client: S3Client, bucket: string, key: string, name: string, signal: AbortSignal | undefined) {
    this.#client = client;
    this.#bucket = bucket;
    this.#key = key;
    this.name = name;
    this.#signal = signal;
  }

  /** A PUT of `body`: its bare ETag, or 'refused' when the store refused its condition or its checksum. */
  async put(body: string, extra: Partial<PutObjectCommandInput>): Promise<{ etag: string } | 'refused'> {
    const command = new PutObjectCommand({
      Bucket: this.#bucket,
      Key: this.#key,
      Body: Buffer.from(body),
      ContentType: 'text/plain; charset=utf-8',
      CacheControl: 'no-store',
      ...extra,
    });
    decidedByStatus(command);
    try {
      const response = await this.#client.send(
        command,
        this.#signal === undefined ? {} : { abortSignal: this.#signal },
      );
      this.#wrote = true;
      if (response.VersionId !== undefined) this.#versions.push(response.VersionId);
      return { etag: bareEtag(response.ETag) ?? '' };
    } catch (error) {
      if (error instanceof ConditionRefused) return 'refused';
      const kind = classifyS3Error(error);
      if (kind === 'precondition' || (kind === 'absent' && extra.IfMatch !== undefined)) return 'refused';
      // A checksum the store checks and finds wrong: 400 BadDigest / InvalidRequest.
      if (extra.ChecksumSHA256 !== undefined && kind === 'failed') return 'refused';
      throw error;
    }
  }

  /**
   * Deletes every version written, then the key itself when the bucket keeps
   * none. A probe object left behind sits beside the bundles, never inside
   * one; the kind of failure is returned for the caller to judge.
   */
  async remove(): Promise<S3FailureKind | undefined> {
    if (!this.#wrote) return undefined;
    try {
      for (const version of this.#versions) {
        await this.#client.send(
          new DeleteObjectCommand({ Bucket: this.#bucket, Key: this.#key, VersionId: version }),
        );
      }
      if (this.#versions.length === 0)
        await this.#client.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: this.#key }));
      return undefined;
    } catch (error) {
      return classifyS3Error(error);
    }
  }
}

/** A 412 answer to a probe PUT, decided by its status line alone. */
class ConditionRefused extends Error {}

/**
 * Ceph RGW sends the body of an error answer only once the client has
 * acknowledged the headers, about 40 ms later (docs/performance.md, "One
 * bundle of 64 MiB"). A 412's status line says all the probe needs, so the
 * probe goes on at once while the body is read to its end in the
 * background, which keeps the connection for the next request (a store
 * that sends the body at once loses nothing, not even a connection).
 * Placed inside the SDK's deserializer, where the answer is still raw;
 * `ConditionRefused` is not an error the SDK retries.
 */
function decidedByStatus(command: InstanceType<typeof PutObjectCommand>): void {
  command.middlewareStack.add(
    (next) => async (args) => {
      const result = await next(args);
      const response = result.response as { statusCode?: unknown; body?: unknown };
      if (response.statusCode !== 412) return result;
      drainInBackground(response.body);
      throw new ConditionRefused('precondition failed');
    },
    { step: 'deserialize', priority: 'low', name: 'sealkitProbeDecidedByStatus' },
  );
}

/** Reads an answer's body to its end, ignoring what comes and any failure (the answer is decided). */
function drainInBackground(body: unknown): void {
  if (!(body instanceof Readable)) return;
  body.on('error', () => {});
  body.resume();
}

async function unsupported(
  client: S3Client,
  bucket: string,
  signal: AbortSignal | undefined,
  endpoint: string | undefined,
): Promise<never> {
  const versioning = await bucketVersioning(client, bucket, signal);
  throw refuseDistributor(
    versioning === 'enabled' || versioning === 'suspended'
      ? 'destination_versioning_unsupported'
      : 'destination_conditional_writes_unsupported',
    {
      role: 'destination',
      ...(versioning === 'enabled' ? { hint: versioningOnHint(bucket, endpoint) } : {}),
    },
  );
}

/**
 * What to do about a versioned bucket, as measured on Ceph RGW: with its
 * versioning suspended the probe passes and runs publish (the versions it
 * kept stay), which the message's "use an unversioned bucket" alone did not
 * tell. The command names the configuration's bucket and, for a store that
 * is not AWS, its endpoint, so that pasted it goes to that store.
 */
function versioningOnHint(bucket: string, endpoint: string | undefined): string {
  const command = `aws s3api put-bucket-versioning --bucket ${shellWord(bucket)}${endpoint === undefined ? '' : ` --endpoint-url ${shellWord(endpoint)}`} --versioning-configuration Status=Suspended`;
  return `the bucket's versioning is on: suspend it (${command}; the versions it kept stay), after which a store such as Ceph RGW honours conditional writes again and the next run's probe passes, or publish to a bucket without versioning`;
}

/**
 * The bucket's versioning, read without writing anything: what the probe's
 * refusal is worded by, and what a dry run, which never probes, can say.
 * `unknown` when the store will not say (no `s3:GetBucketVersioning`) or
 * the request was abandoned.
 */
export async function bucketVersioning(
  client: S3Client,
  bucket: string,
  signal: AbortSignal | undefined,
): Promise<'enabled' | 'suspended' | 'off' | 'unknown'> {
  try {
    const response = await client.send(
      new GetBucketVersioningCommand({ Bucket: bucket }),
      signal === undefined ? {} : { abortSignal: signal },
    );
    return response.Status === 'Enabled' ? 'enabled' : response.Status === 'Suspended' ? 'suspended' : 'off';
  } catch {
    return 'unknown';
  }
}
