import type { S3Client } from '@aws-sdk/client-s3';

/**
 * Which request of a destination failed: the SDK's command and the object
 * key it named. Kept on the SDK's error, out of sight (a symbol, not
 * enumerable), so that a refusal can say which operation a store denied
 * without any module passing the key along. Never printed as it is: a key
 * holds the destination's prefix, which a refusal never shows
 * (`deniedHint` names the part of it under the prefix).
 */
export interface FailedRequest {
  /** The SDK command's name, e.g. `PutObjectCommand`. */
  readonly command: string;
  readonly key?: string;
}

const FAILED_REQUEST = Symbol('sealkit.s3.failedRequest');
const NAME = 'sealkitFailedRequest';

/**
 * Marks every error this client's requests end with (after the SDK's
 * retries) with the request that failed. Idempotent: a client given by a
 * library user is marked once, and its requests behave as before.
 */
export function markFailedRequests(client: S3Client): void {
  const stack = client.middlewareStack;
  if (stack.identify().some((entry) => entry.startsWith(`${NAME} `))) return;
  stack.add(
    (next, context) => async (args) => {
      try {
        return await next(args);
      } catch (error: unknown) {
        if (typeof error === 'object' && error !== null && !Object.hasOwn(error, FAILED_REQUEST)) {
          const input = args.input as { readonly Key?: unknown };
          const request: FailedRequest = {
            command: typeof context.commandName === 'string' ? context.commandName : '',
            ...(typeof input.Key === 'string' ? { key: input.Key } : {}),
          };
          Object.defineProperty(error, FAILED_REQUEST, { value: request, enumerable: false });
        }
        throw error;
      }
    },
    { step: 'initialize', priority: 'high', name: NAME },
  );
}

/** The request an error of a marked client came from, if known. */
export function failedRequestOf(error: unknown): FailedRequest | undefined {
  if (typeof error !== 'object' || error === null || !Object.hasOwn(error, FAILED_REQUEST)) return undefined;
  return (error as { readonly [FAILED_REQUEST]: FailedRequest })[FAILED_REQUEST];
}

/** What each command does, as a refusal says it, and the permission it needs. */
const OPERATIONS: { readonly [command: string]: { readonly verb: string; readonly permission: string } } = {
  ListObjectsV2Command: { verb: 'listing', permission: 's3:ListBucket' },
  GetObjectCommand: { verb: 'reading', permission: 's3:GetObject' },
  HeadObjectCommand: { verb: 'reading', permission: 's3:GetObject' },
  PutObjectCommand: { verb: 'writing', permission: 's3:PutObject' },
  DeleteObjectCommand: { verb: 'deleting', permission: 's3:DeleteObject' },
  DeleteObjectsCommand: { verb: 'deleting', permission: 's3:DeleteObject' },
};

/**
 * What a 403 denied, for `destination_access_denied`: the operation, the IAM
 * permission it needs and, for an object, its path under the destination's
 * prefix (the bundle folder and the file: the operator's own names). Never
 * the bucket, the prefix or the endpoint. Undefined when the request is not
 * known (an error from a client sealkit did not mark).
 */
export function deniedHint(error: unknown, destinationPrefix: string): string | undefined {
  const request = failedRequestOf(error);
  const operation = request === undefined ? undefined : OPERATIONS[request.command];
  if (request === undefined || operation === undefined) return undefined;
  const { verb, permission } = operation;
  if (request.command === 'ListObjectsV2Command')
    return `the store denied ${verb} the destination's prefix: these credentials need ${permission} on the bucket for that prefix`;
  const below = destinationPrefix === '' ? '' : `${destinationPrefix}/`;
  const key = request.key ?? '';
  const path = key.startsWith(below) && key.length > below.length ? key.slice(below.length) : undefined;
  // The store check's own object says what it is: its random name alone does not.
  const probe =
    path?.startsWith('.distributor.probe-') === true ? ', the object sealkit checks the store with,' : '';
  const what =
    path === undefined
      ? "an object under the destination's prefix"
      : `'${path}'${probe} under the destination's prefix`;
  // A read of a missing key is answered 403, not 404, when s3:ListBucket is missing.
  const read =
    verb === 'reading' ? ` (or s3:ListBucket, which a store also asks for when the object is missing)` : '';
  return `the store denied ${verb} ${what}: these credentials need ${permission} there${read}`;
}
