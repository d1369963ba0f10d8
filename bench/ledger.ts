import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads';
import { affectedDashboards, ProjectGraph } from '../src/contracts/index.js';
import type { Benchmark } from './harness.js';
import { generateProjectGraph } from './ledger-generate.js';
import type { Answer, Backend, Request } from './ledger-worker.js';

const RESOURCES = 50;
const VERSIONS = 20;
const GRAPH_RESOURCES = 100_000;
const GRAPH_EDGES = 200_000;
const SEED = 0x1ed9e7;

function bridge(): { call(request: Request): Answer | null; close(): void } {
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(new URL('./ledger-worker.js', import.meta.url), {
    workerData: { port: port2, flag, resources: RESOURCES, versions: VERSIONS },
    transferList: [port2],
  });
  worker.unref();
  const call = (request: Request): Answer | null => {
    Atomics.store(flag, 0, 0);
    port1.postMessage(request);
    Atomics.wait(flag, 0, 0);
    const message = receiveMessageOnPort(port1)?.message as
      | { ok: true; result: Answer | null }
      | { ok: false; error: string }
      | undefined;
    if (message === undefined || !message.ok) throw new Error(`ledger worker failed: ${message?.error}`);
    return message.result;
  };
  return {
    call,
    close() {
      call({ action: 'stop' });
      port1.close();
      void worker.terminate();
    },
  };
}

/**
 * The contract ledger: 1,000 publications (50 sources × 20 versions, one
 * transaction each: lock, verified read of the resource's entries and the
 * head, classification against the baseline, plan, insert) followed by a full
 * replay, on PGlite (on disk, as the embedded default) and on a PostgreSQL 15
 * server; and affected dashboards on a generated graph of 100,000 resources
 * and 200,000 edges (construction with its cycle and duplicate checks, then
 * one walk), with half the graph to show it scales linearly.
 */
export const ledgerBenchmark: Benchmark = {
  name: 'ledger',
  description: 'contract ledger: 1,000 publications + full replay; affected dashboards on 100,000 resources',
  runOptions: { warmupRuns: 1, rounds: 3, minSampleMs: 0 },
  prepare() {
    const ledger = bridge();
    const last = new Map<Backend, Answer>();
    const publications = (backend: Backend) => ({
      name: `${backend}: ${RESOURCES * VERSIONS} publications + replay`,
      setup: () => {
        ledger.call({ action: 'reset', backend });
      },
      run: () => {
        const answer = ledger.call({ action: 'run', backend }) as Answer;
        if (answer.entries !== RESOURCES * VERSIONS) throw new Error('replay saw another number of entries');
        last.set(backend, answer);
        return answer;
      },
    });
    const full = generateProjectGraph(GRAPH_RESOURCES, GRAPH_EDGES, SEED);
    const half = generateProjectGraph(GRAPH_RESOURCES / 2, GRAPH_EDGES / 2, SEED);
    // The walk is timed from the source (of the first 500) that reaches the most dashboards.
    const widestSeed = (graph: typeof full) => {
      const built = ProjectGraph.build(graph.nodes, graph.edges);
      let best = { id: '', reached: -1 };
      for (const node of graph.nodes.slice(0, 500)) {
        const reached = affectedDashboards(built, node.id).length;
        if (reached > best.reached) best = { id: node.id, reached };
      }
      return { built, ...best };
    };
    const fullSeed = widestSeed(full);
    const halfSeed = widestSeed(half);
    const built = fullSeed.built;
    const reached = fullSeed.reached;
    const seedOf = (nodes: typeof full.nodes) => (nodes === full.nodes ? fullSeed.id : halfSeed.id);
    return {
      workload: `${RESOURCES} sources × ${VERSIONS} versions; graph ${GRAPH_RESOURCES} resources / ${GRAPH_EDGES} edges (seed reaches ${reached} dashboards)`,
      reference: `pglite: ${RESOURCES * VERSIONS} publications + replay`,
      variants: [
        publications('pglite'),
        publications('postgres'),
        {
          name: 'affected dashboards: build 100k/200k graph + walk',
          run: () => affectedDashboards(ProjectGraph.build(full.nodes, full.edges), seedOf(full.nodes)),
        },
        {
          name: 'affected dashboards: build 50k/100k graph + walk',
          run: () => affectedDashboards(ProjectGraph.build(half.nodes, half.edges), seedOf(half.nodes)),
        },
        {
          name: 'affected dashboards: walk only (100k graph built)',
          run: () => affectedDashboards(built, seedOf(full.nodes)),
        },
      ],
      notes: () => {
        const notes: Record<string, string> = {};
        for (const [backend, answer] of last) {
          notes[`${backend} last round`] =
            `publish ${answer.publishMs.toFixed(0)} ms (${(answer.publishMs / answer.publications).toFixed(2)} ms each), replay ${answer.replayMs.toFixed(0)} ms`;
        }
        notes.targets = 'pglite ≤ 10,000 ms, postgres ≤ 5,000 ms, affected (100k/200k) ≤ 500 ms';
        return notes;
      },
      dispose: () => ledger.close(),
    };
  },
};
