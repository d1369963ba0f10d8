import { at } from '../../core/list/index.js';
import { RESOURCE_KINDS, type ResourceKind } from '../authoring/schemas/resource.js';
import { graphRefusal } from './refusals.js';

export interface GraphNode {
  readonly id: string;
  readonly kind: ResourceKind;
}

/** A dependency: `from` (the consumer) depends on `to`. */
export interface GraphEdge {
  readonly from: string;
  readonly to: string;
}

/**
 * The dependencies each kind may have (consumer → dependency): what a
 * validated project produces — a model reads sources and models, a semantic
 * model its dataset (a model), a dashboard semantic models. A source depends
 * on nothing.
 */
export const GRAPH_EDGE_KINDS: Readonly<Record<ResourceKind, readonly ResourceKind[]>> = Object.freeze({
  Source: [],
  Model: ['Source', 'Model'],
  SemanticModel: ['Model'],
  Dashboard: ['SemanticModel'],
});

const KINDS: ReadonlySet<string> = new Set(RESOURCE_KINDS);

/**
 * The project's dependency graph: edges point from a consumer to its
 * dependency. Construction refuses duplicate nodes, nodes of a kind it does
 * not know, edges to unknown nodes, edges between kinds it does not allow
 * (`GRAPH_EDGE_KINDS`), duplicate edges and cycles (self-loops included),
 * each with the offending path, so every graph that exists is a DAG of the
 * project's shape without repeated edges.
 * Adjacency is kept in compressed arrays (node indexes), both directions.
 */
export class ProjectGraph {
  readonly #ids: readonly string[];
  readonly #kinds: readonly ResourceKind[];
  readonly #index: ReadonlyMap<string, number>;
  /** Consumers of node i: consumers[consumerStart[i] .. consumerStart[i + 1]). */
  readonly #consumerStart: Int32Array;
  readonly #consumers: Int32Array;

  private constructor(
    ids: readonly string[],
    kinds: readonly ResourceKind[],
    index: ReadonlyMap<string, number>,
    consumerStart: Int32Array,
    consumers: Int32Array,
  ) {
    this.#ids = ids;
    this.#kinds = kinds;
    this.#index = index;
    this.#consumerStart = consumerStart;
    this.#consumers = consumers;
    Object.freeze(this);
  }

  static build(nodes: readonly GraphNode[], edges: readonly GraphEdge[]): ProjectGraph {
    const n = nodes.length;
    const ids: string[] = new Array<string>(n);
    const kinds: ResourceKind[] = new Array<ResourceKind>(n);
    const index = new Map<string, number>();
    for (const [i, { id, kind }] of nodes.entries()) {
      if (index.has(id)) throw graphRefusal('contract_graph_duplicate_node', [id]);
      if (!KINDS.has(kind)) throw graphRefusal('contract_graph_kind_unknown', [id]);
      index.set(id, i);
      ids[i] = id;
      kinds[i] = kind;
    }
    const from = new Int32Array(edges.length);
    const to = new Int32Array(edges.length);
    for (const [e, edge] of edges.entries()) {
      const a = index.get(edge.from);
      const b = index.get(edge.to);
      if (a === undefined || b === undefined) {
        throw graphRefusal('contract_graph_node_unknown', [edge.from, edge.to]);
      }
      if (a === b) throw graphRefusal('contract_graph_cycle', [edge.from, edge.to]);
      if (!GRAPH_EDGE_KINDS[at(kinds, a)].includes(at(kinds, b))) {
        throw graphRefusal('contract_graph_edge_not_allowed', [edge.from, edge.to]);
      }
      from[e] = a;
      to[e] = b;
    }
    const dependencies = compress(n, from, to);
    const repeated = repeatedEdge(n, dependencies);
    if (repeated !== null) {
      const [consumer, dependency] = repeated;
      throw graphRefusal('contract_graph_duplicate_edge', [at(ids, consumer), at(ids, dependency)]);
    }
    const consumers = compress(n, to, from);
    const cycle = findCycle(n, dependencies, consumers);
    if (cycle !== null)
      throw graphRefusal(
        'contract_graph_cycle',
        cycle.map((i) => at(ids, i)),
      );
    return new ProjectGraph(ids, kinds, index, consumers.start, consumers.targets);
  }

  get size(): number {
    return this.#ids.length;
  }

  has(id: string): boolean {
    return this.#index.has(id);
  }

  /** @internal Node index of `id`, or undefined. */
  indexOf(id: string): number | undefined {
    return this.#index.get(id);
  }

  /** @internal */
  idAt(index: number): string {
    return at(this.#ids, index);
  }

  /** @internal */
  kindAt(index: number): ResourceKind {
    return at(this.#kinds, index);
  }

  /** @internal Calls `visit` with the index of every direct consumer of node `index`. */
  forEachConsumer(index: number, visit: (consumer: number) => void): void {
    const end = at(this.#consumerStart, index + 1);
    for (let k = at(this.#consumerStart, index); k < end; k++) visit(at(this.#consumers, k));
  }
}

interface Compressed {
  readonly start: Int32Array;
  readonly targets: Int32Array;
}

/** Compressed adjacency of source → target over `n` nodes. */
function compress(n: number, source: Int32Array, target: Int32Array): Compressed {
  const start = new Int32Array(n + 1);
  for (const s of source) start[s + 1] = at(start, s + 1) + 1;
  for (let i = 0; i < n; i++) start[i + 1] = at(start, i + 1) + at(start, i);
  const fill = start.slice(0, n);
  const targets = new Int32Array(source.length);
  for (const [e, s] of source.entries()) {
    const slot = at(fill, s);
    targets[slot] = at(target, e);
    fill[s] = slot + 1;
  }
  return { start, targets };
}

/** An edge listed twice: one pass over each node's dependencies, marking the ones seen for it. */
function repeatedEdge(n: number, dependencies: Compressed): [number, number] | null {
  const seenFor = new Int32Array(n).fill(-1);
  for (let i = 0; i < n; i++) {
    const end = at(dependencies.start, i + 1);
    for (let k = at(dependencies.start, i); k < end; k++) {
      const target = at(dependencies.targets, k);
      if (seenFor[target] === i) return [i, target];
      seenFor[target] = i;
    }
  }
  return null;
}

/**
 * Kahn's algorithm (no recursion: deep chains cannot overflow the stack).
 * Nodes left over all have a dependency among the leftovers; following those
 * from any leftover node must revisit one: the cycle, reported consumer →
 * dependency and closed (first node repeated at the end).
 */
function findCycle(n: number, dependencies: Compressed, consumers: Compressed): number[] | null {
  const remaining = new Int32Array(n);
  const queue = new Int32Array(n);
  let head = 0;
  let tail = 0;
  for (let i = 0; i < n; i++) {
    remaining[i] = at(dependencies.start, i + 1) - at(dependencies.start, i);
    if (remaining[i] === 0) queue[tail++] = i;
  }
  while (head < tail) {
    const node = at(queue, head++);
    const end = at(consumers.start, node + 1);
    for (let k = at(consumers.start, node); k < end; k++) {
      const consumer = at(consumers.targets, k);
      remaining[consumer] = at(remaining, consumer) - 1;
      if (remaining[consumer] === 0) queue[tail++] = consumer;
    }
  }
  if (tail === n) return null;
  let node = remaining.findIndex((count) => count > 0);
  const order = new Map<number, number>();
  const walk: number[] = [];
  while (!order.has(node)) {
    order.set(node, walk.length);
    walk.push(node);
    let next = -1;
    const end = at(dependencies.start, node + 1);
    for (let k = at(dependencies.start, node); k < end; k++) {
      const dependency = at(dependencies.targets, k);
      if (at(remaining, dependency) > 0) {
        next = dependency;
        break;
      }
    }
    node = next;
  }
  const cycle = walk.slice(order.get(node));
  cycle.push(node);
  return cycle;
}
