import { spawnSync } from 'node:child_process';
import {
  fstatSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../test/helpers/cli.js';
import { Dir } from './dir.js';
import { isFsError } from './errors.js';
import { libc } from './libc.js';

const base = realpathSync(mkdtempSync(join(tmpdir(), 'sealkit-dir-')));
afterAll(() => {
  spawnSync('chmod', ['-R', 'u+rwx', base]);
  rmSync(base, { recursive: true, force: true });
});

let counter = 0;
function freshDir(): string {
  counter += 1;
  const path = join(base, `case-${counter}`);
  mkdirSync(path, { mode: 0o700 });
  return path;
}

function codeOf(action: () => unknown): string | undefined {
  try {
    action();
  } catch (error: unknown) {
    return isFsError(error) ? error.code : 'not-an-FsError';
  }
  return undefined;
}

describe('Dir.open', () => {
  it('opens an absolute path and a relative one from the working directory', () => {
    const root = freshDir();
    mkdirSync(join(root, 'a', 'b'), { recursive: true });
    const absolute = Dir.open(join(root, 'a', 'b'));
    expect(absolute.stat().ino).toBe(lstatSync(join(root, 'a', 'b'), { bigint: true }).ino);
    absolute.close();

    const cwd = process.cwd();
    process.chdir(root);
    try {
      const relative = Dir.open('a/./b/');
      expect(relative.stat().ino).toBe(lstatSync(join(root, 'a', 'b'), { bigint: true }).ino);
      relative.close();
      const dotdot = Dir.open('a/b/..');
      expect(dotdot.stat().ino).toBe(lstatSync(join(root, 'a'), { bigint: true }).ino);
      dotdot.close();
    } finally {
      process.chdir(cwd);
    }
  });

  it('refuses a symlink at the final, the parent and the grandparent component with ELOOP', () => {
    const root = freshDir();
    mkdirSync(join(root, 'real', 'sub', 'leaf'), { recursive: true });
    symlinkSync('real', join(root, 'top-link'));
    symlinkSync('sub', join(root, 'real', 'mid-link'));
    symlinkSync('leaf', join(root, 'real', 'sub', 'leaf-link'));
    symlinkSync('nowhere', join(root, 'dangling'));
    expect(codeOf(() => Dir.open(join(root, 'real', 'sub', 'leaf-link')))).toBe('ELOOP');
    expect(codeOf(() => Dir.open(join(root, 'real', 'mid-link', 'leaf')))).toBe('ELOOP');
    expect(codeOf(() => Dir.open(join(root, 'top-link', 'sub', 'leaf')))).toBe('ELOOP');
    expect(codeOf(() => Dir.open(join(root, 'dangling')))).toBe('ELOOP');
    const opened = Dir.open(join(root, 'real', 'sub', 'leaf'));
    opened.close();
  });

  it('reports a file where a directory is expected as ENOTDIR and a missing one as ENOENT', () => {
    const root = freshDir();
    writeFileSync(join(root, 'file'), 'x');
    expect(codeOf(() => Dir.open(join(root, 'file')))).toBe('ENOTDIR');
    expect(codeOf(() => Dir.open(join(root, 'file', 'below')))).toBe('ENOTDIR');
    expect(codeOf(() => Dir.open(join(root, 'absent', 'below')))).toBe('ENOENT');
    expect(codeOf(() => Dir.open(''))).toBe('ENOENT');
    expect(codeOf(() => Dir.open(`${root}\0x`))).toBe('EINVAL');
  });

  it('makes a closed handle unusable', () => {
    const dir = Dir.open(freshDir());
    dir.close();
    dir.close();
    expect(dir.closed).toBe(true);
    expect(codeOf(() => dir.stat())).toBe('EBADF');
  });
});

describe('Dir operations', () => {
  it('refuses names that are not a single component', () => {
    const dir = Dir.open(freshDir());
    try {
      for (const name of ['', '.', '..', 'a/b', '../x', '/abs', 'a\0b']) {
        expect(codeOf(() => dir.openDir(name))).toBe('EINVAL');
        expect(codeOf(() => dir.createExclusive(name, 0o600))).toBe('EINVAL');
        expect(codeOf(() => dir.mkdirExclusive(name, 0o700))).toBe('EINVAL');
        expect(codeOf(() => dir.stat(name))).toBe('EINVAL');
        expect(codeOf(() => dir.unlink(name))).toBe('EINVAL');
      }
    } finally {
      dir.close();
    }
  });

  it('starts writeback of a written file without changing it, and refuses a closed handle', () => {
    const root = freshDir();
    const dir = Dir.open(root);
    try {
      const file = dir.createExclusive('big.bin', 0o600);
      const bytes = Buffer.alloc(3 * 1024 * 1024 + 17, 0x5a);
      file.write(bytes);
      file.startWriteback();
      file.fsync();
      file.close();
      expect(readFileSync(join(root, 'big.bin')).equals(bytes)).toBe(true);
      expect(codeOf(() => file.startWriteback())).toBe('EBADF');
    } finally {
      dir.close();
    }
  });

  it('lists, stats and lists again with one shared buffer: results of an earlier call stay intact', () => {
    const root = freshDir();
    const dir = Dir.open(root);
    try {
      for (const name of ['b', 'a', 'long-name-'.repeat(20)]) dir.createExclusive(name, 0o600).close();
      const first = dir.list();
      const firstStat = dir.stat('a');
      const child = dir.mkdirExclusive('z', 0o700);
      child.createExclusive('only', 0o600).close();
      const second = child.list();
      const childStat = dir.stat('z');
      child.close();
      expect(first.map((entry) => entry.name)).toEqual(['a', 'b', 'long-name-'.repeat(20)]);
      expect(second.map((entry) => entry.name)).toEqual(['only']);
      expect(firstStat.type).toBe('file');
      expect(childStat.type).toBe('directory');
      expect(firstStat.ino).toBe(lstatSync(join(root, 'a'), { bigint: true }).ino);
    } finally {
      dir.close();
    }
  });

  it('creates files and directories exclusively, with the exact mode whatever the umask', () => {
    const root = freshDir();
    const dir = Dir.open(root);
    const previous = process.umask(0o077);
    try {
      const file = dir.createExclusive('data.json', 0o644);
      file.write(Buffer.from('{"a":1}'));
      writeSync(file.fd, Buffer.from('\n'));
      file.fsync();
      file.close();
      expect(readFileSync(join(root, 'data.json'), 'utf8')).toBe('{"a":1}\n');
      expect(lstatSync(join(root, 'data.json')).mode & 0o7777).toBe(0o644);

      const child = dir.mkdirExclusive('published', 0o755);
      expect(child.stat().mode).toBe(0o755);
      expect(child.stat().ino).toBe(lstatSync(join(root, 'published'), { bigint: true }).ino);
      child.close();
    } finally {
      process.umask(previous);
    }

    symlinkSync('nowhere', join(root, 'dangling'));
    for (const name of ['data.json', 'published', 'dangling']) {
      expect(codeOf(() => dir.createExclusive(name, 0o600))).toBe('EEXIST');
      expect(codeOf(() => dir.mkdirExclusive(name, 0o700))).toBe('EEXIST');
    }
    expect(readFileSync(join(root, 'data.json'), 'utf8')).toBe('{"a":1}\n');
    expect(lstatSync(join(root, 'dangling')).isSymbolicLink()).toBe(true);
    expect(codeOf(() => dir.createExclusive('bad-mode', 0o10000))).toBe('EINVAL');
    dir.close();
  });

  it('applies the exact mode even when the umask strips the owner bits (0277, 0777)', () => {
    // Regression: a directory created under umask 0777 is 0000, cannot be
    // opened for reading, and was left so: mkdirExclusive now pins it with
    // O_PATH and gives it its mode through that pin.
    const root = freshDir();
    const dir = Dir.open(root);
    try {
      for (const umask of [0o277, 0o777]) {
        const previous = process.umask(umask);
        try {
          const name = `d${umask.toString(8)}`;
          const child = dir.mkdirExclusive(name, 0o700);
          expect(child.stat().mode).toBe(0o700);
          expect(child.list()).toEqual([]);
          const file = child.createExclusive('f', 0o600);
          file.write(Buffer.from('x'));
          file.close();
          child.close();
          expect(lstatSync(join(root, name)).mode & 0o7777).toBe(0o700);
          expect(lstatSync(join(root, name, 'f')).mode & 0o7777).toBe(0o600);
        } finally {
          process.umask(previous);
        }
      }
    } finally {
      dir.close();
    }
  });

  it('leaves the requested bits, minus the umask, when killed between a create and its chmod', () => {
    // Regression: a directory was created 0700 and opened up by the chmod
    // after it, so a run killed in between left a parent folder of published
    // bundles closed to everyone else, and later runs used it as it was.
    const root = freshDir();
    const fsIndex = join(REPO_ROOT, 'dist', 'src', 'core', 'fs');
    for (const [create, name] of [
      ['mkdirExclusive', 'folder'],
      ['createExclusive', 'file'],
    ] as const) {
      const child = spawnSync(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `const { libc } = await import(${JSON.stringify(join(fsIndex, 'libc.js'))});
           const { Dir } = await import(${JSON.stringify(join(fsIndex, 'dir.js'))});
           // A umask that takes bits away, so the chmod is needed.
           process.umask(0o027);
           const dir = Dir.open(process.argv[1]);
           // The real create runs; the process dies where its chmod would have run.
           libc().fchmod = () => process.kill(process.pid, 'SIGKILL');
           dir[process.argv[2]](process.argv[3], 0o755);`,
          root,
          create,
          name,
        ],
        { encoding: 'utf8' },
      );
      expect({ create, signal: child.signal, stderr: child.stderr }).toEqual({
        create,
        signal: 'SIGKILL',
        stderr: '',
      });
      expect({ create, mode: lstatSync(join(root, name)).mode & 0o7777 }).toEqual({ create, mode: 0o750 });
    }
  });

  it('skips the chmod when the umask left the mode exact, and applies it when it did not', () => {
    const root = Dir.open(freshDir());
    const real = libc().fchmod;
    let chmods = 0;
    const counting = libc() as { fchmod: (fd: number, mode: number) => void };
    counting.fchmod = (fd, mode) => {
      chmods += 1;
      real(fd, mode);
    };
    const previous = process.umask(0o022);
    try {
      root.mkdirExclusive('exact-dir', 0o755).close();
      root.createExclusive('exact-file', 0o644).close();
      expect(chmods).toBe(0);
      process.umask(0o077);
      root.mkdirExclusive('narrowed-dir', 0o755).close();
      root.createExclusive('narrowed-file', 0o644).close();
      expect(chmods).toBe(2);
      for (const [name, mode] of [
        ['exact-dir', 0o755],
        ['exact-file', 0o644],
        ['narrowed-dir', 0o755],
        ['narrowed-file', 0o644],
      ] as const)
        expect({ name, mode: root.stat(name).mode }).toEqual({ name, mode });
    } finally {
      process.umask(previous);
      counting.fchmod = real;
      root.close();
    }
  });

  it('stats without following symlinks and agrees with Node for every field', () => {
    const root = freshDir();
    writeFileSync(join(root, 'file'), 'hello', { mode: 0o640 });
    symlinkSync('file', join(root, 'link'));
    const dir = Dir.open(root);
    try {
      const ours = dir.stat('file');
      const node = lstatSync(join(root, 'file'), { bigint: true });
      expect(ours).toEqual({
        type: 'file',
        mode: 0o640,
        uid: Number(node.uid),
        gid: Number(node.gid),
        nlink: 1,
        size: 5n,
        ino: node.ino,
        dev: node.dev,
        mountId: mountIdOf(root),
        mtimeNs: node.mtimeNs,
      });
      expect(dir.stat('link').type).toBe('symlink');
      expect(dir.stat().type).toBe('directory');
      expect(dir.stat().dev).toBe(fstatSync(dir.fd, { bigint: true }).dev);
      expect(codeOf(() => dir.stat('absent'))).toBe('ENOENT');
    } finally {
      dir.close();
    }
  });

  it('changes modes through held descriptors, never through a symlink', () => {
    const root = freshDir();
    writeFileSync(join(root, 'file'), 'x', { mode: 0o600 });
    mkdirSync(join(root, 'sub'), { mode: 0o700 });
    symlinkSync('file', join(root, 'link'));
    expect(spawnSync('mkfifo', [join(root, 'fifo')]).status).toBe(0);
    const dir = Dir.open(root);
    try {
      dir.chmodChild('file', 0o400);
      dir.chmodChild('sub', 0o500);
      expect(lstatSync(join(root, 'file')).mode & 0o7777).toBe(0o400);
      expect(lstatSync(join(root, 'sub')).mode & 0o7777).toBe(0o500);
      expect(codeOf(() => dir.chmodChild('link', 0o644))).toBe('ELOOP');
      expect(lstatSync(join(root, 'file')).mode & 0o7777).toBe(0o400);
      expect(codeOf(() => dir.chmodChild('fifo', 0o600))).toBe('EINVAL');
      dir.chmod(0o750);
      expect(lstatSync(root).mode & 0o7777).toBe(0o750);
      dir.fsync();
    } finally {
      dir.close();
    }
  });

  it('changes the mode of an opened file through its descriptor: the held inode, not what the name points to later', () => {
    const root = freshDir();
    writeFileSync(join(root, 'held'), 'x', { mode: 0o600 });
    writeFileSync(join(root, 'other'), 'y', { mode: 0o600 });
    const dir = Dir.open(root);
    try {
      const file = dir.openFile('held');
      try {
        // The name now points at another inode; the descriptor still holds the first one.
        expect(spawnSync('mv', [join(root, 'held'), join(root, 'moved')]).status).toBe(0);
        expect(spawnSync('mv', [join(root, 'other'), join(root, 'held')]).status).toBe(0);
        file.chmod(0o644);
        file.fsync();
        expect(lstatSync(join(root, 'moved')).mode & 0o7777).toBe(0o644);
        expect(lstatSync(join(root, 'held')).mode & 0o7777).toBe(0o600);
        expect(codeOf(() => file.chmod(0o10000))).toBe('EINVAL');
        expect(codeOf(() => file.chmod(-1))).toBe('EINVAL');
        expect(lstatSync(join(root, 'moved')).mode & 0o7777).toBe(0o644);
      } finally {
        file.close();
      }
      expect(codeOf(() => file.chmod(0o600))).toBe('EBADF');
    } finally {
      dir.close();
    }
  });

  it('lists entries sorted by bytes, without . and .., keeping non-UTF-8 names usable', () => {
    const root = freshDir();
    for (const name of ['b', 'B', 'a', 'é', '_', '10', '9']) writeFileSync(join(root, name), '');
    mkdirSync(join(root, 'dir'));
    symlinkSync('nowhere', join(root, 'link'));
    const raw = Buffer.from([0x66, 0xff, 0x66]);
    writeFileSync(Buffer.concat([Buffer.from(`${root}/`), raw]), '');
    const dir = Dir.open(root);
    try {
      const entries = dir.list();
      expect(entries.map((entry) => entry.name)).toEqual([
        '10',
        '9',
        'B',
        '_',
        'a',
        'b',
        'dir',
        'f\uFFFDf',
        'link',
        'é',
      ]);
      expect(dir.list()).toEqual(entries);
      const odd = entries.find((entry) => !entry.utf8);
      expect(odd?.bytes).toEqual(Uint8Array.from(raw));
      expect(entries.find((entry) => entry.name === 'dir')?.type).toBe('directory');
      expect(entries.find((entry) => entry.name === 'link')?.type).toBe('symlink');
      if (odd === undefined) throw new Error('the non-UTF-8 entry is missing');
      expect(dir.stat(odd.bytes).type).toBe('file');
      dir.unlink(odd.bytes);
      expect(dir.list().some((entry) => !entry.utf8)).toBe(false);
    } finally {
      dir.close();
    }
  });

  it('lists a directory with more entries than one getdents64 buffer holds', () => {
    const root = freshDir();
    const names = Array.from({ length: 3000 }, (_, index) => `entry-${String(index).padStart(5, '0')}`);
    for (const name of names) writeFileSync(join(root, name), '');
    const dir = Dir.open(root);
    try {
      expect(dir.list().map((entry) => entry.name)).toEqual(names);
    } finally {
      dir.close();
    }
  });

  it('unlinks a symlink itself and removes only empty directories', () => {
    const root = freshDir();
    writeFileSync(join(root, 'target'), 'kept');
    symlinkSync('target', join(root, 'link'));
    mkdirSync(join(root, 'full'));
    writeFileSync(join(root, 'full', 'x'), '');
    mkdirSync(join(root, 'empty'));
    const dir = Dir.open(root);
    try {
      dir.unlink('link');
      expect(readFileSync(join(root, 'target'), 'utf8')).toBe('kept');
      expect(codeOf(() => dir.rmdir('full'))).toBe('ENOTEMPTY');
      expect(codeOf(() => dir.unlink('empty'))).toBe('EISDIR');
      dir.rmdir('empty');
      expect(dir.list().map((entry) => entry.name)).toEqual(['full', 'target']);
    } finally {
      dir.close();
    }
  });

  it('opens children without following symlinks', () => {
    const root = freshDir();
    mkdirSync(join(root, 'real'));
    writeFileSync(join(root, 'file'), 'content');
    symlinkSync('real', join(root, 'dir-link'));
    symlinkSync('file', join(root, 'file-link'));
    const dir = Dir.open(root);
    try {
      expect(codeOf(() => dir.openDir('dir-link'))).toBe('ELOOP');
      expect(codeOf(() => dir.openFile('file-link'))).toBe('ELOOP');
      expect(codeOf(() => dir.openDir('file'))).toBe('ENOTDIR');
      const pinned = dir.openPath('file-link');
      expect(pinned.stat().type).toBe('symlink');
      pinned.close();
      const file = dir.openFile('file');
      expect(Buffer.from(file.readUpTo(3)).toString()).toBe('con');
      expect(Buffer.from(file.readUpTo(100)).toString()).toBe('tent');
      file.close();
      const child = dir.openDir('real');
      expect(child.list()).toEqual([]);
      child.close();
    } finally {
      dir.close();
    }
  });

  it('lists a held directory again completely, including entries added since the first listing', () => {
    const root = freshDir();
    const dir = Dir.open(root);
    try {
      dir.createExclusive('first', 0o600).close();
      expect(dir.list().map((entry) => entry.name)).toEqual(['first']);
      dir.createExclusive('second', 0o600).close();
      expect(dir.list().map((entry) => entry.name)).toEqual(['first', 'second']);
      expect(dir.list().map((entry) => entry.name)).toEqual(['first', 'second']);
    } finally {
      dir.close();
    }
  });

  it('reads a file of an expected size whole, and shows a file that is larger or smaller', () => {
    const root = freshDir();
    writeFileSync(join(root, 'exact'), 'twelve bytes');
    writeFileSync(join(root, 'empty'), '');
    writeFileSync(join(root, 'big'), Buffer.alloc(200_000, 0x62));
    const dir = Dir.open(root);
    const read = (name: string, size: number): string => {
      const file = dir.openFile(name);
      try {
        return Buffer.from(file.readExpected(size)).toString();
      } finally {
        file.close();
      }
    };
    try {
      expect(read('exact', 12)).toBe('twelve bytes');
      expect(read('exact', 11)).toBe('twelve bytes');
      expect(read('exact', 5)).toBe('twelve');
      expect(read('exact', 20)).toBe('twelve bytes');
      expect(read('empty', 0)).toBe('');
      expect(read('big', 200_000)).toHaveLength(200_000);
      expect(read('big', 100_000)).toHaveLength(100_001);
      expect(codeOf(() => read('exact', -1))).toBe('not-an-FsError');
    } finally {
      dir.close();
    }
  });
});

/**
 * The mount id (first field of /proc/self/mountinfo) of the mount holding
 * `path`: the one whose mount point is the longest prefix of it. statx's
 * `stx_mnt_id` is that same number.
 */
function mountIdOf(path: string): bigint {
  let best: { point: string; id: bigint } | undefined;
  for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
    const [id, , , , point] = line.split(' ');
    if (id === undefined || point === undefined) continue;
    const decoded = point.replace(/\\([0-7]{3})/g, (_, octal: string) =>
      String.fromCharCode(Number.parseInt(octal, 8)),
    );
    const inside = decoded === '/' || path === decoded || path.startsWith(`${decoded}/`);
    if (inside && (best === undefined || decoded.length >= best.point.length))
      best = { point: decoded, id: BigInt(id) };
  }
  if (best === undefined) throw new Error('no mount holds the path');
  return best.id;
}
