import { stringify } from 'yaml';
import type { ContractProjectFile as ProjectFile } from '../src/contracts/index.js';
import { pick as pickFrom, seededRandom } from './prng.js';

/**
 * A synthetic contract project for the benchmark: for every group of ten
 * resources, 3.5 sources, 3.5 models (each reading a source and joining
 * another one, by id), 2 semantic models and 1 dashboard — realistic sizes
 * (8 fields per source, checks, a join with a CTE, filters with typed
 * literals), all deterministic from `seed`.
 */
export function generateContractProject(resources: number, seed: number): ProjectFile[] {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => pickFrom(random, items);
  const sources = Math.round(resources * 0.35);
  const models = Math.round(resources * 0.35);
  const semantics = Math.round(resources * 0.2);
  const dashboards = resources - sources - models - semantics;
  const files: ProjectFile[] = [];
  const add = (path: string, doc: unknown) =>
    files.push({ path, bytes: Buffer.from(stringify(doc, { lineWidth: 0 }), 'utf8') });
  const contract = () => ({
    version: `${Math.floor(random() * 5)}.${Math.floor(random() * 20)}.${Math.floor(random() * 50)}`,
    compatibility: pick(['backward', 'forward', 'full', 'none']),
  });
  const sourceId = (i: number) => `bench.source.s${i}`;
  const modelId = (i: number) => `bench.model.m${i}`;

  for (let i = 0; i < sources; i++) {
    add(`sources/s${i}.yaml`, {
      kind: 'Source',
      id: sourceId(i),
      name: `s${i}`,
      contract: contract(),
      description: 'Synthetic source for the benchmark.',
      location: { catalog: 'raw', schema: 'shop', table: `t${i}` },
      fields: [
        { name: 'id', type: 'int64', nullable: false, critical_data_element: true },
        { name: 'customer_id', type: 'int64', classification: 'confidential' },
        {
          name: 'status',
          type: 'string',
          authoritative_definitions: [`https://docs.example/terms/status-${i % 17}`],
        },
        { name: 'amount', type: 'decimal(12,2)' },
        { name: 'ordered_at', type: 'timestamp_tz' },
        { name: 'region', type: 'string', tags: ['geo'] },
        { name: 'quantity', type: 'int32' },
        {
          name: 'coupon',
          type: 'string',
          deprecation: { guidance: 'Use promotion instead.', replaced_by: 'promotion' },
        },
        { name: 'promotion', type: 'int64' },
      ],
    });
  }
  for (let i = 0; i < models; i++) {
    const a = sourceId(i % sources);
    const b = sourceId((i * 7 + 3) % sources);
    add(`models/m${i}.yaml`, {
      kind: 'Model',
      id: modelId(i),
      name: `m${i}`,
      contract: contract(),
      sql: [
        `with recent as (select * from "${a}" where ordered_at >= cast('2024-01-01' as date) and quantity > ${i % 100})`,
        'select r.id, r.customer_id, upper(r.status) as status, cast(r.amount as decimal(12, 2)) as amount,',
        "  r.ordered_at, coalesce(o.region, 'unknown') as region",
        `from recent r left join "${b}" o on o.customer_id = r.customer_id`,
        `where r.status in ('shipped', 'delivered') and r.amount between 0 and ${1000 + i}.50`,
      ].join('\n'),
      fields: [
        { name: 'id', type: 'int64', nullable: false },
        { name: 'customer_id', type: 'int64' },
        { name: 'status', type: 'string' },
        { name: 'amount', type: 'decimal(12,2)' },
        { name: 'ordered_at', type: 'timestamp_tz' },
        { name: 'region', type: 'string' },
      ],
      checks: [
        { type: 'unique', fields: ['id'] },
        { type: 'not_null', field: 'amount' },
        { type: 'accepted_values', field: 'status', values: ['SHIPPED', 'DELIVERED'], severity: 'warn' },
      ],
    });
  }
  for (let i = 0; i < semantics; i++) {
    add(`semantic/sm${i}.yaml`, {
      kind: 'SemanticModel',
      id: `bench.semantic.sm${i}`,
      name: `sm${i}`,
      contract: contract(),
      model: modelId(i % models),
      defaults: { agg_time_dimension: 'ordered_at' },
      entities: [
        { name: 'order', type: 'primary', fields: ['id'] },
        { name: 'customer', type: 'foreign', fields: ['customer_id'] },
      ],
      dimensions: [
        { name: 'ordered_at', type: 'time', field: 'ordered_at', time_granularity: 'day' },
        { name: 'status', type: 'categorical', field: 'status' },
        { name: 'region', type: 'categorical', field: 'region' },
      ],
      measures: [
        { name: 'revenue', agg: 'sum', field: 'amount' },
        { name: 'orders', agg: 'count' },
      ],
      filters: [
        {
          name: 'recent_shipped',
          conditions: [
            { dimension: 'status', op: 'in', values: ['SHIPPED', 'DELIVERED'] },
            { dimension: 'ordered_at', op: 'gte', value: `2024-0${1 + (i % 9)}-01T00:00:00Z` },
          ],
        },
      ],
    });
  }
  for (let i = 0; i < dashboards; i++) {
    add(`dashboards/d${i}.yaml`, {
      kind: 'Dashboard',
      id: `bench.dashboard.d${i}`,
      name: `d${i}`,
      uses: [
        {
          semantic_model: `bench.semantic.sm${i % semantics}`,
          measures: ['revenue'],
          dimensions: ['status'],
        },
      ],
    });
  }
  return files;
}
