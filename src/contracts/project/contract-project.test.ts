import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  baseProject,
  type Doc,
  dashboard,
  filesOf,
  model,
  semanticModel,
  source,
} from '../fixtures/resources.js';
import { createDuckDbSqlParser, type SqlParser } from '../sql/parser.js';
import { ContractProject } from './contract-project.js';

let parser: SqlParser;
beforeAll(async () => {
  parser = await createDuckDbSqlParser();
});
afterAll(() => parser.close());

const open = (docs: Record<string, Doc | string>) => ContractProject.fromFiles(filesOf(docs), parser);

async function digestOf(docs: Record<string, Doc | string>, id: string): Promise<string> {
  const project = await open(docs);
  return project.project(id).digest;
}

async function refusalOf(docs: Record<string, Doc | string>, path: string) {
  const project = await open(docs);
  const outcome = project.outcomes.find((candidate) => candidate.path === path);
  expect(outcome?.status).toBe('refused');
  return { code: outcome?.refusal?.code, field: outcome?.refusal?.field, role: outcome?.refusal?.role };
}

/** The hint of the refusal of the file at `path`. */
async function hintOf(docs: Record<string, Doc | string>, path: string) {
  const project = await open(docs);
  return project.outcomes.find((candidate) => candidate.path === path)?.refusal?.hint;
}

describe('a valid project', () => {
  it('validates every file and records dependency edges from consumer to dependency', async () => {
    const project = await open(baseProject());
    expect(project.valid).toBe(true);
    expect(project.outcomes.map((outcome) => [outcome.file, outcome.kind, outcome.status])).toEqual([
      [1, 'Dashboard', 'valid'],
      [2, 'Model', 'valid'],
      [3, 'SemanticModel', 'valid'],
      [4, 'Source', 'valid'],
    ]);
    expect(project.dependencyEdges()).toEqual([
      { from: 't.dashboard.sales', to: 't.semantic.orders' },
      { from: 't.model.facts', to: 't.source.orders' },
      { from: 't.semantic.orders', to: 't.model.facts' },
    ]);
  });

  it('refuses to seal a dashboard, an unknown id, and an unversioned resource without a fallback', async () => {
    const project = await open(baseProject({ 'sources/orders.yaml': source({ contract: undefined }) }));
    expect(() => project.seal('t.dashboard.sales')).toThrow(
      expect.objectContaining({ code: 'contract_resource_not_contract_bearing' }),
    );
    expect(() => project.seal('t.nope')).toThrow(
      expect.objectContaining({ code: 'contract_resource_not_found' }),
    );
    expect(() => project.seal('t.source.orders')).toThrow(
      expect.objectContaining({ code: 'contract_version_missing' }),
    );
  });
});

describe('authored contract metadata is authoritative over the constructor fallback', () => {
  it('uses the fallback only when nothing is authored', async () => {
    const project = await open(baseProject({ 'sources/orders.yaml': source({ contract: undefined }) }));
    const sealed = project.seal('t.source.orders', { version: '2.1.0', compatibility: 'full' });
    expect([sealed.version, sealed.compatibility]).toEqual(['2.1.0', 'full']);
  });

  it('accepts a matching fallback and refuses a mismatching one', async () => {
    const project = await open(baseProject());
    expect(project.seal('t.source.orders', { version: '1.0.0', compatibility: 'backward' }).version).toBe(
      '1.0.0',
    );
    for (const fallback of [
      { version: '1.0.1', compatibility: 'backward' },
      { version: '1.0.0', compatibility: 'full' },
    ] as const) {
      expect(() => project.seal('t.source.orders', fallback)).toThrow(
        expect.objectContaining({ code: 'contract_version_mismatch' }),
      );
    }
  });

  it('refuses a malformed fallback', async () => {
    const project = await open(baseProject({ 'sources/orders.yaml': source({ contract: undefined }) }));
    expect(() => project.seal('t.source.orders', { version: '01.0.0', compatibility: 'full' })).toThrow(
      expect.objectContaining({ code: 'contract_field_invalid', field: 'contract' }),
    );
  });

  it('changes identity with the version', async () => {
    const a = await digestOf(baseProject(), 't.source.orders');
    const b = await digestOf(
      baseProject({
        'sources/orders.yaml': source({ contract: { version: '1.0.1', compatibility: 'backward' } }),
      }),
      't.source.orders',
    );
    expect(a).not.toBe(b);
  });
});

describe('the ReferenceContext', () => {
  it('resolves an explicit id first and a project-local name as the fallback, to the same identity', async () => {
    const byName = await digestOf(baseProject(), 't.semantic.orders');
    const byId = await digestOf(
      baseProject({ 'semantic/orders.yaml': semanticModel({ model: 't.model.facts' }) }),
      't.semantic.orders',
    );
    expect(byId).toBe(byName);
  });

  it('prefers an id over a name that another resource uses', async () => {
    // A second model whose *name* is the first model's id: the reference means the id.
    const other = model({ id: 't.model.other', name: 'other', sql: 'select 1 as order_id' });
    const docs = baseProject({
      'models/other.yaml': other,
      'semantic/orders.yaml': semanticModel({ model: 't.model.facts' }),
    });
    const project = await open(docs);
    expect(project.valid).toBe(true);
    expect(project.dependencyEdges()).toContainEqual({ from: 't.semantic.orders', to: 't.model.facts' });
  });

  it('refuses an unavailable reference', async () => {
    expect(
      await refusalOf(
        baseProject({ 'semantic/orders.yaml': semanticModel({ model: 'nope' }) }),
        'semantic/orders.yaml',
      ),
    ).toEqual({
      code: 'contract_reference_unavailable',
      field: 'model',
      role: 'semantic_model',
    });
  });

  it('refuses a reference whose id names a resource of another kind', async () => {
    expect(
      await refusalOf(
        baseProject({ 'semantic/orders.yaml': semanticModel({ model: 't.source.orders' }) }),
        'semantic/orders.yaml',
      ),
    ).toMatchObject({ code: 'contract_reference_kind_mismatch', field: 'model' });
  });

  it('refuses a name that only a resource of another kind has', async () => {
    expect(
      await refusalOf(
        baseProject({ 'semantic/orders.yaml': semanticModel({ model: 'orders' }) }),
        'semantic/orders.yaml',
      ),
    ).toMatchObject({ code: 'contract_reference_kind_mismatch' });
  });

  it('refuses an ambiguous name', async () => {
    const twin = model({ id: 't.model.twin' });
    expect(await refusalOf(baseProject({ 'models/twin.yaml': twin }), 'semantic/orders.yaml')).toMatchObject({
      code: 'contract_reference_ambiguous',
      field: 'model',
    });
    expect(await hintOf(baseProject({ 'models/twin.yaml': twin }), 'semantic/orders.yaml')).toBe(
      "'facts' is the name of 2 resources; use an id: t.model.facts, t.model.twin",
    );
  });

  it('refuses an ambiguous SQL relation name (a source and a model share it)', async () => {
    const shadow = model({ id: 't.model.shadow', name: 'orders', sql: 'select 1 as order_id' });
    expect(await refusalOf(baseProject({ 'models/shadow.yaml': shadow }), 'models/facts.yaml')).toMatchObject(
      {
        code: 'contract_reference_ambiguous',
        field: 'sql',
      },
    );
    // regression: an id offered unquoted was refused next as a schema-qualified table.
    expect(await hintOf(baseProject({ 'models/shadow.yaml': shadow }), 'models/facts.yaml')).toBe(
      '\'orders\' is the name of 2 resources; use an id, in double quotes as one identifier: "t.model.shadow", "t.source.orders"',
    );
  });

  it("regression: a table written as a source's location names that source, not another project's example", async () => {
    const located = source({ location: { catalog: 'raw', schema: 'storefront', table: 'orders' } });
    const reading = (table: string) =>
      baseProject({
        'sources/orders.yaml': located,
        'models/facts.yaml': model({ sql: `select order_id from ${table}` }),
      });
    expect(await hintOf(reading('raw.storefront.orders'), 'models/facts.yaml')).toBe(
      'a schema-qualified table raw.storefront.orders is not allowed (SQL line 1, column 22): raw.storefront.orders is the location of t.source.orders: FROM reads it by its name, orders (or its id in double quotes, "t.source.orders")',
    );
    expect(await hintOf(reading('Storefront.Orders'), 'models/facts.yaml')).toContain(
      'Storefront.Orders is the location of t.source.orders',
    );
    expect(await hintOf(reading('raw.elsewhere.orders'), 'models/facts.yaml')).toBe(
      'a schema-qualified table raw.elsewhere.orders is not allowed (SQL line 1, column 22): FROM reads sources and models of the project, not tables: name one by its name, or by its id in double quotes as one identifier',
    );
  });

  it('keeps the member suffix of a relationship target while resolving its resource part', async () => {
    const customers = semanticModel({
      id: 't.semantic.customers',
      name: 'customers_sm',
      entities: [{ name: 'order', type: 'primary', fields: ['order_id'] }],
      filters: [],
    });
    const withRelationship = (to: string) =>
      baseProject({
        'semantic/customers.yaml': customers,
        'semantic/orders.yaml': semanticModel({
          relationships: [{ name: 'same', fields: ['order_id'], to, cardinality: 'one_to_one' }],
        }),
      });
    const project = await open(withRelationship('customers_sm.order'));
    const view = project.seal('t.semantic.orders').view();
    expect(view.content).toMatchObject({
      relationships: [{ to: { resource: 't.semantic.customers', member: 'order' }, path: [] }],
    });
    expect(await digestOf(withRelationship('t.semantic.customers.order'), 't.semantic.orders')).toBe(
      project.project('t.semantic.orders').digest,
    );
    expect(await refusalOf(withRelationship('customers_sm.customer'), 'semantic/orders.yaml')).toMatchObject({
      code: 'contract_member_unavailable',
      field: 'relationships[].to',
    });
  });

  it('refuses a relationship whose field tuple has another length than the target entity', async () => {
    const docs = baseProject({
      'semantic/orders.yaml': semanticModel({
        relationships: [
          { name: 'self', fields: ['order_id', 'amount'], to: 'orders_sm.order', cardinality: 'one_to_one' },
        ],
      }),
    });
    expect(await refusalOf(docs, 'semantic/orders.yaml')).toMatchObject({ code: 'contract_arity_mismatch' });
  });

  it('keeps the order of relationship paths and entity tuples', async () => {
    const hops = (path: string[], fields: string[]) =>
      baseProject({
        'semantic/orders.yaml': semanticModel({
          entities: [{ name: 'order', type: 'primary', fields: [...fields] }],
          relationships: [
            { name: 'loop', fields: [...fields], to: 'orders_sm.order', cardinality: 'one_to_one', path },
          ],
        }),
      });
    const a = await digestOf(
      hops(['orders_sm.order', 't.semantic.orders.order'], ['order_id', 'amount']),
      't.semantic.orders',
    );
    const b = await digestOf(
      hops(['t.semantic.orders.order', 'orders_sm.order'], ['order_id', 'amount']),
      't.semantic.orders',
    );
    const c = await digestOf(
      hops(['orders_sm.order', 't.semantic.orders.order'], ['amount', 'order_id']),
      't.semantic.orders',
    );
    // The two path spellings resolve to the same hops, so a and b agree; swapping the tuple does not.
    expect(a).toBe(b);
    expect(c).not.toBe(a);
  });

  it('checks dashboard references and their members', async () => {
    expect(
      await refusalOf(
        baseProject({
          'dashboards/sales.yaml': dashboard({ uses: [{ semantic_model: 'orders_sm', measures: ['nope'] }] }),
        }),
        'dashboards/sales.yaml',
      ),
    ).toMatchObject({ code: 'contract_member_unavailable', field: 'uses[].measures', role: 'dashboard' });
    expect(
      await refusalOf(
        baseProject({ 'dashboards/sales.yaml': dashboard({ uses: [{ semantic_model: 'facts' }] }) }),
        'dashboards/sales.yaml',
      ),
    ).toMatchObject({ code: 'contract_reference_kind_mismatch', field: 'uses[].semantic_model' });
  });
});

describe('the project graph', () => {
  it('refuses every file that declares a repeated id, and blocks the others', async () => {
    const project = await open(baseProject({ 'sources/again.yaml': source({ name: 'again' }) }));
    expect(project.valid).toBe(false);
    expect(
      project.outcomes.map((outcome) => [outcome.path, outcome.status, outcome.refusal?.code ?? null]),
    ).toEqual([
      ['dashboards/sales.yaml', 'blocked', null],
      ['models/facts.yaml', 'blocked', null],
      ['semantic/orders.yaml', 'blocked', null],
      ['sources/again.yaml', 'refused', 'contract_duplicate_id'],
      ['sources/orders.yaml', 'refused', 'contract_duplicate_id'],
    ]);
    expect(() => project.seal('t.model.facts')).toThrow(
      expect.objectContaining({ code: 'contract_project_invalid' }),
    );
  });

  it('refuses models that depend on each other in a cycle, and a self-reference', async () => {
    const a = model({ id: 't.model.a', name: 'a', sql: 'select order_id from b' });
    const b = model({ id: 't.model.b', name: 'b', sql: 'select order_id from a' });
    const self = model({ id: 't.model.self', name: 'self_ref', sql: 'select order_id from self_ref' });
    const project = await open(
      baseProject({ 'models/a.yaml': a, 'models/b.yaml': b, 'models/self.yaml': self }),
    );
    const codes = Object.fromEntries(
      project.outcomes.map((outcome) => [outcome.path, outcome.refusal?.code ?? null]),
    );
    expect(codes['models/a.yaml']).toBe('contract_reference_cycle');
    expect(codes['models/b.yaml']).toBe('contract_reference_cycle');
    expect(codes['models/self.yaml']).toBe('contract_reference_cycle');
    expect(codes['models/facts.yaml']).toBeNull();
  });
});

describe('normalization before RFC 8785', () => {
  it('materializes contractual defaults: explicit defaults and omitted ones have one identity', async () => {
    const implicit = await open(baseProject());
    const explicit = await open(
      baseProject({
        'models/facts.yaml': model({
          checks: [{ type: 'unique', fields: ['order_id'], severity: 'error' }],
          fields: (model().fields as Doc[]).map((field) => ({
            nullable: true,
            classification: 'internal',
            critical_data_element: false,
            authoritative_definitions: [],
            ...field,
          })),
        }),
        'semantic/orders.yaml': semanticModel({
          defaults: {},
          dimensions: [
            { name: 'status', type: 'categorical', field: 'order_status' },
            { name: 'ordered_at', type: 'time', field: 'ordered_at', time_granularity: 'day' },
          ],
          measures: [{ name: 'revenue', agg: 'sum', field: 'amount', empty_result: null }],
          relationships: [],
        }),
      }),
    );
    for (const id of ['t.model.facts', 't.semantic.orders']) {
      expect(explicit.project(id).digest).toBe(implicit.project(id).digest);
    }
    const content = implicit.seal('t.semantic.orders').view().content as unknown as Doc;
    expect(content.measures).toEqual([
      expect.objectContaining({ empty_result: 'null', agg_time_dimension: null }),
    ]);
    expect(content.dimensions).toContainEqual(
      expect.objectContaining({ name: 'ordered_at', time_granularity: 'day' }),
    );
  });

  it('materializes count measures as zero on empty input and the declared time default', async () => {
    const project = await open(
      baseProject({
        'semantic/orders.yaml': semanticModel({
          defaults: { agg_time_dimension: 'ordered_at' },
          measures: [
            { name: 'orders', agg: 'count' },
            { name: 'revenue', agg: 'sum', field: 'amount', empty_result: 'zero' },
          ],
        }),
      }),
    );
    const content = project.seal('t.semantic.orders').view().content as unknown as Doc;
    expect(content.measures).toEqual([
      { name: 'orders', agg: 'count', binding: null, empty_result: 'zero', agg_time_dimension: 'ordered_at' },
      expect.objectContaining({ name: 'revenue', empty_result: 'zero', agg_time_dimension: 'ordered_at' }),
    ]);
  });

  it('treats unique-check fields and accepted values as sets, deduplicating nothing silently', async () => {
    const checks = (fields: string[], values: unknown[]) =>
      baseProject({
        'models/facts.yaml': model({
          checks: [
            { type: 'unique', fields },
            { type: 'accepted_values', field: 'order_status', values },
          ],
        }),
      });
    const a = await digestOf(checks(['order_id', 'amount'], ['shipped', 'placed']), 't.model.facts');
    const b = await digestOf(checks(['amount', 'order_id'], ['placed', 'shipped']), 't.model.facts');
    expect(a).toBe(b);
    expect(await refusalOf(checks(['order_id', 'order_id'], ['placed']), 'models/facts.yaml')).toMatchObject({
      code: 'contract_duplicate_member',
      field: 'checks[].fields',
    });
    expect(await refusalOf(checks(['order_id'], ['placed', 'placed']), 'models/facts.yaml')).toMatchObject({
      code: 'contract_duplicate_member',
      field: 'checks[].values',
    });
  });

  it('regression: a field name written twice names where the first copy is (was only "written twice here")', async () => {
    const twice = baseProject({
      'sources/orders.yaml': source({
        fields: [
          { name: 'order_id', type: 'int64', nullable: false },
          { name: 'status', type: 'string' },
          { name: 'amount', type: 'decimal(10,2)' },
          { name: 'ordered_at', type: 'timestamp' },
          { name: 'status', type: 'string' },
        ],
      }),
    });
    expect(await refusalOf(twice, 'sources/orders.yaml')).toMatchObject({
      code: 'contract_duplicate_member',
    });
    expect(await hintOf(twice, 'sources/orders.yaml')).toBe(
      "'status' is written twice here: fields[1].name has it too; keep one of the two",
    );
  });

  it('normalizes text to NFC and refuses two names or values that collide after NFC', async () => {
    const composed = 'caf\u00e9';
    const decomposed = 'cafe\u0301';
    const withField = (name: string) =>
      baseProject({ 'sources/orders.yaml': source({ fields: [{ name, type: 'string' }] }) });
    expect(await digestOf(withField(decomposed), 't.source.orders')).toBe(
      await digestOf(withField(composed), 't.source.orders'),
    );
    const collision = baseProject({
      'sources/orders.yaml': source({
        fields: [
          { name: composed, type: 'string' },
          { name: decomposed, type: 'int64' },
        ],
      }),
    });
    expect(await refusalOf(collision, 'sources/orders.yaml')).toEqual({
      code: 'contract_nfc_collision',
      field: 'fields[].name',
      role: 'source',
    });
    const values = baseProject({
      'models/facts.yaml': model({
        checks: [{ type: 'accepted_values', field: 'order_status', values: [composed, decomposed] }],
      }),
    });
    expect(await refusalOf(values, 'models/facts.yaml')).toMatchObject({ code: 'contract_nfc_collision' });
  });

  it('refuses one typed value written twice as a typed duplicate, not an NFC collision', async () => {
    const checked = (field: string, values: readonly unknown[]) =>
      baseProject({
        'models/facts.yaml': model({
          fields: (model().fields as Doc[]).map((entry) =>
            entry.name === 'ordered_at' ? { ...entry, type: 'timestamp_tz' } : entry,
          ),
          checks: [{ type: 'accepted_values', field, values }],
        }),
      });
    // One instant in two zones; one number at two scales.
    expect(
      await refusalOf(
        checked('ordered_at', ['2026-01-01T00:00:00+01:00', '2025-12-31T23:00:00+00:00']),
        'models/facts.yaml',
      ),
    ).toMatchObject({ code: 'contract_literal_duplicate' });
    expect(await refusalOf(checked('amount', ['1.5', '1.50']), 'models/facts.yaml')).toMatchObject({
      code: 'contract_literal_duplicate',
    });
    expect(await refusalOf(checked('order_status', ['a', 'a']), 'models/facts.yaml')).toMatchObject({
      code: 'contract_duplicate_member',
    });
  });

  it('regression: a duplicate in a set names the earlier copy by its key path, never by its value', async () => {
    const checked = (values: readonly unknown[], field = 'amount') =>
      baseProject({
        'models/facts.yaml': model({ checks: [{ type: 'accepted_values', field, values }] }),
      });
    expect(await refusalOf(checked(['1.5', '2', '1.50']), 'models/facts.yaml')).toMatchObject({
      code: 'contract_literal_duplicate',
    });
    expect(await hintOf(checked(['1.5', '2', '1.50']), 'models/facts.yaml')).toBe(
      'written differently from checks[0].values[0] but the same typed value: keep one of the two',
    );
    expect(await hintOf(checked([10, '10.00']), 'models/facts.yaml')).toBe(
      'written differently from checks[0].values[0] but the same typed value: keep one of the two',
    );
    expect(await refusalOf(checked(['x', 'y', 'x'], 'order_status'), 'models/facts.yaml')).toMatchObject({
      code: 'contract_duplicate_member',
    });
    expect(await hintOf(checked(['x', 'y', 'x'], 'order_status'), 'models/facts.yaml')).toBe(
      'the same as checks[0].values[0], earlier in this set: keep one of the two',
    );
  });

  it('refuses text with a control character', async () => {
    const docs = baseProject({
      'sources/orders.yaml': source({
        fields: [{ name: 'a', type: 'string', deprecation: { guidance: 'use\u0007b' } }],
      }),
    });
    expect(await refusalOf(docs, 'sources/orders.yaml')).toMatchObject({
      code: 'contract_text_invalid',
      field: 'fields[].deprecation.guidance',
    });
  });

  it('normalizes, sorts and deduplicates authoritative links', async () => {
    const links = (list: string[]) =>
      baseProject({
        'sources/orders.yaml': source({
          fields: [{ name: 'order_id', type: 'int64', authoritative_definitions: list }],
        }),
      });
    const project = await open(
      links(['HTTPS://Docs.Example:443/a/./b/../c', 'https://docs.example/a/c', 'http://docs.example:80/']),
    );
    const content = project.seal('t.source.orders').view().content as unknown as { fields: Doc[] };
    expect(content.fields[0]?.authoritative_definitions).toEqual([
      'http://docs.example/',
      'https://docs.example/a/c',
    ]);
    expect(
      await refusalOf(links(['https://user:secret@docs.example/']), 'sources/orders.yaml'),
    ).toMatchObject({
      code: 'contract_url_credentials',
      field: 'fields[].authoritative_definitions',
    });
  });

  it('checks deprecation guidance: the replacement must be another declared field', async () => {
    const deprecated = (replaced_by: string) =>
      baseProject({
        'sources/orders.yaml': source({
          fields: [
            {
              name: 'a',
              type: 'string',
              deprecation: { guidance: 'use b', replaced_by, sunset: '2027-02-28' },
            },
            { name: 'b', type: 'string' },
          ],
        }),
      });
    expect((await open(deprecated('b'))).valid).toBe(true);
    for (const bad of ['a', 'c']) {
      expect(await refusalOf(deprecated(bad), 'sources/orders.yaml')).toMatchObject({
        code: 'contract_member_unavailable',
        field: 'fields[].deprecation.replaced_by',
      });
    }
  });
});

describe('named filter literals are typed through the binding’s physical field', () => {
  const filterOn = (dimension: string, condition: Doc, fieldType = 'string') =>
    baseProject({
      'models/facts.yaml': model({
        fields: [
          { name: 'order_id', type: 'int64' },
          { name: 'order_status', type: fieldType },
          { name: 'status', type: 'int32' },
          { name: 'amount', type: 'decimal(10,2)' },
          { name: 'ordered_at', type: 'timestamp' },
        ],
      }),
      'semantic/orders.yaml': semanticModel({
        filters: [{ name: 'f', conditions: [{ dimension, ...condition }] }],
      }),
    });

  it('uses the bound field (order_status: string), not a field named like the dimension (status: int32)', async () => {
    const project = await open(filterOn('status', { op: 'eq', value: 'shipped' }));
    const content = project.seal('t.semantic.orders').view().content as unknown as { filters: Doc[] };
    expect(content.filters[0]).toEqual({
      name: 'f',
      conditions: [
        {
          dimension: 'status',
          binding: { resource: 't.model.facts', field: 'order_status', type: { name: 'string' } },
          op: 'eq',
          values: [{ type: 'string', value: 'shipped' }],
        },
      ],
    });
    // An integer would fit the int32 field named `status`, but the binding is a string field.
    expect(
      await refusalOf(filterOn('status', { op: 'eq', value: 42 }), 'semantic/orders.yaml'),
    ).toMatchObject({
      code: 'contract_literal_type_mismatch',
    });
  });

  it('types decimals exactly at the field scale and refuses what the type cannot hold', async () => {
    const typed = async (value: unknown) => {
      const project = await open(filterOn('status', { op: 'gte', value }, 'decimal(6,2)'));
      return (
        project.seal('t.semantic.orders').view().content as unknown as { filters: { conditions: Doc[] }[] }
      ).filters[0]?.conditions[0]?.values;
    };
    expect(await typed(19.9)).toEqual([{ type: 'decimal', value: '19.90' }]);
    expect(await typed('19.90')).toEqual([{ type: 'decimal', value: '19.90' }]);
    for (const value of [19.999, '12345.5']) {
      expect(
        await refusalOf(filterOn('status', { op: 'gte', value }, 'decimal(6,2)'), 'semantic/orders.yaml'),
      ).toMatchObject({
        code: 'contract_literal_inexact',
      });
    }
  });

  it('refuses a filter on a dimension that has no binding', async () => {
    expect(await refusalOf(filterOn('nope', { op: 'is_null' }), 'semantic/orders.yaml')).toMatchObject({
      code: 'contract_binding_missing',
      field: 'filters[].conditions[].dimension',
    });
  });

  it('refuses a dimension bound to a field the dataset does not declare', async () => {
    const docs = baseProject({
      'semantic/orders.yaml': semanticModel({
        dimensions: [{ name: 'x', type: 'categorical', field: 'nope' }],
        filters: [],
      }),
    });
    expect(await refusalOf(docs, 'semantic/orders.yaml')).toMatchObject({
      code: 'contract_binding_missing',
      field: 'dimensions[].field',
    });
  });

  it('refuses a conflicting binding: a time dimension on a non-temporal field', async () => {
    const docs = baseProject({
      'semantic/orders.yaml': semanticModel({
        dimensions: [{ name: 'when', type: 'time', field: 'order_status' }],
        filters: [],
      }),
    });
    expect(await refusalOf(docs, 'semantic/orders.yaml')).toMatchObject({
      code: 'contract_binding_conflict',
    });
  });

  it('refuses an aggregation that does not apply to the bound type', async () => {
    const docs = baseProject({
      'semantic/orders.yaml': semanticModel({ measures: [{ name: 'm', agg: 'sum', field: 'order_status' }] }),
    });
    expect(await refusalOf(docs, 'semantic/orders.yaml')).toMatchObject({
      code: 'contract_aggregation_type_mismatch',
    });
  });

  it('treats in-lists and conditions as sets', async () => {
    const a = await digestOf(filterOn('status', { op: 'in', values: ['b', 'a'] }), 't.semantic.orders');
    const b = await digestOf(filterOn('status', { op: 'in', values: ['a', 'b'] }), 't.semantic.orders');
    expect(a).toBe(b);
  });
});

describe('every fault after the schema step', () => {
  /** [code, pointer, line] of every error of the file at `path`. */
  async function errorsOf(docs: Record<string, Doc | string>, path: string) {
    const project = await open(docs);
    const refusal = project.outcomes.find((outcome) => outcome.path === path)?.refusal;
    if (refusal === null || refusal === undefined) throw new Error(`${path} was not refused`);
    return [refusal, ...refusal.also].map((one) => [one.code, one.location?.pointer, one.location?.line]);
  }

  it('regression: a model reports every fault of its SQL, fields and checks, in line order', async () => {
    const text = [
      'kind: Model',
      'id: t.model.facts',
      'name: facts',
      'sql: |',
      '  select o.order_id, sum(o.amount) over () as total, x.status',
      '  from ordrs as o',
      'fields:',
      '  - name: order_id',
      '    type: int64',
      '    deprecation: { guidance: Gone., replaced_by: order_key }',
      '  - name: total',
      '    type: decimal(12,2)',
      '    authoritative_definitions: ["ftp://glossary.example/total"]',
      'checks:',
      '  - { type: not_null, field: amont }',
      '  - { type: accepted_values, field: total, values: [1.005, "x"] }',
      '',
    ].join('\n');
    expect(await errorsOf(baseProject({ 'models/facts.yaml': text }), 'models/facts.yaml')).toEqual([
      ['contract_sql_unsupported', 'sql', 5],
      ['contract_sql_qualifier_unknown', 'sql', 5],
      ['contract_reference_unavailable', 'sql', 6],
      ['contract_member_unavailable', 'fields[0].deprecation.replaced_by', 10],
      ['contract_url_unsupported', 'fields[1].authoritative_definitions[0]', 13],
      ['contract_member_unavailable', 'checks[0].field', 15],
      ['contract_literal_inexact', 'checks[1].values[0]', 16],
      ['contract_literal_type_mismatch', 'checks[1].values[1]', 16],
    ]);
  });

  it('regression: a semantic model reports every binding, member and literal fault, not the first', async () => {
    const docs = baseProject({
      'semantic/orders.yaml': semanticModel({
        entities: [{ name: 'order', type: 'primary', fields: ['order_idd'] }],
        dimensions: [
          { name: 'status', type: 'categorical', field: 'order_status', time_granularity: 'day' },
          { name: 'ordered_at', type: 'time', field: 'ordered_att' },
        ],
        measures: [
          { name: 'revenue', agg: 'sum', field: 'order_status' },
          { name: 'status', agg: 'count' },
        ],
        filters: [
          {
            name: 'shipped',
            conditions: [
              { dimension: 'statuss', op: 'eq', value: 'x' },
              { dimension: 'status', op: 'in', values: [1, 'y'] },
            ],
          },
        ],
      }),
    });
    const errors = await errorsOf(docs, 'semantic/orders.yaml');
    expect(errors.map(([code, pointer]) => [code, pointer])).toEqual([
      ['contract_member_unavailable', 'entities[0].fields[0]'],
      ['contract_field_invalid', 'dimensions[0].time_granularity'],
      ['contract_binding_missing', 'dimensions[1].field'],
      ['contract_aggregation_type_mismatch', 'measures[0].agg'],
      ['contract_duplicate_member', 'measures[1].name'],
      ['contract_binding_missing', 'filters[0].conditions[0].dimension'],
      ['contract_literal_type_mismatch', 'filters[0].conditions[1].values[0]'],
    ]);
    // In the order they are written.
    const lines = errors.map((error) => error[2] as number);
    expect(lines).toEqual([...lines].sort((a, b) => a - b));
  });

  it('regression: a dashboard reports every member it names that its semantic model lacks', async () => {
    const docs = baseProject({
      'dashboards/sales.yaml': dashboard({
        uses: [{ semantic_model: 'orders_sm', measures: ['revenu', 'count'], dimensions: ['stat'] }],
      }),
    });
    expect((await errorsOf(docs, 'dashboards/sales.yaml')).map(([, pointer]) => pointer)).toEqual([
      'uses[0].measures[0]',
      'uses[0].measures[1]',
      'uses[0].dimensions[0]',
    ]);
  });

  it('reports a resource blocked by a refused file as blocked, not with a second error', async () => {
    const project = await open(
      baseProject({ 'sources/orders.yaml': 'kind: Source\nid: t.source.orders\nname: orders\nfields: 3\n' }),
    );
    expect(project.outcomes.map((outcome) => [outcome.path, outcome.status])).toEqual([
      ['dashboards/sales.yaml', 'blocked'],
      ['models/facts.yaml', 'blocked'],
      ['semantic/orders.yaml', 'blocked'],
      ['sources/orders.yaml', 'refused'],
    ]);
  });

  it('regression: a refused file whose name cannot be read blocks references by name, not refuses them', async () => {
    // `nme: orders`: the model's `from orders` was refused as naming no
    // resource, an error reported before the one that caused it.
    const misspelt = source({ name: undefined, nme: 'orders' });
    const project = await open(
      baseProject({
        'sources/orders.yaml': misspelt,
        // An independent error elsewhere is still reported.
        'sources/zother.yaml': source({ id: 't.source.other', name: 'other', kind: 'Sourc' }),
      }),
    );
    expect(
      project.outcomes.map((outcome) => [outcome.path, outcome.status, outcome.refusal?.code ?? null]),
    ).toEqual([
      ['dashboards/sales.yaml', 'blocked', null],
      ['models/facts.yaml', 'blocked', null],
      ['semantic/orders.yaml', 'blocked', null],
      ['sources/orders.yaml', 'refused', 'contract_field_unknown'],
      ['sources/zother.yaml', 'refused', 'contract_kind_unknown'],
    ]);
    // Its id unreadable instead: a reference by id is blocked too.
    const byId = await open(
      baseProject({
        'models/facts.yaml': model({ sql: 'select * from "t.source.orders"' }),
        'sources/orders.yaml': source({ id: undefined, idd: 't.source.orders' }),
      }),
    );
    expect(byId.outcomes.map((outcome) => [outcome.path, outcome.status])).toContainEqual([
      'models/facts.yaml',
      'blocked',
    ]);
  });
});

describe('the two stages of checking a file', () => {
  /** The codes a file is refused with, in file order. */
  const codesOf = async (text: string) => {
    const project = await open({ 'sources/a.yaml': text });
    const refusal = project.outcomes[0]?.refusal;
    return refusal === null || refusal === undefined ? [] : [refusal, ...refusal.also].map((one) => one.code);
  };
  const file = (description: string, type: string) =>
    [
      'kind: Source',
      'id: v.source.a',
      'name: a',
      `description: "${description}"`,
      'contract: { version: 1.0.0, compatibility: backward }',
      'fields:',
      '  - name: id',
      '    type: int64',
      '    authoritative_definitions: [https://user:pw@glossary.example/x, ftp://x.example/y]',
      '  - name: dd',
      `    type: ${type}`,
      '    deprecation: { guidance: g, sunset: 2027-02-28, replaced_by: nope }',
      '  - name: id',
      '    type: string',
      '',
    ].join('\n');

  it('regression: schema errors hide the checks after the schema, as docs/contracts.md#reading-an-error says', async () => {
    expect(await codesOf(file('bad \\e[31m red', 'decimal(40,2)'))).toEqual([
      'contract_text_invalid',
      'contract_type_invalid',
    ]);
    expect(await codesOf(file('fine', 'decimal(30,2)'))).toEqual([
      'contract_url_credentials',
      'contract_url_unsupported',
      'contract_member_unavailable',
      'contract_duplicate_member',
    ]);
  });
});
