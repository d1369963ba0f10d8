import { describe, expect, it } from 'vitest';
import { isFsError } from './errors.js';
import { encodeName, splitPath } from './names.js';

function codeOf(action: () => unknown): string | undefined {
  try {
    action();
  } catch (error: unknown) {
    return isFsError(error) ? error.code : 'not-an-FsError';
  }
  return undefined;
}

describe('encodeName', () => {
  it.each(['', '.', '..', 'a/b', '/', 'a\0b', '\uD800'])('refuses %j as a single component', (name) => {
    expect(codeOf(() => encodeName(name, 'openat'))).toBe('EINVAL');
  });

  it('refuses the same shapes given as raw bytes', () => {
    for (const bytes of [[], [0x2e], [0x2e, 0x2e], [0x61, 0x2f, 0x62], [0x61, 0x00]]) {
      expect(codeOf(() => encodeName(Uint8Array.from(bytes), 'openat'))).toBe('EINVAL');
    }
  });

  it('accepts ordinary, dotted and non-UTF-8 names and NUL-terminates them', () => {
    expect([...encodeName('...', 'openat')]).toEqual([0x2e, 0x2e, 0x2e, 0]);
    expect([...encodeName('.hidden', 'openat')]).toEqual([...Buffer.from('.hidden'), 0]);
    expect([...encodeName('é', 'openat')]).toEqual([0xc3, 0xa9, 0]);
    expect([...encodeName(Uint8Array.from([0xff, 0x61]), 'openat')]).toEqual([0xff, 0x61, 0]);
  });
});

describe('splitPath', () => {
  const parts = (path: string) =>
    splitPath(path, 'openat').parts.map((part) => part.subarray(0, -1).toString('utf8'));

  it('drops empty and "." components and keeps ".."', () => {
    expect(splitPath('/a//b/./c/', 'openat').absolute).toBe(true);
    expect(parts('/a//b/./c/')).toEqual(['a', 'b', 'c']);
    expect(parts('a/../b')).toEqual(['a', '..', 'b']);
    expect(splitPath('a', 'openat').absolute).toBe(false);
    expect(parts('/')).toEqual([]);
  });

  it('refuses an empty path and a NUL byte', () => {
    expect(codeOf(() => splitPath('', 'openat'))).toBe('ENOENT');
    expect(codeOf(() => splitPath('/a\0b', 'openat'))).toBe('EINVAL');
  });
});
