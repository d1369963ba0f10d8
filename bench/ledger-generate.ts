import { stringify } from 'yaml';
import type {
  ContractProjectFile as ProjectFile,
  ProjectGraphEdge,
  ProjectGraphNode,
} from '../src/contracts/index.js';
import { at } from '../src/core/list/index.js';
import { seededRandom } from './prng.js';

/**
 * The publication workload: `resources` sources, each published at
 * `versions` versions (1.0.0, 1.1.0, ...); version k adds a field to the one
 * before, a compatible change. One project per version step.
 */
export function ledgerWorkload(resources: number, versions: number): ProjectFile[][] {
  const steps: ProjectFile[][] = [];
  for (let k = 0; k < versions; k++) {
    const files: ProjectFile[] = [];
    for (let r = 0; r < resources; r++) {
      const fields = [
        { name: 'id', type: 'int64', nullable: false, critical_data_element: true },
        { name: 'customer_id', type: 'int64', classification: 'confidential' },
        { name: 'amount', type: 'decimal(12,2)' },
        { name: 'created_at', type: 'timestamp_tz', nullable: false },
        ...Array.from({ length: k }, (_, i) => ({ name: `attribute_${i}`, type: 'string' })),
      ];
      const doc = {
        kind: 'Source',
        id: `bench.source.s${r}`,
        name: `s${r}`,
        contract: { version: `1.${k}.0`, compatibility: 'backward' },
        fields,
      };
      files.push({ path: `s${r}.yaml`, bytes: Buffer.from(stringify(doc), 'utf8') });
    }
    steps.push(files);
  }
  return steps;
}

/**
 * A layered dependency graph: 20 % sources, 40 % models, 30 % semantic
 * models, 10 % dashboards; `edges` distinct edges, each from a resource to
 * one of a kind it may read (a model to a source or an earlier model, so
 * acyclic), deterministic from `seed`.
 */
export function generateProjectGraph(
  resources: number,
  edges: number,
  seed: number,
): { readonly nodes: ProjectGraphNode[]; readonly edges: ProjectGraphEdge[] } {
  const random = seededRandom(seed);
  const layers: [ProjectGraphNode['kind'], number][] = [
    ['Source', 0.2],
    ['Model', 0.4],
    ['SemanticModel', 0.3],
    ['Dashboard', 0.1],
  ];
  const nodes: ProjectGraphNode[] = [];
  const starts: number[] = [];
  for (const [kind, share] of layers) {
    starts.push(nodes.length);
    const count = Math.round(resources * share);
    for (let i = 0; i < count && nodes.length < resources; i++)
      nodes.push({ id: `bench.${kind.toLowerCase()}.r${nodes.length}`, kind });
  }
  const seen = new Set<number>();
  const out: ProjectGraphEdge[] = [];
  const firstConsumer = at(starts, 1);
  while (out.length < edges) {
    const from = firstConsumer + Math.floor(random() * (nodes.length - firstConsumer));
    const layer = starts.filter((start) => start <= from).length - 1;
    // The project's shape: a model reads sources and earlier models, a semantic model models,
    // a dashboard semantic models.
    const [low, high] = layer === 1 ? [0, from] : [at(starts, layer - 1), at(starts, layer)];
    const to = low + Math.floor(random() * (high - low));
    const key = from * nodes.length + to;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ from: at(nodes, from).id, to: at(nodes, to).id });
  }
  return { nodes, edges: out };
}
