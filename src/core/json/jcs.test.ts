import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import npmCanonicalize from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Refusal } from '../refusal/index.js';
import { canonicalize, canonicalizeToBytes } from './jcs.js';
import { parseStrict } from './parse.js';
import { MAX_SERIAL_DEPTH } from './serial.js';
import { JsonFloat } from './value.js';

const VECTORS = new URL('./testdata/jcs/', import.meta.url);
const vector = (path: string): Buffer => readFileSync(new URL(path, VECTORS));
const sha256hex = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

function refusedCode(work: () => unknown): string {
  try {
    work();
  } catch (error) {
    if (error instanceof Refusal) return error.code;
    throw new Error('expected a Refusal, got another exception');
  }
  throw new Error('expected a Refusal, got a value');
}

/** The double whose IEEE 754 bits are `hex` (leading zeros may be omitted). */
function doubleFromHex(hex: string): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt(`0x${hex}`));
  return view.getFloat64(0);
}

/** `hex,expected` lines; `#` comments and blank lines skipped. */
function numberLines(file: string): readonly (readonly [string, string])[] {
  return vector(file)
    .toString('utf8')
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const comma = line.indexOf(',');
      return [line.slice(0, comma), line.slice(comma + 1)] as const;
    });
}

describe('canonicalize: RFC 8785 vectors', () => {
  const names = readdirSync(new URL('input/', VECTORS)).filter((name) => name.endsWith('.json'));
  const digests = new Map(
    vector('output.sha256')
      .toString('utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => {
        const [digest, path] = line.trim().split(/\s+/);
        return [path ?? '', digest ?? ''] as const;
      }),
  );

  it('has the six documents and a digest for each', () => {
    expect(names.sort()).toEqual([
      'arrays.json',
      'french.json',
      'structures.json',
      'unicode.json',
      'values.json',
      'weird.json',
    ]);
    expect(digests.size).toBe(6);
  });

  it.each(names)('reproduces output/%s byte for byte', (name) => {
    const ours = canonicalizeToBytes(parseStrict(vector(`input/${name}`)));
    const expected = vector(`output/${name}`);
    expect(Buffer.from(ours).equals(expected)).toBe(true);
    const hex = vector(`outhex/${name.replace(/\.json$/, '.txt')}`)
      .toString('utf8')
      .trim()
      .split(/\s+/)
      .map((pair) => Number.parseInt(pair, 16));
    expect(Array.from(ours)).toEqual(hex);
    expect(sha256hex(ours)).toBe(digests.get(`output/${name}`));
  });

  it.each(['es6testfile1k.txt', 'es6testfile10k.txt'])('formats every number of %s', (file) => {
    const lines = numberLines(file);
    expect(lines.length).toBe(file.includes('10k') ? 10_000 : 1_000);
    for (const [hex, expected] of lines) {
      const value = doubleFromHex(hex);
      if (canonicalize(value) !== expected)
        expect(`${hex} -> ${canonicalize(value)}`).toBe(`${hex} -> ${expected}`);
    }
  });

  it('handles the edge cases of es6-number-samples.csv, refusing NaN and the infinities', () => {
    const lines = numberLines('es6-number-samples.csv');
    expect(lines.length).toBe(10);
    for (const [hex, expected] of lines) {
      const value = doubleFromHex(hex);
      if (expected === 'null') {
        expect(refusedCode(() => canonicalize(value))).toBe('canonical_non_finite');
      } else {
        expect(canonicalize(value)).toBe(expected);
        expect(canonicalize([value])).toBe(`[${expected}]`);
      }
    }
  });
});

describe('canonicalize: values', () => {
  it('writes scalars and sorts keys by UTF-16 code units', () => {
    expect(canonicalize(null)).toBe('null');
    expect(canonicalize(true)).toBe('true');
    expect(canonicalize(-0)).toBe('0');
    expect(canonicalize(1e21)).toBe('1e+21');
    expect(canonicalize(0.1)).toBe('0.1');
    expect(canonicalize('\u2028\u007f/')).toBe('"\u2028\u007f/"');
    expect(canonicalize('\u0000\u0008\u0009\u000a\u000b\u000c\u000d\u001f"\\')).toBe(
      '"\\u0000\\b\\t\\n\\u000b\\f\\r\\u001f\\"\\\\"',
    );
    expect(canonicalize({ b: 1, a: [true, null, 'x'], A: {}, '': 0 })).toBe(
      '{"":0,"A":{},"a":[true,null,"x"],"b":1}',
    );
    // U+1F600 (surrogates D83D DE00) sorts before U+FB33 by code units.
    expect(canonicalize({ '\uFB33': 1, '\u{1F600}': 2 })).toBe('{"\u{1F600}":2,"\uFB33":1}');
  });

  it('accepts parser output: null-prototype objects, JsonFloat, exact bigints', () => {
    const parsed = parseStrict(
      new TextEncoder().encode('{"z":1.50,"a":9007199254740993,"__proto__":[1E3]}'),
      {},
    );
    expect(refusedCode(() => canonicalize(parsed))).toBe('canonical_unsafe_integer');
    const fine = parseStrict(new TextEncoder().encode('{"z":1.50,"a":-9007199254740992,"__proto__":[1E3]}'));
    expect(canonicalize(fine)).toBe('{"__proto__":[1000],"a":-9007199254740992,"z":1.5}');
    expect(canonicalize(2n ** 53n)).toBe('9007199254740992');
    expect(canonicalize(-(2n ** 53n))).toBe('-9007199254740992');
    expect(canonicalize(new JsonFloat('-0.0'))).toBe('0');
  });

  it('returns UTF-8 bytes from canonicalizeToBytes', () => {
    expect(Array.from(canonicalizeToBytes({ '€': 'é' }))).toEqual([
      0x7b, 0x22, 0xe2, 0x82, 0xac, 0x22, 0x3a, 0x22, 0xc3, 0xa9, 0x22, 0x7d,
    ]);
  });

  it('accepts nesting up to the limit', () => {
    let value: unknown = [];
    for (let depth = 1; depth < MAX_SERIAL_DEPTH; depth++) value = [value];
    expect(canonicalize(value)).toBe(`${'['.repeat(MAX_SERIAL_DEPTH)}${']'.repeat(MAX_SERIAL_DEPTH)}`);
    expect(refusedCode(() => canonicalize([value]))).toBe('canonical_too_deep');
  });
});

describe('canonicalize: refusals', () => {
  class Point {
    readonly x = 1;
  }
  const cyclic: Record<string, unknown> = { a: 1 };
  cyclic.self = cyclic;
  const cyclicArray: unknown[] = [];
  cyclicArray.push(cyclicArray);
  const withGetter = Object.defineProperty({}, 'boom', {
    enumerable: true,
    get() {
      throw new Error('getter failed for /home/customer/secret');
    },
  });

  const cases: readonly (readonly [string, unknown, string])[] = [
    ['NaN', Number.NaN, 'canonical_non_finite'],
    ['Infinity', Number.POSITIVE_INFINITY, 'canonical_non_finite'],
    ['-Infinity', [Number.NEGATIVE_INFINITY], 'canonical_non_finite'],
    ['a JsonFloat beyond the double range', new JsonFloat('1e400'), 'canonical_non_finite'],
    ['a lone high surrogate', '\uD800', 'canonical_lone_surrogate'],
    ['a lone low surrogate in an array', ['a\uDC00b'], 'canonical_lone_surrogate'],
    ['a lone surrogate key', { '\uD83D': 1 }, 'canonical_lone_surrogate'],
    ['reversed surrogates', '\uDE00\uD83D', 'canonical_lone_surrogate'],
    ['undefined', undefined, 'canonical_unsupported_value'],
    ['undefined as a property value', { a: undefined }, 'canonical_unsupported_value'],
    ['undefined as an array element', [1, undefined], 'canonical_unsupported_value'],
    ['an array hole', new Array<number>(3), 'canonical_unsupported_value'],
    ['a function', () => 1, 'canonical_unsupported_value'],
    ['a function property', { f: () => 1 }, 'canonical_unsupported_value'],
    ['a symbol', Symbol('s'), 'canonical_unsupported_value'],
    ['a symbol key', { [Symbol('s')]: 1 }, 'canonical_unsupported_value'],
    ['a Date', new Date(0), 'canonical_unsupported_value'],
    ['a Map', new Map([['a', 1]]), 'canonical_unsupported_value'],
    ['a Set', new Set([1]), 'canonical_unsupported_value'],
    ['a class instance', new Point(), 'canonical_unsupported_value'],
    ['an object with a custom prototype', Object.create({ inherited: 1 }), 'canonical_unsupported_value'],
    ['a boxed string', Object('s'), 'canonical_unsupported_value'],
    ['a typed array', new Uint8Array(2), 'canonical_unsupported_value'],
    ['a RegExp', /x/, 'canonical_unsupported_value'],
    ['a throwing getter', withGetter, 'canonical_unsupported_value'],
    ['a bigint above 2^53', 2n ** 53n + 1n, 'canonical_unsafe_integer'],
    ['a bigint below -2^53', [-(2n ** 53n) - 1n], 'canonical_unsafe_integer'],
    ['a cyclic object', cyclic, 'canonical_too_deep'],
    ['a cyclic array', cyclicArray, 'canonical_too_deep'],
  ];

  it.each(cases)('refuses %s', (_label, value, code) => {
    expect(refusedCode(() => canonicalize(value))).toBe(code);
    expect(refusedCode(() => canonicalizeToBytes(value))).toBe(code);
  });

  it('never lets the text of a foreign exception through', () => {
    try {
      canonicalize(withGetter);
    } catch (error) {
      expect(String((error as Error).message)).not.toContain('secret');
      expect(String((error as Error).stack)).not.toContain('secret');
    }
  });
});

describe('canonicalize: against the npm canonicalize package', () => {
  const NUM_RUNS = 10_000;
  // Keys and strings that stress the ordering: astral characters (surrogate
  // pairs), U+E000..U+FFFF (above the surrogates in UTF-16, below them as
  // code points), controls, quotes and backslashes.
  const unit = fc.oneof(
    { weight: 4, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
    {
      weight: 1,
      arbitrary: fc.integer({ min: 0x10000, max: 0x10ffff }).map((cp) => String.fromCodePoint(cp)),
    },
    { weight: 1, arbitrary: fc.integer({ min: 0xe000, max: 0xffff }).map((cp) => String.fromCharCode(cp)) },
    { weight: 1, arbitrary: fc.constantFrom('"', '\\', '\n', '\u0000', '\u001f', '\u007f', '\u2028', '/') },
  );
  const text = fc.string({ unit, maxLength: 8 });
  const value = fc.letrec((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constant(null),
      fc.boolean(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.integer(),
      text,
      fc.array(tie('node'), { maxLength: 5 }),
      fc.dictionary(text, tie('node'), { maxKeys: 6 }),
    ),
  })).node;

  it(`agrees byte for byte on ${NUM_RUNS} generated values`, () => {
    fc.assert(
      fc.property(value, (generated) => {
        expect(canonicalize(generated)).toBe(npmCanonicalize(generated));
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it(`agrees on ${NUM_RUNS} values from fc.jsonValue and survives a strict round trip`, () => {
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: 'binary' }), (generated) => {
        const ours = canonicalize(generated);
        expect(ours).toBe(npmCanonicalize(generated));
        // Canonical text parses strictly and canonicalizes to itself, unless
        // it holds an integer beyond 2^53 written without an exponent, which
        // the parser keeps exact as a bigint and RFC 8785 cannot represent.
        let reparsed: ReturnType<typeof parseStrict>;
        try {
          reparsed = parseStrict(new TextEncoder().encode(ours), { maxDepth: 1000 });
        } catch {
          throw new Error('canonical output did not parse strictly');
        }
        try {
          expect(canonicalize(reparsed)).toBe(ours);
        } catch (error) {
          expect(error).toBeInstanceOf(Refusal);
          expect((error as Refusal).code).toBe('canonical_unsafe_integer');
        }
      }),
      { numRuns: NUM_RUNS },
    );
  });
});
