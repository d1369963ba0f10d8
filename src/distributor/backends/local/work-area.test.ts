import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Dir } from '../../../core/fs/index.js';
import { destinationWriteFailed, FolderWriteFailure } from '../../write-failure.js';
import { LocalRoot, WORK_AREA } from './work-area.js';

const base = mkdtempSync(join(tmpdir(), 'sealkit-work-area-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

function destination(label: string): string {
  const path = join(base, label);
  mkdirSync(path, { mode: 0o755 });
  return path;
}

describe('LocalRoot.acquire', () => {
  it('regression: a work area another run made between open and mkdir is taken, and the lock decides', () => {
    // Two runs started together on a new destination: both found no work
    // area, the other made it first, and this one's mkdir met EEXIST, which
    // refused every bundle as a failed write instead of destination_locked.
    const path = destination('race');
    const first = new LocalRoot(Dir.open(path));
    const steps: string[] = [];
    const acquired = first.acquire((step) => {
      steps.push(step);
      if (step === 'mkdir') mkdirSync(join(path, WORK_AREA), { mode: 0o700 });
    });
    expect(steps[0]).toBe('mkdir');
    expect(acquired).toBe(true);
    expect(statSync(join(path, WORK_AREA)).isDirectory()).toBe(true);
    // The run that made it comes second to the lock: busy, not a failure.
    const second = new LocalRoot(Dir.open(path));
    expect(second.acquire(() => {})).toBe(false);
    first.release(() => {});
    expect(second.acquire(() => {})).toBe(true);
    second.release(() => {});
  });

  it('a file made where the work area goes is still a failed write, named in its folder', () => {
    const path = destination('file');
    const root = new LocalRoot(Dir.open(path), undefined, { root: 'site', workBase: 'site' });
    let thrown: unknown;
    try {
      root.acquire((step) => {
        if (step === 'mkdir') writeFileSync(join(path, WORK_AREA), 'not a folder\n');
      });
    } catch (error: unknown) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(FolderWriteFailure);
    expect(destinationWriteFailed(thrown).hint).toBe(
      "writing in 'site': a path on the way is not a folder (ENOTDIR)",
    );
  });
});

describe('destinationWriteFailed', () => {
  it('names an errno it has no sentence for, rather than saying nothing', () => {
    const error = Object.assign(new Error('x'), { code: 'EXDEV' });
    expect(destinationWriteFailed(new FolderWriteFailure(error, 'site')).hint).toBe(
      "writing in 'site': a filesystem call failed (EXDEV)",
    );
    expect(destinationWriteFailed(error).hint).toBe('a filesystem call failed (EXDEV)');
    expect(destinationWriteFailed(new Error('no code')).hint).toBeUndefined();
  });
});
