import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Dir, lockExclusiveNonBlocking } from '../../core/fs/index.js';
import { holdEmbeddedLedger, LOCK_WAIT_MS, openEmbeddedLedger } from './open-embedded.js';
import { refuseLedger } from './refusals.js';

const work = mkdtempSync(join(tmpdir(), 'sealkit-open-embedded-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('opening the embedded ledger', () => {
  it('regression: without create, a missing ledger makes nothing, not even the lock file', async () => {
    const project = join(work, 'cache-only');
    // A project whose .sealkit/ holds only the parse cache.
    mkdirSync(join(project, '.sealkit', 'cache'), { recursive: true, mode: 0o700 });
    for (const readOnly of [true, false]) {
      const refusal = await openEmbeddedLedger(project, { create: false, readOnly }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refuseLedger.is(refusal, 'contract_ledger_missing')).toBe(true);
    }
    expect(readdirSync(join(project, '.sealkit'))).toEqual(['cache']);
  });

  it('regression: a new ledger that is discarded leaves only the lock, and an existing one is never removed', async () => {
    const project = join(work, 'discarded');
    mkdirSync(project);
    const held = await holdEmbeddedLedger(project, { create: true });
    expect(held.created).toBe(true);
    expect(existsSync(join(project, '.sealkit', 'ledger', 'PG_VERSION'))).toBe(true);
    await held.discard();
    // The lock file stays: deleting one would let two processes lock different inodes.
    expect(readdirSync(join(project, '.sealkit'))).toEqual(['ledger.lock']);

    const kept = await holdEmbeddedLedger(project, { create: true });
    await kept.connection.close();
    const again = await holdEmbeddedLedger(project, { create: true });
    expect(again.created).toBe(false);
    await again.discard();
    expect(existsSync(join(project, '.sealkit', 'ledger', 'PG_VERSION'))).toBe(true);
  });

  it('regression: readers share the ledger, hold it only while they copy it, and wait briefly for a holder', async () => {
    const project = join(work, 'readers');
    mkdirSync(project);
    await (await openEmbeddedLedger(project, { create: true })).close();
    const read = () => openEmbeddedLedger(project, { create: false, readOnly: true });
    // Two readers at once, and a publication beside them: none is refused as busy.
    const first = await read();
    const second = await read();
    const writer = await openEmbeddedLedger(project, { create: false });
    await writer.close();
    for (const reader of [first, second]) {
      expect(await reader.session.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
      await reader.close();
    }
    // A holder that lets go within the wait delays a reader instead of refusing it.
    const sealkit = Dir.open(join(project, '.sealkit'));
    try {
      const held = lockExclusiveNonBlocking(sealkit, 'ledger.lock');
      if (held.kind !== 'acquired') throw new Error('the lock should be free');
      setTimeout(() => held.lock.release(), 300);
      await (await read()).close();
      // One that keeps it is busy once the wait is over.
      const kept = lockExclusiveNonBlocking(sealkit, 'ledger.lock');
      if (kept.kind !== 'acquired') throw new Error('the lock should be free');
      const started = Date.now();
      const refusal = await read().then(
        () => undefined,
        (error: unknown) => error,
      );
      kept.lock.release();
      expect(refuseLedger.is(refusal, 'contract_ledger_busy')).toBe(true);
      expect(Date.now() - started).toBeGreaterThanOrEqual(LOCK_WAIT_MS);
    } finally {
      sealkit.close();
    }
  });
});
