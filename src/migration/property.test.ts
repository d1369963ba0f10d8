import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { JsonFloat } from '../core/json/index.js';
import { at } from '../core/list/index.js';
import type { EvidenceOutcome } from './bind-evidence.js';
import { EVIDENCE_FIELDS, EVIDENCE_ROLES } from './fields.js';
import { refuseEvidence } from './refusals.js';
import {
  ALIAS,
  bindBundle,
  bindFiles,
  type Invocation,
  MAX_AGE,
  type MutableBundle,
  NOW,
  retailBundle,
  summary,
  writeBundle,
} from './testing/bundles.js';

type Node = unknown;
type Container = Record<string, Node> | Node[];
type Step = string | number;

const BASES: readonly MutableBundle[] = [
  retailBundle({ source: 'sql', destination: 'bigquery' }),
  retailBundle({ source: 'csv', destination: 'snowflake', tables: ['orders', 'customers'] }),
  retailBundle({ source: 'sql', destination: 'duckdb', tables: ['order_items'] }),
];
const ARTIFACTS = ['mapping', 'dryRun', 'runManifest'] as const;
const OPS = [
  'delete',
  'null',
  'replace',
  'string',
  'number',
  'duplicate',
  'swap',
  'add_key',
  'case',
] as const;
const UNKNOWN_KEYS = ['zz_unknown', 'extra', 'note', 'columns', 'table', 'status', 'mode'];

/** Values a parsed document can hold: exact integers (bigint beyond 2^53), floats as JsonFloat, any text. */
const jsonValue: fc.Arbitrary<Node> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.integer({ min: -5, max: 5000 }),
    fc.bigInt({ min: 2n ** 53n, max: 2n ** 70n }),
    fc.constantFrom('1.0', '1.5', '-0.0', '1e3').map((lexeme) => new JsonFloat(lexeme)),
    fc.constantFrom(
      'ready',
      'empty',
      'completed',
      'dry_run',
      'replace',
      'customers',
      'bigquery',
      'csv',
      'sql',
      '',
    ),
    fc.string({ unit: 'grapheme', maxLength: 12 }),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom(...UNKNOWN_KEYS), tie('value'), { maxKeys: 3 }),
  ),
})).value;

const mutation = fc.record({
  artifact: fc.constantFrom(...ARTIFACTS),
  at: fc.nat(),
  op: fc.constantFrom(...OPS),
  value: jsonValue,
  index: fc.nat(),
});
type Mutation = typeof mutation extends fc.Arbitrary<infer T> ? T : never;

const invocation = fc.record({
  sourceBindingId: fc.constantFrom<string | undefined>(
    ALIAS,
    ALIAS,
    ALIAS,
    undefined,
    'other_alias',
    'Synthetic_Retail',
  ),
  maxAge: fc.constantFrom<number | undefined>(MAX_AGE, MAX_AGE, MAX_AGE, undefined, 1, 0),
  now: fc.constantFrom(NOW, NOW, NOW, new Date(Date.UTC(2030, 0, 1)), new Date(Date.UTC(2020, 0, 1))),
});

const scenario = fc.record({
  base: fc.nat({ max: BASES.length - 1 }),
  mutations: fc.array(mutation, { minLength: 0, maxLength: 3 }),
  invocation,
});
type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

/** Every path to a value inside a document, parents before children. */
function pathsOf(node: Node, prefix: Step[] = [], out: Step[][] = []): Step[][] {
  if (Array.isArray(node)) {
    node.forEach((child, index) => {
      out.push([...prefix, index]);
      pathsOf(child, [...prefix, index], out);
    });
  } else if (typeof node === 'object' && node !== null && !(node instanceof JsonFloat)) {
    for (const key of Object.keys(node)) {
      out.push([...prefix, key]);
      pathsOf((node as Record<string, Node>)[key], [...prefix, key], out);
    }
  }
  return out;
}

function nodeAt(root: Node, path: readonly Step[]): Node {
  let node = root;
  for (const step of path) node = (node as Record<string, Node>)[step as string];
  return node;
}

function parentOf(root: Node, path: readonly Step[]): Container {
  return nodeAt(root, path.slice(0, -1)) as Container;
}

function isObject(node: Node): node is Record<string, Node> {
  return typeof node === 'object' && node !== null && !Array.isArray(node) && !(node instanceof JsonFloat);
}

function mutate(document: Record<string, Node>, m: Mutation): void {
  const paths = pathsOf(document);
  if (m.op === 'add_key' || paths.length === 0) {
    const objects = [[], ...paths].filter((path) => isObject(nodeAt(document, path)));
    const target = nodeAt(document, objects[m.at % objects.length] ?? []) as Record<string, Node>;
    target[at(UNKNOWN_KEYS, m.index % UNKNOWN_KEYS.length)] = m.value;
    return;
  }
  const path = at(paths, m.at % paths.length);
  const parent = parentOf(document, path);
  const key = at(path, path.length - 1);
  const current = (parent as Record<string, Node>)[key as string];
  const set = (value: Node): void => {
    (parent as Record<string, Node>)[key as string] = value;
  };
  switch (m.op) {
    case 'delete':
      if (Array.isArray(parent)) parent.splice(key as number, 1);
      else delete parent[key as string];
      return;
    case 'null':
      set(null);
      return;
    case 'replace':
      set(m.value);
      return;
    case 'string':
      if (typeof current === 'string') {
        const variants = [
          current.toUpperCase(),
          `${current}x`,
          '',
          current.slice(1),
          'x'.repeat(1025),
          `${current}\n`,
        ];
        set(variants[m.index % variants.length]);
      } else set(String(m.index));
      return;
    case 'number':
      if (typeof current === 'number')
        set([current + 1, current - 1, -current, BigInt(current) + 2n ** 60n][m.index % 4]);
      else set(m.index % 2 === 0 ? 1 : new JsonFloat('1.0'));
      return;
    case 'duplicate':
      if (Array.isArray(current) && current.length > 0)
        current.push(structuredClone(current[m.index % current.length]));
      else set([current]);
      return;
    case 'swap':
      if (Array.isArray(current) && current.length > 1) {
        const i = m.index % current.length;
        const j = (i + 1) % current.length;
        [current[i], current[j]] = [current[j], current[i]];
      }
      return;
    case 'case':
      if (typeof current === 'string')
        set(current === current.toLowerCase() ? current.toUpperCase() : current.toLowerCase());
      return;
  }
}

function build(s: Scenario): { bundle: MutableBundle; invocation: Invocation } {
  const bundle = structuredClone(at(BASES, s.base));
  for (const m of s.mutations) mutate(bundle[m.artifact], m);
  return { bundle, invocation: s.invocation };
}

const CODES = new Set<string>(refuseEvidence.codes);
const ROLES = new Set<string>(EVIDENCE_ROLES);
const FIELDS = new Set<string>(EVIDENCE_FIELDS);

/** `bound`, or a refusal with a listed code, an artifact role (or none) and an allowlisted field (or none). */
function expectListedOutcome(outcome: EvidenceOutcome): void {
  if (outcome.status === 'bound') return;
  const { code, role, field, message } = outcome.refusal;
  expect(CODES.has(code)).toBe(true);
  expect(role === undefined || ROLES.has(role)).toBe(true);
  expect(field === undefined || FIELDS.has(field)).toBe(true);
  expect(message).toBe(refuseEvidence.table[code].message);
}

/** The text a loader would write for a mutated document: exact integers, float lexemes. */
function jsonText(node: Node): string {
  if (typeof node === 'bigint') return node.toString();
  if (node instanceof JsonFloat) return node.lexeme;
  if (Array.isArray(node)) return `[${node.map(jsonText).join(',')}]`;
  if (typeof node === 'object' && node !== null) {
    return `{${Object.entries(node)
      .map(([key, value]) => `${JSON.stringify(key)}:${jsonText(value)}`)
      .join(',')}}`;
  }
  return JSON.stringify(node);
}

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

describe('mutated evidence bundles: bound or a listed refusal, never another exception', () => {
  it('holds for 12,000 bundles in memory, through the same validation the file readers call', () => {
    const codes = new Map<string, number>();
    fc.assert(
      fc.property(scenario, (s) => {
        const { bundle, invocation: inv } = build(s);
        const outcome = bindBundle(bundle, inv);
        expectListedOutcome(outcome);
        const code = outcome.status === 'bound' ? 'bound' : outcome.refusal.code;
        codes.set(code, (codes.get(code) ?? 0) + 1);
      }),
      { numRuns: 12_000, seed: 145 },
    );
    // The mutations reach deep into every stage, not just the first check.
    expect(codes.get('bound') ?? 0).toBeGreaterThan(100);
    expect(codes.size).toBeGreaterThanOrEqual(18);
  });

  it('gives the same outcome through real owner-only files for 150 of them', () => {
    const root = mkdtempSync(join(tmpdir(), 'sealkit-evidence-property-'));
    roots.push(root);
    let count = 0;
    fc.assert(
      fc.property(scenario, (s) => {
        const { bundle, invocation: inv } = build(s);
        const memory = bindBundle(bundle, inv);
        const paths = writeBundle(join(root, `b${count++}`), bundle, {
          mapping: jsonText(bundle.mapping),
          dryRun: jsonText(bundle.dryRun),
          runManifest: jsonText(bundle.runManifest),
        });
        const files = bindFiles(paths, inv);
        expectListedOutcome(files);
        expect(summary(files)).toEqual(summary(memory));
      }),
      { numRuns: 150, seed: 146 },
    );
  });
});
