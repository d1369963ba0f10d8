import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Dir } from '../../../core/fs/index.js';
import { ensureDirs, removeEnsured, type StepHook } from './tree.js';

const base = mkdtempSync(join(tmpdir(), 'sealkit-tree-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

const descriptorCount = (): number => readdirSync('/proc/self/fd').length;

describe('ensureDirs', () => {
  it('creates missing parents and reports them outermost first', () => {
    const root = Dir.open(base);
    try {
      const made = ensureDirs(root, ['made', 'one', 'two'], () => {});
      for (const dir of made.opened) dir.close();
      expect(made.created).toEqual(['made', 'made/one', 'made/one/two']);
      expect(existsSync(join(base, 'made', 'one', 'two'))).toBe(true);
    } finally {
      root.close();
    }
  });

  it('closes every handle and removes the directories it made when a step fails (regression: leaked parent handle)', () => {
    const root = Dir.open(base);
    try {
      for (const failOn of ['mkdir', 'fsync'] as const) {
        for (let nth = 1; nth <= 3; nth += 1) {
          let seen = 0;
          const step: StepHook = (kind) => {
            if (kind === failOn && ++seen === nth) throw new Error('injected');
          };
          const before = descriptorCount();
          expect(() => ensureDirs(root, ['fail', 'a', 'b'], step)).toThrow('injected');
          expect({ failOn, nth, descriptors: descriptorCount() }).toEqual({
            failOn,
            nth,
            descriptors: before,
          });
          expect({ failOn, nth, left: existsSync(join(base, 'fail')) }).toEqual({ failOn, nth, left: false });
        }
      }
    } finally {
      root.close();
    }
  });

  it('removes what it created on request, innermost first, keeping a directory that is no longer empty and one it did not create', () => {
    mkdirSync(join(base, 'kept'));
    const root = Dir.open(base);
    try {
      const made = ensureDirs(root, ['kept', 'one', 'two'], () => {});
      expect(made.created).toEqual(['kept/one', 'kept/one/two']);
      writeFileSync(join(base, 'kept', 'one', 'theirs.txt'), 'x');
      removeEnsured(made, () => {});
      for (const dir of made.opened) dir.close();
      expect(existsSync(join(base, 'kept', 'one', 'two'))).toBe(false);
      expect(existsSync(join(base, 'kept', 'one', 'theirs.txt'))).toBe(true);
      expect(existsSync(join(base, 'kept'))).toBe(true);
    } finally {
      root.close();
    }
  });
});
