import { describe, expect, it } from 'vitest';
import { at } from './index.js';

describe('at: a checked indexed read', () => {
  it('returns the element at an index inside the list', () => {
    expect(at(['a', 'b', 'c'], 1)).toBe('b');
    expect(at(new Uint8Array([7, 0, 9]), 1)).toBe(0);
    expect(at([null], 0)).toBeNull();
  });

  it.each([
    ['past the end', 3],
    ['before the start', -1],
    ['not an integer', 0.5],
  ])('throws a RangeError for an index %s', (_label, index) => {
    expect(() => at(['a', 'b', 'c'], index)).toThrow(new RangeError(`index ${index} is outside a list of 3`));
  });

  it('throws for a hole rather than passing it on', () => {
    const sparse: string[] = [];
    sparse[2] = 'c';
    expect(() => at(sparse, 0)).toThrow(RangeError);
  });
});
