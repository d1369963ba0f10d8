import { describe, expect, it } from 'vitest';
import { nearestSibling, nearPathFrom, pathLevels, type SiblingEntry } from './near-path.js';

const file = (name: string): SiblingEntry => ({ name, kind: 'file' });
const folder = (name: string): SiblingEntry => ({ name, kind: 'folder' });
const link = (name: string): SiblingEntry => ({ name, kind: 'other' });

/** `written` with its level `deep` (0: the deepest) replaced by its sibling nearest among `entries`. */
function suggested(written: string, deep: number, entries: readonly SiblingEntry[]): string | undefined {
  const level = pathLevels(written)[deep];
  if (level === undefined) throw new Error(`${written} has no level ${deep}`);
  return nearPathFrom(written, level, entries, level.last ? 'file' : 'folder');
}

describe('the levels of a written path, deepest first', () => {
  it('gives each part with the parent as written', () => {
    expect(pathLevels('reprots/w22/doc.md')).toEqual([
      { index: 2, name: 'doc.md', parent: 'reprots/w22', last: true },
      { index: 1, name: 'w22', parent: 'reprots', last: false },
      { index: 0, name: 'reprots', parent: '.', last: false },
    ]);
  });

  it('keeps the root of an absolute path and the ./ the user wrote', () => {
    expect(pathLevels('/srv/doc.jsn')).toEqual([
      { index: 2, name: 'doc.jsn', parent: '/srv', last: true },
      { index: 1, name: 'srv', parent: '/', last: false },
    ]);
    expect(pathLevels('./doc.jsn')[0]).toEqual({ index: 1, name: 'doc.jsn', parent: '.', last: true });
  });

  it('skips empty parts, . and .., which name no entry of their own', () => {
    expect(pathLevels('retial/').map((level) => [level.name, level.last])).toEqual([['retial', true]]);
    expect(pathLevels('a//../b').map((level) => level.name)).toEqual(['b', 'a']);
    expect(pathLevels('')).toEqual([]);
  });
});

describe('the nearest sibling', () => {
  it('is the entry one typo away', () => {
    expect(nearestSibling('doc.jsn', [file('doc.json'), file('orders.json')], 'file')).toBe('doc.json');
    expect(nearestSibling('retial', [folder('retail'), folder('docs')], 'folder')).toBe('retail');
  });

  it('takes the wanted kind before a nearer entry of another kind', () => {
    const entries = [folder('bq'), file('bqq.txt'), file('bqx')];
    expect(nearestSibling('bqq', entries, 'folder')).toBe('bq');
    expect(nearestSibling('bqq', entries, 'file')).toBe('bqx');
  });

  it('takes a link before the wrong kind, and the wrong kind when nothing else is near', () => {
    expect(nearestSibling('retial', [file('retail'), link('retal')], 'folder')).toBe('retal');
    expect(nearestSibling('retial', [file('retail')], 'folder')).toBe('retail');
  });

  it('never offers a file as a folder on the way', () => {
    expect(nearestSibling('reprots', [file('reports')], 'file', false)).toBeUndefined();
    expect(nearestSibling('reprots', [file('reports'), link('report')], 'file', false)).toBe('report');
  });

  it('never offers another number of a series for a missing one', () => {
    // `w23` found `w22`, and tomorrow's report today's: one letter apart, but another entry.
    expect(nearestSibling('w23', [folder('w22')], 'folder')).toBeUndefined();
    expect(nearestSibling('2024-06-02.json', [file('2024-06-01.json')], 'file')).toBeUndefined();
    expect(nearestSibling('w2', [folder('w22')], 'folder')).toBeUndefined();
    expect(nearestSibling('report.json', [file('report1.json')], 'file')).toBeUndefined();
    expect(nearestSibling('reprot-2024-06-01.json', [file('report-2024-06-01.json')], 'file')).toBe(
      'report-2024-06-01.json',
    );
  });

  it('regression: a number written without its leading zero is the same number (W5 finds W05)', () => {
    expect(nearestSibling('W5', [folder('W05'), folder('W06')], 'folder')).toBe('W05');
    expect(nearestSibling('2024-6-01.json', [file('2024-06-01.json')], 'file')).toBe('2024-06-01.json');
    // Another value is still another entry of the series.
    expect(nearestSibling('W5', [folder('W50')], 'folder')).toBeUndefined();
  });

  it('offers nothing when the name itself is listed or none is near', () => {
    expect(nearestSibling('doc.json', [file('doc.json'), file('doc.jsn')], 'file')).toBeUndefined();
    expect(nearestSibling('zzz', [file('doc.json')], 'file')).toBeUndefined();
    expect(nearestSibling('doc.json', [], 'file')).toBeUndefined();
  });
});

describe('the suggested path', () => {
  it('replaces only the missing level, every other part as written', () => {
    expect(suggested('./data//doc.jsn', 0, [file('doc.json')])).toBe('./data//doc.json');
    expect(suggested('reprots/w22/doc.md', 2, [folder('reports')])).toBe('reports/w22/doc.md');
    expect(suggested('retial/', 0, [folder('retail')])).toBe('retail/');
  });

  it('is undefined when no sibling is near', () => {
    expect(suggested('doc.jsn', 0, [file('other.json')])).toBeUndefined();
  });
});
