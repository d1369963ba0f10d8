// The ledger benchmark's worker: the ledger API is asynchronous and the
// harness times synchronous operations, so publications and replays run here
// and the main thread blocks on a shared flag until the answer is posted.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import {
  contractProjectFromFiles,
  type IdentifiedCandidate,
  type LedgerSession,
  pgLedgerSession,
  pgliteLedgerSession,
  replayLedger,
  runContractPublication,
} from '../src/contracts/index.js';
import { verifyChainToHead } from '../src/contracts/publication/chain.js';
import { connectionOver } from '../src/contracts/publication/connection.js';
import { SELECT_ENTRY, verifiedEntryOfRow } from '../src/contracts/publication/entry.js';
import { LEDGER_TABLE } from '../src/contracts/publication/schema.js';
import { readResourceIndex } from '../src/contracts/publication/state.js';
import { at } from '../src/core/list/index.js';
import { ledgerWorkload } from './ledger-generate.js';
import { type BenchPostgres, startBenchPostgres } from './ledger-postgres.js';
import { serveSyncRequests } from './sync-worker.js';

interface Setup {
  readonly resources: number;
  readonly versions: number;
}

export type Backend = 'pglite' | 'postgres';
export type Request =
  | { readonly action: 'reset'; readonly backend: Backend }
  | { readonly action: 'run'; readonly backend: Backend }
  /** Fills the ledger with `entries` genesis publications of distinct sources (untimed). */
  | { readonly action: 'fill'; readonly backend: Backend; readonly entries: number }
  /**
   * One dry-run publication as `contract publish --resource ID --dry-run`
   * runs it: `head` a resource whose latest entry is the head, `genesis` a
   * resource never published; `index` the read of the resource index at the
   * head alone (what verification adds to a publication); `walk` the chain
   * walk from position 1 alone (run only to name tampered evidence).
   */
  | {
      readonly action: 'publishOne';
      readonly backend: Backend;
      readonly which: 'head' | 'genesis' | 'index' | 'walk';
    }
  | { readonly action: 'stop' };
export interface Answer {
  readonly publications: number;
  readonly entries: number;
  readonly publishMs: number;
  readonly replayMs: number;
}

const { resources, versions } = workerData as Setup;

// Every version step of every resource, projected by the real pipeline before anything is timed.
const steps: IdentifiedCandidate[][] = [];
for (const files of ledgerWorkload(resources, versions)) {
  const project = await contractProjectFromFiles(files);
  steps.push(
    project.outcomes.map((outcome) => ({
      ...project.project(outcome.id as string),
      id: outcome.id as string,
    })),
  );
}

const dataDir = mkdtempSync(join(tmpdir(), 'sealkit-bench-pglite-'));
const lite = await PGlite.create({ dataDir });
const server: BenchPostgres = await startBenchPostgres();
const client = new pg.Client({ connectionString: server.url });
await client.connect();
const sessions: Record<Backend, LedgerSession> = {
  pglite: pgliteLedgerSession(lite),
  postgres: pgLedgerSession(client),
};

let filler: IdentifiedCandidate[] = [];
async function fillerOf(entries: number): Promise<IdentifiedCandidate[]> {
  if (filler.length < entries + 1) {
    const [files] = ledgerWorkload(entries + 1, 1);
    const project = await contractProjectFromFiles(files ?? []);
    filler = project.outcomes.map((outcome) => ({
      ...project.project(outcome.id as string),
      id: outcome.id as string,
    }));
  }
  return filler;
}

async function answer(request: Request): Promise<Answer | null> {
  if (request.action === 'stop') {
    await client.end();
    server.stop();
    await lite.close();
    rmSync(dataDir, { recursive: true, force: true });
    return null;
  }
  const session = sessions[request.backend];
  if (request.action === 'reset') {
    await session.query('DROP SCHEMA IF EXISTS sealkit_ledger CASCADE');
    return null;
  }
  const connection = connectionOver(request.backend, session, async () => undefined);
  if (request.action === 'fill') {
    await session.query('DROP SCHEMA IF EXISTS sealkit_ledger CASCADE');
    const candidates = (await fillerOf(request.entries)).slice(0, request.entries);
    for (let i = 0; i < candidates.length; i += 1000) {
      await runContractPublication(connection, candidates.slice(i, i + 1000), {
        approval: null,
        dryRun: false,
      });
    }
    return null;
  }
  if (request.action === 'publishOne') {
    const candidates = filler;
    const start = performance.now();
    if (request.which === 'walk') {
      await connection.transaction((tx) => verifyChainToHead(tx, null));
    } else if (request.which === 'index') {
      const id = at(candidates, candidates.length - 1).id;
      await connection.transaction(async (tx) => {
        const [row] = await tx.query(
          `${SELECT_ENTRY} WHERE position = (SELECT max(position) FROM ${LEDGER_TABLE})`,
        );
        if (row === undefined) throw new Error('the benchmark ledger is empty');
        const head = verifiedEntryOfRow(row, Number(row.position));
        await readResourceIndex(tx, head, [id]);
      });
    } else {
      // The last candidate was never published; the one before it is the head.
      const candidate = at(candidates, candidates.length - (request.which === 'genesis' ? 1 : 2));
      await runContractPublication(connection, [candidate], { approval: null, dryRun: true });
    }
    return { publications: 1, entries: 0, publishMs: performance.now() - start, replayMs: 0 };
  }
  const start = performance.now();
  let publications = 0;
  for (const step of steps) {
    for (const candidate of step) {
      // One transaction per publication, as `sealkit contract publish --resource ID` runs it.
      const run = await runContractPublication(connection, [candidate], { approval: null, dryRun: false });
      if (run.applied?.appended.length !== 1) throw new Error('a benchmark publication was not appended');
      publications += 1;
    }
  }
  const published = performance.now();
  const replay = await replayLedger(session);
  const end = performance.now();
  return { publications, entries: replay.entries, publishMs: published - start, replayMs: end - published };
}

serveSyncRequests(answer);
