import { defineRefusals, type RefusalOf, type WithDetails } from '../../core/refusal/index.js';

export type ContractGraphRefusalCode =
  | 'contract_graph_cycle'
  | 'contract_graph_duplicate_edge'
  | 'contract_graph_duplicate_node'
  | 'contract_graph_node_unknown'
  | 'contract_graph_kind_unknown'
  | 'contract_graph_edge_not_allowed'
  | 'contract_graph_seed_invalid';

/**
 * Every graph refusal carries the offending path for library callers:
 * resource ids, consumer first; a cycle ends where it started. The ids are
 * never part of the message, and not printable (no `printDetails`), so
 * `--json` cannot print an id by accident.
 */
export interface GraphPath {
  readonly path: readonly string[];
}

export type ContractGraphRefusalDetails = WithDetails<
  ContractGraphRefusalCode,
  {
    contract_graph_cycle: GraphPath;
    contract_graph_duplicate_edge: GraphPath;
    contract_graph_duplicate_node: GraphPath;
    contract_graph_node_unknown: GraphPath;
    contract_graph_kind_unknown: GraphPath;
    contract_graph_edge_not_allowed: GraphPath;
    contract_graph_seed_invalid: GraphPath;
  }
>;

export const refuseGraph = defineRefusals<ContractGraphRefusalCode, ContractGraphRefusalDetails>({
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
  contract_graph_kind_unknown: {
    category: 'unsupported',
    message:
      'a resource of the project graph has a kind other than Source, Model, SemanticModel or Dashboard',
  },
  contract_graph_edge_not_allowed: {
    category: 'unsupported',
    message:
      'an edge joins kinds the project graph does not allow (a model reads sources and models, a semantic model a model, a dashboard semantic models)',
  },
  contract_graph_seed_invalid: {
    category: 'unsupported',
    message:
      'affected dashboards start from a published Source, Model or SemanticModel; a dashboard is a consumer, not a seed',
  },
});

/** A refusal of this table: after `refuseGraph.is(error)`, `error.details.path` is the path. */
export type GraphRefusal = RefusalOf<ContractGraphRefusalDetails, ContractGraphRefusalCode>;

/** The refusal of `code` with its path (copied and frozen by the refusal). */
export function graphRefusal(code: ContractGraphRefusalCode, path: readonly string[]): GraphRefusal {
  return refuseGraph(code, { role: 'graph', details: { path } });
}
