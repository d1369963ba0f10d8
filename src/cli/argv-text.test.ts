import { describe, expect, it } from 'vitest';
import { escapedBytes, invalidTextBytes } from './argv-text.js';

describe('arguments that are not valid text', () => {
  it('passes an argument without U+FFFD, and a U+FFFD that is no argument of this process', () => {
    expect(invalidTextBytes('acme-retail')).toBeUndefined();
    expect(invalidTextBytes('not an argument \ufffd of this process')).toBeUndefined();
  });

  it.each([
    ['a byte that is not UTF-8', [0x62, 0x61, 0x64, 0xff], 'bad\\xff'],
    ['UTF-8 kept as text around it', [0x63, 0x61, 0x66, 0xc3, 0xa9, 0xfe], 'café\\xfe'],
    ['a truncated sequence', [0x61, 0xe2, 0x82], 'a\\xe2\\x82'],
    ['control characters and the backslash', [0x0a, 0x5c, 0x41], '\\x0a\\x5cA'],
  ])('shows %s as \\xNN', (_case, bytes, shown) => {
    expect(escapedBytes(Uint8Array.from(bytes))).toBe(shown);
  });
});
