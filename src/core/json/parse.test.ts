import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Refusal } from '../refusal/index.js';
import { parseStrict } from './parse.js';
import { type JsonRefusalCode, refuseJson } from './refusals.js';
import { DEFAULT_JSON_LIMITS, JsonFloat, type JsonLimits, type JsonObject, type JsonValue } from './value.js';

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

function refusalOf(work: () => unknown): Refusal {
  try {
    work();
  } catch (error) {
    if (error instanceof Refusal) return error;
    throw new Error('expected a Refusal, got another exception');
  }
  throw new Error('expected a Refusal, got a value');
}

function refusedCode(bytes: Uint8Array, limits?: Partial<JsonLimits>): string {
  return refusalOf(() => parseStrict(bytes, limits)).code;
}

const parse = (text: string): JsonValue => parseStrict(utf8(text));

/** Structural equality between parser output and JSON.parse output, within the double range. */
function sameAsNative(ours: JsonValue, native: unknown): boolean {
  if (ours instanceof JsonFloat) return typeof native === 'number' && Object.is(ours.value, native);
  if (typeof ours === 'bigint') return typeof native === 'number' && Number(ours) === native;
  if (typeof ours === 'number') return typeof native === 'number' && ours === native;
  if (ours === null || typeof ours !== 'object') return ours === native;
  if (Array.isArray(ours)) {
    return (
      Array.isArray(native) &&
      ours.length === native.length &&
      ours.every((item: JsonValue, index: number) => sameAsNative(item, native[index]))
    );
  }
  if (typeof native !== 'object' || native === null || Array.isArray(native)) return false;
  const record = ours as JsonObject;
  const nativeRecord = native as Readonly<Record<string, unknown>>;
  const keys = Object.keys(record);
  const nativeKeys = Object.keys(nativeRecord);
  return (
    keys.length === nativeKeys.length &&
    keys.every(
      (key) => Object.hasOwn(nativeRecord, key) && sameAsNative(record[key] ?? null, nativeRecord[key]),
    )
  );
}

describe('parseStrict: accepted documents', () => {
  const accepted: readonly (readonly [string, JsonValue])[] = [
    ['null', null],
    ['true', true],
    ['false', false],
    ['0', 0],
    ['-0', 0],
    ['7', 7],
    ['-12', -12],
    ['"plain"', 'plain'],
    ['""', ''],
    ['"\\"\\\\\\/\\b\\f\\n\\r\\t"', '"\\/\b\f\n\r\t'],
    ['"\\u00e9\\u00E9"', 'éé'],
    ['"\\ud83d\\ude00"', '😀'],
    ['"😀 raw é"', '😀 raw é'],
    ['"\u007f\u2028\u2029"', '\u007f\u2028\u2029'],
    ['[]', []],
    ['[ ]', []],
    ['[1,[2,[3]]]', [1, [2, [3]]]],
    [' \t\n\r[ 1 , 2 ] \t\n\r', [1, 2]],
    ['9007199254740991', 9007199254740991],
    ['-9007199254740991', -9007199254740991],
    ['9007199254740992', 9007199254740992n],
    ['-9007199254740993', -9007199254740993n],
    ['123456789012345678901234567890', 123456789012345678901234567890n],
    ['1e0', new JsonFloat('1e0')],
  ];

  it.each(accepted)('accepts %j', (text, expected) => {
    expect(parse(text)).toEqual(expected);
  });

  it('returns objects with a null prototype and every key', () => {
    const value = parse('{"b":1,"a":{"c":[true,null]},"":"empty"}') as JsonObject;
    expect(Object.getPrototypeOf(value)).toBeNull();
    expect(Object.keys(value)).toEqual(['b', 'a', '']);
    expect(value.a).toEqual({ c: [true, null] });
    expect(Object.getPrototypeOf(value.a)).toBeNull();
  });

  it('maps "-0" to the integer 0, not negative zero', () => {
    expect(Object.is(parse('-0'), 0)).toBe(true);
    expect(Object.is((parse('[-0]') as readonly JsonValue[])[0], 0)).toBe(true);
  });

  it('keeps big integers exact as bigint', () => {
    const digits = '98765432109876543210987654321098765432109876543210';
    expect(parse(digits)).toBe(BigInt(digits));
    expect(parse(`-${digits}`)).toBe(-BigInt(digits));
    expect(parse(`[${digits}]`)).toEqual([BigInt(digits)]);
  });

  it('keeps the lexeme of a number with a fraction or an exponent', () => {
    for (const lexeme of ['1.50', '1E3', '1e+3', '1e-3', '-0.0', '0.1', '2.5E-10', '1.0']) {
      const value = parse(lexeme);
      expect(value).toBeInstanceOf(JsonFloat);
      expect((value as JsonFloat).lexeme).toBe(lexeme);
      expect((value as JsonFloat).value).toBe(Number(lexeme));
    }
    expect(Object.is((parse('-0.0') as JsonFloat).value, -0)).toBe(true);
  });

  it('treats "__proto__" as an ordinary own key and pollutes nothing', () => {
    const value = parse('{"__proto__":{"x":1},"constructor":2,"toString":3}') as JsonObject;
    expect(Object.hasOwn(value, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(value)).toBeNull();
    expect(Object.keys(value)).toEqual(['__proto__', 'constructor', 'toString']);
    expect(Object.getOwnPropertyDescriptor(value, '__proto__')?.value).toEqual({ x: 1 });
    const probe: Record<string, unknown> = {};
    expect(probe.x).toBeUndefined();
    expect(Object.hasOwn(Object.prototype, 'x')).toBe(false);
    expect(value.constructor).toBe(2);
  });

  it('still refuses "__proto__" when it repeats', () => {
    expect(refusedCode(utf8('{"__proto__":1,"__proto__":2}'))).toBe('json_duplicate_key');
  });
});

describe('parseStrict: refused documents', () => {
  const refused: readonly (readonly [string, JsonRefusalCode])[] = [
    ['', 'json_malformed'],
    ['   ', 'json_malformed'],
    ['nul', 'json_malformed'],
    ['True', 'json_malformed'],
    ['NaN', 'json_malformed'],
    ['Infinity', 'json_malformed'],
    ['-Infinity', 'json_malformed'],
    ['+1', 'json_malformed'],
    ['.5', 'json_malformed'],
    ['1.', 'json_malformed'],
    ['1.e3', 'json_malformed'],
    ['01', 'json_malformed'],
    ['-01', 'json_malformed'],
    ['00', 'json_malformed'],
    ['-', 'json_malformed'],
    ['1e', 'json_malformed'],
    ['1e+', 'json_malformed'],
    ['0x10', 'json_malformed'],
    ['1.2.3', 'json_malformed'],
    ['1e2e3', 'json_malformed'],
    ['[01]', 'json_malformed'],
    ['[1,]', 'json_malformed'],
    ['[,1]', 'json_malformed'],
    ['[1 2]', 'json_malformed'],
    ['[', 'json_malformed'],
    ['[1', 'json_malformed'],
    ['{', 'json_malformed'],
    ['{"a"}', 'json_malformed'],
    ['{"a":}', 'json_malformed'],
    ['{"a":1,}', 'json_malformed'],
    ['{a:1}', 'json_malformed'],
    ["{'a':1}", 'json_malformed'],
    ['{"a" 1}', 'json_malformed'],
    ['{"a":1 "b":2}', 'json_malformed'],
    ['"unterminated', 'json_malformed'],
    ['"bad \\x escape"', 'json_malformed'],
    ['"bad \\u12g4 escape"', 'json_malformed'],
    ['"short \\u12"', 'json_malformed'],
    ["'single'", 'json_malformed'],
    ['"tab\tinside"', 'json_malformed'],
    ['"newline\ninside"', 'json_malformed'],
    ['"nul\u0000inside"', 'json_malformed'],
    ['\u00a01', 'json_malformed'],
    ['\f1', 'json_malformed'],
    ['\u20281', 'json_malformed'],
    ['[1]\u00a0', 'json_trailing_data'],
    ['1 2', 'json_trailing_data'],
    ['{} {}', 'json_trailing_data'],
    ['[]]', 'json_trailing_data'],
    ['truex', 'json_malformed'],
    ['[nullx]', 'json_malformed'],
    ['1true', 'json_malformed'],
    ['true false', 'json_trailing_data'],
    ['"a" "b"', 'json_trailing_data'],
    ['{"a":1,"a":2}', 'json_duplicate_key'],
    ['{"a":1,"\\u0061":2}', 'json_duplicate_key'],
    ['{"é":1,"\\u00e9":2}', 'json_duplicate_key'],
    ['{"x":{"k":1},"y":{"k":2,"k":3}}', 'json_duplicate_key'],
    ['"\\ud800"', 'json_lone_surrogate'],
    ['"\\udc00"', 'json_lone_surrogate'],
    ['"\\ud800\\u0041"', 'json_lone_surrogate'],
    ['"\\ud800x"', 'json_lone_surrogate'],
    ['"\\ud800\\ud800"', 'json_lone_surrogate'],
    ['"\\ude00\\ud83d"', 'json_lone_surrogate'],
    ['"\\ud83d😀"', 'json_lone_surrogate'],
    ['{"\\udfff":1}', 'json_lone_surrogate'],
  ];

  it.each(refused)('refuses %j with %s', (text, code) => {
    expect(refusedCode(utf8(text))).toBe(code);
  });

  it('refuses every unescaped control character in a string, and accepts each escaped', () => {
    for (let unit = 0; unit < 0x20; unit++) {
      expect(refusedCode(utf8(`"${String.fromCharCode(unit)}"`))).toBe('json_malformed');
      expect(parse(`"\\u${unit.toString(16).padStart(4, '0')}"`)).toBe(String.fromCharCode(unit));
    }
  });

  it('gives fixed messages that never quote the document', () => {
    const refusal = refusalOf(() => parse('{"customer_secret":1,"customer_secret":2}'));
    expect(refusal.code).toBe('json_duplicate_key');
    expect(refusal.message).toBe(refuseJson.table.json_duplicate_key.message);
    expect(JSON.stringify(refusal.toJSON())).not.toContain('customer_secret');
    for (const code of refuseJson.codes) {
      expect(refuseJson.table[code].message).not.toMatch(/[{}$%]/);
    }
  });
});

/** The 1-based line and column a refusal reports, as `line:column`. */
function placeOfRefusal(bytes: Uint8Array, limits?: Partial<JsonLimits>): string {
  const refusal = refusalOf(() => parseStrict(bytes, limits));
  return `${refusal.code} ${refusal.location?.line}:${refusal.location?.column}`;
}

describe('parseStrict: where the first error is', () => {
  it.each([
    ['a missing value on line 3', '{\n  "a": 1,\n  "b": ,\n  "c": 2\n}', 'json_malformed 3:8'],
    ['a repeated key, at the repeated key', '{\n  "id": 1,\n    "id": 2\n}', 'json_duplicate_key 3:5'],
    ['a lone surrogate, at its escape', '[\n "ok",\n  "\\ud800x"\n]', 'json_lone_surrogate 3:4'],
    ['a high surrogate followed by a non-surrogate escape', '["\\ud800\\u0041"]', 'json_lone_surrogate 1:3'],
    ['data after the value', '{"a": 1}\n\n  2', 'json_trailing_data 3:3'],
    ['a trailing comma in an object', '{"a": 1,\n}', 'json_malformed 2:1'],
    ['a trailing comma in an array', '[1,\n 2,\n]', 'json_malformed 3:1'],
    ['a missing colon', '{"a" 1}', 'json_malformed 1:6'],
    ['a missing comma', '{"a": 1\n "b": 2}', 'json_malformed 2:2'],
    ['a single-quoted key', "{'a': 1}", 'json_malformed 1:2'],
    ['a malformed number, at its start', '[1, 012]', 'json_malformed 1:5'],
    ['a misspelled literal, at its start', '{"a": nul}', 'json_malformed 1:7'],
    ['an invalid escape, at its backslash', '["a\\x"]', 'json_malformed 1:4'],
    ['a short \\u escape', '["\\u12"]', 'json_malformed 1:3'],
    ['a raw newline inside a string', '{"a": "open\n}', 'json_malformed 1:12'],
    ['a document that stops early, at its end', '{"a": [1,\n 2', 'json_malformed 2:3'],
    ['an empty document', '', 'json_malformed 1:1'],
  ])('reports %s', (_label, text, expected) => {
    expect(placeOfRefusal(utf8(text))).toBe(expected);
  });

  it.each([
    ['in a flat object', '{\n  "id": 1,\n  "name": "x",\n  "id": 2\n}', 'line 2, column 3'],
    ['spelt with an escape', '{"b": 1, "\\u0062": 2}', 'line 1, column 2'],
    [
      'in the object that repeats it, not in one nested before',
      '{"x": {"a": [1, {"a": 2}], "b": {"a": 0},\n "a": 3}}',
      'line 1, column 8',
    ],
    ['in a later object of an array', '[{"k": 1}, {"j": 2,\n "k": 3,\n "k": 4}]', 'line 2, column 2'],
  ])(
    'regression: a repeated key %s says where it first appears (was the repeat only)',
    (_label, text, first) => {
      const refusal = refusalOf(() => parse(text));
      expect(refusal.code).toBe('json_duplicate_key');
      expect(refusal.hint).toBe(`this key is first set on ${first}; keep one of the two`);
    },
  );

  it('reports nesting too deep at the opening bracket one level past the limit', () => {
    expect(placeOfRefusal(utf8('[\n [\n  {"a":\n   [1]}]]'), { maxDepth: 3 })).toBe('json_too_deep 4:4');
  });

  it('reports a too long integer at its first digit', () => {
    expect(placeOfRefusal(utf8('{\n  "n": -12345}'), { maxIntegerDigits: 4 })).toBe(
      'json_integer_too_long 2:8',
    );
  });

  it('counts columns in characters, not bytes or UTF-16 units', () => {
    // "é" is 2 bytes, "€" 3 bytes and "😀" 4 bytes (2 UTF-16 units); each is one column.
    expect(placeOfRefusal(utf8('{"é€😀": 1, "é€😀": 2}'))).toBe('json_duplicate_key 1:12');
    expect(placeOfRefusal(utf8('["😀😀", x]'))).toBe('json_malformed 1:8');
    expect(placeOfRefusal(utf8('{\n "ü": "😀" "x"}'))).toBe('json_malformed 2:11');
  });

  it('counts a CRLF line end as one line break and never as a column', () => {
    expect(placeOfRefusal(utf8('{\r\n  "a": 1,\r\n  "a": 2\r\n}'))).toBe('json_duplicate_key 3:3');
    expect(placeOfRefusal(utf8('[\r\n1\r\n,,]'))).toBe('json_malformed 3:2');
    expect(placeOfRefusal(utf8('{}\r\n{}'))).toBe('json_trailing_data 2:1');
  });

  it('reports the first bad byte of invalid UTF-8 by line and character column', () => {
    // Line 2 holds "é" (one character, two bytes) before the bad byte.
    expect(placeOfRefusal(Uint8Array.of(0x5b, 0x0a, 0x22, 0xc3, 0xa9, 0xff, 0x22, 0x5d))).toBe(
      'json_not_utf8 2:3',
    );
    expect(placeOfRefusal(Uint8Array.of(0x5b, 0x0d, 0x0a, 0x22, 0xe2, 0x82, 0x22))).toBe('json_not_utf8 2:2');
  });

  it('reports a byte order mark at 1:1 and still refuses it', () => {
    const refusal = refusalOf(() => parseStrict(Uint8Array.of(0xef, 0xbb, 0xbf, 0x7b, 0x7d)));
    expect(refusal.code).toBe('json_not_utf8');
    expect(refusal.location).toEqual({ line: 1, column: 1 });
    expect(refusal.hint).toContain('byte order mark');
  });

  it('names no file: the caller adds the path it was given', () => {
    const refusal = refusalOf(() => parse('[1,,2]'));
    expect(refusal.location).toEqual({ line: 1, column: 4 });
    expect(refusal.at({ path: 'data/orders.json' }).location).toEqual({
      path: 'data/orders.json',
      line: 1,
      column: 4,
    });
  });

  it('gives a size refusal no position: it is decided before decoding', () => {
    const refusal = refusalOf(() => parseStrict(utf8('[1,2,3]'), { maxBytes: 3 }));
    expect(refusal.code).toBe('json_too_large');
    expect(refusal.location).toBeUndefined();
  });

  it('never quotes the document in a hint', () => {
    for (const text of ['{"secret_zq": secret_zq}', '["secret_zq', '{"secret_zq" "x"}', '[01secret_zq]']) {
      const refusal = refusalOf(() => parse(text));
      expect(JSON.stringify(refusal.toJSON())).not.toContain('secret_zq');
    }
  });
});

describe('parseStrict: encoding', () => {
  it('refuses a UTF-8 byte order mark', () => {
    expect(refusedCode(Uint8Array.of(0xef, 0xbb, 0xbf, 0x31))).toBe('json_not_utf8');
    expect(refusedCode(Uint8Array.of(0xef, 0xbb, 0xbf))).toBe('json_not_utf8');
    expect(refusedCode(Uint8Array.of(0xef, 0xbb, 0xbf, 0x7b, 0x7d))).toBe('json_not_utf8');
  });

  it.each([
    ['overlong "/" (C0 AF)', [0x22, 0xc0, 0xaf, 0x22]],
    ['overlong NUL (C0 80)', [0x22, 0xc0, 0x80, 0x22]],
    ['overlong 3-byte (E0 80 AF)', [0x22, 0xe0, 0x80, 0xaf, 0x22]],
    ['overlong 4-byte (F0 80 80 AF)', [0x22, 0xf0, 0x80, 0x80, 0xaf, 0x22]],
    ['encoded surrogate (ED A0 80)', [0x22, 0xed, 0xa0, 0x80, 0x22]],
    ['beyond U+10FFFF (F4 90 80 80)', [0x22, 0xf4, 0x90, 0x80, 0x80, 0x22]],
    ['invalid byte FF', [0x22, 0xff, 0x22]],
    ['invalid byte FE', [0x31, 0xfe]],
    ['lone continuation byte', [0x22, 0x80, 0x22]],
    ['truncated sequence', [0x22, 0xe2, 0x82, 0x22]],
    ['truncated at the end', [0x22, 0x61, 0x22, 0xe2]],
    ['UTF-16LE text', [0xff, 0xfe, 0x31, 0x00]],
  ])('refuses %s as not UTF-8', (_label, bytes) => {
    expect(refusedCode(Uint8Array.from(bytes))).toBe('json_not_utf8');
  });

  it('accepts 2-, 3- and 4-byte UTF-8 sequences', () => {
    expect(parseStrict(Uint8Array.of(0x22, 0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80, 0x22))).toBe(
      'é€😀',
    );
  });

  it('accepts a Buffer as input', () => {
    expect(parseStrict(Buffer.from('{"a":[1]}'))).toEqual({ a: [1] });
  });
});

describe('parseStrict: limits', () => {
  it('accepts a document of exactly maxBytes bytes and refuses one byte more', () => {
    const document = utf8('["abcdefgh"]');
    expect(parseStrict(document, { maxBytes: document.length })).toEqual(['abcdefgh']);
    expect(refusedCode(document, { maxBytes: document.length - 1 })).toBe('json_too_large');
  });

  it('measures the size in bytes, not characters', () => {
    const document = utf8('"€"');
    expect(document.length).toBe(5);
    expect(parseStrict(document, { maxBytes: 5 })).toBe('€');
    expect(refusedCode(document, { maxBytes: 4 })).toBe('json_too_large');
  });

  it('checks the size before decoding anything', () => {
    const notUtf8 = new Uint8Array(64).fill(0xff);
    expect(refusedCode(notUtf8, { maxBytes: 63 })).toBe('json_too_large');
    expect(refusedCode(notUtf8, { maxBytes: 64 })).toBe('json_not_utf8');
    const huge = new Uint8Array(DEFAULT_JSON_LIMITS.maxBytes + 1).fill(0xff);
    expect(refusedCode(huge)).toBe('json_too_large');
  });

  it('accepts the default maximum size', () => {
    const document = new Uint8Array(DEFAULT_JSON_LIMITS.maxBytes).fill(0x20);
    document[0] = 0x30;
    expect(parseStrict(document)).toBe(0);
  });

  it('accepts nesting of exactly maxDepth and refuses one level more', () => {
    const nested = (depth: number, open: string, close: string): Uint8Array =>
      utf8(`${open.repeat(depth)}${close.repeat(depth)}`);
    for (const depth of [1, 5, DEFAULT_JSON_LIMITS.maxDepth]) {
      expect(() => parseStrict(nested(depth, '[', ']'), { maxDepth: depth })).not.toThrow();
      expect(refusedCode(nested(depth + 1, '[', ']'), { maxDepth: depth })).toBe('json_too_deep');
    }
    expect(() => parseStrict(nested(DEFAULT_JSON_LIMITS.maxDepth, '[', ']'))).not.toThrow();
    expect(refusedCode(nested(DEFAULT_JSON_LIMITS.maxDepth + 1, '[', ']'))).toBe('json_too_deep');
    const objects = (depth: number): Uint8Array =>
      utf8(`${'{"k":'.repeat(depth - 1)}{}${'}'.repeat(depth - 1)}`);
    expect(() => parseStrict(objects(3), { maxDepth: 3 })).not.toThrow();
    expect(refusedCode(objects(4), { maxDepth: 3 })).toBe('json_too_deep');
  });

  it('counts containers only: scalars inside the deepest container are fine', () => {
    expect(parseStrict(utf8('[1,"a",null]'), { maxDepth: 1 })).toEqual([1, 'a', null]);
    expect(parseStrict(utf8('7'), { maxDepth: 1 })).toBe(7);
    expect(refusedCode(utf8('[[]]'), { maxDepth: 1 })).toBe('json_too_deep');
  });

  it('parses very deep documents without recursion when the limit allows them', () => {
    const depth = 200_000;
    const document = utf8(`${'['.repeat(depth)}${']'.repeat(depth)}`);
    let value = parseStrict(document, { maxDepth: depth });
    let seen = 1;
    while (Array.isArray(value) && value.length === 1) {
      value = (value as readonly JsonValue[])[0] ?? null;
      seen++;
    }
    expect(seen).toBe(depth);
  });

  it('bounds the digits of one integer', () => {
    const limit = DEFAULT_JSON_LIMITS.maxIntegerDigits ?? 0;
    expect(limit).toBe(4300);
    expect(parse('9'.repeat(limit))).toBe(BigInt('9'.repeat(limit)));
    expect(parse(`-${'9'.repeat(limit)}`)).toBe(-BigInt('9'.repeat(limit)));
    expect(refusedCode(utf8('9'.repeat(limit + 1)))).toBe('json_integer_too_long');
    expect(refusedCode(utf8('123456'), { maxIntegerDigits: 5 })).toBe('json_integer_too_long');
    expect(parseStrict(utf8('12345'), { maxIntegerDigits: 5 })).toBe(12345);
  });

  it('refuses nonsensical limits as a caller bug', () => {
    expect(refusedCode(utf8('1'), { maxBytes: Number.NaN })).toBe('internal_error');
    expect(refusedCode(utf8('1'), { maxDepth: -1 })).toBe('internal_error');
  });
});

describe('parseStrict: generated documents', () => {
  const NUM_RUNS = 10_000;

  it(`agrees with JSON.parse on ${NUM_RUNS} generated documents`, () => {
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: 'binary', maxDepth: 6 }), (value) => {
        const text = JSON.stringify(value);
        const ours = parseStrict(utf8(text), { maxDepth: 64 });
        expect(sameAsNative(ours, JSON.parse(text))).toBe(true);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  type Mutation =
    | { readonly kind: 'flip'; readonly at: number; readonly bit: number }
    | { readonly kind: 'insert'; readonly at: number; readonly byte: number }
    | { readonly kind: 'delete'; readonly at: number }
    | { readonly kind: 'truncate'; readonly at: number };

  const mutation: fc.Arbitrary<Mutation> = fc.oneof(
    fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), bit: fc.integer({ min: 0, max: 7 }) }),
    fc.record({
      kind: fc.constant('insert' as const),
      at: fc.nat(),
      byte: fc.oneof(
        fc.integer({ min: 0, max: 255 }),
        fc.constantFrom(...[...'{}[]:,"\\-+.0123456789eEtfnu \t\r\n'].map((c) => c.charCodeAt(0))),
      ),
    }),
    fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
    fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  );

  function mutate(bytes: Uint8Array, mutations: readonly Mutation[]): Uint8Array {
    let out = Array.from(bytes);
    for (const step of mutations) {
      const at = out.length === 0 ? 0 : step.at % (out.length + (step.kind === 'insert' ? 1 : 0));
      if (step.kind === 'flip' && out.length > 0) out[at] = (out[at] ?? 0) ^ (1 << step.bit);
      if (step.kind === 'insert') out.splice(at, 0, step.byte);
      if (step.kind === 'delete') out.splice(at, 1);
      if (step.kind === 'truncate') out = out.slice(0, at);
    }
    return Uint8Array.from(out);
  }

  const documentText = fc.oneof(
    fc.json({ maxDepth: 4 }),
    fc.jsonValue({ stringUnit: 'binary', maxDepth: 4 }).map((value) => JSON.stringify(value)),
    fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value, null, 1)),
  );

  it(`returns a value or a json_* refusal on ${NUM_RUNS} mutated documents, never another exception`, () => {
    const decoder = new TextDecoder('utf-8', { fatal: true });
    fc.assert(
      fc.property(documentText, fc.array(mutation, { minLength: 1, maxLength: 4 }), (text, mutations) => {
        const bytes = mutate(utf8(text), mutations);
        let ours: JsonValue;
        try {
          ours = parseStrict(bytes, { maxDepth: 16 });
        } catch (error) {
          expect(error).toBeInstanceOf(Refusal);
          expect((error as Refusal).code).toMatch(/^json_[a-z0-9_]+$/);
          return;
        }
        // Anything the strict parser accepts, the native parser accepts too
        // and reads the same way.
        expect(sameAsNative(ours, JSON.parse(decoder.decode(bytes)))).toBe(true);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it(`never throws anything but a json_* refusal on ${NUM_RUNS} arbitrary byte strings`, () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        try {
          parseStrict(bytes);
        } catch (error) {
          expect(error).toBeInstanceOf(Refusal);
          expect((error as Refusal).code).toMatch(/^json_/);
        }
      }),
      { numRuns: NUM_RUNS },
    );
  });
});

describe('parseStrict: where each float is written', () => {
  it('keeps the offset of every float, so a refused number can be located, and equality ignores it', () => {
    const text = '{"a": [1.5,\n  2e400]}';
    const value = parseStrict(new TextEncoder().encode(text));
    if (!isJsonObjectValue(value)) throw new Error('expected an object');
    const list = value.a;
    if (!Array.isArray(list)) throw new Error('expected a list');
    const [first, second] = list;
    if (!(first instanceof JsonFloat) || !(second instanceof JsonFloat)) throw new Error('expected floats');
    expect([first.offset, second.offset]).toEqual([text.indexOf('1.5'), text.indexOf('2e400')]);
    expect(second.value).toBe(Number.POSITIVE_INFINITY);
    expect(first).toEqual(new JsonFloat('1.5'));
    expect(new JsonFloat('1.5').offset).toBeUndefined();
  });
});

function isJsonObjectValue(value: JsonValue): value is JsonObject {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof JsonFloat)
  );
}
