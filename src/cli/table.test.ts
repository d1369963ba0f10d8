import { describe, expect, it } from 'vitest';
import { table } from './table.js';

describe('table', () => {
  it('pads by terminal columns: wide characters take two, combining marks none', () => {
    expect(
      table([
        ['BUNDLE', 'OUTCOME'],
        ['報告/日次', 'published'],
        ['cafe\u0301', 'replaced'],
        ['plain', 'skipped_same'],
      ]).split('\n'),
    ).toEqual([
      'BUNDLE     OUTCOME',
      '報告/日次  published',
      'cafe\u0301       replaced',
      'plain      skipped_same',
    ]);
  });

  it('leaves the last column unpadded and no trailing space', () => {
    expect(
      table([
        ['a', 'b', ''],
        ['longer', 'x', 'y'],
      ]),
    ).toBe('a       b\nlonger  x  y');
  });
});
