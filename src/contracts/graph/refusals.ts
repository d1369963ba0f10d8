import { defineRefusals, Refusal } from '../../core/refusal/index.js';

export type ContractGraphRefusalCode =
  | 'contract_graph_cycle'
  | 'contract_graph_duplicate_edge'
  | 'contract_graph_duplicate_node'
  | 'contract_graph_node_unknown';

export const refuseGraph = defineRefusals<ContractGraphRefusalCode>({
  contract_graph_cycle: {
    category: 'conflict',
    message: 'the project graph has a dependency cycle',
  },
  contract_graph_duplicate_edge: {
    category: 'conflict',
    message: 'the project graph lists the same dependency edge twice',
  },
  contract_graph_duplicate_node: {
    category: 'conflict',
    message: 'the project graph lists the same resource twice',
  },
  contract_graph_node_unknown: {
    category: 'missing',
    message: 'an edge or the seed names a resource that is not in the project graph',
  },
});

/**
 * A graph refusal carrying the offending path (resource ids, consumer first;
 * a cycle ends where it started) for library callers. The path is never part
 * of the message or of `toJSON()`, so the CLI cannot print an id by accident.
 */
export class GraphRefusal extends Refusal<ContractGraphRefusalCode> {
  readonly path: readonly string[];

  constructor(code: ContractGraphRefusalCode, path: readonly string[]) {
    super(code, refuseGraph.table[code], { role: 'graph' });
    this.path = Object.freeze([...path]);
  }
}
