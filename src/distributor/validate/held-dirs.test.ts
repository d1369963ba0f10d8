import { lstatSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Dir } from '../../core/fs/index.js';
import { HeldDirs } from './held-dirs.js';

const openDescriptors = (): number => readdirSync('/proc/self/fd').length;

let work: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'sealkit-held-dirs-'));
  for (const path of ['a/x/1', 'a/x/2', 'a/y/1', 'b/x']) mkdirSync(join(work, path), { recursive: true });
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

describe('HeldDirs', () => {
  it('gives the root without closing the held chain (regression: inspecting each bundle reopened its parents)', () => {
    const root = Dir.open(work);
    const held = new HeldDirs(root);
    try {
      const ax = held.open(['a', 'x']);
      expect(held.root).toBe(root);
      expect(ax.closed).toBe(false);
      expect(held.open(['a', 'x'])).toBe(ax);
    } finally {
      held.close();
      root.close();
    }
  });

  it('opens each directory of a path once for sorted neighbours and closes every one it holds', () => {
    const root = Dir.open(work);
    const before = openDescriptors();
    const held = new HeldDirs(root);
    try {
      const ax = held.open(['a', 'x']);
      expect(openDescriptors()).toBe(before + 2);
      expect(held.open(['a', 'x'])).toBe(ax);
      const ax1 = held.open(['a', 'x', '1']);
      expect(ax1.stat().ino).toBe(lstatSync(join(work, 'a/x/1'), { bigint: true }).ino);
      expect(openDescriptors()).toBe(before + 3);
      // A sibling keeps the shared prefix and swaps only the last directory.
      const ax2 = held.open(['a', 'x', '2']);
      expect(held.open(['a', 'x'])).toBe(ax);
      expect(ax1.closed).toBe(true);
      expect(ax2.closed).toBe(true);
      expect(ax.closed).toBe(false);
      const bx = held.open(['b', 'x']);
      expect(ax.closed).toBe(true);
      expect(bx.stat().ino).toBe(lstatSync(join(work, 'b/x'), { bigint: true }).ino);
      expect(openDescriptors()).toBe(before + 2);
      expect(held.open([])).toBe(root);
      expect(openDescriptors()).toBe(before);
    } finally {
      held.close();
    }
    expect(openDescriptors()).toBe(before);
    expect(root.closed).toBe(false);
    root.close();
  });

  it('keeps resolving in the directory it opened after that directory is renamed', () => {
    const root = Dir.open(work);
    const held = new HeldDirs(root);
    try {
      const a = held.open(['a']);
      renameSync(join(work, 'a'), join(work, 'moved'));
      mkdirSync(join(work, 'a'));
      expect(held.open(['a', 'y']).stat().ino).toBe(lstatSync(join(work, 'moved/y'), { bigint: true }).ino);
      expect(held.open(['a'])).toBe(a);
    } finally {
      held.close();
      root.close();
    }
  });

  it('stays at the part that opened when a lookup fails, and goes on from there', () => {
    const root = Dir.open(work);
    const before = openDescriptors();
    const held = new HeldDirs(root);
    try {
      expect(() => held.open(['a', 'missing', 'deeper'])).toThrow();
      expect(openDescriptors()).toBe(before + 1);
      expect(held.open(['a', 'y']).stat().type).toBe('directory');
    } finally {
      held.close();
    }
    expect(openDescriptors()).toBe(before);
    root.close();
  });
});
