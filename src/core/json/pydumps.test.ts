import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Refusal } from '../refusal/index.js';
import { canonicalize } from './jcs.js';
import { parseStrict } from './parse.js';
import { pyDumps } from './pydumps.js';
import { JsonFloat } from './value.js';

const sha256hex = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

function refusedCode(work: () => unknown): string {
  try {
    work();
  } catch (error) {
    if (error instanceof Refusal) return error.code;
    throw new Error('expected a Refusal, got another exception');
  }
  throw new Error('expected a Refusal, got a value');
}

/** What the Python oracle is given: a value whose integers are all exact. */
type Exact = null | boolean | string | number | bigint | readonly Exact[] | { readonly [key: string]: Exact };

/**
 * A tagged encoding the oracle decodes without guessing: every node says
 * what it is, integers travel as decimal digits, and object members as
 * [key, value] pairs. It is produced by JSON.stringify, not by the code
 * under test.
 */
type Tagged =
  | readonly ['n']
  | readonly ['b', boolean]
  | readonly ['i', string]
  | readonly ['s', string]
  | readonly ['a', readonly Tagged[]]
  | readonly ['o', readonly (readonly [string, Tagged])[]];

function tag(value: Exact): Tagged {
  if (value === null) return ['n'];
  if (typeof value === 'boolean') return ['b', value];
  if (typeof value === 'number' || typeof value === 'bigint') return ['i', value.toString()];
  if (typeof value === 'string') return ['s', value];
  if (Array.isArray(value)) return ['a', value.map(tag)];
  const record = value as { readonly [key: string]: Exact };
  return ['o', Object.keys(record).map((key) => [key, tag(record[key] ?? null)] as const)];
}

const ORACLE = String.raw`
import json, sys

def build(node):
    kind = node[0]
    if kind == "n": return None
    if kind == "b": return node[1]
    if kind == "i": return int(node[1])
    if kind == "s": return node[1]
    if kind == "a": return [build(item) for item in node[1]]
    if kind == "o": return {key: build(item) for key, item in node[1]}
    raise ValueError(kind)

out = sys.stdout.buffer
for line in sys.stdin.buffer:
    value = build(json.loads(line))
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    out.write(text.encode("utf-8") + b"\n")
`;

/** One python3 process for the whole batch: one JSON-lines stream in, one json.dumps line out per value. */
function pythonDumps(values: readonly Exact[]): Buffer[] {
  const batch = `${values.map((value) => JSON.stringify(tag(value))).join('\n')}\n`;
  const result = spawnSync('python3', ['-c', ORACLE], {
    input: Buffer.from(batch, 'utf8'),
    maxBuffer: 256 * 1024 * 1024,
  });
  if (result.error !== undefined || result.status !== 0) {
    throw new Error(`python3 oracle failed: ${result.error?.message ?? result.stderr.toString('utf8')}`);
  }
  const lines: Buffer[] = [];
  let start = 0;
  for (let i = 0; i < result.stdout.length; i++) {
    if (result.stdout[i] === 0x0a) {
      lines.push(result.stdout.subarray(start, i));
      start = i + 1;
    }
  }
  return lines;
}

describe('pyDumps: fixed points', () => {
  it('hashes the empty mapping to the documented digest', () => {
    expect(pyDumps({})).toBe('{}');
    expect(sha256hex(pyDumps({}))).toBe('44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a');
  });

  it('writes Python’s separators, escapes and literals', () => {
    expect(pyDumps({ b: [1, true, null], a: 'x' })).toBe('{"a":"x","b":[1,true,null]}');
    expect(pyDumps('\u0000\u0008\u0009\u000a\u000c\u000d\u001f"\\')).toBe(
      '"\\u0000\\b\\t\\n\\f\\r\\u001f\\"\\\\"',
    );
    expect(pyDumps('\u007f\u2028\u2029é€😀/')).toBe('"\u007f\u2028\u2029é€😀/"');
    expect(pyDumps(-0)).toBe('0');
    expect(pyDumps(2n ** 70n)).toBe('1180591620717411303424');
    expect(pyDumps(-(2n ** 70n))).toBe('-1180591620717411303424');
  });

  it('sorts keys by code point where RFC 8785 sorts by UTF-16 code unit', () => {
    const value = { '\uE000': 'private use', '\u{1F600}': 'astral', '\uFFFD': 'replacement', a: 'ascii' };
    expect(pyDumps(value)).toBe('{"a":"ascii","\uE000":"private use","\uFFFD":"replacement","😀":"astral"}');
    expect(canonicalize(value)).toBe(
      '{"a":"ascii","😀":"astral","\uE000":"private use","\uFFFD":"replacement"}',
    );
    expect(pyDumps(value)).not.toBe(canonicalize(value));
  });

  it('accepts parser output with exact integers', () => {
    const parsed = parseStrict(
      new TextEncoder().encode('{"n":123456789012345678901234567890,"__proto__":[-0]}'),
    );
    expect(pyDumps(parsed)).toBe('{"__proto__":[0],"n":123456789012345678901234567890}');
  });

  it('writes integers of up to 4300 digits, as Python does by default, and refuses longer ones', () => {
    const longest = 10n ** 4299n;
    expect(pyDumps(longest)).toBe(`1${'0'.repeat(4299)}`);
    expect(pyDumps(-longest)).toBe(`-1${'0'.repeat(4299)}`);
    expect(refusedCode(() => pyDumps(10n ** 4300n))).toBe('canonical_unsafe_integer');
  });
});

describe('pyDumps: refusals', () => {
  const cyclic: Record<string, unknown> = {};
  cyclic.again = cyclic;
  const cases: readonly (readonly [string, unknown, string])[] = [
    ['a fraction', 1.5, 'canonical_float_refused'],
    ['a fraction in an object', { a: [0.1] }, 'canonical_float_refused'],
    ['a JsonFloat, even an integral one', new JsonFloat('1.0'), 'canonical_float_refused'],
    ['a JsonFloat exponent', [new JsonFloat('1e3')], 'canonical_float_refused'],
    ['an unsafe number integer', 2 ** 53, 'canonical_unsafe_integer'],
    ['a huge number integer', -1e300, 'canonical_unsafe_integer'],
    ['NaN', Number.NaN, 'canonical_non_finite'],
    ['Infinity', Number.POSITIVE_INFINITY, 'canonical_non_finite'],
    ['a lone surrogate', '\uDBFF', 'canonical_lone_surrogate'],
    ['a lone surrogate key', { '\uDC00': 1 }, 'canonical_lone_surrogate'],
    ['undefined', { a: undefined }, 'canonical_unsupported_value'],
    ['a function', [() => 0], 'canonical_unsupported_value'],
    ['a symbol', Symbol('s'), 'canonical_unsupported_value'],
    ['a Date', new Date(0), 'canonical_unsupported_value'],
    ['a Map', new Map(), 'canonical_unsupported_value'],
    ['a cycle', cyclic, 'canonical_too_deep'],
  ];

  it.each(cases)('refuses %s', (_label, value, code) => {
    expect(refusedCode(() => pyDumps(value))).toBe(code);
  });
});

describe('pyDumps: against python3 json.dumps', () => {
  const VALUES = 3_000;
  const unit = fc.oneof(
    { weight: 4, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
    {
      weight: 2,
      arbitrary: fc.integer({ min: 0x10000, max: 0x10ffff }).map((cp) => String.fromCodePoint(cp)),
    },
    { weight: 2, arbitrary: fc.integer({ min: 0xe000, max: 0xffff }).map((cp) => String.fromCharCode(cp)) },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: 0x1f }).map((cp) => String.fromCharCode(cp)) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('"', '\\', '\u007f', '\u2028', '\u2029', '/', '\u0085', '\ufeff'),
    },
  );
  const text = fc.string({ unit, maxLength: 8 });
  const exact: fc.Arbitrary<Exact> = fc.letrec<{ node: Exact }>((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constant(null),
      fc.boolean(),
      fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
      fc.bigInt({ min: -(2n ** 200n), max: 2n ** 200n }),
      fc.bigInt({ min: 2n ** 64n, max: 2n ** 70n }),
      text,
      fc.array(tie('node'), { maxLength: 5 }),
      fc.dictionary(text, tie('node'), { maxKeys: 6 }),
    ),
  })).node;

  it(`matches python3 byte for byte on ${VALUES} generated values`, () => {
    const seed = Date.now() % 2 ** 31;
    const values = fc.sample(exact, { numRuns: VALUES, seed });
    // Fixed cases the generator might miss: both orders of the astral / U+E000 split.
    values.push(
      { '\u{10000}': 1, '\uFFFF': 2, '\uE000': 3, '\uD7FF': 4 },
      { [`k${'\u{1F600}'}`]: [2n ** 64n + 1n, -(2n ** 64n)], [`k${'\uE000'}`]: 'e000' },
      '\u0000\u0001\u001f\u007f\u2028',
      [],
      {},
    );
    const expected = pythonDumps(values);
    expect(expected.length).toBe(values.length);
    let mismatches = 0;
    values.forEach((value, index) => {
      const ours = Buffer.from(pyDumps(value), 'utf8');
      const theirs = expected[index] ?? Buffer.alloc(0);
      if (!ours.equals(theirs)) {
        mismatches++;
        expect(ours.toString('utf8'), `fast-check seed ${seed}, value ${index}`).toBe(
          theirs.toString('utf8'),
        );
      }
    });
    expect(mismatches).toBe(0);
  });

  it('confirms with python3 that a 4301-digit integer has no json.dumps form', () => {
    const result = spawnSync('python3', ['-c', 'import json; json.dumps(10 ** 4300)']);
    expect(result.status).not.toBe(0);
    expect(result.stderr.toString('utf8')).toContain('4300');
    const ok = pythonDumps([10n ** 4299n]);
    expect(ok[0]?.toString('utf8')).toBe(pyDumps(10n ** 4299n));
  });
});
