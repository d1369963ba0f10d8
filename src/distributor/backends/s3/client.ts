import { setMaxListeners } from 'node:events';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { S3DestinationConfig } from '../../config/types.js';
import { S3Client } from './sdk.js';

/** Seconds to wait for a connection, unless the destination sets `connect_timeout_seconds`. */
export const DEFAULT_CONNECT_TIMEOUT_SECONDS = 5;
/** Seconds a request may go without a byte from the store, unless the destination sets `request_timeout_seconds`. */
export const DEFAULT_REQUEST_TIMEOUT_SECONDS = 30;
/** Connections one destination keeps open at most: every request in flight of every bundle in flight. */
const MAX_SOCKETS = 256;

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
 *
 * Timeouts: a connection must be made within the connect timeout, and a
 * request that goes the request timeout without a byte either way is
 * abandoned (a store that accepts TCP and never answers is then
 * `destination_unreachable`, not a hang). `trust`: the certificates TLS
 * connections trust instead of Node's default list (`trustedCertificates`).
 * The SDK retries idempotent requests
 * with buffered bodies itself (3 attempts, backoff); streamed output uploads
 * are retried by sealkit (`upload.ts`).
 */
export function createS3Client(config: S3DestinationConfig, trust?: readonly string[]): S3Client {
  quietSdkNodeVersionNotice();
  const agent = { keepAlive: true, maxSockets: MAX_SOCKETS };
  const client = new S3Client({
    ...(config.endpoint === undefined ? {} : { endpoint: config.endpoint }),
    ...(config.region === undefined ? {} : { region: config.region }),
    forcePathStyle: config.force_path_style ?? false,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 3,
    requestHandler: {
      connectionTimeout: 1000 * (config.connect_timeout_seconds ?? DEFAULT_CONNECT_TIMEOUT_SECONDS),
      socketTimeout: 1000 * (config.request_timeout_seconds ?? DEFAULT_REQUEST_TIMEOUT_SECONDS),
      httpAgent: new HttpAgent(agent),
      // `AWS_CA_BUNDLE`'s certificates beside the default roots (trust.ts).
      httpsAgent: new HttpsAgent(trust === undefined ? agent : { ...agent, ca: [...trust] }),
      logger: SILENT,
    },
    logger: SILENT,
  });
  client.middlewareStack.remove(SDK_LOG_MIDDLEWARE);
  return client;
}

/**
 * The same client, with every request it sends abandoned once `signal` is
 * aborted: the SDK then destroys the socket and rejects at once with an
 * `AbortError`, which it does not retry. For inspection, whose reads are
 * spread over several modules: a store that accepts connections and never
 * answers would otherwise hold a SIGINT for every attempt's timeout (three
 * attempts of `request_timeout_seconds`, about 96 s by default).
 */
export function abortingWith(client: S3Client, given: AbortSignal | undefined): S3Client {
  if (given === undefined) return client;
  const signal = sharedSignal(given);
  const send = ((command: Parameters<S3Client['send']>[0], options?: { abortSignal?: AbortSignal }) =>
    client.send(command, {
      ...options,
      abortSignal:
        options?.abortSignal === undefined ? signal : AbortSignal.any([options.abortSignal, signal]),
    })) as S3Client['send'];
  return new Proxy(client, {
    get: (target, key, receiver) => (key === 'send' ? send : Reflect.get(target, key, receiver)),
  });
}

/**
 * A signal that follows `given` and may be passed to any number of requests
 * at once. The SDK adds listeners to the signal of each request in flight
 * (its retry loop, its checksum step), and past ten on one signal Node
 * prints "MaxListenersExceededWarning: Possible EventTarget memory leak" on
 * stderr, which a cron job mails as an alarm: inspection sends many reads at
 * once under the run's one signal. The caller's own signal is left as it is.
 */
export function sharedSignal(given: AbortSignal): AbortSignal {
  const signal = AbortSignal.any([given]);
  setMaxListeners(0, signal);
  return signal;
}

/** The SDK's request log: with any logger but its own no-op one it copies every request and answer for it. */
const SDK_LOG_MIDDLEWARE = 'loggerMiddleware';

/**
 * The SDK writes some warnings straight to the console unless given a logger
 * of its own: a failed streaming request (every aborted upload), sockets at
 * capacity. sealkit reports fixed refusals instead, so the client and its
 * HTTP handler get this silent logger. The SDK's own no-op logger would not
 * do: with it the SDK prints the streaming warning on the console. Any
 * other logger makes the SDK's log middleware copy and filter every request
 * and answer (about 0.1 ms a request) for a log nobody reads, so that
 * middleware is removed from the client.
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
 * user switched it on (`false`, `0`). The SDK takes only `true` as "off", so
 * a user's `1` or `yes` is written as `true`. The Node support horizon is
 * documented in docs/distributor.md instead.
 */
export function quietSdkNodeVersionNotice(env: NodeJS.ProcessEnv = process.env): void {
  const name = 'AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED';
  const given = env[name]?.trim().toLowerCase();
  if (given === 'false' || given === '0' || given === 'no') return;
  env[name] = 'true';
}
