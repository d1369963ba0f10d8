import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Dir } from './dir.js';
import { isFsError } from './errors.js';
import { exchange, renameNoReplace } from './rename.js';

const base = realpathSync(mkdtempSync(join(tmpdir(), 'sealkit-rename-')));
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

describe('renameNoReplace', () => {
  it('gives EEXIST onto an empty directory, a file and a dangling symlink, changing nothing', () => {
    const root = freshDir();
    mkdirSync(join(root, 'staged'));
    writeFileSync(join(root, 'staged', 'payload'), 'new');
    mkdirSync(join(root, 'empty-dir'));
    writeFileSync(join(root, 'a-file'), 'old');
    symlinkSync('nowhere', join(root, 'dangling'));
    const dir = Dir.open(root);
    try {
      for (const target of ['empty-dir', 'a-file', 'dangling']) {
        expect(codeOf(() => renameNoReplace(dir, 'staged', dir, target))).toBe('EEXIST');
      }
    } finally {
      dir.close();
    }
    expect(readFileSync(join(root, 'staged', 'payload'), 'utf8')).toBe('new');
    expect(readdirSync(join(root, 'empty-dir'))).toEqual([]);
    expect(readFileSync(join(root, 'a-file'), 'utf8')).toBe('old');
    expect(readlinkSync(join(root, 'dangling'))).toBe('nowhere');
    expect(readdirSync(root).sort()).toEqual(['a-file', 'dangling', 'empty-dir', 'staged']);
  });

  it('moves an entry to a free name, across directories', () => {
    const root = freshDir();
    mkdirSync(join(root, 'from'));
    mkdirSync(join(root, 'to'));
    writeFileSync(join(root, 'from', 'item'), 'moved');
    const from = Dir.open(join(root, 'from'));
    const to = Dir.open(join(root, 'to'));
    try {
      renameNoReplace(from, 'item', to, 'item');
    } finally {
      from.close();
      to.close();
    }
    expect(readdirSync(join(root, 'from'))).toEqual([]);
    expect(readFileSync(join(root, 'to', 'item'), 'utf8')).toBe('moved');
  });

  it('cannot move a 0500 directory to another parent until it is made 0700 through its held descriptor', () => {
    const root = freshDir();
    mkdirSync(join(root, 'staging'));
    mkdirSync(join(root, 'published'));
    mkdirSync(join(root, 'staging', 'bundle'));
    writeFileSync(join(root, 'staging', 'bundle', 'content'), 'sealed');
    chmodSync(join(root, 'staging', 'bundle'), 0o500);
    const staging = Dir.open(join(root, 'staging'));
    const published = Dir.open(join(root, 'published'));
    const bundle = Dir.open(join(root, 'staging', 'bundle'));
    try {
      const inode = bundle.stat().ino;
      expect(codeOf(() => renameNoReplace(staging, 'bundle', published, 'bundle'))).toBe('EACCES');
      expect(readdirSync(join(root, 'published'))).toEqual([]);

      bundle.chmod(0o700);
      renameNoReplace(staging, 'bundle', published, 'bundle');
      expect(lstatSync(join(root, 'published', 'bundle'), { bigint: true }).ino).toBe(inode);
      expect(bundle.stat().ino).toBe(inode);
      expect(bundle.list().map((entry) => entry.name)).toEqual(['content']);
      const added = bundle.createExclusive('after-move', 0o600);
      added.close();
      expect(readdirSync(join(root, 'published', 'bundle')).sort()).toEqual(['after-move', 'content']);
      bundle.chmod(0o500);
      expect(lstatSync(join(root, 'published', 'bundle')).mode & 0o7777).toBe(0o500);
    } finally {
      staging.close();
      published.close();
      bundle.close();
    }
  });
});

describe('exchange', () => {
  it('swaps two directories atomically', () => {
    const root = freshDir();
    mkdirSync(join(root, 'current'));
    mkdirSync(join(root, 'next'));
    writeFileSync(join(root, 'current', 'version'), '1');
    writeFileSync(join(root, 'next', 'version'), '2');
    const dir = Dir.open(root);
    const held = Dir.open(join(root, 'next'));
    try {
      expect(readFileSync(join(root, 'current', 'version'), 'utf8')).toBe('1');
      exchange(dir, 'current', dir, 'next');
      expect(readFileSync(join(root, 'current', 'version'), 'utf8')).toBe('2');
      expect(readFileSync(join(root, 'next', 'version'), 'utf8')).toBe('1');
      expect(held.stat().ino).toBe(lstatSync(join(root, 'current'), { bigint: true }).ino);
      expect(codeOf(() => exchange(dir, 'current', dir, 'absent'))).toBe('ENOENT');
      expect(readFileSync(join(root, 'current', 'version'), 'utf8')).toBe('2');
    } finally {
      dir.close();
      held.close();
    }
  });
});
