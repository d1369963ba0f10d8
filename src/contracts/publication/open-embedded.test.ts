import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { holdEmbeddedLedger, openEmbeddedLedger } from './open-embedded.js';
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
});
