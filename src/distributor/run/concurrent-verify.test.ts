import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { describeTree, makeBundle, writeConfig } from '../../../test/helpers/distributor-fixtures.js';
import { hashThreadsRunning, setHashThreads } from '../../core/digest/index.js';
import { distributeRun } from './run.js';

/*
 * Bundles only hashed are verified two (or more) at once: their large files
 * hash on other threads while the next bundle is opened (docs/performance.md,
 * "Hashing on both cores"). Whatever the number of threads, a run must
 * report and publish exactly what one bundle after the other does.
 */
const T0 = () => new Date('2026-06-01T00:00:00Z');
const base = mkdtempSync(join(tmpdir(), 'sealkit-concurrent-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));
afterEach(() => setHashThreads(1));

const KIB = 1024;
let counter = 0;

/** Ten bundles of large files; bundles 3 and 4 each have a file changed after its manifest, 6 one missing. */
function sources(filesPerBundle = 2): string {
  counter += 1;
  const source = join(base, `src-${counter}`);
  for (let i = 0; i < 10; i += 1) {
    const files = Array.from({ length: filesPerBundle }, (_, f) => ({
      path: `part-${f}.bin`,
      content: randomBytes(150 * KIB + f),
    }));
    files.push({ path: 'notes.txt', content: Buffer.from(`bundle ${i}\n`) });
    makeBundle(source, `daily/b${i}`, files, { id: `b${i}`, created: '2026-05-01T00:00:00Z' });
  }
  // Same size, other bytes: only the SHA-256 tells, and only on the thread that hashed it.
  writeFileSync(join(source, 'daily/b3/part-0.bin'), randomBytes(150 * KIB));
  writeFileSync(join(source, 'daily/b4/part-1.bin'), randomBytes(150 * KIB + 1));
  rmSync(join(source, 'daily/b6/part-0.bin'));
  return source;
}

function destination(): string {
  counter += 1;
  const root = join(base, `dest-${counter}`);
  mkdirSync(root);
  return root;
}

async function runWith(threads: number, source: string, root: string, dryRun = false) {
  setHashThreads(threads);
  const config = writeConfig(base, [
    { id: 'p', source, destinations: [{ id: 'local', root, source: true, html: false }] },
  ]);
  const report = await distributeRun({ configPath: config, now: T0, ...(dryRun ? { dryRun: true } : {}) });
  return {
    status: report.status,
    counts: report.counts,
    failures: report.failures.map((failure) => ({
      bundle_dir: failure.bundle_dir,
      reason_code: failure.reason_code,
      refusal: failure.refusal === undefined ? undefined : JSON.stringify(failure.refusal),
    })),
  };
}

/** Removes the three failing bundles: seven valid ones are left. */
function clean(source: string): void {
  for (const bundle of ['b3', 'b4', 'b6']) rmSync(join(source, 'daily', bundle), { recursive: true });
}

describe('bundles verified concurrently', () => {
  it('report the same refusals, in bundle and file order, with 0, 1 or 2 hashing threads (regression: a refusal of a file hashed on a thread reported out of order)', async () => {
    const source = sources();
    const serial = await runWith(0, source, destination(), true);
    expect(serial.failures.map((failure) => [failure.bundle_dir, failure.reason_code])).toEqual([
      ['daily/b3', 'file_digest_mismatch'],
      ['daily/b4', 'file_digest_mismatch'],
      ['daily/b6', 'file_missing'],
    ]);
    expect(await runWith(1, source, destination(), true)).toEqual(serial);
    expect(await runWith(2, source, destination(), true)).toEqual(serial);
    // A real run stops writing at the first failure: the same with threads.
    const serialRun = await runWith(0, source, destination());
    expect(await runWith(1, source, destination())).toEqual(serialRun);
    expect(await runWith(2, source, destination())).toEqual(serialRun);
  });

  it('publish the same tree with 0, 1 or 2 hashing threads, and a rerun is a no-op either way', async () => {
    const source = sources();
    clean(source);
    const trees: Record<string, string>[] = [];
    for (const threads of [0, 1, 2]) {
      const root = destination();
      const first = await runWith(threads, source, root);
      expect({ threads, status: first.status, counts: first.counts }).toEqual({
        threads,
        status: 'ok',
        counts: { published: 7, replaced: 0, skipped_same: 0, skipped_newer: 0, conflict: 0, refused: 0 },
      });
      trees.push(describeTree(root));
      for (const rerunThreads of [0, 2]) {
        const again = await runWith(rerunThreads, source, root);
        expect({ threads, rerunThreads, counts: again.counts }).toEqual({
          threads,
          rerunThreads,
          counts: { published: 0, replaced: 0, skipped_same: 7, skipped_newer: 0, conflict: 0, refused: 0 },
        });
      }
    }
    expect(trees[1]).toEqual(trees[0]);
    expect(trees[2]).toEqual(trees[0]);
  });

  it('a file changed after its manifest, hashed on a thread during a rerun, is refused and nothing is replaced', async () => {
    const source = sources();
    clean(source);
    const root = destination();
    expect((await runWith(2, source, root)).status).toBe('ok');
    const before = describeTree(root);
    writeFileSync(join(source, 'daily/b8/part-1.bin'), randomBytes(150 * KIB + 1));
    const rerun = await runWith(2, source, root);
    expect(rerun.failures.map((failure) => [failure.bundle_dir, failure.reason_code])).toEqual([
      ['daily/b8', 'file_digest_mismatch'],
    ]);
    expect(describeTree(root)).toEqual(before);
  });

  it('a rerun verified while the destination is inspected reports what one bundle after the other does (files changed and missing since publication)', async () => {
    const source = sources();
    clean(source);
    const root = destination();
    expect((await runWith(0, source, root)).status).toBe('ok');
    const before = describeTree(root);
    writeFileSync(join(source, 'daily/b1/part-0.bin'), randomBytes(150 * KIB));
    writeFileSync(join(source, 'daily/b7/part-1.bin'), randomBytes(150 * KIB + 1));
    rmSync(join(source, 'daily/b9/part-1.bin'));
    const serial = await runWith(0, source, root);
    expect(serial.failures.map((failure) => [failure.bundle_dir, failure.reason_code])).toEqual([
      ['daily/b1', 'file_digest_mismatch'],
      ['daily/b7', 'file_digest_mismatch'],
      ['daily/b9', 'file_missing'],
    ]);
    expect(await runWith(1, source, root)).toEqual(serial);
    expect(await runWith(2, source, root)).toEqual(serial);
    expect(describeTree(root)).toEqual(before);
  });

  it('hold a bounded number of descriptors and threads, however many large files a bundle has', async () => {
    const source = sources(24);
    clean(source);
    const openNow = (): number => readdirSync('/proc/self/fd').length;
    setHashThreads(2);
    const config = writeConfig(base, [
      { id: 'p', source, destinations: [{ id: 'local', root: destination(), source: true, html: false }] },
    ]);
    expect((await distributeRun({ configPath: config, now: T0 })).counts.published).toBe(7);
    // The threads are running now: what the rerun opens is counted from here.
    const before = openNow();
    let most = before;
    const rerun = await distributeRun({
      configPath: config,
      now: T0,
      // Sampled at each bundle while the sources are verified, the files of the bundles in flight open.
      onProgress: (event) => {
        if (event.phase === 'validate') most = Math.max(most, openNow());
      },
    });
    expect(rerun.counts.skipped_same).toBe(7);
    // Directories held open by the run and at most 8 files handed to threads (regression: a
    // thread that frees its slot early let every large file of the bundles in flight stay open).
    expect({ grew: most - before, leftOpen: openNow() - before }).toEqual({
      grew: expect.toSatisfy((grew: number) => grew > 0 && grew <= 24),
      leftOpen: 0,
    });
    expect(hashThreadsRunning()).toBeLessThanOrEqual(2);
  });
});
