import { S3Client } from '@aws-sdk/client-s3';
import type { S3DestinationConfig } from '../../config/types.js';

/**
 * The SDK client for one S3 destination. Credentials are deliberately absent:
 * the SDK's standard provider chain (environment, shared files, SSO, web
 * identity, container and instance metadata) supplies them, so keys never sit
 * in sealkit's configuration.
 *
 * Checksums are computed by sealkit itself (SHA-256 of the planned bytes, sent
 * as `x-amz-checksum-sha256`, plus its own hashing of every streamed byte):
 * the SDK's default CRC32 trailer would switch uploads to aws-chunked
 * encoding, which S3-compatible servers such as Ceph RGW 16 do not accept.
 */
export function createS3Client(config: S3DestinationConfig): S3Client {
  quietSdkNodeVersionNotice();
  return new S3Client({
    ...(config.endpoint === undefined ? {} : { endpoint: config.endpoint }),
    ...(config.region === undefined ? {} : { region: config.region }),
    forcePathStyle: config.force_path_style ?? false,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 3,
    logger: SILENT,
  });
}

/**
 * The SDK writes some warnings (e.g. a failed streaming request) straight to
 * the console unless given a logger; sealkit reports fixed refusals instead.
 */
const SILENT = {
  trace: () => {},
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
};

/**
 * The pinned SDK prints a multi-line notice (with a link) on stderr under
 * Node 20 the first time a client is built. sealkit's output is fixed text
 * only, so the notice is switched off through the SDK's own switch unless the
 * user set that switch either way. The Node support horizon is documented in
 * docs/distributor.md instead.
 */
function quietSdkNodeVersionNotice(): void {
  const name = 'AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED';
  if (process.env[name] === undefined) process.env[name] = 'true';
}
