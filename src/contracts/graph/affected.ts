import { compareCodeUnits } from '../authoring/text.js';
import type { ProjectGraph } from './graph.js';
import { graphRefusal } from './refusals.js';

/**
 * The dashboards whose transitive dependency closure contains the directly
 * published identity `published`: one breadth-first walk from it along
 * consumer edges (linear in the graph), keeping the dashboards reached. Ids
 * are stable, sorted (code units) and distinct; dashboards that do not depend
 * on it are excluded. Only dashboards are reported: this does not claim
 * a closure of every other resource kind.
 */
export function affectedDashboards(graph: ProjectGraph, published: string): readonly string[] {
  const start = graph.indexOf(published);
  if (start === undefined) throw graphRefusal('contract_graph_node_unknown', [published]);
  // The starting resource is what a publication names directly; a dashboard is never published.
  if (graph.kindAt(start) === 'Dashboard') throw graphRefusal('contract_graph_seed_invalid', [published]);
  const visited = new Uint8Array(graph.size);
  const queue = new Int32Array(graph.size);
  let head = 0;
  let tail = 0;
  visited[start] = 1;
  queue[tail++] = start;
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
