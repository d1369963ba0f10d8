import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../../test/helpers/cli.js';
import { Dir } from '../../../core/fs/index.js';
import { ensureDirs, removeEnsured, type Scratch, type StepHook } from './tree.js';

const base = mkdtempSync(join(tmpdir(), 'sealkit-tree-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

const descriptorCount = (): number => readdirSync('/proc/self/fd').length;

/** A scratch directory of its own under `base`, with the names `ensureDirs` asks for. */
function scratchFor(label: string): Scratch & { readonly path: string } {
  const path = join(base, `scratch-${label}`);
  mkdirSync(path, { mode: 0o700 });
  let count = 0;
  return {
    path,
    dir: Dir.open(path),
    nextName: () => {
      count += 1;
      return `parent-${count}`;
    },
  };
}

describe('ensureDirs', () => {
  it('creates missing parents with their exact mode, renamed in from scratch, and reports them outermost first', () => {
    const root = Dir.open(base);
    const scratch = scratchFor('made');
    const previous = process.umask(0o077);
    try {
      const made = ensureDirs(root, ['made', 'one', 'two'], scratch, () => {});
      for (const dir of made.opened) dir.close();
      expect(made.created).toEqual(['made', 'made/one', 'made/one/two']);
      for (const path of ['made', 'made/one', 'made/one/two'])
        expect({ path, mode: lstatSync(join(base, path)).mode & 0o7777 }).toEqual({ path, mode: 0o755 });
      expect(readdirSync(scratch.path)).toEqual([]);
    } finally {
      process.umask(previous);
      scratch.dir.close();
      root.close();
    }
  });

  it('closes every handle and removes the directories it made when a step fails (regression: leaked parent handle)', () => {
    const root = Dir.open(base);
    const scratch = scratchFor('fail');
    try {
      for (const failOn of ['mkdir', 'rename', 'fsync'] as const) {
        for (let nth = 1; nth <= 3; nth += 1) {
          let seen = 0;
          const step: StepHook = (kind) => {
            if (kind === failOn && ++seen === nth) throw new Error('injected');
          };
          const before = descriptorCount();
          expect(() => ensureDirs(root, ['fail', 'a', 'b'], scratch, step)).toThrow('injected');
          expect({ failOn, nth, descriptors: descriptorCount() }).toEqual({
            failOn,
            nth,
            descriptors: before,
          });
          expect({ failOn, nth, left: existsSync(join(base, 'fail')) }).toEqual({ failOn, nth, left: false });
        }
      }
    } finally {
      scratch.dir.close();
      root.close();
    }
  });

  it('opens a directory someone else made between the lookup and the rename, without counting it as made', () => {
    const root = Dir.open(base);
    const scratch = scratchFor('raced');
    try {
      // The step before the rename is the last moment before the commit: the name appears there.
      const made = ensureDirs(root, ['raced', 'inner'], scratch, (kind) => {
        if (kind === 'rename' && !existsSync(join(base, 'raced')))
          mkdirSync(join(base, 'raced'), { mode: 0o750 });
      });
      for (const dir of made.opened) dir.close();
      expect(made.created).toEqual(['raced/inner']);
      expect(lstatSync(join(base, 'raced')).mode & 0o7777).toBe(0o750);
      expect(readdirSync(scratch.path)).toEqual([]);
    } finally {
      scratch.dir.close();
      root.close();
    }
  });

  it('shows nothing at the destination when killed while a parent is being built (regression: a 0700 parent left behind)', () => {
    const dest = join(base, 'killed-dest');
    const scratch = join(base, 'killed-scratch');
    mkdirSync(dest);
    mkdirSync(scratch, { mode: 0o700 });
    const dist = join(REPO_ROOT, 'dist', 'src');
    const child = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { libc } = await import(${JSON.stringify(join(dist, 'core', 'fs', 'libc.js'))});
         const { Dir } = await import(${JSON.stringify(join(dist, 'core', 'fs', 'dir.js'))});
         const { ensureDirs } = await import(${JSON.stringify(join(dist, 'distributor', 'backends', 'local', 'tree.js'))});
         process.umask(0o077);
         const root = Dir.open(process.argv[1]);
         const scratch = { dir: Dir.open(process.argv[2]), nextName: () => 'parent-1' };
         // The real mkdir runs; the process dies where the mode would be set.
         libc().fchmod = () => process.kill(process.pid, 'SIGKILL');
         ensureDirs(root, ['weekly'], scratch, () => {});`,
        dest,
        scratch,
      ],
      { encoding: 'utf8' },
    );
    expect({ signal: child.signal, stderr: child.stderr }).toEqual({ signal: 'SIGKILL', stderr: '' });
    expect(readdirSync(dest)).toEqual([]);
    expect(readdirSync(scratch)).toEqual(['parent-1']);
  });

  it('removes what it created on request, innermost first, keeping a directory that is no longer empty and one it did not create', () => {
    mkdirSync(join(base, 'kept'));
    const root = Dir.open(base);
    const scratch = scratchFor('kept');
    try {
      const made = ensureDirs(root, ['kept', 'one', 'two'], scratch, () => {});
      expect(made.created).toEqual(['kept/one', 'kept/one/two']);
      writeFileSync(join(base, 'kept', 'one', 'theirs.txt'), 'x');
      removeEnsured(made, () => {});
      for (const dir of made.opened) dir.close();
      expect(existsSync(join(base, 'kept', 'one', 'two'))).toBe(false);
      expect(existsSync(join(base, 'kept', 'one', 'theirs.txt'))).toBe(true);
      expect(existsSync(join(base, 'kept'))).toBe(true);
    } finally {
      scratch.dir.close();
      root.close();
    }
  });
});
