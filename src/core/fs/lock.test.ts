import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { Dir } from './dir.js';
import { isFsError } from './errors.js';
import { lockExclusiveNonBlocking, peekLock, probeLock } from './lock.js';

const base = realpathSync(mkdtempSync(join(tmpdir(), 'sealkit-lock-')));
const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
afterAll(() => rmSync(base, { recursive: true, force: true }));

// An independent holder: raw flock through koffi in another process, not our module.
const HOLDER = `
const fs = require('node:fs');
const koffi = require('koffi');
const flock = koffi.load('libc.so.6').func('int flock(int fd, int operation)');
const fd = fs.openSync(process.argv[1], 'r');
if (flock(fd, 2) !== 0) process.exit(3);
process.stdout.write('locked\\n');
setInterval(() => {}, 1000);
`;

function startHolder(lockPath: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['-e', HOLDER, lockPath], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('locked')) resolve(child);
    });
    child.on('exit', (code) => reject(new Error(`lock holder exited early with ${String(code)}`)));
  });
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.on('exit', () => resolve());
  });
}

describe('lockExclusiveNonBlocking', () => {
  it('is busy while another process holds the lock and free once that process is killed', async () => {
    const dir = Dir.open(base);
    try {
      const first = lockExclusiveNonBlocking(dir, 'publish.lock');
      expect(first.kind).toBe('acquired');
      if (first.kind === 'acquired') first.lock.release();

      const holder = await startHolder(join(base, 'publish.lock'));
      try {
        expect(lockExclusiveNonBlocking(dir, 'publish.lock')).toEqual({ kind: 'busy' });
      } finally {
        holder.kill('SIGKILL');
        await exited(holder);
      }
      expect(holder.signalCode).toBe('SIGKILL');

      const after = lockExclusiveNonBlocking(dir, 'publish.lock');
      expect(after.kind).toBe('acquired');
      if (after.kind === 'acquired') after.lock.release();
    } finally {
      dir.close();
    }
  });

  it('is busy for a second holder in the same process until the first releases', () => {
    const dir = Dir.open(base);
    try {
      const first = lockExclusiveNonBlocking(dir, 'local.lock');
      if (first.kind !== 'acquired') throw new Error('the first lock was not acquired');
      expect(lockExclusiveNonBlocking(dir, 'local.lock')).toEqual({ kind: 'busy' });
      first.lock.release();
      first.lock.release();
      const second = lockExclusiveNonBlocking(dir, 'local.lock');
      expect(second.kind).toBe('acquired');
      if (second.kind === 'acquired') second.lock.release();
      expect(dir.stat('local.lock')).toMatchObject({ type: 'file', mode: 0o600 });
    } finally {
      dir.close();
    }
  });

  it('refuses a symlink as the lock file and a name with a slash', () => {
    symlinkSync('elsewhere.lock', join(base, 'linked.lock'));
    const dir = Dir.open(base);
    try {
      const code = (action: () => unknown) => {
        try {
          action();
        } catch (error: unknown) {
          return isFsError(error) ? error.code : 'other';
        }
        return undefined;
      };
      expect(code(() => lockExclusiveNonBlocking(dir, 'linked.lock'))).toBe('ELOOP');
      expect(code(() => lockExclusiveNonBlocking(dir, '../x.lock'))).toBe('EINVAL');
      expect(dir.list().some((entry) => entry.name === 'elsewhere.lock')).toBe(false);
    } finally {
      dir.close();
    }
  });
});

describe('peekLock', () => {
  it('reads an absent lock file without creating it, a lock another process holds as held, a free one as free', async () => {
    const dir = Dir.open(base);
    try {
      expect(peekLock(dir, 'peek.lock')).toBe('absent');
      expect(dir.list().some((entry) => entry.name === 'peek.lock')).toBe(false);

      const taken = lockExclusiveNonBlocking(dir, 'peek.lock');
      if (taken.kind !== 'acquired') throw new Error('the lock was not acquired');
      taken.lock.release();
      expect(peekLock(dir, 'peek.lock')).toBe('free');

      const holder = await startHolder(join(base, 'peek.lock'));
      try {
        expect(peekLock(dir, 'peek.lock')).toBe('held');
        // A free lock file beside it is not mistaken for the held one.
        const other = lockExclusiveNonBlocking(dir, 'peek-other.lock');
        if (other.kind === 'acquired') other.lock.release();
        expect(peekLock(dir, 'peek-other.lock')).toBe('free');
      } finally {
        holder.kill('SIGKILL');
        await exited(holder);
      }
      expect(peekLock(dir, 'peek.lock')).toBe('free');
    } finally {
      dir.close();
    }
  });
});

describe('probeLock', () => {
  it('reports an absent lock file without creating it, a held one as held, a free one as free', async () => {
    const dir = Dir.open(base);
    try {
      expect(probeLock(dir, 'probe.lock')).toBe('absent');
      expect(dir.list().some((entry) => entry.name === 'probe.lock')).toBe(false);

      const taken = lockExclusiveNonBlocking(dir, 'probe.lock');
      if (taken.kind !== 'acquired') throw new Error('the lock was not acquired');
      taken.lock.release();
      expect(probeLock(dir, 'probe.lock')).toBe('free');

      const holder = await startHolder(join(base, 'probe.lock'));
      try {
        expect(probeLock(dir, 'probe.lock')).toBe('held');
      } finally {
        holder.kill('SIGKILL');
        await exited(holder);
      }
      expect(probeLock(dir, 'probe.lock')).toBe('free');
    } finally {
      dir.close();
    }
  });

  it('refuses a symlink as the lock file without creating its target', () => {
    symlinkSync('probe-target.lock', join(base, 'probe-linked.lock'));
    const dir = Dir.open(base);
    try {
      let code: string | undefined;
      try {
        probeLock(dir, 'probe-linked.lock');
      } catch (error: unknown) {
        code = isFsError(error) ? error.code : 'other';
      }
      expect(code).toBe('ELOOP');
      expect(dir.list().some((entry) => entry.name === 'probe-target.lock')).toBe(false);
    } finally {
      dir.close();
    }
  });

  it('creates the lock file exactly 0600 whatever the umask, and leaves an existing one as it is', () => {
    // Regression: under umask 0277 the lock file was created 0400.
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'sealkit-lock-umask-')));
    const dir = Dir.open(root);
    try {
      for (const umask of [0o277, 0o777]) {
        const previous = process.umask(umask);
        try {
          const name = `l${umask.toString(8)}.lock`;
          const first = lockExclusiveNonBlocking(dir, name);
          expect(first.kind).toBe('acquired');
          expect(dir.stat(name).mode).toBe(0o600);
          if (first.kind === 'acquired') first.lock.release();
          chmodSync(join(root, name), 0o640);
          const second = lockExclusiveNonBlocking(dir, name);
          expect(second.kind).toBe('acquired');
          if (second.kind === 'acquired') second.lock.release();
          expect(dir.stat(name).mode).toBe(0o640);
        } finally {
          process.umask(previous);
        }
      }
    } finally {
      dir.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
