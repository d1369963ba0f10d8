import { compareCodeUnits } from '../authoring/text.js';
import type { ProjectGraph } from './graph.js';
import { graphRefusal } from './refusals.js';

/**
 * The dashboards whose transitive dependency closure contains the directly
 * published identity `directSeed`: one breadth-first walk from the seed along
 * consumer edges (linear in the graph), keeping the dashboards reached. Ids
 * are stable, sorted (code units) and distinct; dashboards that do not depend
 * on the seed are excluded. Only dashboards are reported: this does not claim
 * a closure of every other resource kind.
 */
export function affectedDashboards(graph: ProjectGraph, directSeed: string): readonly string[] {
  const seed = graph.indexOf(directSeed);
  if (seed === undefined) throw graphRefusal('contract_graph_node_unknown', [directSeed]);
  const visited = new Uint8Array(graph.size);
  const queue = new Int32Array(graph.size);
  let head = 0;
  let tail = 0;
  visited[seed] = 1;
  queue[tail++] = seed;
  const dashboards: string[] = [];
  while (head < tail) {
    graph.forEachConsumer(queue[head++] as number, (consumer) => {
      if (visited[consumer] === 1) return;
      visited[consumer] = 1;
      queue[tail++] = consumer;
      if (graph.kindAt(consumer) === 'Dashboard') dashboards.push(graph.idAt(consumer));
    });
  }
  return Object.freeze(dashboards.sort(compareCodeUnits));
}
