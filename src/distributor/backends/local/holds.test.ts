import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Dir } from '../../../core/fs/index.js';
import { holdsPath } from './holds.js';

let work: string;
let root: Dir;

beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'sealkit-holds-'));
  mkdirSync(join(work, 's', 'W01'), { recursive: true });
  writeFileSync(join(work, 's', 'W01', 'report.html'), 'x');
  root = Dir.open(work);
});

afterEach(() => {
  root.close();
  chmodSync(join(work, 's'), 0o755);
  rmSync(work, { recursive: true, force: true });
});

describe('what a local destination holds of a page link out of the run', () => {
  it('says held or not held, a missing folder on the way included', () => {
    expect(holdsPath(root, 's/W01/report.html')).toBe(true);
    expect(holdsPath(root, 's/W01/notes.html')).toBe(false);
    expect(holdsPath(root, 's/W0/report.html')).toBe(false);
    // A file where the link wants a folder.
    expect(holdsPath(root, 's/W01/report.html/index.html')).toBe(false);
  });

  it('never reports missing on a doubt: a link on the way, a folder it may not search', () => {
    symlinkSync(join(work, 's', 'W01'), join(work, 's', 'latest'));
    expect(holdsPath(root, 's/latest/report.html')).toBeUndefined();
    chmodSync(join(work, 's'), 0o000);
    expect(holdsPath(root, 's/W01/report.html')).toBeUndefined();
  });
});
