import { Worker } from 'node:worker_threads';
import type { Sha256Hex } from './sha256.js';

/** SHA-256 and MD5 of one file's bytes, read from its start. */
export interface FileDigests {
  readonly sha256: Sha256Hex;
  readonly md5Hex: string;
  readonly bytes: number;
}

/** A file to digest: opened only when the thread is ready for it, closed once it is read. */
export interface DigestableFile {
  readonly open: () => { readonly fd: number; close(): void };
  /** Reading stops once more than this many bytes were seen (the result then says so by its `bytes`). */
  readonly maxBytes: number;
}

const CHUNK = 1 << 20;

/** The worker, as CommonJS source (no file to resolve at run time, in the build or under a test runner). */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const { readSync } = require('node:fs');
const buffer = Buffer.allocUnsafe(${CHUNK});
parentPort.on('message', ({ fd, max }) => {
  try {
    const sha256 = createHash('sha256');
    const md5 = createHash('md5');
    let bytes = 0;
    for (;;) {
      const read = readSync(fd, buffer, 0, ${CHUNK}, bytes);
      if (read === 0) break;
      bytes += read;
      if (bytes > max) break;
      const chunk = buffer.subarray(0, read);
      sha256.update(chunk);
      md5.update(chunk);
    }
    parentPort.postMessage({ sha256: sha256.digest('hex'), md5Hex: md5.digest('hex'), bytes });
  } catch {
    parentPort.postMessage({ failed: true });
  }
});
`;

interface Queued {
  readonly file: DigestableFile;
  readonly settle: (digests: FileDigests | undefined) => void;
}

/**
 * Digests whole files on one thread of their own, one file at a time, while
 * the calling thread does other work: the S3 backend hashes the bytes it
 * uploads there during the round trips that come before the upload and
 * beside the upload itself, instead of on the thread that feeds the socket
 * (docs/performance.md, "One bundle of 64 MiB"). A file waiting its turn
 * holds no descriptor. Memory is one 1 MiB buffer.
 *
 * Never rejects: `undefined` means the digests are not known (the file could
 * not be opened or read, or the thread failed), and the caller verifies
 * another way. The thread keeps the process alive only while a file is
 * being digested.
 */
export function digestFileOnThread(file: DigestableFile): Promise<FileDigests | undefined> {
  return new Promise((settle) => {
    queue.push({ file, settle });
    next();
  });
}

const queue: Queued[] = [];
let worker: Worker | undefined;
let busy: { readonly item: Queued; readonly close: () => void } | undefined;

function next(): void {
  if (busy !== undefined) return;
  const item = queue.shift();
  if (item === undefined) {
    worker?.unref();
    return;
  }
  let opened: { readonly fd: number; close(): void };
  try {
    opened = item.file.open();
  } catch {
    item.settle(undefined);
    next();
    return;
  }
  const thread = digestWorker();
  busy = { item, close: () => opened.close() };
  thread.ref();
  thread.postMessage({ fd: opened.fd, max: item.file.maxBytes });
}

function digestWorker(): Worker {
  if (worker !== undefined) return worker;
  // No flags of the parent (`--input-type=module` would make the source a module without `require`).
  const started = new Worker(WORKER_SOURCE, { eval: true, execArgv: [] });
  started.on('message', (answer: Partial<FileDigests> & { readonly failed?: true }) =>
    finish(answer.failed === true ? undefined : (answer as FileDigests)),
  );
  started.on('error', () => broken(started));
  started.on('exit', () => broken(started));
  worker = started;
  return started;
}

function finish(digests: FileDigests | undefined): void {
  const done = busy;
  busy = undefined;
  if (done !== undefined) {
    done.close();
    done.item.settle(digests);
  }
  next();
}

/** The thread failed or ended: the file it held is not known, the next one goes to a new thread. */
function broken(thread: Worker): void {
  if (worker !== thread) return;
  worker = undefined;
  finish(undefined);
}
