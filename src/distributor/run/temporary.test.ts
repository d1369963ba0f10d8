// The sweep of bundle copies that killed runs left in TMPDIR: only this
// user's directories whose lock was taken and is free now are removed.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Dir, lockExclusiveNonBlocking } from '../../core/fs/index.js';
import { sweepStaleTemporaries } from './sources.js';

let parent: string;
beforeEach(() => {
  parent = mkdtempSync(join(tmpdir(), 'sweep-'));
});
afterEach(() => rmSync(parent, { recursive: true, force: true }));

function leftover(name: string, options: { armed: boolean; lockFile: boolean }): string {
  const dir = join(parent, name);
  mkdirSync(join(dir, 'pipeline-0'), { recursive: true });
  writeFileSync(join(dir, 'pipeline-0', 'copy-0'), 'bytes of a bundle');
  if (options.lockFile) writeFileSync(join(dir, '.sealkit-run.lock'), '');
  if (options.armed) writeFileSync(join(dir, '.sealkit-run.locked'), '');
  return dir;
}

describe('sweep of stale temporary copies', () => {
  it('removes a copy whose run locked it and died (the lock is free)', () => {
    leftover('sealkit-distributor-dead', { armed: true, lockFile: true });
    sweepStaleTemporaries(parent, 'sealkit-distributor-mine');
    expect(readdirSync(parent)).toEqual([]);
  });

  it('regression: keeps the directory of a run that created its lock file but has not locked it yet', () => {
    leftover('sealkit-distributor-starting', { armed: false, lockFile: true });
    sweepStaleTemporaries(parent, 'sealkit-distributor-mine');
    expect(readdirSync(parent)).toEqual(['sealkit-distributor-starting']);
  });

  it('keeps a live run’s copy (lock held), its own, and anything named otherwise', () => {
    const live = leftover('sealkit-distributor-live', { armed: true, lockFile: true });
    leftover('sealkit-distributor-mine', { armed: true, lockFile: true });
    leftover('other-dead', { armed: true, lockFile: true });
    const dir = Dir.open(live);
    const held = lockExclusiveNonBlocking(dir, '.sealkit-run.lock');
    try {
      expect(held.kind).toBe('acquired');
      sweepStaleTemporaries(parent, 'sealkit-distributor-mine');
    } finally {
      if (held.kind === 'acquired') held.lock.release();
      dir.close();
    }
    expect(readdirSync(parent).sort()).toEqual([
      'other-dead',
      'sealkit-distributor-live',
      'sealkit-distributor-mine',
    ]);
  });
});
