import { describe, expect, it } from 'vitest';
import { decodeUtf8Strict } from './utf8.js';

const bytes = (...values: number[]): Uint8Array => Uint8Array.from(values);
const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

describe('the strict UTF-8 decoder', () => {
  it('decodes well-formed UTF-8, multi-byte characters included', () => {
    expect(decodeUtf8Strict(utf8('a: "café 😀"\n'))).toEqual({ ok: true, text: 'a: "café 😀"\n' });
  });

  it('refuses a byte order mark instead of stripping it', () => {
    expect(decodeUtf8Strict(bytes(0xef, 0xbb, 0xbf, 0x61))).toEqual({
      ok: false,
      reason: 'bom',
      offset: 0,
      line: 1,
      column: 1,
    });
  });

  it('gives the line and column of the first ill-formed byte', () => {
    const input = new Uint8Array([...utf8('ok: 1\nname: é'), 0xff, ...utf8('\n')]);
    expect(decodeUtf8Strict(input)).toEqual({ ok: false, reason: 'invalid', offset: 14, line: 2, column: 8 });
  });

  it('refuses overlong forms, surrogates and code points above U+10FFFF', () => {
    for (const bad of [
      bytes(0xc0, 0xaf),
      bytes(0xed, 0xa0, 0x80),
      bytes(0xf4, 0x90, 0x80, 0x80),
      bytes(0xe2, 0x82),
    ]) {
      const result = decodeUtf8Strict(bad);
      expect(result).toMatchObject({ ok: false, reason: 'invalid', offset: 0, line: 1, column: 1 });
    }
  });
});
