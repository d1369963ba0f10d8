import type { ContractProject } from '../project/contract-project.js';
import { type GraphNode, ProjectGraph } from './graph.js';

/** The ProjectGraph of a validated contract project: its resources and `dependencyEdges()`. */
export function projectGraphOf(project: ContractProject): ProjectGraph {
  project.requireValid();
  const nodes: GraphNode[] = [];
  for (const outcome of project.outcomes) {
    if (outcome.id !== null && outcome.kind !== null) nodes.push({ id: outcome.id, kind: outcome.kind });
  }
  return ProjectGraph.build(nodes, project.dependencyEdges());
}
