import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { canonicalizeProjection } from '../canonical/canonical.js';
import type { Doc } from '../fixtures/resources.js';
import { ContractProject } from '../project/contract-project.js';
import { createDuckDbSqlParser, type SqlParser } from '../sql/parser.js';

/**
 * Properties over generated projects of three resources (a Source, a Model
 * reading it, a SemanticModel over the Model), references by id so that
 * project-local names are free to change:
 *   A. projection is deterministic, and permuting set-like inputs and YAML key
 *      order never changes a digest;
 *   B. changing any projected value always changes the digest of its resource;
 *   C. changing an excluded field never changes any digest.
 * Run counts: 1,500 + 1,300 + 1,200 projects of 3 resources = 12,000
 * generated resources (each also projected in its permuted or changed form).
 */

const RUNS_A = 1500;
const RUNS_B = 1300;
const RUNS_C = 1200;
// A fixed amount of work, not a speed check (speed is measured in `npm run
// bench`): the limit only stops a hang. Beside other test files on a loaded
// two-core machine, 1,500 projects have taken longer than the default 60 s.
const PROPERTY_TIMEOUT_MS = 300_000;

let duckdb: SqlParser;
let parser: SqlParser;
beforeAll(async () => {
  duckdb = await createDuckDbSqlParser();
  // Still DuckDB's answer for every text; generated projects repeat texts, so remember them.
  const cache = new Map<string, string | undefined>();
  parser = {
    async serialize(texts) {
      const missing = texts.filter((text) => !cache.has(text));
      if (missing.length > 0) {
        const answers = await duckdb.serialize(missing);
        for (const [index, text] of missing.entries()) cache.set(text, answers[index]);
      }
      return texts.map((text) => cache.get(text));
    },
    close() {},
  };
});
afterAll(() => duckdb.close());

const IDS = { source: 'p.source.s', model: 'p.model.m', semantic: 'p.semantic.sm' } as const;

const NAMES = [
  'id',
  'amount',
  'status',
  'région',
  'caf\u00e9',
  '\u{1F600}_emoji',
  '\uFF71_kana',
  'x_1',
  'ordered_at',
  'qty',
];
const TYPES = [
  'string',
  'int64',
  'int32',
  'decimal(10,2)',
  'decimal(38,0)',
  'boolean',
  'date',
  'timestamp',
  'timestamp_tz',
  'float64',
];
const LINKS = [
  'https://docs.example/terms/a',
  'HTTPS://Docs.Example:443/terms/./a',
  'https://docs.example/terms/b',
  'http://[fe80::1%25eth0]/x',
  'http://[FE80::1%25eth1]/x',
  'http://[fe80::1%2525]/x',
  'https://glossary.example/%7Eterm',
];
const CLASSIFICATIONS = ['public', 'internal', 'confidential', 'restricted'];
const STRINGS = ['placed', 'shipped', 'Île-de-France', 'Zürich', '\u{1F600}', 'a"b\\c'];

const SAME_FAMILY: Readonly<Record<string, string>> = {
  string: 'json',
  int64: 'int32',
  int32: 'int64',
  'decimal(10,2)': 'decimal(12,2)',
  'decimal(38,0)': 'decimal(38,2)',
  boolean: 'string',
  date: 'timestamp',
  timestamp: 'date',
  timestamp_tz: 'timestamp',
  float64: 'decimal(10,2)',
};

const NUMERIC = new Set(['int64', 'int32', 'decimal(10,2)', 'decimal(38,0)', 'float64']);
const TEMPORAL = new Set(['date', 'timestamp', 'timestamp_tz']);

interface Field {
  name: string;
  type: string;
  nullable?: boolean;
  classification?: string;
  critical_data_element?: boolean;
  authoritative_definitions?: string[];
  deprecation?: { guidance: string; replaced_by?: string };
  description?: string;
  tags?: string[];
}

interface Generated {
  source: Doc;
  model: Doc;
  semantic: Doc;
  /** A seed for key-order and set permutations. */
  seed: number;
}

function literalArb(type: string): fc.Arbitrary<string | number | boolean> {
  switch (type) {
    case 'string':
      return fc.constantFrom(...STRINGS);
    case 'int64':
    case 'int32':
      return fc.integer({ min: -100_000, max: 100_000 });
    case 'decimal(10,2)':
      return fc.integer({ min: -99_999, max: 99_999 }).map((cents) => (cents / 100).toFixed(2));
    case 'decimal(38,0)':
      return fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map(String);
    case 'boolean':
      return fc.boolean();
    case 'date':
      return fc
        .integer({ min: 0, max: 3000 })
        .map((day) => new Date(Date.UTC(2020, 0, 1 + day)).toISOString().slice(0, 10));
    case 'timestamp':
      return fc
        .integer({ min: 0, max: 10_000_000 })
        .map((s) => new Date(Date.UTC(2024, 0, 1) + s * 1000).toISOString().slice(0, 19));
    case 'timestamp_tz':
      return fc
        .integer({ min: 0, max: 10_000_000 })
        .map((s) => new Date(Date.UTC(2024, 0, 1) + s * 1000).toISOString().replace('.000', ''));
    default:
      return fc.constantFrom(0.5, 0.25, 2, 1024, -3.75);
  }
}

const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });

const fieldsArb: fc.Arbitrary<Field[]> = fc
  .uniqueArray(fc.constantFrom(...NAMES), { minLength: 2, maxLength: 6 })
  .chain((names) =>
    fc.tuple(
      ...names.map((name, index) =>
        fc.record(
          {
            name: fc.constant(name),
            type: fc.constantFrom(...TYPES),
            nullable: optional(fc.boolean()),
            classification: optional(fc.constantFrom(...CLASSIFICATIONS)),
            critical_data_element: optional(fc.boolean()),
            authoritative_definitions: optional(fc.subarray(LINKS)),
            deprecation: optional(
              fc.record(
                {
                  guidance: fc.constantFrom('use the new field', 'Ersetzt durch «neu»', '\u{1F600} later'),
                  replaced_by: optional(fc.constant(names[(index + 1) % names.length] as string)),
                },
                { requiredKeys: ['guidance'] },
              ),
            ),
            description: optional(fc.string()),
            tags: optional(fc.array(fc.constantFrom('pii', 'gold', 'legacy'), { maxLength: 2 })),
          },
          { requiredKeys: ['name', 'type'] },
        ),
      ),
    ),
  )
  .map((fields) => fields.map((field) => ({ ...field })) as Field[]);

const contractArb = fc.record({
  version: fc.tuple(fc.nat(20), fc.nat(20), fc.nat(20)).map((parts) => parts.join('.')),
  compatibility: fc.constantFrom('backward', 'forward', 'full', 'none'),
});

const generatedArb: fc.Arbitrary<Generated> = fc
  .record({
    fields: fieldsArb,
    contracts: fc.tuple(contractArb, contractArb, contractArb),
    seed: fc.integer(),
  })
  .chain(({ fields, contracts, seed }) => {
    const names = fields.map((field) => field.name);
    const strings = fields.filter((field) => field.type === 'string');
    const temporal = fields.filter((field) => TEMPORAL.has(field.type));
    const numeric = fields.filter((field) => NUMERIC.has(field.type));
    const first = fields[0] as Field;
    return fc
      .record({
        whereLiteral: fc.integer({ min: 0, max: 1000 }),
        uniqueFields: fc.subarray(names, { minLength: 1 }),
        severity: optional(fc.constantFrom('error', 'warn')),
        accepted:
          strings.length === 0
            ? fc.constant([])
            : fc.uniqueArray(fc.constantFrom(...STRINGS), { minLength: 1, maxLength: 4 }),
        entityFields: fc.shuffledSubarray(names, { minLength: 1, maxLength: 2 }),
        granularity: optional(fc.constantFrom('day', 'month', 'year')),
        agg: fc.constantFrom('sum', 'max', 'min', 'average'),
        emptyResult: optional(fc.constantFrom('zero' as const, null)),
        filterValues: fc.uniqueArray(literalArb(first.type), {
          minLength: 1,
          maxLength: 3,
          selector: (v) => String(v),
        }),
        filterOp: fc.constantFrom('in', 'not_in'),
      })
      .map((choice): Generated => {
        const [sourceContract, modelContract, semanticContract] = contracts;
        const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`;
        const source: Doc = { kind: 'Source', id: IDS.source, name: 's', contract: sourceContract, fields };
        const checks: Doc[] = [
          {
            type: 'unique',
            fields: choice.uniqueFields,
            ...(choice.severity ? { severity: choice.severity } : {}),
          },
        ];
        checks.push({ type: 'not_null', field: first.name });
        const stringField = strings[0];
        if (stringField !== undefined && choice.accepted.length > 0) {
          checks.push({ type: 'accepted_values', field: stringField.name, values: choice.accepted });
        }
        const model: Doc = {
          kind: 'Model',
          id: IDS.model,
          name: 'm',
          contract: modelContract,
          sql: `select ${names.map(quoted).join(', ')} from "${IDS.source}" as src where ${choice.whereLiteral} >= 0`,
          fields: fields.map(({ name, type }) => ({ name, type })),
          checks,
        };
        const dimensions: Doc[] = fields.map((field, index) =>
          TEMPORAL.has(field.type)
            ? {
                name: `d${index}`,
                type: 'time',
                field: field.name,
                ...(choice.granularity ? { time_granularity: choice.granularity } : {}),
              }
            : { name: `d${index}`, type: 'categorical', field: field.name },
        );
        const measures: Doc[] = [{ name: 'rows', agg: 'count' }];
        const numericField = numeric[0];
        if (numericField !== undefined) {
          measures.push({
            name: 'total',
            agg: choice.agg,
            field: numericField.name,
            ...(choice.emptyResult === undefined ? {} : { empty_result: choice.emptyResult }),
          });
        }
        const semantic: Doc = {
          kind: 'SemanticModel',
          id: IDS.semantic,
          name: 'sm',
          contract: semanticContract,
          model: IDS.model,
          defaults:
            temporal.length > 0 ? { agg_time_dimension: `d${fields.indexOf(temporal[0] as Field)}` } : {},
          entities: [{ name: 'e', type: 'primary', fields: choice.entityFields }],
          dimensions,
          measures,
          filters: [
            {
              name: 'f',
              conditions: [
                { dimension: 'd0', op: choice.filterOp, values: choice.filterValues },
                { dimension: 'd0', op: 'is_not_null' },
              ],
            },
          ],
        };
        return { source, model, semantic, seed };
      });
  });

// --- emission with permuted key order and permuted sets ------------------------

function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffle<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/** Arrays that the contract declares as sets, by the key that holds them (tuples and paths excluded). */
function isSetKey(key: string, parent: Doc): boolean {
  if (key === 'fields') return parent.kind !== undefined || parent.type === 'unique';
  return [
    'checks',
    'values',
    'authoritative_definitions',
    'dimensions',
    'measures',
    'entities',
    'filters',
    'conditions',
    'tags',
  ].includes(key);
}

function permuted(value: unknown, random: () => number, key = '', parent: Doc = {}): unknown {
  if (Array.isArray(value)) {
    const items = value.map((item) => permuted(item, random));
    return isSetKey(key, parent) ? shuffle(items, random) : items;
  }
  if (typeof value !== 'object' || value === null) return value;
  const doc = value as Doc;
  const out: Doc = {};
  for (const name of shuffle(Object.keys(doc), random)) out[name] = permuted(doc[name], random, name, doc);
  return out;
}

function yamlOf(doc: unknown): string {
  return stringify(doc, { lineWidth: 0, aliasDuplicateObjects: false });
}

/**
 * Projects the three resources. Block YAML by default; `flow` writes each
 * document as JSON text, which is YAML 1.2 flow style and reads through the
 * same strict reader in about half the time (used where key order is not
 * what a property is about).
 */
async function digests(
  generated: Generated,
  permuteWith?: () => number,
  style: 'block' | 'flow' = 'block',
): Promise<Record<string, string>> {
  const docs = { 'a.yaml': generated.source, 'b.yaml': generated.model, 'c.yaml': generated.semantic };
  const files = Object.entries(docs).map(([path, doc]) => {
    const value = permuteWith === undefined ? doc : permuted(doc, permuteWith);
    return { path, bytes: Buffer.from(style === 'flow' ? JSON.stringify(value) : yamlOf(value), 'utf8') };
  });
  const project = await ContractProject.fromFiles(files, parser);
  if (!project.valid) {
    const refused = project.outcomes.find((outcome) => outcome.refusal !== null);
    throw new Error(`generated project refused: ${refused?.refusal?.code} at ${refused?.refusal?.field}`);
  }
  const out: Record<string, string> = {};
  for (const id of Object.values(IDS)) {
    const canonical = canonicalizeProjection(project.seal(id));
    out[id] = `${canonical.digest} ${Buffer.from(canonical.bytes).toString('base64')}`;
  }
  return out;
}

const clone = (generated: Generated): Generated => structuredClone(generated);

// --- changes -------------------------------------------------------------------

type Change = (g: Generated, pick: number) => { id: string } | undefined;

const fieldsOf = (g: Generated) => g.source.fields as Field[];
const at = <T>(items: readonly T[], pick: number): T => items[pick % items.length] as T;
const nextOf = (values: readonly string[], current: string | undefined) =>
  values[(values.indexOf(current ?? values[0] ?? '') + 1) % values.length] as string;

const PROJECTED_CHANGES: Change[] = [
  (g) => {
    const contract = g.source.contract as { version: string };
    const [major, minor, patch] = contract.version.split('.').map(Number);
    contract.version = `${major}.${minor}.${(patch ?? 0) + 1}`;
    return { id: IDS.source };
  },
  (g) => {
    const contract = g.model.contract as { compatibility: string };
    contract.compatibility = nextOf(['backward', 'forward', 'full', 'none'], contract.compatibility);
    return { id: IDS.model };
  },
  (g, pick) => {
    const field = at(fieldsOf(g), pick);
    field.nullable = !(field.nullable ?? true);
    return { id: IDS.source };
  },
  (g, pick) => {
    const field = at(fieldsOf(g), pick);
    field.classification = nextOf(CLASSIFICATIONS, field.classification ?? 'internal');
    return { id: IDS.source };
  },
  (g, pick) => {
    const field = at(fieldsOf(g), pick);
    field.critical_data_element = !(field.critical_data_element ?? false);
    return { id: IDS.source };
  },
  (g, pick) => {
    const field = at(fieldsOf(g), pick);
    field.type = nextOf(TYPES, field.type);
    return { id: IDS.source };
  },
  (g, pick) => {
    // A link whose normal form is not yet in the set.
    const field = at(fieldsOf(g), pick);
    const links = field.authoritative_definitions ?? [];
    field.authoritative_definitions = [...links, `https://new.example/${pick}`];
    return { id: IDS.source };
  },
  (g, pick) => {
    const field = at(fieldsOf(g), pick);
    if (field.deprecation === undefined) field.deprecation = { guidance: 'new guidance' };
    else delete field.deprecation;
    return { id: IDS.source };
  },
  (g) => {
    const checks = g.model.checks as Doc[];
    const unique = checks[0] as Doc;
    unique.severity = (unique.severity ?? 'error') === 'error' ? 'warn' : 'error';
    return { id: IDS.model };
  },
  (g) => {
    g.model.sql = String(g.model.sql).replace(
      /where (\d+) >= 0/,
      (_m, n: string) => `where ${Number(n) + 1} >= 0`,
    );
    return { id: IDS.model };
  },
  (g, pick) => {
    // Another type of the same family, so the semantic model's bindings stay valid;
    // the first field (filtered on) and the accepted-values field keep theirs.
    const fields = g.model.fields as Field[];
    const field = fields[1 + (pick % (fields.length - 1))] as Field;
    const accepted = (g.model.checks as Doc[]).find((check) => check.type === 'accepted_values');
    if (accepted?.field === field.name) return undefined;
    field.type = SAME_FAMILY[field.type] ?? field.type;
    return { id: IDS.model };
  },
  (g) => {
    const measures = g.semantic.measures as Doc[];
    const total = measures[1];
    if (total === undefined) return undefined;
    total.agg = nextOf(['sum', 'max', 'min', 'average'], total.agg as string);
    return { id: IDS.semantic };
  },
  (g) => {
    const measures = g.semantic.measures as Doc[];
    const rows = measures[0] as Doc;
    rows.empty_result = null;
    return { id: IDS.semantic };
  },
  (g) => {
    const entity = (g.semantic.entities as Doc[])[0] as Doc;
    const fields = entity.fields as string[];
    if (fields.length < 2) {
      entity.type = nextOf(['primary', 'unique', 'foreign', 'natural'], entity.type as string);
    } else {
      entity.fields = [...fields].reverse();
    }
    return { id: IDS.semantic };
  },
  (g) => {
    const filter = (g.semantic.filters as Doc[])[0] as Doc;
    const condition = (filter.conditions as Doc[])[0] as Doc;
    condition.op = condition.op === 'in' ? 'not_in' : 'in';
    return { id: IDS.semantic };
  },
  (g) => {
    const contract = g.semantic.contract as { version: string };
    const [major, minor] = contract.version.split('.').map(Number);
    contract.version = `${(major ?? 0) + 1}.${minor}.0`;
    return { id: IDS.semantic };
  },
];

const EXCLUDED_CHANGES: ((g: Generated, pick: number) => void)[] = [
  (g) => {
    g.source.description = 'Rewritten prose \u{1F600}';
  },
  (g) => {
    g.model.tags = ['gold', 'reviewed'];
  },
  (g, pick) => {
    at(fieldsOf(g), pick).description = 'another description';
  },
  (g, pick) => {
    at(fieldsOf(g), pick).tags = ['pii'];
  },
  (g) => {
    g.source.location = { catalog: 'raw', schema: 'shop', table: 'orders_v2' };
  },
  (g) => {
    g.source.credentials = { secret_ref: 'vault/other-reader' };
  },
  (g) => {
    g.model.target = { profile: 'prod', materialization: 'view' };
  },
  (g) => {
    g.source.runtime = { state: 'paused', row_count: 12 };
  },
  (g) => {
    g.source.name = 'renamed_source';
  },
  (g) => {
    g.model.name = 'renamed_model';
  },
  (g) => {
    g.semantic.name = 'renamed_semantic';
  },
  (g) => {
    ((g.semantic.measures as Doc[])[0] as Doc).label = 'Row count';
  },
  (g) => {
    ((g.semantic.dimensions as Doc[])[0] as Doc).description = 'why';
  },
  (g) => {
    ((g.model.checks as Doc[])[0] as Doc).description = 'a unique key';
  },
  (g) => {
    ((g.semantic.filters as Doc[])[0] as Doc).description = 'a filter';
  },
];

describe('projection properties over generated resources', () => {
  it(
    `is deterministic and ignores YAML key order and the order of set-like inputs (${RUNS_A} projects)`,
    async () => {
      await fc.assert(
        fc.asyncProperty(generatedArb, async (generated) => {
          // Two independent builds from differently ordered bytes: equal digests and bytes.
          const plain = await digests(generated);
          expect(await digests(generated, prng(generated.seed))).toEqual(plain);
        }),
        { numRuns: RUNS_A },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    `changes the digest whenever a projected value changes (${RUNS_B} projects)`,
    async () => {
      await fc.assert(
        fc.asyncProperty(
          generatedArb,
          fc.nat(PROJECTED_CHANGES.length - 1),
          fc.nat(),
          async (generated, which, pick) => {
            const changed = clone(generated);
            const result = (PROJECTED_CHANGES[which] as Change)(changed, pick);
            fc.pre(result !== undefined);
            const before = await digests(generated);
            const after = await digests(changed);
            expect(after[(result as { id: string }).id]).not.toBe(before[(result as { id: string }).id]);
          },
        ),
        { numRuns: RUNS_B },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    `never changes a digest when an excluded field changes (${RUNS_C} projects)`,
    async () => {
      await fc.assert(
        fc.asyncProperty(
          generatedArb,
          fc.nat(EXCLUDED_CHANGES.length - 1),
          fc.nat(),
          async (generated, which, pick) => {
            const changed = clone(generated);
            EXCLUDED_CHANGES[which]?.(changed, pick);
            expect(await digests(changed, undefined, 'flow')).toEqual(
              await digests(generated, undefined, 'flow'),
            );
          },
        ),
        { numRuns: RUNS_C },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );
});
