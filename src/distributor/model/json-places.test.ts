import { describe, expect, it } from 'vitest';
import { jsonPlaces } from './json-places.js';

describe('places in a strict JSON document', () => {
  const text = [
    '{',
    '  "a\\"b": [1, {"c": "x\\u00e9,]}"}],',
    '  "é": {},',
    '  "d": [ ],',
    '  "n":-0.5e3',
    '}',
  ].join('\n');
  const places = jsonPlaces(Buffer.from(text, 'utf8'));

  it('finds each key and value, through escapes, strings holding brackets, and non-ASCII keys', () => {
    expect(places.value([])).toEqual({ line: 1, column: 1 });
    expect(places.key(['a"b'])).toEqual({ line: 2, column: 3 });
    expect(places.value(['a"b'])).toEqual({ line: 2, column: 11 });
    expect(places.value(['a"b', 0])).toEqual({ line: 2, column: 12 });
    expect(places.key(['a"b', 1, 'c'])).toEqual({ line: 2, column: 16 });
    expect(places.value(['a"b', 1, 'c'])).toEqual({ line: 2, column: 21 });
    expect(places.key(['é'])).toEqual({ line: 3, column: 3 });
    expect(places.value(['é'])).toEqual({ line: 3, column: 8 });
    expect(places.value(['d'])).toEqual({ line: 4, column: 8 });
    expect(places.value(['n'])).toEqual({ line: 5, column: 7 });
  });

  it('knows no place for what the document does not hold, nor for bytes that are not UTF-8', () => {
    expect(places.value(['missing'])).toBeUndefined();
    expect(places.key([])).toBeUndefined();
    expect(jsonPlaces(Uint8Array.of(0x7b, 0xff, 0x7d)).value([])).toBeUndefined();
  });
});
