import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../core/digest/index.js';
import { pyDumps } from '../core/json/index.js';
import { at } from '../core/list/index.js';
import { type Data, toCanonical } from './fixtures/build.js';
import { buildCell } from './fixtures/cells.js';
import { get, remove, type Step, set } from './fixtures/json-path.js';
import { decodeRaw } from './fixtures/outcome.js';
import {
  EXECUTION_CELLS,
  refuseScopedExecution,
  SCOPED_EXECUTION_REASONS,
  type ScopedExecutionReason,
} from './index.js';

/**
 * Mutated documents: every one decodes to a valid owner (whose bytes
 * round-trip exactly) or is refused with one of the listed reasons and its
 * fixed message; no other exception ever leaves the codec.
 */

const RUNS = 10_000;
const BASES: readonly Data[] = EXECUTION_CELLS.map((cell) => buildCell(cell).owner);

/** Every path to a value in a document, containers included. */
function pathsOf(root: unknown): Step[][] {
  const out: Step[][] = [];
  const walk = (node: unknown, path: Step[]) => {
    out.push(path);
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) walk(node[i], [...path, i]);
    } else if (typeof node === 'object' && node !== null) {
      for (const key of Object.keys(node)) walk((node as Data)[key], [...path, key]);
    }
  };
  walk(root, []);
  return out;
}

const scalar = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer({ min: -3, max: 300 }),
  fc.constantFrom(
    0,
    -1,
    2 ** 31,
    2 ** 53 - 1,
    2n ** 63n - 2n,
    2n ** 63n - 1n,
    2n ** 63n,
    -(2n ** 64n),
    10n ** 30n,
  ),
  fc.string({ maxLength: 12 }),
  fc.constantFrom(
    '',
    'mssql',
    'sqlserver',
    'postgresql',
    'clickhouse',
    'table',
    'view',
    'read',
    'write',
    'source',
    'target',
    'source_seal',
    'a'.repeat(129),
  ),
  fc.constantFrom('0'.repeat(64), 'F'.repeat(64), `execution:${'0'.repeat(36)}`, '..', '/abs', '*'),
);
const value = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, tie('array'), tie('object')),
  array: fc.array(tie('node'), { maxLength: 3 }),
  object: fc.dictionary(
    fc.constantFrom('schema', 'extra', 'object_id', 'guard_id', 'epoch', '__proto__'),
    tie('node'),
    { maxKeys: 3 },
  ),
})).node;

type Mutation =
  | { readonly kind: 'replace'; readonly at: number; readonly value: unknown }
  | { readonly kind: 'transplant'; readonly at: number; readonly from: number }
  | { readonly kind: 'delete'; readonly at: number }
  | { readonly kind: 'add'; readonly at: number; readonly key: string; readonly value: unknown }
  | { readonly kind: 'swap'; readonly at: number; readonly i: number; readonly j: number }
  | { readonly kind: 'duplicate'; readonly at: number; readonly i: number }
  | { readonly kind: 'nudge'; readonly at: number; readonly by: bigint };

type ByteEdit =
  | { readonly kind: 'none' }
  | { readonly kind: 'flip'; readonly at: number; readonly byte: number }
  | { readonly kind: 'insert'; readonly at: number; readonly byte: number }
  | { readonly kind: 'delete'; readonly at: number }
  | { readonly kind: 'number'; readonly at: number; readonly form: string };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), value }),
  fc.record({ kind: fc.constant('transplant' as const), at: fc.nat(), from: fc.nat() }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
  fc.record({
    kind: fc.constant('add' as const),
    at: fc.nat(),
    key: fc.constantFrom('extra', 'role', 'schema', 'authorized'),
    value,
  }),
  fc.record({ kind: fc.constant('swap' as const), at: fc.nat(), i: fc.nat(8), j: fc.nat(8) }),
  fc.record({ kind: fc.constant('duplicate' as const), at: fc.nat(), i: fc.nat(8) }),
  fc.record({ kind: fc.constant('nudge' as const), at: fc.nat(), by: fc.constantFrom(-1n, 1n, 2n ** 62n) }),
);

const byteEdit: fc.Arbitrary<ByteEdit> = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ kind: 'none' as const }) },
  fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), byte: fc.nat(255) }),
  fc.record({
    kind: fc.constant('insert' as const),
    at: fc.nat(),
    byte: fc.constantFrom(0x20, 0x0a, 0x2c, 0x22, 0x5c, 0x7b, 0xc3, 0xff),
  }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
  fc.record({
    kind: fc.constant('number' as const),
    at: fc.nat(),
    form: fc.constantFrom('.0', 'e0', 'E+1', '0', '.5'),
  }),
);

function applyMutation(doc: Data, m: Mutation): void {
  const paths = pathsOf(doc);
  const path = at(paths, m.at % paths.length);
  if (path.length === 0 && m.kind !== 'add') return;
  const target = get(doc, ...path);
  switch (m.kind) {
    case 'replace':
      set(doc, path, structuredClone(m.value));
      return;
    case 'transplant':
      set(doc, path, structuredClone(get(doc, ...at(paths, m.from % paths.length))));
      return;
    case 'delete':
      remove(doc, path);
      return;
    case 'add':
      if (typeof target === 'object' && target !== null && !Array.isArray(target)) {
        (target as Data)[m.key] = structuredClone(m.value);
      }
      return;
    case 'swap':
      if (Array.isArray(target) && target.length > 1) {
        const i = m.i % target.length;
        const j = m.j % target.length;
        [target[i], target[j]] = [target[j], target[i]];
      }
      return;
    case 'duplicate':
      if (Array.isArray(target) && target.length > 0)
        target.splice(m.i % target.length, 0, target[m.i % target.length]);
      return;
    case 'nudge':
      if (typeof target === 'number' || typeof target === 'bigint') set(doc, path, BigInt(target) + m.by);
      return;
  }
}

function applyByteEdit(bytes: Buffer, edit: ByteEdit): Buffer {
  switch (edit.kind) {
    case 'none':
      return bytes;
    case 'flip': {
      const copy = Buffer.from(bytes);
      copy[edit.at % copy.length] = edit.byte;
      return copy;
    }
    case 'insert': {
      const offset = edit.at % (bytes.length + 1);
      return Buffer.concat([bytes.subarray(0, offset), Buffer.from([edit.byte]), bytes.subarray(offset)]);
    }
    case 'delete': {
      const offset = edit.at % bytes.length;
      return Buffer.concat([bytes.subarray(0, offset), bytes.subarray(offset + 1)]);
    }
    case 'number': {
      // Rewrite one integer token (after a colon) as a float, an exponent or with a leading zero.
      const text = bytes.toString('latin1');
      const tokens = [...text.matchAll(/:(-?\d+)(?=[,}\]])/g)];
      if (tokens.length === 0) return bytes;
      const token = at(tokens, edit.at % tokens.length);
      const end = (token.index ?? 0) + token[0].length;
      const digits = at(token, 1);
      const replaced = edit.form === '0' ? `0${digits}` : `${digits}${edit.form}`;
      return Buffer.from(text.slice(0, end - digits.length) + replaced + text.slice(end), 'latin1');
    }
  }
}

describe('mutated owner documents', () => {
  it(`${RUNS} mutations: valid (round-tripping exactly) or a listed reason, never another exception`, () => {
    const seen = new Map<string, number>();
    const reasons = new Set<string>(SCOPED_EXECUTION_REASONS);
    fc.assert(
      fc.property(
        fc.nat(BASES.length - 1),
        fc.array(mutation, { minLength: 1, maxLength: 3 }),
        byteEdit,
        fc.nat(9),
        (base, mutations, edit, digestDraw) => {
          const wrongDigest = digestDraw === 0;
          const doc = structuredClone(at(BASES, base));
          for (const m of mutations) applyMutation(doc, m);
          let bytes: Buffer;
          try {
            bytes = Buffer.from(pyDumps(doc), 'utf8');
          } catch {
            return; // a mutation this serializer cannot write (none expected; not a codec outcome)
          }
          bytes = applyByteEdit(bytes, edit);
          const expected =
            wrongDigest && edit.kind === 'none'
              ? sha256Hex(Buffer.concat([bytes, Buffer.from(' ')]))
              : sha256Hex(bytes);
          const outcome = decodeRaw(bytes, expected);
          if (outcome.kind === 'crashed') throw outcome.error;
          if (outcome.kind === 'ok') {
            expect(Buffer.from(outcome.value.toBytes()).equals(bytes)).toBe(true);
            seen.set('ok', (seen.get('ok') ?? 0) + 1);
            return;
          }
          expect(reasons.has(outcome.code)).toBe(true);
          expect(outcome.refusal.message).toBe(
            refuseScopedExecution.table[outcome.code as ScopedExecutionReason].message,
          );
          seen.set(outcome.code, (seen.get(outcome.code) ?? 0) + 1);
        },
      ),
      { numRuns: RUNS },
    );
    const total = [...seen.values()].reduce((a, b) => a + b, 0);
    process.stderr.write(`owner mutation outcomes: ${JSON.stringify(Object.fromEntries(seen))}\n`);
    expect(total).toBeGreaterThanOrEqual(RUNS * 0.99);
    // The mutations reach every part of the document, not just its syntax.
    for (const reason of SCOPED_EXECUTION_REASONS) {
      if (reason === 'scoped_execution_attempt') continue;
      expect(seen.get(reason) ?? 0).toBeGreaterThan(0);
    }
    expect(seen.get('ok') ?? 0).toBeGreaterThan(0);
  });

  it('keeps the bases valid (mutations start from valid documents)', () => {
    for (const base of BASES) expect(decodeRaw(toCanonical(base).bytes).kind).toBe('ok');
  });
});
