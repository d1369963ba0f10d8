import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeWritable } from '../../test/helpers/scaffold-workspace.js';
import { Dir, isFsError, renameNoReplace } from '../core/fs/index.js';

// Pins the constraint behind unsealing the directory before the rename
// (docs/scaffold.md#the-publication-protocol). As a non-root user,
// a 0500 directory cannot move into a different parent (its '..' must
// change), while a same-parent rename works; the scaffolder therefore sets
// only the staging directory back to 0700 through its held descriptor before
// the rename. Checked on the suite's own filesystem and on tmpfs.
const FILESYSTEMS = [tmpdir(), '/dev/shm'].filter((dir) => existsSync(dir));

function codeOf(action: () => void): string | undefined {
  try {
    action();
    return undefined;
  } catch (error: unknown) {
    return isFsError(error) ? error.code : 'not-an-FsError';
  }
}

describe.each(FILESYSTEMS)('the sealed-directory rename constraint on %s', (base) => {
  it('a 0500 directory: cross-parent EACCES, same-parent ok, and after fchmod 0700 through the held descriptor the move works', () => {
    expect(process.geteuid?.()).not.toBe(0);
    const root = realpathSync(mkdtempSync(join(base, 'sealkit-u32-')));
    try {
      mkdirSync(join(root, 'from'), { mode: 0o700 });
      mkdirSync(join(root, 'to'), { mode: 0o700 });
      mkdirSync(join(root, 'from', 'sealed'), { mode: 0o700 });
      const from = Dir.open(join(root, 'from'));
      const to = Dir.open(join(root, 'to'));
      const sealed = from.openDir('sealed');
      try {
        sealed.chmod(0o500);
        expect(codeOf(() => renameNoReplace(from, 'sealed', to, 'sealed'))).toBe('EACCES');
        expect(codeOf(() => renameNoReplace(from, 'sealed', from, 'renamed'))).toBeUndefined();
        sealed.chmod(0o700);
        expect(codeOf(() => renameNoReplace(from, 'renamed', to, 'sealed'))).toBeUndefined();
        // The held descriptor follows the directory to its new parent.
        expect(sealed.stat().ino).toBe(to.stat('sealed').ino);
      } finally {
        sealed.close();
        from.close();
        to.close();
      }
    } finally {
      makeWritable(root);
      rmSync(root, { recursive: true, force: true });
    }
  });
});
