import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalizeToBytes, parseStrict } from '../../core/json/index.js';
import { Refusal } from '../../core/refusal/index.js';
import { baseProject, type Doc, filesOf, model, semanticModel, source } from '../fixtures/resources.js';
import { ContractProject } from '../project/contract-project.js';
import { createDuckDbSqlParser, type SqlParser } from '../sql/parser.js';
import { classifyContractVersion } from './classify.js';
import { CONTRACT_RULE_IDS, CONTRACT_RULES, type ContractRuleId } from './rules.js';
import { typeChange } from './type-change.js';

let parser: SqlParser;
beforeAll(async () => {
  parser = await createDuckDbSqlParser();
});
afterAll(() => parser.close());

type Changes = Readonly<Record<string, Doc | null>>;

const SOURCE = 't.source.orders';
const MODEL = 't.model.facts';
const SEMANTIC = 't.semantic.orders';

/** Canonical bytes of one resource of the base project with `changes`, through the real pipeline. */
async function bytesOf(id: string, changes: Changes): Promise<Uint8Array> {
  const project = await ContractProject.fromFiles(filesOf(baseProject(changes)), parser);
  expect(project.valid).toBe(true);
  return project.project(id).bytes;
}

const withFields = (fields: readonly Doc[]) => source({ fields: [...(source().fields as Doc[]), ...fields] });
const sourceField = (name: string, change: Doc): Doc =>
  source({
    fields: (source().fields as Doc[]).map((field) =>
      field.name === name ? { ...field, ...change } : field,
    ),
  });
const modelField = (name: string, change: Doc): Doc =>
  model({
    fields: (model().fields as Doc[]).map((field) => (field.name === name ? { ...field, ...change } : field)),
  });
const countMeasure = (extra: Doc = {}) =>
  semanticModel({
    measures: [...(semanticModel().measures as Doc[]), { name: 'n', agg: 'count', ...extra }],
  });
const selfRelationship = (cardinality: string) =>
  semanticModel({
    relationships: [{ name: 'same', fields: ['order_id'], to: 'orders_sm.order', cardinality }],
  });
const otherModel = { 'models/other.yaml': model({ id: 't.model.other', name: 'other' }) };

interface RuleCase {
  readonly rule: ContractRuleId;
  readonly id: string;
  readonly path: string;
  readonly baseline?: Changes;
  readonly candidate: Changes;
}

/** One fixture pair per rule: the baseline project (base + `baseline`) and the candidate. */
const CASES: readonly RuleCase[] = [
  {
    rule: 'version_changed',
    id: SOURCE,
    path: 'contract.version',
    candidate: {
      'sources/orders.yaml': source({ contract: { version: '1.0.1', compatibility: 'backward' } }),
    },
  },
  {
    rule: 'compatibility_strengthened',
    id: SOURCE,
    path: 'contract.compatibility',
    candidate: { 'sources/orders.yaml': source({ contract: { version: '1.0.0', compatibility: 'full' } }) },
  },
  {
    rule: 'compatibility_weakened',
    id: SOURCE,
    path: 'contract.compatibility',
    candidate: {
      'sources/orders.yaml': source({ contract: { version: '1.0.0', compatibility: 'forward' } }),
    },
  },
  {
    rule: 'field_added',
    id: SOURCE,
    path: 'content.fields[note]',
    candidate: { 'sources/orders.yaml': withFields([{ name: 'note', type: 'string' }]) },
  },
  {
    rule: 'field_removed',
    id: SOURCE,
    path: 'content.fields[status]',
    candidate: {
      'sources/orders.yaml': source({
        fields: (source().fields as Doc[]).filter((field) => field.name !== 'status'),
      }),
    },
  },
  {
    rule: 'field_type_widened',
    id: SOURCE,
    path: 'content.fields[amount].type',
    candidate: { 'sources/orders.yaml': sourceField('amount', { type: 'decimal(12,2)' }) },
  },
  {
    rule: 'field_type_changed',
    id: SOURCE,
    path: 'content.fields[amount].type',
    candidate: { 'sources/orders.yaml': sourceField('amount', { type: 'decimal(10,3)' }) },
  },
  {
    rule: 'field_nullable_relaxed',
    id: SOURCE,
    path: 'content.fields[order_id].nullable',
    candidate: { 'sources/orders.yaml': sourceField('order_id', { nullable: true }) },
  },
  {
    rule: 'field_nullable_tightened',
    id: SOURCE,
    path: 'content.fields[status].nullable',
    candidate: { 'sources/orders.yaml': sourceField('status', { nullable: false }) },
  },
  {
    rule: 'field_classification_lowered',
    id: SOURCE,
    path: 'content.fields[status].classification',
    baseline: { 'sources/orders.yaml': sourceField('status', { classification: 'confidential' }) },
    candidate: { 'sources/orders.yaml': sourceField('status', { classification: 'internal' }) },
  },
  {
    rule: 'field_classification_raised',
    id: SOURCE,
    path: 'content.fields[status].classification',
    candidate: { 'sources/orders.yaml': sourceField('status', { classification: 'restricted' }) },
  },
  {
    rule: 'field_cde_added',
    id: SOURCE,
    path: 'content.fields[amount].critical_data_element',
    candidate: { 'sources/orders.yaml': sourceField('amount', { critical_data_element: true }) },
  },
  {
    rule: 'field_cde_removed',
    id: SOURCE,
    path: 'content.fields[amount].critical_data_element',
    baseline: { 'sources/orders.yaml': sourceField('amount', { critical_data_element: true }) },
    candidate: { 'sources/orders.yaml': source() },
  },
  {
    rule: 'field_definitions_changed',
    id: SOURCE,
    path: 'content.fields[amount].authoritative_definitions',
    candidate: {
      'sources/orders.yaml': sourceField('amount', {
        authoritative_definitions: ['https://glossary.example/terms/amount'],
      }),
    },
  },
  {
    rule: 'field_deprecation_changed',
    id: SOURCE,
    path: 'content.fields[status].deprecation',
    candidate: {
      'sources/orders.yaml': sourceField('status', { deprecation: { guidance: 'Use order_status.' } }),
    },
  },
  {
    rule: 'field_sunset_advanced',
    id: SOURCE,
    path: 'content.fields[status].deprecation',
    baseline: {
      'sources/orders.yaml': sourceField('status', {
        deprecation: { guidance: 'Use code.', sunset: '2027-06-30' },
      }),
    },
    candidate: {
      'sources/orders.yaml': sourceField('status', {
        deprecation: { guidance: 'Use code.', sunset: '2027-01-31' },
      }),
    },
  },
  {
    rule: 'unique_fields_reduced',
    id: MODEL,
    path: 'content.checks[unique order_id,status].fields',
    baseline: {
      'models/facts.yaml': model({ checks: [{ type: 'unique', fields: ['order_id', 'status'] }] }),
    },
    candidate: { 'models/facts.yaml': model({ checks: [{ type: 'unique', fields: ['order_id'] }] }) },
  },
  {
    rule: 'unique_fields_extended',
    id: MODEL,
    path: 'content.checks[unique order_id].fields',
    candidate: {
      'models/facts.yaml': model({ checks: [{ type: 'unique', fields: ['order_id', 'status'] }] }),
    },
  },
  {
    rule: 'check_added',
    id: MODEL,
    path: 'content.checks[not_null amount]',
    candidate: {
      'models/facts.yaml': model({
        checks: [...(model().checks as Doc[]), { type: 'not_null', field: 'amount' }],
      }),
    },
  },
  {
    rule: 'check_removed',
    id: MODEL,
    path: 'content.checks[unique order_id]',
    candidate: { 'models/facts.yaml': model({ checks: [] }) },
  },
  {
    rule: 'check_severity_relaxed',
    id: MODEL,
    path: 'content.checks[unique order_id].severity',
    candidate: {
      'models/facts.yaml': model({ checks: [{ type: 'unique', fields: ['order_id'], severity: 'warn' }] }),
    },
  },
  {
    rule: 'check_severity_raised',
    id: MODEL,
    path: 'content.checks[unique order_id].severity',
    baseline: {
      'models/facts.yaml': model({ checks: [{ type: 'unique', fields: ['order_id'], severity: 'warn' }] }),
    },
    candidate: { 'models/facts.yaml': model() },
  },
  {
    rule: 'accepted_values_added',
    id: MODEL,
    path: 'content.checks[accepted_values order_status].values',
    baseline: {
      'models/facts.yaml': model({
        checks: [{ type: 'accepted_values', field: 'order_status', values: ['shipped'] }],
      }),
    },
    candidate: {
      'models/facts.yaml': model({
        checks: [{ type: 'accepted_values', field: 'order_status', values: ['shipped', 'delivered'] }],
      }),
    },
  },
  {
    rule: 'accepted_values_removed',
    id: MODEL,
    path: 'content.checks[accepted_values order_status].values',
    baseline: {
      'models/facts.yaml': model({
        checks: [{ type: 'accepted_values', field: 'order_status', values: ['shipped', 'delivered'] }],
      }),
    },
    candidate: {
      'models/facts.yaml': model({
        checks: [{ type: 'accepted_values', field: 'order_status', values: ['shipped'] }],
      }),
    },
  },
  {
    rule: 'sql_changed',
    id: MODEL,
    path: 'content.sql',
    candidate: {
      'models/facts.yaml': model({
        sql: 'select order_id, status as order_status, amount, ordered_at from orders where amount > 0',
      }),
    },
  },
  {
    rule: 'dataset_changed',
    id: SEMANTIC,
    path: 'content.dataset',
    baseline: otherModel,
    candidate: { ...otherModel, 'semantic/orders.yaml': semanticModel({ model: 'other' }) },
  },
  {
    rule: 'default_time_dimension_changed',
    id: SEMANTIC,
    path: 'content.defaults.agg_time_dimension',
    candidate: { 'semantic/orders.yaml': semanticModel({ defaults: { agg_time_dimension: 'ordered_at' } }) },
  },
  {
    rule: 'member_added',
    id: SEMANTIC,
    path: 'content.dimensions[amount_band]',
    candidate: {
      'semantic/orders.yaml': semanticModel({
        dimensions: [
          ...(semanticModel().dimensions as Doc[]),
          { name: 'amount_band', type: 'categorical', field: 'amount' },
        ],
      }),
    },
  },
  {
    rule: 'member_removed',
    id: SEMANTIC,
    path: 'content.filters[shipped]',
    candidate: { 'semantic/orders.yaml': semanticModel({ filters: [] }) },
  },
  {
    rule: 'entity_changed',
    id: SEMANTIC,
    path: 'content.entities[order]',
    candidate: {
      'semantic/orders.yaml': semanticModel({
        entities: [{ name: 'order', type: 'unique', fields: ['order_id'] }],
      }),
    },
  },
  {
    rule: 'dimension_changed',
    id: SEMANTIC,
    path: 'content.dimensions[ordered_at]',
    candidate: {
      'semantic/orders.yaml': semanticModel({
        dimensions: [
          { name: 'status', type: 'categorical', field: 'order_status' },
          { name: 'ordered_at', type: 'time', field: 'ordered_at', time_granularity: 'month' },
        ],
      }),
    },
  },
  {
    rule: 'binding_type_widened',
    id: SEMANTIC,
    path: 'content.measures[revenue].binding.type',
    candidate: { 'models/facts.yaml': modelField('amount', { type: 'decimal(12,2)' }) },
  },
  {
    rule: 'binding_type_changed',
    id: SEMANTIC,
    path: 'content.measures[revenue].binding.type',
    candidate: { 'models/facts.yaml': modelField('amount', { type: 'int64' }) },
  },
  {
    rule: 'measure_changed',
    id: SEMANTIC,
    path: 'content.measures[revenue]',
    candidate: {
      'semantic/orders.yaml': semanticModel({ measures: [{ name: 'revenue', agg: 'max', field: 'amount' }] }),
    },
  },
  {
    rule: 'measure_empty_result_null',
    id: SEMANTIC,
    path: 'content.measures[n].empty_result',
    baseline: { 'semantic/orders.yaml': countMeasure() },
    candidate: { 'semantic/orders.yaml': countMeasure({ empty_result: null }) },
  },
  {
    rule: 'relationship_changed',
    id: SEMANTIC,
    path: 'content.relationships[same]',
    baseline: { 'semantic/orders.yaml': selfRelationship('many_to_one') },
    candidate: { 'semantic/orders.yaml': selfRelationship('one_to_one') },
  },
  {
    rule: 'filter_changed',
    id: SEMANTIC,
    path: 'content.filters[shipped].conditions',
    candidate: {
      'semantic/orders.yaml': semanticModel({
        filters: [{ name: 'shipped', conditions: [{ dimension: 'status', op: 'eq', value: 'delivered' }] }],
      }),
    },
  },
];

describe('the version classifier rule table', () => {
  it('has a fixture pair for every rule', () => {
    expect(new Set(CASES.map((c) => c.rule))).toEqual(new Set(CONTRACT_RULE_IDS));
  });

  for (const c of CASES) {
    it(`${c.rule} (${CONTRACT_RULES[c.rule].verdict}) at ${c.path}`, async () => {
      const baseline = await bytesOf(c.id, c.baseline ?? {});
      const candidate = await bytesOf(c.id, { ...c.baseline, ...c.candidate });
      const result = classifyContractVersion(baseline, candidate);
      expect(result.changes).toContainEqual({
        path: c.path,
        rule: c.rule,
        verdict: CONTRACT_RULES[c.rule].verdict,
      });
      // The overall verdict is the worst change: never better than this rule's.
      const rank = ['identical', 'compatible', 'widening', 'breaking'];
      expect(rank.indexOf(result.verdict)).toBeGreaterThanOrEqual(
        rank.indexOf(CONTRACT_RULES[c.rule].verdict),
      );
      expect(result.verdict).toBe(
        result.changes.map((change) => change.verdict).sort((a, b) => rank.indexOf(b) - rank.indexOf(a))[0],
      );
    });
  }
});

describe('classifyContractVersion', () => {
  it('does not count a literal rewritten at a widened decimal scale as a changed filter or accepted value', async () => {
    const at = (type: string): Changes => ({
      'models/facts.yaml': model({
        fields: (model().fields as Doc[]).map((field) =>
          field.name === 'amount' ? { ...field, type } : field,
        ),
        checks: [{ type: 'accepted_values', field: 'amount', values: ['1.50', '2'] }],
      }),
      'semantic/orders.yaml': semanticModel({
        dimensions: [
          ...(semanticModel().dimensions as Doc[]),
          { name: 'amount_band', type: 'categorical', field: 'amount' },
        ],
        filters: [{ name: 'large', conditions: [{ dimension: 'amount_band', op: 'gte', value: '100.50' }] }],
      }),
    });
    const semantic = classifyContractVersion(
      await bytesOf(SEMANTIC, at('decimal(12,2)')),
      await bytesOf(SEMANTIC, at('decimal(13,3)')),
    );
    expect(semantic.changes.map((change) => change.rule)).not.toContain('filter_changed');
    expect(semantic.changes.map((change) => [change.path, change.rule])).toContainEqual([
      'content.filters[large].conditions.binding.type',
      'binding_type_widened',
    ]);
    expect(semantic.verdict).toBe('widening');
    const checks = classifyContractVersion(
      await bytesOf(MODEL, at('decimal(12,2)')),
      await bytesOf(MODEL, at('decimal(13,3)')),
    );
    expect(checks.changes.map((change) => change.rule)).toEqual(['field_type_widened']);
    // A value really added is still one.
    const moved = classifyContractVersion(
      await bytesOf(MODEL, at('decimal(12,2)')),
      await bytesOf(MODEL, {
        'models/facts.yaml': model({
          checks: [{ type: 'accepted_values', field: 'amount', values: ['1.50', '2', '3'] }],
        }),
      }),
    );
    expect(moved.changes.map((change) => change.rule)).toContain('accepted_values_added');
  });

  it('moves a sunset later, or adds one, as compatible guidance', async () => {
    const at = (sunset: string | null): Changes => ({
      'sources/orders.yaml': sourceField('status', { deprecation: { guidance: 'Use code.', sunset } }),
    });
    const later = classifyContractVersion(
      await bytesOf(SOURCE, at('2027-01-31')),
      await bytesOf(SOURCE, at('2027-06-30')),
    );
    expect(later.changes.map((change) => change.rule)).toEqual(['field_deprecation_changed']);
    const added = classifyContractVersion(await bytesOf(SOURCE, {}), await bytesOf(SOURCE, at('2027-06-30')));
    expect(added.changes.map((change) => change.rule)).toEqual(['field_deprecation_changed']);
  });

  it('is identical with no changes exactly when the bytes are equal', async () => {
    const bytes = await bytesOf(SEMANTIC, {});
    const result = classifyContractVersion(bytes, Uint8Array.from(bytes));
    expect(result.verdict).toBe('identical');
    expect(result.changes).toEqual([]);
    expect(result.resource).toEqual({ kind: 'SemanticModel', id: SEMANTIC });
  });

  it('reports a version bump alone as compatible', async () => {
    const baseline = await bytesOf(SOURCE, {});
    const candidate = await bytesOf(SOURCE, {
      'sources/orders.yaml': source({ contract: { version: '1.1.0', compatibility: 'backward' } }),
    });
    expect(classifyContractVersion(baseline, candidate)).toEqual({
      resource: { kind: 'Source', id: SOURCE },
      baseline: { version: '1.0.0', compatibility: 'backward' },
      candidate: { version: '1.1.0', compatibility: 'backward' },
      verdict: 'compatible',
      changes: [{ path: 'contract.version', rule: 'version_changed', verdict: 'compatible' }],
    });
  });

  it('takes the worst verdict and sorts changes by path, then rule', async () => {
    const baseline = await bytesOf(SOURCE, {});
    const candidate = await bytesOf(SOURCE, {
      'sources/orders.yaml': source({
        contract: { version: '2.0.0', compatibility: 'backward' },
        fields: [
          { name: 'order_id', type: 'int64', nullable: true },
          { name: 'amount', type: 'decimal(12,2)' },
          { name: 'ordered_at', type: 'timestamp' },
          { name: 'zone', type: 'string' },
        ],
      }),
    });
    const result = classifyContractVersion(baseline, candidate);
    expect(result.verdict).toBe('breaking');
    expect(result.changes.map((change) => `${change.path} ${change.rule}`)).toEqual([
      'content.fields[amount].type field_type_widened',
      'content.fields[order_id].nullable field_nullable_relaxed',
      'content.fields[status] field_removed',
      'content.fields[zone] field_added',
      'contract.version version_changed',
    ]);
  });

  it('is widening when the worst change widens (a classification lowered)', async () => {
    const baseline = await bytesOf(SOURCE, {
      'sources/orders.yaml': sourceField('amount', { classification: 'restricted' }),
    });
    const candidate = await bytesOf(SOURCE, {
      'sources/orders.yaml': sourceField('amount', { classification: 'public' }),
    });
    expect(classifyContractVersion(baseline, candidate).verdict).toBe('widening');
  });

  it('reads a member name with brackets unambiguously in a path', async () => {
    const baseline = await bytesOf(SOURCE, {});
    const candidate = await bytesOf(SOURCE, {
      'sources/orders.yaml': withFields([{ name: 'a]b\\c', type: 'string' }]),
    });
    expect(classifyContractVersion(baseline, candidate).changes).toContainEqual({
      path: 'content.fields[a\\]b\\\\c]',
      rule: 'field_added',
      verdict: 'compatible',
    });
  });

  it('refuses projections of different resources', async () => {
    const a = await bytesOf(SOURCE, {});
    const b = await bytesOf(MODEL, {});
    const refusal = (() => {
      try {
        classifyContractVersion(a, b);
      } catch (error: unknown) {
        return error;
      }
      return undefined;
    })();
    expect(refusal).toBeInstanceOf(Refusal);
    expect((refusal as Refusal).code).toBe('contract_classify_resource_mismatch');
  });

  it('refuses bytes that are not canonical projections, naming the side', async () => {
    const good = await bytesOf(SOURCE, {});
    const pretty = Buffer.from(JSON.stringify(JSON.parse(Buffer.from(good).toString('utf8')), null, 2));
    const attempt = (a: Uint8Array, b: Uint8Array) => {
      try {
        classifyContractVersion(a, b);
      } catch (error: unknown) {
        return { code: (error as Refusal).code, role: (error as Refusal).role };
      }
      return undefined;
    };
    expect(attempt(pretty, good)).toEqual({ code: 'contract_projection_not_canonical', role: 'baseline' });
    expect(attempt(good, Buffer.from('{"profile":1}'))).toEqual({
      code: 'contract_projection_malformed',
      role: 'candidate',
    });
    // A canonical document that is not in the projection's normal form (fields unsorted).
    const doc = parseStrict(good) as { content: { fields: unknown[] } };
    const shuffled = canonicalizeToBytes({ ...doc, content: { fields: [...doc.content.fields].reverse() } });
    expect(attempt(good, shuffled)).toEqual({ code: 'contract_projection_not_canonical', role: 'candidate' });
  });

  it('checks expected digests when given', async () => {
    const a = await bytesOf(SOURCE, {});
    const b = await bytesOf(SOURCE, { 'sources/orders.yaml': sourceField('status', { nullable: false }) });
    const digestOfA = (await ContractProject.fromFiles(filesOf(baseProject()), parser)).project(
      SOURCE,
    ).digest;
    expect(classifyContractVersion(a, b, { baselineDigest: digestOfA }).verdict).toBe('compatible');
    expect(() => classifyContractVersion(a, b, { candidateDigest: digestOfA })).toThrow(
      expect.objectContaining({ code: 'contract_projection_digest_mismatch', role: 'candidate' }),
    );
  });

  it('mirrors: adding in one direction is removing in the other, and each side is identical to itself', async () => {
    const variants = await Promise.all(
      [
        {},
        { 'sources/orders.yaml': withFields([{ name: 'note', type: 'string' }]) },
        { 'sources/orders.yaml': sourceField('status', { nullable: false }) },
        { 'sources/orders.yaml': sourceField('amount', { type: 'decimal(14,4)' }) },
        { 'sources/orders.yaml': sourceField('status', { classification: 'public' }) },
      ].map((changes) => bytesOf(SOURCE, changes)),
    );
    const mirror: Partial<Record<ContractRuleId, ContractRuleId>> = {
      field_added: 'field_removed',
      field_removed: 'field_added',
      field_nullable_relaxed: 'field_nullable_tightened',
      field_nullable_tightened: 'field_nullable_relaxed',
      field_classification_lowered: 'field_classification_raised',
      field_classification_raised: 'field_classification_lowered',
    };
    fc.assert(
      fc.property(fc.nat(variants.length - 1), fc.nat(variants.length - 1), (i, j) => {
        const a = variants[i] as Uint8Array;
        const b = variants[j] as Uint8Array;
        const forward = classifyContractVersion(a, b);
        const backward = classifyContractVersion(b, a);
        expect(forward.verdict === 'identical').toBe(i === j);
        // A widening reversed is a narrowing (a change); a change reversed may be either.
        const typeless = (rule: string) => (rule.startsWith('field_type_') ? 'field_type' : rule);
        const expected = forward.changes.map(
          (change) => `${change.path} ${typeless(mirror[change.rule] ?? change.rule)}`,
        );
        const actual = backward.changes.map((change) => `${change.path} ${typeless(change.rule)}`);
        expect(actual.sort()).toEqual(expected.sort());
      }),
    );
  });
});

describe('physical type changes', () => {
  const t = (text: string) => {
    const decimal = /^decimal\((\d+),(\d+)\)$/.exec(text);
    return decimal === null
      ? ({ name: text } as Parameters<typeof typeChange>[0])
      : { name: 'decimal' as const, precision: Number(decimal[1]), scale: Number(decimal[2]) };
  };
  it.each([
    ['int8', 'int16', 'widened'],
    ['int16', 'int64', 'widened'],
    ['int64', 'int32', 'changed'],
    ['int32', 'decimal(10,0)', 'widened'],
    ['int32', 'decimal(12,3)', 'changed'],
    ['int64', 'decimal(19,0)', 'widened'],
    ['int16', 'float32', 'widened'],
    ['int32', 'float32', 'changed'],
    ['int32', 'float64', 'widened'],
    ['int64', 'float64', 'changed'],
    ['float32', 'float64', 'widened'],
    ['float64', 'float32', 'changed'],
    ['decimal(10,2)', 'decimal(12,3)', 'widened'],
    ['decimal(10,2)', 'decimal(10,3)', 'changed'],
    ['decimal(10,2)', 'decimal(9,1)', 'changed'],
    ['decimal(10,2)', 'float64', 'changed'],
    ['decimal(10,2)', 'decimal(10,2)', 'same'],
    ['date', 'timestamp', 'changed'],
    ['timestamp', 'timestamp_tz', 'changed'],
    ['string', 'string', 'same'],
    ['int32', 'string', 'changed'],
  ])('%s → %s is %s', (from, to, expected) => {
    expect(typeChange(t(from), t(to))).toBe(expected);
  });
});
