// The edition-new benchmark's worker: the copy is asynchronous (it stops at
// step boundaries for SIGINT and SIGTERM) and the harness times synchronous
// operations, so each copy runs here while the main thread blocks on a
// shared flag until the answer is posted.
import { newWorkspace } from '../src/editions/workspace/workspace.js';
import { serveSyncRequests } from './sync-worker.js';

export interface Request {
  readonly dest: string;
}
export interface Answer {
  readonly files: number;
  readonly dirs: number;
}

serveSyncRequests<Request, Answer>(async ({ dest }) => {
  const { plan } = await newWorkspace({ edition: 'bigquery', dest });
  return { files: plan.files.length, dirs: plan.dirs.length };
});
