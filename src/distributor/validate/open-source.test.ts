import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Dir, type DirEntryType } from '../../core/fs/index.js';
import { openRegular } from './open-source.js';

const base = mkdtempSync(join(tmpdir(), 'sealkit-open-source-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('openRegular', () => {
  it('opens regular files only, whether it stats the name or trusts a listing, and never follows a link', () => {
    writeFileSync(join(base, 'file'), 'bytes');
    mkdirSync(join(base, 'dir'));
    symlinkSync('file', join(base, 'link'));
    execFileSync('mkfifo', [join(base, 'fifo')]);
    const dir = Dir.open(base);
    const outcome = (name: string, listedAs?: DirEntryType): string => {
      const opened = openRegular(dir, [name], listedAs);
      if (!opened.ok) return opened.problem;
      opened.file.close();
      return `file of ${opened.stat.size}`;
    };
    try {
      for (const listedAs of [undefined, 'file'] as const) {
        expect({
          listedAs,
          outcomes: ['file', 'dir', 'link', 'fifo', 'absent'].map((n) => outcome(n, listedAs)),
        }).toEqual({
          listedAs,
          // Trusting a (stale) listing that says "file" still refuses what the open finds.
          outcomes: ['file of 5', 'not_regular', 'symlink', 'not_regular', 'missing'],
        });
      }
    } finally {
      dir.close();
    }
  });
});
