import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Dir } from './dir.js';
import { FsError } from './errors.js';
import { fsPrimitivesAvailable, libc } from './libc.js';
import { syncFilesystemOf, syncfsFlushesEveryFile } from './open-descriptor.js';

const base = realpathSync(mkdtempSync(join(tmpdir(), 'sealkit-libc-')));
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('libc binding', () => {
  it('is available on this Linux machine', () => {
    expect(fsPrimitivesAvailable()).toBe(true);
  });

  it("gives failures Node's error shape without the path", () => {
    let caught: unknown;
    try {
      Dir.open(join(base, 'secret-customer-name'));
    } catch (error: unknown) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(FsError);
    expect(caught).toMatchObject({ code: 'ENOENT', errno: -2, syscall: 'openat' });
    expect(String((caught as FsError).message)).not.toContain('secret-customer-name');
  });

  it('reads errno of the failing call even when Node syscalls run around it', () => {
    const codes = new Set<string>();
    for (let index = 0; index < 2000; index += 1) {
      statSync(base);
      try {
        Dir.open(join(base, `missing-${index}`));
      } catch (error: unknown) {
        codes.add(error instanceof FsError ? error.code : 'other');
      }
    }
    expect([...codes]).toEqual(['ENOENT']);
  });
});

describe('flushing a whole filesystem', () => {
  const statfs = (path: string) => {
    const [magic = '', name = ''] = execFileSync('stat', ['-f', '-c', '%t %T', path], { encoding: 'utf8' })
      .trim()
      .split(' ');
    return { magic: Number.parseInt(magic, 16), name };
  };

  it('reads the filesystem type as stat -f does', () => {
    for (const path of [base, '/proc']) {
      const dir = Dir.open(path);
      try {
        expect(libc().filesystemMagic(dir.fd)).toBe(statfs(path).magic);
      } finally {
        dir.close();
      }
    }
  });

  it('trusts syncfs on the local filesystems it knows, never on others', () => {
    const known = new Set(['ext2/ext3', 'xfs', 'btrfs', 'tmpfs']);
    const proc = Dir.open('/proc');
    const here = Dir.open(base);
    try {
      expect(syncfsFlushesEveryFile(proc)).toBe(false);
      expect(syncfsFlushesEveryFile(here)).toBe(known.has(statfs(base).name));
    } finally {
      proc.close();
      here.close();
    }
  });

  it('reports a syncfs that returned 0 as true', async () => {
    const here = Dir.open(base);
    try {
      expect(await syncFilesystemOf(here)).toBe(true);
    } finally {
      here.close();
    }
  });

  it('reports a syncfs that failed as false, for the caller to fsync instead', async () => {
    // A descriptor number no file holds: syncfs returns -1 (EBADF).
    expect(await libc().syncFilesystem(987_654)).toBe(false);
  });
});
