/**
 * What an S3 request failure means for the backend, from the HTTP status,
 * the error name and the socket error code only. The SDK's message, the key and the bucket never leave this
 * module: callers turn a kind into a fixed refusal.
 */
export type S3FailureKind =
  /** 412, or 409 ConditionalRequestConflict: a conditional write lost to another writer. */
  | 'precondition'
  /** 404 on an object. */
  | 'absent'
  /** 404 NoSuchBucket. */
  | 'no_bucket'
  /** No HTTP answer (connection refused, DNS, TLS, timeout), or no credentials. */
  | 'unreachable'
  /** Any other answer (403, 5xx, ...), or a failure that is not the server's (an aborted or broken upload). */
  | 'failed';

export function classifyS3Error(error: unknown): S3FailureKind {
  if (typeof error !== 'object' || error === null) return 'failed';
  const name = 'name' in error && typeof error.name === 'string' ? error.name : '';
  const status = httpStatus(error);
  if (status === undefined) {
    const code = 'code' in error && typeof error.code === 'string' ? error.code : '';
    return NETWORK_CODES.has(code) || UNREACHABLE_NAMES.has(name) ? 'unreachable' : 'failed';
  }
  if (status === 412 || (status === 409 && name === 'ConditionalRequestConflict')) return 'precondition';
  if (status === 404) return name === 'NoSuchBucket' ? 'no_bucket' : 'absent';
  return 'failed';
}

/** Socket-level failures: nothing answered. */
const NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'EPROTO',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
]);

/** The SDK's own names for "no answer" and "cannot even sign a request". */
const UNREACHABLE_NAMES: ReadonlySet<string> = new Set([
  'TimeoutError',
  'CredentialsProviderError',
  'NetworkingError',
]);

function httpStatus(error: object): number | undefined {
  if (!('$metadata' in error)) return undefined;
  const metadata = error.$metadata;
  if (typeof metadata !== 'object' || metadata === null || !('httpStatusCode' in metadata)) return undefined;
  return typeof metadata.httpStatusCode === 'number' ? metadata.httpStatusCode : undefined;
}
