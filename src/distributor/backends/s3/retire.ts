import { createHash } from 'node:crypto';
import type { DeleteObjectsCommand as DeleteObjectsRequest, S3Client } from '@aws-sdk/client-s3';
import { DeleteObjectCommand, DeleteObjectsCommand } from './sdk.js';

/** Markers deleted by one request at most (S3 allows 1,000 keys per DeleteObjects). */
const BATCH = 100;
/**
 * Batches this small are deleted key by key, in parallel: a DeleteObjects
 * answer has a body, which Ceph RGW holds back until the previous segment is
 * acknowledged (about 40 ms at the end of every run), while a DELETE's 204
 * has none (docs/performance.md, "One bundle of 64 MiB").
 */
const SINGLE_DELETES_UP_TO = 4;
/** The longest a committed bundle's marker waits for others to share its delete request. */
const MAX_DELAY_MS = 2_000;

/**
 * How long a committed marker may wait for its delete: an eighth of the
 * lease, at most `MAX_DELAY_MS`. At the commit the lease has at least three
 * quarters of its length left (`Lease.ensureHeld` renews an older marker), so
 * no other run can have taken the marker over before it is deleted.
 */
export function retirementDelayMs(leaseMs: number): number {
  return Math.max(0, Math.min(MAX_DELAY_MS, Math.floor(leaseMs / 8)));
}

/**
 * Deletes the pending markers of committed bundles in batches (one
 * DeleteObjects request for up to a hundred bundles instead of one DELETE
 * each; a batch of at most four, one DELETE each, in parallel). A marker waits at most `delayMs` — far inside its lease, so no
 * other run can have taken it over — or until no bundle of the destination
 * is being written any more (`flush`), and every marker queued is deleted
 * before the backend closes. A marker whose delete fails stays: the next run
 * sees the committed state beside it and finishes the cleanup (a repair).
 */
export class MarkerRetirement {
  readonly #client: S3Client;
  readonly #bucket: string;
  readonly #delayMs: number;
  #queue: string[] = [];
  #timer: NodeJS.Timeout | undefined;
  #inFlight = new Set<Promise<void>>();
  readonly #abandoned = new AbortController();

  constructor(client: S3Client, bucket: string, delayMs: number) {
    this.#client = client;
    this.#bucket = bucket;
    this.#delayMs = delayMs;
  }

  /** Queues `key` for deletion. */
  retire(key: string): void {
    this.#queue.push(key);
    if (this.#queue.length >= BATCH) this.#flush();
    else this.#timer ??= setTimeout(() => this.#flush(), this.#delayMs);
  }

  /**
   * Sends what is queued now, without waiting: no other bundle is in flight
   * to share the request, and the run may be about to end (its delete then
   * overlaps the run's own clean-up instead of following it).
   */
  flush(): void {
    this.#flush();
  }

  /**
   * Gives up the deletes in flight and to come (a run stopped by a signal,
   * whose store does not answer): those markers stay, and the next run
   * finishes those bundles once their leases have ended.
   */
  abandon(): void {
    this.#abandoned.abort();
  }

  /** Deletes everything queued and waits for every delete request. */
  async drain(): Promise<void> {
    this.#flush();
    while (this.#inFlight.size > 0) await Promise.all([...this.#inFlight]);
  }

  #flush(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    while (this.#queue.length > 0) {
      const keys = this.#queue.splice(0, BATCH);
      const request = this.#delete(keys).finally(() => this.#inFlight.delete(request));
      this.#inFlight.add(request);
    }
  }

  async #delete(keys: readonly string[]): Promise<void> {
    if (keys.length <= SINGLE_DELETES_UP_TO) {
      await Promise.all(keys.map((key) => this.#deleteOne(key)));
      return;
    }
    const command = new DeleteObjectsCommand({
      Bucket: this.#bucket,
      Delete: { Objects: keys.map((key) => ({ Key: key })), Quiet: true },
    });
    withContentMd5(command);
    try {
      await this.#client.send(command, { abortSignal: this.#abandoned.signal });
    } catch {
      // The markers stay; the next run repairs those bundles.
    }
  }

  async #deleteOne(key: string): Promise<void> {
    try {
      await this.#client.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: key }), {
        abortSignal: this.#abandoned.signal,
      });
    } catch {
      // The marker stays; the next run repairs that bundle.
    }
  }
}

/**
 * DeleteObjects must carry an integrity header; Ceph RGW 16 accepts only
 * Content-MD5, which the SDK no longer computes, so it is added here (AWS
 * accepts it as well) in place of the SDK's own checksum headers.
 */
function withContentMd5(command: DeleteObjectsRequest): void {
  command.middlewareStack.add(
    (next) => async (args) => {
      const request = args.request as { body?: unknown; headers?: Record<string, string> };
      const body = request.body;
      if (request.headers !== undefined && (typeof body === 'string' || body instanceof Uint8Array)) {
        for (const name of Object.keys(request.headers)) {
          if (name.startsWith('x-amz-checksum-') || name === 'x-amz-sdk-checksum-algorithm')
            delete request.headers[name];
        }
        request.headers['content-md5'] = createHash('md5').update(body).digest('base64');
      }
      return next(args);
    },
    { step: 'build', priority: 'low', name: 'sealkitContentMd5' },
  );
}
