import { affectedDashboards, ProjectGraph } from '../src/contracts/index.js';
import type { Benchmark } from './harness.js';
import { generateProjectGraph } from './ledger-generate.js';
import type { Answer, Backend, Request } from './ledger-worker.js';
import { type SyncWorker, startSyncWorker } from './sync-worker.js';

const RESOURCES = 50;
const LARGE_LEDGER = 10_000;
const VERSIONS = 20;
const GRAPH_RESOURCES = 100_000;
const GRAPH_EDGES = 200_000;
const SEED = 0x1ed9e7;

function bridge(): SyncWorker<Request, Answer | null> {
  const worker = startSyncWorker<Request, Answer | null>(
    new URL('./ledger-worker.js', import.meta.url),
    { resources: RESOURCES, versions: VERSIONS },
    'ledger',
  );
  return {
    call: (request) => worker.call(request),
    close() {
      worker.call({ action: 'stop' });
      worker.close();
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

/**
 * Publishing one resource into a 10,000-entry ledger (dry run, as
 * `contract publish --resource ID --dry-run`), on each backend: a resource
 * whose latest entry is the head, a resource never published (before the
 * resource index, its read walked the chain from position 1), the read of
 * the resource index alone — what verification adds to a publication, the
 * figure the 50 ms budget is about — and the chain walk from position 1,
 * which now runs only to name the entry of tampered evidence.
 */
export const ledgerWalkBenchmark: Benchmark = {
  name: 'ledger-walk',
  description: 'one publication into a 10,000-entry ledger: latest at the head, a genesis, the index read',
  runOptions: { warmupRuns: 1, rounds: 5, minSampleMs: 0 },
  prepare() {
    const ledger = bridge();
    const variant = (backend: Backend, which: 'head' | 'genesis' | 'index' | 'walk', name: string) => ({
      name: `${backend}: ${name}`,
      setup: () => {
        if (!filled.has(backend)) {
          ledger.call({ action: 'fill', backend, entries: LARGE_LEDGER });
          filled.add(backend);
        }
      },
      run: () => ledger.call({ action: 'publishOne', backend, which }),
    });
    const filled = new Set<Backend>();
    return {
      workload: `${LARGE_LEDGER} genesis entries of distinct sources, then one dry-run publication`,
      reference: 'pglite: publish, latest entry at the head',
      variants: [
        variant('pglite', 'head', 'publish, latest entry at the head'),
        variant('pglite', 'genesis', 'publish a new resource'),
        variant('pglite', 'index', 'resource index read alone'),
        variant('pglite', 'walk', 'chain walk from position 1 (tampered evidence only)'),
        variant('postgres', 'head', 'publish, latest entry at the head'),
        variant('postgres', 'genesis', 'publish a new resource'),
        variant('postgres', 'index', 'resource index read alone'),
        variant('postgres', 'walk', 'chain walk from position 1 (tampered evidence only)'),
      ],
      notes: () => ({
        target: 'verification (the index read) adds at most 50 ms to a publication, genesis or not',
      }),
      dispose: () => ledger.close(),
    };
  },
};
