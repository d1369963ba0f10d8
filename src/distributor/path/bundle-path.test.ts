import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pathProblem, pathSetProblem, pathSetProblemsAt } from './bundle-path.js';

describe('bundle path rules', () => {
  it.each([
    ['report.md', undefined],
    ['a/b/c.txt', undefined],
    ['données/é.md', undefined],
    ['with space/and "quotes".txt', undefined],
    ['', 'path_empty'],
    ['/etc/passwd', 'path_absolute'],
    ['a\\b.txt', 'path_backslash'],
    ['..\\evil', 'path_backslash'],
    ['a\u0000b', 'path_control_char'],
    ['a\nb', 'path_control_char'],
    ['a\u007fb', 'path_control_char'],
    ['a\u0085b', 'path_control_char'],
    ['a/./b', 'path_not_normalized'],
    ['./a', 'path_not_normalized'],
    ['a//b', 'path_not_normalized'],
    ['a/', 'path_not_normalized'],
    ['../a', 'path_dotdot'],
    ['a/../../b', 'path_dotdot'],
    ['manifest.json', 'path_reserved'],
    ['sub/manifest.json', 'path_reserved'],
    ['.distributor.json', 'path_reserved'],
    ['x/.distributor.pending.json', 'path_reserved'],
    ['.distributor.work/lock', 'path_reserved'],
    [`${'a'.repeat(256)}`, 'path_too_long'],
    [`${'a/'.repeat(2100)}b`, 'path_too_long'],
    // Limits are UTF-8 bytes, not characters: 'é' is 2 bytes, '語' 3, '📈' 4 (two UTF-16 units).
    [`${'\u00e9'.repeat(128)}`, 'path_too_long'],
    [`${'\u8a9e'.repeat(86)}`, 'path_too_long'],
    [`${'\u{1f4c8}'.repeat(64)}`, 'path_too_long'],
    [`${'\u8a9e'.repeat(85)}/${'\u00e9'.repeat(127)}a`, undefined],
    [`${`${'\u8a9e'.repeat(85)}/`.repeat(15)}${'\u8a9e'.repeat(85)}`, undefined],
    [`${`${'\u8a9e'.repeat(85)}/`.repeat(16)}a`, 'path_too_long'],
  ])('%j → %s', (path, expected) => {
    expect(pathProblem(path)).toBe(expected);
  });

  it('refuses duplicates, NFC/NFD twins and file/directory clashes across one bundle', () => {
    expect(pathSetProblem(['a.md', 'b.md'])).toBeUndefined();
    expect(pathSetProblem(['a.md', 'a.md'])).toBe('path_duplicate');
    expect(pathSetProblem(['caf\u00e9.md', 'cafe\u0301.md'])).toBe('path_unicode_twin');
    expect(pathSetProblem(['r\u00e9/x', 're\u0301/y'])).toBeUndefined();
    expect(pathSetProblem(['a', 'a/b'])).toBe('path_file_dir_clash');
    expect(pathSetProblem(['r\u00e9', 're\u0301/y'])).toBe('path_file_dir_clash');
    expect(pathSetProblem(['A.md', 'a.md'])).toBeUndefined();
  });

  it('regression: the set rules give every repeat, twin and clash, each with the path it concerns (was the first only)', () => {
    expect(
      pathSetProblemsAt(['dup', 'a', 'caf\u00e9', 'dup', 'a/b', 'cafe\u0301', 'dup', 'c/d', 'c']),
    ).toEqual([
      { code: 'path_duplicate', index: 3, other: 0 },
      { code: 'path_unicode_twin', index: 5, other: 2 },
      { code: 'path_duplicate', index: 6, other: 0 },
      { code: 'path_file_dir_clash', index: 4, file: 1 },
      { code: 'path_file_dir_clash', index: 7, file: 8 },
    ]);
    expect(pathSetProblemsAt(['a', 'b/c'])).toEqual([]);
  });

  it('never accepts a path that could leave the bundle', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('a', '.', '..', '', '/', '\\', 'é', 'b.md'), { maxLength: 8 }),
        (parts) => {
          const path = parts.join('');
          if (pathProblem(path) !== undefined) return;
          const segments = path.split('/');
          expect(path.startsWith('/')).toBe(false);
          expect(segments).not.toContain('..');
          expect(segments).not.toContain('.');
          expect(segments).not.toContain('');
          expect(path).not.toContain('\\');
        },
      ),
    );
  });
});
