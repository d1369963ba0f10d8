import { mkdtempSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Dir } from './dir.js';
import { FsError } from './errors.js';
import { fsPrimitivesAvailable } from './libc.js';

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
