import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseProject, dashboard, filesOf, model, semanticModel } from '../fixtures/resources.js';
import { ContractProject } from '../project/contract-project.js';
import { createDuckDbSqlParser, type SqlParser } from '../sql/parser.js';
import { affectedDashboards } from './affected.js';
import { projectGraphOf } from './from-project.js';
import { GRAPH_EDGE_KINDS, type GraphEdge, type GraphNode, ProjectGraph } from './graph.js';
import { refuseGraph } from './refusals.js';

const node = (id: string, kind: GraphNode['kind'] = 'Model'): GraphNode => ({ id, kind });
const edge = (from: string, to: string): GraphEdge => ({ from, to });

function refusalOf(work: () => unknown): { code: string; path: readonly string[]; json: string } | undefined {
  try {
    work();
  } catch (error: unknown) {
    if (!refuseGraph.is(error)) throw error;
    return { code: error.code, path: error.details.path, json: JSON.stringify(error.toJSON()) };
  }
  return undefined;
}

describe('ProjectGraph construction', () => {
  it('refuses a cycle with its path, consumer first and closed', () => {
    const refusal = refusalOf(() =>
      ProjectGraph.build(
        [node('a'), node('b'), node('c'), node('d')],
        [edge('d', 'a'), edge('a', 'b'), edge('b', 'c'), edge('c', 'a')],
      ),
    );
    expect(refusal?.code).toBe('contract_graph_cycle');
    const path = refusal?.path ?? [];
    expect(path[0]).toBe(path[path.length - 1]);
    expect(new Set(path)).toEqual(new Set(['a', 'b', 'c']));
    // Each step of the path is an edge consumer → dependency.
    const edges = new Set(['a>b', 'b>c', 'c>a']);
    for (let i = 1; i < path.length; i++) expect(edges.has(`${path[i - 1]}>${path[i]}`)).toBe(true);
  });

  it('refuses a self-loop as a cycle', () => {
    expect(refusalOf(() => ProjectGraph.build([node('a')], [edge('a', 'a')]))).toMatchObject({
      code: 'contract_graph_cycle',
      path: ['a', 'a'],
    });
  });

  it('refuses a duplicate edge with the edge', () => {
    expect(
      refusalOf(() =>
        ProjectGraph.build(
          [node('a'), node('b'), node('c')],
          [edge('a', 'b'), edge('a', 'c'), edge('a', 'b')],
        ),
      ),
    ).toMatchObject({ code: 'contract_graph_duplicate_edge', path: ['a', 'b'] });
  });

  it('refuses duplicate nodes and edges to unknown nodes', () => {
    expect(refusalOf(() => ProjectGraph.build([node('a'), node('a')], []))).toMatchObject({
      code: 'contract_graph_duplicate_node',
      path: ['a'],
    });
    expect(refusalOf(() => ProjectGraph.build([node('a')], [edge('a', 'zz')]))).toMatchObject({
      code: 'contract_graph_node_unknown',
      path: ['a', 'zz'],
    });
  });

  it('refuses a node of an unknown kind and an edge between kinds the graph does not allow', () => {
    expect(
      refusalOf(() => ProjectGraph.build([node('a'), { id: 'b', kind: 'Report' as GraphNode['kind'] }], [])),
    ).toMatchObject({ code: 'contract_graph_kind_unknown', path: ['b'] });
    const nodes = [node('s', 'Source'), node('m'), node('sm', 'SemanticModel'), node('d', 'Dashboard')];
    const refusedEdges: readonly GraphEdge[] = [
      edge('s', 'm'), // a source depends on nothing
      edge('d', 'm'), // a dashboard reads semantic models only
      edge('sm', 's'), // a semantic model's dataset is a model
      edge('m', 'sm'),
      edge('m', 'd'),
      edge('sm', 'd'),
    ];
    for (const wrong of refusedEdges) {
      expect(refusalOf(() => ProjectGraph.build(nodes, [wrong]))).toMatchObject({
        code: 'contract_graph_edge_not_allowed',
        path: [wrong.from, wrong.to],
      });
    }
    expect(ProjectGraph.build(nodes, [edge('m', 's'), edge('sm', 'm'), edge('d', 'sm')]).size).toBe(4);
  });

  it('never prints the offending path in its message or JSON', () => {
    const refusal = refusalOf(() =>
      ProjectGraph.build(
        [node('secret.sentinel.one'), node('secret.sentinel.two')],
        [
          edge('secret.sentinel.one', 'secret.sentinel.two'),
          edge('secret.sentinel.two', 'secret.sentinel.one'),
        ],
      ),
    );
    expect(refusal?.json).not.toContain('sentinel');
  });
});

describe('affectedDashboards', () => {
  it('finds dashboards through a diamond once, sorted, and excludes unrelated ones', () => {
    //   d.z   d.a      d.unrelated
    //     \   /  \          |
    //      sm1   sm2       sm3
    //        \   /          |
    //        model        other (a model)
    //          |
    //        source
    const graph = ProjectGraph.build(
      [
        node('source', 'Source'),
        node('model'),
        node('sm1', 'SemanticModel'),
        node('sm2', 'SemanticModel'),
        node('sm3', 'SemanticModel'),
        node('other'),
        node('d.z', 'Dashboard'),
        node('d.a', 'Dashboard'),
        node('d.unrelated', 'Dashboard'),
      ],
      [
        edge('model', 'source'),
        edge('sm1', 'model'),
        edge('sm2', 'model'),
        edge('sm3', 'other'),
        edge('d.z', 'sm1'),
        edge('d.a', 'sm1'),
        edge('d.a', 'sm2'),
        edge('d.unrelated', 'sm3'),
      ],
    );
    expect(affectedDashboards(graph, 'source')).toEqual(['d.a', 'd.z']);
    expect(affectedDashboards(graph, 'sm2')).toEqual(['d.a']);
    expect(affectedDashboards(graph, 'other')).toEqual(['d.unrelated']);
    expect(affectedDashboards(graph, 'model')).toEqual(['d.a', 'd.z']);
    // A dashboard is a consumer, never what a publication names: refused, not answered with none.
    expect(refusalOf(() => affectedDashboards(graph, 'd.a'))).toMatchObject({
      code: 'contract_graph_seed_invalid',
      path: ['d.a'],
    });
  });

  it('walks a deep chain (100,000 resources) without recursion', () => {
    const n = 100_000;
    const kindAt = (i: number) => (i === n - 1 ? 'Dashboard' : i === n - 2 ? 'SemanticModel' : 'Model');
    const nodes = Array.from({ length: n }, (_, i) => node(`r${i}`, kindAt(i)));
    const edges = Array.from({ length: n - 1 }, (_, i) => edge(`r${i + 1}`, `r${i}`));
    const graph = ProjectGraph.build(nodes, edges);
    expect(affectedDashboards(graph, 'r0')).toEqual([`r${n - 1}`]);
    // The same chain closed into a cycle is refused without a stack overflow.
    expect(refusalOf(() => ProjectGraph.build(nodes, [...edges, edge('r0', 'r1')]))?.code).toBe(
      'contract_graph_cycle',
    );
  });

  it('refuses a seed that is not in the graph', () => {
    const graph = ProjectGraph.build([node('a')], []);
    expect(refusalOf(() => affectedDashboards(graph, 'b'))).toMatchObject({
      code: 'contract_graph_node_unknown',
      path: ['b'],
    });
  });

  it('agrees with a naive closure of every dashboard on random DAGs', () => {
    const dag = fc.integer({ min: 2, max: 24 }).chain((n) =>
      fc.record({
        kinds: fc.array(fc.constantFrom<GraphNode['kind']>('Source', 'Model', 'SemanticModel', 'Dashboard'), {
          minLength: n,
          maxLength: n,
        }),
        // Edges only from a higher to a lower index: acyclic by construction.
        edges: fc.uniqueArray(
          fc.integer({ min: 1, max: n - 1 }).chain((a) => fc.tuple(fc.constant(a), fc.nat(a - 1))),
          { selector: ([a, b]) => `${a}>${b}`, maxLength: 60 },
        ),
        seed: fc.nat(n - 1),
      }),
    );
    fc.assert(
      fc.property(dag, ({ kinds, edges, seed }) => {
        const ids = kinds.map((_, i) => `n${String(i).padStart(2, '0')}`);
        // Only the edges the graph allows between those kinds.
        const allowed = edges.filter(([a, b]) =>
          GRAPH_EDGE_KINDS[kinds[a] as GraphNode['kind']].includes(kinds[b] as GraphNode['kind']),
        );
        const graph = ProjectGraph.build(
          kinds.map((kind, i) => ({ id: ids[i] as string, kind })),
          allowed.map(([a, b]) => ({ from: ids[a] as string, to: ids[b] as string })),
        );
        const closure = (start: number): Set<number> => {
          const out = new Set<number>();
          const visit = (i: number) => {
            for (const [a, b] of allowed) {
              if (a === i && !out.has(b)) {
                out.add(b);
                visit(b);
              }
            }
          };
          visit(start);
          return out;
        };
        if (kinds[seed] === 'Dashboard') {
          expect(refusalOf(() => affectedDashboards(graph, ids[seed] as string))?.code).toBe(
            'contract_graph_seed_invalid',
          );
          return;
        }
        const naive = kinds
          .map((kind, i) => (kind === 'Dashboard' && closure(i).has(seed) ? (ids[i] as string) : null))
          .filter((id): id is string => id !== null)
          .sort();
        expect(affectedDashboards(graph, ids[seed] as string)).toEqual(naive);
      }),
      { numRuns: 300 },
    );
  });
});

describe('the graph of a contract project', () => {
  let parser: SqlParser;
  beforeAll(async () => {
    parser = await createDuckDbSqlParser();
  });
  afterAll(() => parser.close());

  it('uses the project dependency edges: dashboards of a source, through models and semantic models', async () => {
    const docs = baseProject({
      'models/other.yaml': model({ id: 't.model.other', name: 'other', sql: 'select 1 as order_id' }),
      'semantic/other.yaml': semanticModel({ id: 't.semantic.other', name: 'other_sm', model: 'other' }),
      'dashboards/other.yaml': dashboard({
        id: 't.dashboard.other',
        name: 'other_dash',
        uses: [{ semantic_model: 'other_sm', measures: ['revenue'], dimensions: ['status'] }],
      }),
    });
    const project = await ContractProject.fromFiles(filesOf(docs), parser);
    const graph = projectGraphOf(project);
    expect(affectedDashboards(graph, 't.source.orders')).toEqual(['t.dashboard.sales']);
    expect(affectedDashboards(graph, 't.model.other')).toEqual(['t.dashboard.other']);
  });

  it('refuses an invalid project', async () => {
    const project = await ContractProject.fromFiles(
      filesOf(baseProject({ 'sources/bad.yaml': 'kind: Nope' })),
      parser,
    );
    expect(() => projectGraphOf(project)).toThrow(
      expect.objectContaining({ code: 'contract_project_invalid' }),
    );
  });
});
