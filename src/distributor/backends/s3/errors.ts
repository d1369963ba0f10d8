import type { Refusal } from '../../../core/refusal/index.js';
import { type DistributorRefusalCode, refuseDistributor } from '../../refusals.js';
import { credentialsMissingHint, credentialsRefusedHint } from './profile.js';
import { deniedHint } from './requests.js';

/**
 * What an S3 request failure means for the backend, from the HTTP status,
 * the error name and the socket error code only. The SDK's message, the key
 * and the bucket never leave this module: callers turn a kind into a fixed
 * refusal (`s3Refusal`).
 */
export type S3FailureKind =
  /** 412, or 409 ConditionalRequestConflict: a conditional write lost to another writer. */
  | 'precondition'
  /** 404 on an object (AWS answers an `If-Match` PUT on a missing key so). */
  | 'absent'
  /** 404 NoSuchBucket. */
  | 'no_bucket'
  /** The SDK's provider chain found no credentials. */
  | 'credentials_missing'
  /** 403 for the credentials themselves: unknown access key, wrong secret, expired token. */
  | 'credentials_refused'
  /** Any other 403: the credentials are valid but not allowed this request. */
  | 'access_denied'
  /** 403 QuotaExceeded (Ceph RGW): the bucket or its owner holds no more bytes; the credentials are fine. */
  | 'quota_exceeded'
  /** No HTTP answer (connection refused or reset, DNS, TLS, a timeout). */
  | 'unreachable'
  /** Any other answer (5xx, 400, ...), or a failure that is not the server's (an aborted or broken upload). */
  | 'failed';

export function classifyS3Error(error: unknown): S3FailureKind {
  if (typeof error !== 'object' || error === null) return 'failed';
  const name = errorName(error);
  const status = httpStatus(error);
  if (status === undefined) {
    if (CREDENTIAL_PROVIDER_NAMES.has(name)) return 'credentials_missing';
    const code = 'code' in error && typeof error.code === 'string' ? error.code : '';
    return NETWORK_CODES.has(code) || UNREACHABLE_NAMES.has(name) ? 'unreachable' : 'failed';
  }
  // The bucket is in another region: every request of the destination fails the same way.
  if (otherRegion(error) !== undefined) return 'unreachable';
  if (status === 412 || (status === 409 && name === 'ConditionalRequestConflict')) return 'precondition';
  if (status === 404) return name === 'NoSuchBucket' ? 'no_bucket' : 'absent';
  if (status === 403 && QUOTA_ERRORS.has(name)) return 'quota_exceeded';
  if (status === 403) return CREDENTIAL_ERRORS.has(name) ? 'credentials_refused' : 'access_denied';
  if (status === 401) return 'credentials_refused';
  return 'failed';
}

/**
 * True when trying the same request again may succeed: the store was busy
 * (5xx, 429, `SlowDown`, `RequestTimeout`) or the connection broke or timed
 * out mid-request. A refused connection, DNS failure or 4xx is not retried:
 * the next attempt would fail the same way.
 */
export function isTransient(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const name = errorName(error);
  const status = httpStatus(error);
  if (status !== undefined && status !== 0) {
    return status >= 500 || status === 429 || TRANSIENT_NAMES.has(name);
  }
  const code = 'code' in error && typeof error.code === 'string' ? error.code : '';
  return TRANSIENT_CODES.has(code) || name === 'TimeoutError' || TRANSIENT_NAMES.has(name);
}

/**
 * The fixed refusal for a failure of one S3 request: the cause (credentials,
 * permission, bucket, network, a lost conditional write) and never the SDK's
 * text. `during` says whether the request read (inspection) or wrote: an
 * unexplained failure of a read means the store is not usable, of a write
 * that the write failed. With `destinationPrefix`, a denied request is named
 * with its permission and object (`deniedHint`).
 */
export function s3Refusal(
  error: unknown,
  during: 'read' | 'write',
  address?: StoreAddress,
  destinationPrefix?: string,
): Refusal {
  const code = s3RefusalCode(classifyS3Error(error), during);
  const hint =
    code === 'destination_access_denied' && destinationPrefix !== undefined
      ? deniedHint(error, destinationPrefix)
      : code === 'destination_unreachable'
        ? unreachableHint(error, address)
        : code === 'destination_bucket_missing'
          ? bucketMissingHint(address)
          : code === 'destination_credentials_missing'
            ? credentialsMissingHint()
            : code === 'destination_credentials_refused'
              ? credentialsRefusedHint(typeof error === 'object' && error !== null ? errorName(error) : '')
              : classifyS3Error(error) === 'quota_exceeded'
                ? QUOTA_EXCEEDED_HINT
                : undefined;
  return refuseDistributor(code, { role: 'destination', ...(hint === undefined ? {} : { hint }) });
}

/**
 * Ceph RGW answers a write past a bucket or user quota with 403, which read
 * as a missing s3:PutObject and sent users to their access policy, although
 * the same credentials had just written the pending marker.
 */
const QUOTA_EXCEEDED_HINT =
  'the store refused the write because a quota is used up (QuotaExceeded): the bucket, or the user that owns it, may hold no more on the store; these credentials may write there, so raise the quota or free space in the bucket, then run again';

/**
 * What to do about a bucket the store does not have. The refusal points at
 * the `bucket:` line, where the name is: the hint says what to check there.
 * (A bucket is printed only in the `s3://` location of objects a help asks
 * the operator to act on; docs/distributor.md, "Reason codes".)
 */
const BUCKET_MISSING_HINT =
  'the store has no bucket with the name on the bucket: line: create that bucket in the store, or correct bucket: (or endpoint: or region:, when they lead to another store)';

/**
 * An endpoint with a path (`http://host:7480/s3`) is kept for a gateway
 * served under one, but a store that is not reads the path's first segment
 * as the bucket and answers NoSuchBucket for a bucket that exists: blaming
 * `bucket:` alone sent users to check a name spelt right.
 */
const BUCKET_MISSING_ENDPOINT_PATH_HINT =
  "endpoint: has a path after its host and port, and a store not served under that path takes the path's first segment for the bucket, so it found no bucket with the name on the bucket: line: remove the path from endpoint: unless the store is served there; else create the bucket, or correct bucket:";

function bucketMissingHint(address: StoreAddress | undefined): string {
  return address?.endpointHasPath === true ? BUCKET_MISSING_ENDPOINT_PATH_HINT : BUCKET_MISSING_HINT;
}

/** Where the SDK sends a destination's requests, to tell which host name a DNS failure was about. */
export interface StoreAddress {
  readonly bucket: string;
  /** The configured endpoint's host name; undefined without `endpoint` (AWS, found by region). */
  readonly endpointHost: string | undefined;
  readonly forcePathStyle: boolean;
  /** The configured endpoint has a path after its host and port (`/s3`); a lone `/` is none. */
  readonly endpointHasPath: boolean;
}

/** True when a configured endpoint has a path beyond `/`. */
export function endpointHasPath(endpoint: string | undefined): boolean {
  if (endpoint === undefined) return false;
  try {
    return new URL(endpoint).pathname.replace(/\/+$/, '') !== '';
  } catch {
    return false;
  }
}

/** The host name of a configured endpoint, lowercase as the SDK sends it; undefined without one. */
export function endpointHostOf(endpoint: string | undefined): string | undefined {
  if (endpoint === undefined) return undefined;
  try {
    return new URL(endpoint).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

/**
 * The hint for a host name DNS does not know, when it is not the endpoint's
 * own: without `force_path_style` the SDK puts the bucket in front of the
 * endpoint's host name (virtual-hosted style), which a store that takes the
 * bucket in the path (Ceph RGW, MinIO) has no DNS name for. Blaming the
 * endpoint's host name sent users to check a name spelt right. The host is
 * told by its parts, in words (placeholders read as a template left
 * unfilled), since a refusal shows no S3 setting.
 */
const BUCKET_HOST_UNKNOWN =
  "DNS does not know the host name the SDK looked up, the bucket's name followed by a dot and the endpoint's host name: without force_path_style it puts the bucket in front of the endpoint's host name, and a store that takes the bucket in the path (Ceph RGW, MinIO, most self-hosted stores) has no such name; set force_path_style: true for such a store, else check the endpoint's spelling";

/**
 * Why nothing usable answered, from the HTTP status or the socket error's
 * code alone (a fixed token such as `ECONNREFUSED`, never the SDK's text).
 */
function unreachableHint(error: unknown, address: StoreAddress | undefined): string | undefined {
  const region = typeof error === 'object' && error !== null ? otherRegion(error) : undefined;
  if (region !== undefined)
    return `the store answered that the bucket is in region '${region}', not in the one the requests were signed for (region:, else AWS_REGION or the AWS profile's): set region: ${region}${
      address?.endpointHost === undefined
        ? ''
        : ", and endpoint: to that region's address (or leave endpoint: out for AWS S3)"
    }`;
  const status = answeredNotAsS3(error);
  if (status !== undefined)
    return `the endpoint answered HTTP ${status} but not as an S3 service: check endpoint and bucket`;
  if (typeof error !== 'object' || error === null) return undefined;
  const code = 'code' in error && typeof error.code === 'string' ? error.code : '';
  if (code === 'ENOTFOUND' && lookedUpBucketHost(error, address)) return `${BUCKET_HOST_UNKNOWN} (${code})`;
  if ((code === 'ENOTFOUND' || code === 'EAI_AGAIN') && lookedUpAwsHost(error, address))
    return `${code === 'ENOTFOUND' ? AWS_HOST_UNKNOWN : AWS_HOST_UNANSWERED} (${code})`;
  const cause = Object.hasOwn(SOCKET_CAUSES, code) ? SOCKET_CAUSES[code] : undefined;
  if (cause !== undefined) return `${cause} (${code})`;
  if (errorName(error) === 'TimeoutError')
    // A store that is full or degraded may still accept connections, and
    // even answer listings, while it holds every write: the endpoint alone
    // is the wrong thing to check then.
    return "no answer in time: check the endpoint, and the store's health (a full or degraded store can accept a request and never answer it), or raise connect_timeout_seconds or request_timeout_seconds";
  return undefined;
}

/**
 * The host name a DNS failure was about is `<bucket>.<endpoint host>`, the
 * SDK's virtual-hosted name. Without `endpoint:` the SDK may still take one
 * from `AWS_ENDPOINT_URL_S3`, `AWS_ENDPOINT_URL` or the profile's
 * `endpoint_url`: a host that begins with the bucket and is not AWS's is that.
 */
function lookedUpBucketHost(error: object, address: StoreAddress | undefined): boolean {
  if (address === undefined || address.forcePathStyle) return false;
  const host = 'hostname' in error && typeof error.hostname === 'string' ? error.hostname.toLowerCase() : '';
  if (address.endpointHost === undefined)
    return host.startsWith(`${address.bucket}.`) && !/(^|\.)amazonaws\.com(\.cn)?$/.test(host);
  return host === `${address.bucket}.${address.endpointHost}`;
}

/**
 * Without `endpoint:` the SDK makes AWS S3's host name from `region:`
 * (`<bucket>.s3.<region>.amazonaws.com`), so a DNS failure there is about
 * the region: `us-east1` for `us-east-1` was told to check "the endpoint's
 * spelling", in a file without an endpoint. A host elsewhere (an endpoint
 * from `AWS_ENDPOINT_URL_S3` or the profile) keeps the endpoint's hints.
 */
function lookedUpAwsHost(error: object, address: StoreAddress | undefined): boolean {
  if (address === undefined || address.endpointHost !== undefined) return false;
  const host = 'hostname' in error && typeof error.hostname === 'string' ? error.hostname.toLowerCase() : '';
  return /(^|\.)amazonaws\.com(\.cn)?$/.test(host);
}

const AWS_HOST_UNKNOWN =
  "without endpoint: the SDK finds AWS S3 by a host name made from region: ('<bucket>.s3.<region>.amazonaws.com'), and DNS does not know it: check region: (AWS regions read like us-east-1 or eu-central-1), or set endpoint: for another store";
const AWS_HOST_UNANSWERED =
  "without endpoint: the SDK finds AWS S3 by a host name made from region: ('<bucket>.s3.<region>.amazonaws.com'), and DNS did not answer for it: check the network, and region: (AWS regions read like us-east-1 or eu-central-1)";

/** What a socket error code says about the endpoint, for `unreachableHint`. */
const SOCKET_CAUSES: { readonly [code: string]: string } = {
  ECONNREFUSED: "nothing listens at the endpoint's host and port: check the port, and that the store runs",
  ENOTFOUND: "the endpoint's host name is not known to DNS: check its spelling",
  EAI_AGAIN: "DNS did not answer for the endpoint's host name: check the network",
  ETIMEDOUT: "the endpoint's host did not answer in time: check the network and any firewall",
  EHOSTUNREACH: "no route to the endpoint's host: check the network",
  ENETUNREACH: "no route to the endpoint's network: check the network",
  ECONNRESET: 'the endpoint closed the connection: check the endpoint and any proxy',
  EPIPE: 'the endpoint closed the connection: check the endpoint and any proxy',
  EPROTO: 'the endpoint does not speak the protocol its URL names: check http:// against https://',
  ERR_TLS_CERT_ALTNAME_INVALID: "the endpoint's TLS certificate names another host: check the endpoint",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE:
    "the endpoint's TLS certificate is not trusted here: set AWS_CA_BUNDLE (or NODE_EXTRA_CA_CERTS) to its CA bundle",
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
    "the endpoint's TLS certificate is signed by a CA not trusted here (a company CA?): set AWS_CA_BUNDLE (or NODE_EXTRA_CA_CERTS) to its CA bundle",
  SELF_SIGNED_CERT_IN_CHAIN:
    "the endpoint's TLS certificate chain ends in a CA not trusted here (a company CA, or a proxy that inspects TLS): set AWS_CA_BUNDLE (or NODE_EXTRA_CA_CERTS) to its CA bundle",
  DEPTH_ZERO_SELF_SIGNED_CERT:
    "the endpoint's TLS certificate is self-signed: set AWS_CA_BUNDLE (or NODE_EXTRA_CA_CERTS) to it",
  CERT_HAS_EXPIRED: "the endpoint's TLS certificate has expired: it is renewed on the store, not here",
};

/**
 * The HTTP status of an answer that carried no S3 error document (a plain
 * web server's 404 page, a proxy's 502): the SDK then names the error after
 * the status alone and sets no `Code`. Such an endpoint was reached, so
 * "cannot be reached" alone would mislead (docs/distributor.md#s3-refusals).
 */
export function answeredNotAsS3(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const status = httpStatus(error);
  if (status === undefined || status === 0) return undefined;
  const code = 'Code' in error && typeof error.Code === 'string' ? error.Code : '';
  return code === '' ? status : undefined;
}

export function s3RefusalCode(kind: S3FailureKind, during: 'read' | 'write'): DistributorRefusalCode {
  switch (kind) {
    case 'precondition':
    case 'absent':
      return during === 'write' ? 'destination_changed' : 'destination_unreachable';
    case 'no_bucket':
      return 'destination_bucket_missing';
    case 'credentials_missing':
      return 'destination_credentials_missing';
    case 'credentials_refused':
      return 'destination_credentials_refused';
    case 'access_denied':
      return 'destination_access_denied';
    case 'quota_exceeded':
      return 'destination_write_failed';
    case 'unreachable':
      return 'destination_unreachable';
    case 'failed':
      return during === 'write' ? 'destination_write_failed' : 'destination_unreachable';
  }
}

/** Kinds that make every further request of the destination fail the same way. */
export function isDestinationWide(kind: S3FailureKind): boolean {
  return (
    kind === 'no_bucket' ||
    kind === 'credentials_missing' ||
    kind === 'credentials_refused' ||
    kind === 'unreachable'
  );
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
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_HAS_EXPIRED',
]);

/** Socket failures after the connection was made: a retry may get through. */
const TRANSIENT_CODES: ReadonlySet<string> = new Set(['ECONNRESET', 'ETIMEDOUT', 'EPIPE']);

/** The SDK's own names for "no answer". */
const UNREACHABLE_NAMES: ReadonlySet<string> = new Set(['TimeoutError', 'NetworkingError']);

/** The SDK's names for "the provider chain found nothing". */
const CREDENTIAL_PROVIDER_NAMES: ReadonlySet<string> = new Set(['CredentialsProviderError', 'ProviderError']);

/** 403 error codes about the credentials rather than the permission. */
const CREDENTIAL_ERRORS: ReadonlySet<string> = new Set([
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
  'InvalidToken',
  'ExpiredToken',
  'TokenRefreshRequired',
  'InvalidClientTokenId',
  'AuthorizationHeaderMalformed',
]);

/** 403 error codes of a store that is full for this bucket or user, not of a missing permission. */
const QUOTA_ERRORS: ReadonlySet<string> = new Set(['QuotaExceeded']);

/** Answers that say "busy, try later". */
const TRANSIENT_NAMES: ReadonlySet<string> = new Set([
  'SlowDown',
  'RequestTimeout',
  'Throttling',
  'ThrottlingException',
  'RequestLimitExceeded',
  'ServiceUnavailable',
  'InternalError',
]);

/**
 * The region AWS S3 says a bucket is in when a request was signed for or
 * sent to another one: a 301 `PermanentRedirect` (a HEAD's has no body,
 * only the `x-amz-bucket-region` header), or a 400
 * `AuthorizationHeaderMalformed` naming the expected `Region` (a HEAD's 400
 * again only by the header). The SDK does
 * not follow such redirects (`followRegionRedirects` is off), and both were
 * reported as an endpoint that "answered HTTP 301 but not as an S3 service".
 * The region is a store's fixed token, shown only in its own form.
 */
function otherRegion(error: object): string | undefined {
  const status = httpStatus(error);
  if (status !== 301 && status !== 400) return undefined;
  const response = '$response' in error ? error.$response : undefined;
  const headers =
    typeof response === 'object' && response !== null && 'headers' in response ? response.headers : undefined;
  const header =
    typeof headers === 'object' && headers !== null && 'x-amz-bucket-region' in headers
      ? headers['x-amz-bucket-region']
      : undefined;
  const body = 'Region' in error ? error.Region : undefined;
  // A 400 says so by its code, or (a HEAD has no body to name one) by the header alone.
  if (
    status === 400 &&
    !(REGION_CODES.has(errorName(error)) || (answeredNotAsS3(error) === 400 && header !== undefined))
  )
    return undefined;
  const region = typeof header === 'string' ? header : typeof body === 'string' ? body : undefined;
  return region !== undefined && /^[a-z0-9-]{2,32}$/.test(region) ? region : undefined;
}

/** 400 codes of a request signed for or sent to the wrong region. */
const REGION_CODES: ReadonlySet<string> = new Set([
  'AuthorizationHeaderMalformed',
  'IllegalLocationConstraintException',
]);

function errorName(error: object): string {
  return 'name' in error && typeof error.name === 'string' ? error.name : '';
}

function httpStatus(error: object): number | undefined {
  if (!('$metadata' in error)) return undefined;
  const metadata = error.$metadata;
  if (typeof metadata !== 'object' || metadata === null || !('httpStatusCode' in metadata)) return undefined;
  return typeof metadata.httpStatusCode === 'number' ? metadata.httpStatusCode : undefined;
}
