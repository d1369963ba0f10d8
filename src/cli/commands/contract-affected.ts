import './contract-schemas-interpreted.js';
import {
  affectedDashboards,
  type ContractProject,
  openContractProjectCached,
  projectGraphOf,
  refuseGraph,
} from '../../contracts/index.js';
import type { Command, CommandResult } from '../command.js';
import { parseCommandArgs, requireArgument, requireOption } from '../parse.js';
import { LEDGER_EXIT_CODES, withValidateHint } from './contract-ledger-output.js';

const USAGE = `Usage: sealkit contract affected DIR --resource ID [--json]

Lists the dashboards of the contract project in DIR whose transitive
dependencies include the resource ID (the identity a publication names
directly): sorted, each once, dashboards that do not depend on it excluded.
The project must validate (see sealkit contract validate).

Flags:
  --resource ID   the directly published resource
  --json          print one JSON object on stdout
  -h, --help      show this help

${LEDGER_EXIT_CODES}

Examples:
  sealkit contract affected retail --resource retail.source.orders
  sealkit contract affected retail --resource retail.model.customer_dim --json`;

export const contractAffected: Command = {
  path: ['contract', 'affected'],
  usage: USAGE,
  async run(args): Promise<CommandResult> {
    const { values, positionals } = parseCommandArgs(
      args,
      { resource: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      USAGE,
      { min: 0, max: 1 },
    );
    const dir = requireArgument(positionals[0], 'DIR', USAGE);
    const resource = requireOption(values.resource, '--resource', USAGE);
    const { project, keepParses } = await openContractProjectCached(dir);
    let graph: ReturnType<typeof projectGraphOf>;
    try {
      graph = projectGraphOf(project);
    } catch (error: unknown) {
      throw withValidateHint(error, dir);
    }
    if (!graph.has(resource)) throw project.resourceNotFound(resource);
    let dashboards: readonly string[];
    try {
      dashboards = affectedDashboards(graph, resource);
    } catch (error: unknown) {
      throw placeDashboardSeed(project, resource, error);
    }
    keepParses(false);
    return {
      text: `${dashboards.map((id) => `${id}\n`).join('')}${dashboards.length} dashboard${dashboards.length === 1 ? '' : 's'} affected\n`,
      json: { status: 'ok', resource, dashboards: [...dashboards] },
    };
  },
};

/**
 * A dashboard given as --resource is the operator's own id, in the
 * operator's own file: the refusal says which file declares it and names
 * what the dashboard reads, the resources a user most likely meant, as
 * `contract project --resource` does for a dashboard.
 */
function placeDashboardSeed(project: ContractProject, resource: string, error: unknown): unknown {
  if (!refuseGraph.is(error, 'contract_graph_seed_invalid')) return error;
  const read = project.outcomes.find((outcome) => outcome.id === resource)?.dependencies.slice(0, 3) ?? [];
  const hint =
    read.length === 0
      ? 'start from a Source, Model or SemanticModel'
      : `start from a Source, Model or SemanticModel, such as one this dashboard reads: ${read.join(', ')}`;
  return project.placeInFile(resource, error, 'id', hint);
}
