// An HTTP proxy in front of the test radosgw that imitates other stores'
// behaviour: it answers some requests itself (503 SlowDown, 404 NoSuchKey),
// rewrites response headers (opaque ETags, SSE-KMS), holds answers back, or
// flips a byte of a request body. Request headers are never changed: SigV4
// signs them, so a store that ignores conditional headers is imitated in the
// SDK instead (`dropConditionals`). Also a silent endpoint: a TCP server that
// accepts connections and never answers.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type Socket, type Server as TcpServer } from 'node:net';
import type { S3Client } from '@aws-sdk/client-s3';

export interface ProxiedRequest {
  readonly method: string;
  /** The path with the query string, e.g. `/bucket/key?x-id=PutObject`. */
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
}

/** What the proxy does with one request. */
export type ProxyAction =
  | { readonly kind: 'forward' }
  /** Answer without forwarding: an S3 error document. */
  | { readonly kind: 'answer'; readonly status: number; readonly code: string }
  /** Forward, then change the response headers. */
  | {
      readonly kind: 'rewrite';
      readonly headers: (headers: Record<string, string>) => Record<string, string>;
    }
  /** Forward with the byte at `offset` of the body flipped. */
  | { readonly kind: 'corrupt'; readonly offset: number }
  /** Forward, but hold the answer until `release` resolves. */
  | { readonly kind: 'hold'; readonly release: Promise<void> }
  /** Forward the request's body at most `bytesPerSecond` (a slow link), reading it no faster. */
  | { readonly kind: 'throttle'; readonly bytesPerSecond: number };

export interface S3Proxy {
  /** `http://127.0.0.1:PORT` */
  readonly endpoint: string;
  /** Every request seen, in order of arrival. */
  readonly seen: ProxiedRequest[];
  /** Sets what happens to each request from now on (default: forward everything). */
  decide(rule: (req: ProxiedRequest) => ProxyAction): void;
  close(): Promise<void>;
}

export async function startS3Proxy(upstream: string): Promise<S3Proxy> {
  const target = new URL(upstream);
  const seen: ProxiedRequest[] = [];
  let rule: (req: ProxiedRequest) => ProxyAction = () => ({ kind: 'forward' });
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const info: ProxiedRequest = { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers };
    seen.push(info);
    const action = rule(info);
    if (action.kind === 'answer') {
      req.resume();
      req.once('end', () => {
        const body = `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${action.code}</Code><Message>injected</Message></Error>`;
        res.writeHead(action.status, {
          'content-type': 'application/xml',
          'content-length': Buffer.byteLength(body),
        });
        res.end(body);
      });
      return;
    }
    const upstreamReq = request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
      },
      async (upstreamRes) => {
        let headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(upstreamRes.headers)) {
          if (typeof value === 'string') headers[name] = value;
        }
        if (action.kind === 'rewrite') headers = action.headers(headers);
        if (action.kind === 'hold') await action.release;
        res.writeHead(upstreamRes.statusCode ?? 502, headers);
        upstreamRes.pipe(res);
      },
    );
    upstreamReq.on('error', () => res.destroy());
    res.on('close', () => upstreamReq.destroy());
    if (action.kind === 'corrupt') {
      let at = 0;
      req.on('data', (chunk: Buffer) => {
        const copy = Buffer.from(chunk);
        const index = action.offset - at;
        if (index >= 0 && index < copy.length) copy[index] = (copy[index] ?? 0) ^ 0x01;
        at += copy.length;
        upstreamReq.write(copy);
      });
      req.on('end', () => upstreamReq.end());
    } else if (action.kind === 'throttle') {
      // Paused after each chunk for as long as the rate allows it: the
      // sender's socket fills, and its writes wait.
      req.on('data', (chunk: Buffer) => {
        upstreamReq.write(chunk);
        req.pause();
        setTimeout(() => req.resume(), (1000 * chunk.length) / action.bytesPerSecond);
      });
      req.on('end', () => upstreamReq.end());
    } else {
      req.pipe(upstreamReq);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('proxy address');
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    seen,
    decide: (next) => {
      rule = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A PUT of an object (not the bucket, not a probe of ours unless `probes`). */
export function isObjectPut(req: ProxiedRequest, keyPart: string): boolean {
  return req.method === 'PUT' && decodeURIComponent(req.url.split('?')[0] ?? '').includes(keyPart);
}

/** Response headers of a store whose ETags are not MD5s (AWS with SSE-KMS). */
export function opaqueKmsEtag(headers: Record<string, string>): Record<string, string> {
  if (headers.etag === undefined) return headers;
  return {
    ...headers,
    etag: `"${randomBytes(16).toString('hex')}"`,
    'x-amz-server-side-encryption': 'aws:kms',
  };
}

/**
 * Makes `client` send none of `headers` (default: both `If-None-Match` and
 * `If-Match`) on any request, before signing: to sealkit it looks exactly
 * like a store that ignores them (MinIO before 2024, s3rver).
 */
export function dropConditionals(
  client: S3Client,
  headers: readonly ('if-none-match' | 'if-match')[] = ['if-none-match', 'if-match'],
): void {
  client.middlewareStack.add(
    (next) => async (args) => {
      const requestLike = args.request as { headers?: Record<string, string> };
      if (requestLike.headers !== undefined) {
        for (const name of Object.keys(requestLike.headers)) {
          if ((headers as readonly string[]).includes(name.toLowerCase())) delete requestLike.headers[name];
        }
      }
      return next(args);
    },
    { step: 'build', name: 'dropConditionalHeaders', priority: 'low' },
  );
}

export interface SilentEndpoint {
  readonly endpoint: string;
  /** Connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

/** Accepts TCP connections, reads what comes, never answers. */
export async function startSilentEndpoint(): Promise<SilentEndpoint> {
  const sockets = new Set<Socket>();
  let count = 0;
  const server: TcpServer = createTcpServer((socket) => {
    count += 1;
    sockets.add(socket);
    socket.on('data', () => {});
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('silent address');
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    connections: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
