// A worker thread that answers one request at a time while the main thread
// blocks on a shared flag: the harness times synchronous operations, so a
// benchmark whose work is asynchronous (DuckDB, PGlite, node-postgres) runs it
// here and its variants call through `startSyncWorker` synchronously.
import {
  MessageChannel,
  type MessagePort,
  receiveMessageOnPort,
  Worker,
  workerData,
} from 'node:worker_threads';

/** What `startSyncWorker` adds to the worker's data. */
interface Channel {
  readonly port: MessagePort;
  readonly flag: Int32Array;
}

export interface SyncWorker<Req, Ans> {
  /** Posts `request` and blocks until the worker has answered it. */
  call(request: Req): Ans;
  close(): void;
}

/** Starts the worker module at `url` with `data` (plus the channel); `label` names it in errors. */
export function startSyncWorker<Req, Ans>(
  url: URL,
  data: Readonly<Record<string, unknown>>,
  label: string,
): SyncWorker<Req, Ans> {
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(url, { workerData: { port: port2, flag, ...data }, transferList: [port2] });
  worker.unref();
  return {
    call(request) {
      Atomics.store(flag, 0, 0);
      port1.postMessage(request);
      Atomics.wait(flag, 0, 0);
      const message = receiveMessageOnPort(port1)?.message as
        | { ok: true; result: Ans }
        | { ok: false; error: string }
        | undefined;
      if (message === undefined || !message.ok) throw new Error(`${label} worker failed: ${message?.error}`);
      return message.result;
    },
    close() {
      port1.close();
      void worker.terminate();
    },
  };
}

/** In the worker: answers each request with `answer`, then wakes the main thread. */
export function serveSyncRequests<Req, Ans>(answer: (request: Req) => Promise<Ans>): void {
  const { port, flag } = workerData as Channel;
  port.on('message', (request: Req) => {
    answer(request)
      .then(
        (result) => port.postMessage({ ok: true, result }),
        (error: unknown) => port.postMessage({ ok: false, error: String(error) }),
      )
      .finally(() => {
        Atomics.store(flag, 0, 1);
        Atomics.notify(flag, 0);
      });
  });
}
