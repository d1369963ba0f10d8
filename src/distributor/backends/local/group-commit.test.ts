import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  describeTree,
  makeBundle,
  sha256Of,
  writeConfig,
} from '../../../../test/helpers/distributor-fixtures.js';
import type { Step } from '../../backend.js';
import { BATCH_LIMITS, distributeRun } from '../../run/run.js';

/**
 * Group commit at a local destination: many bundles staged, one flush, one
 * rename per bundle, each parent directory flushed once. What the steps show
 * is what a crash can interrupt; crash.test.ts kills the run at each of them.
 */
const CLOCK = () => new Date('2026-06-01T00:00:00Z');

let work: string;
let source: string;
let dest: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'sealkit-group-'));
  source = join(work, 'src');
  dest = join(work, 'dest');
  mkdirSync(source);
  mkdirSync(dest);
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

function bundles(count: number, parents: number): void {
  for (let i = 0; i < count; i += 1) {
    makeBundle(
      source,
      `p${i % parents}/b${i}`,
      [
        { path: 'report.md', content: `# Report ${i}\n` },
        { path: 'data/values.csv', content: `a,b\n${i},${i * 2}\n` },
      ],
      { id: `b${i}`, created: '2026-05-30T00:00:00Z' },
    );
  }
}

async function recorded(
  config: string,
): Promise<{ steps: Step['kind'][]; report: Awaited<ReturnType<typeof distributeRun>> }> {
  const steps: Step['kind'][] = [];
  const report = await distributeRun({
    configPath: config,
    now: CLOCK,
    beforeStep: (step) => steps.push(step.kind),
  });
  return { steps, report };
}

const count = (steps: readonly string[], kind: string) => steps.filter((step) => step === kind).length;

describe('group commit (local)', () => {
  it('makes a batch durable with one flush, commits each bundle by one rename, flushes each parent once', async () => {
    bundles(40, 3);
    const config = writeConfig(work, [
      { id: 'reports', source, destinations: [{ id: 'site', root: dest, source: true, html: false }] },
    ]);
    const { steps, report } = await recorded(config);
    expect(report.counts.published).toBe(40);
    expect(count(steps, 'flush')).toBe(1);
    const flushAt = steps.indexOf('flush');
    // 40 bundles of small files: one syncfs of the destination's filesystem, not an fsync of each.
    expect(steps[flushAt + 1]).toBe('syncfs');
    expect(count(steps, 'syncfs')).toBe(1);
    // Before the flush nothing is fsynced one by one (the work area's creation aside) and nothing is renamed
    // to a bundle path; after it: three parents built (mkdir, rename, fsync of the root each), 40 commit
    // renames, then one fsync per parent directory.
    expect(count(steps.slice(0, flushAt), 'fsync')).toBe(1);
    const after = steps.slice(flushAt + 1);
    expect(count(after, 'rename')).toBe(40 + 3);
    expect(count(after, 'fsync')).toBe(3 + 3);
    const lastCommit = after.lastIndexOf('rename');
    expect(after.slice(lastCommit + 1, lastCommit + 4)).toEqual(['fsync', 'fsync', 'fsync']);
    // The snapshot's bundle directory is the staging tree: one mkdir per bundle (plus the subdirectory the
    // outputs need), not a second staging directory.
    expect(count(steps, 'mkdir')).toBe(40 * 2 + 3 + 3);
    const tree = describeTree(dest);
    expect(tree['p0/b0']).toBe('dir 755');
    expect(tree['p0/b0/report.md']).toBe(`file 644 ${sha256Of('# Report 0\n')}`);
    expect(tree['p0/b0/data']).toBe('dir 755');
    expect(
      Object.keys(tree)
        .filter((path) => path.startsWith('p0/b0/'))
        .sort(),
    ).toEqual(['p0/b0/.distributor.json', 'p0/b0/data', 'p0/b0/data/values.csv', 'p0/b0/report.md']);
    expect(readdirSync(join(dest, '.distributor.work'))).toEqual(['lock']);
  });

  it('flushes larger files, or a few, by an fsync of each instead of a syncfs', async () => {
    // 20 bundles of two 200 KiB files: 80 descriptors averaging over 64 KiB.
    for (let i = 0; i < 20; i += 1) {
      makeBundle(
        source,
        `large/b${i}`,
        [
          { path: 'a.bin', content: 'a'.repeat(200 * 1024) },
          { path: 'b.bin', content: `${i}`.repeat(200 * 1024) },
        ],
        { id: `large${i}`, created: '2026-05-30T00:00:00Z' },
      );
    }
    const config = writeConfig(work, [
      { id: 'reports', source, destinations: [{ id: 'site', root: dest, source: true, html: false }] },
    ]);
    const large = await recorded(config);
    expect(large.report.counts.published).toBe(20);
    expect(count(large.steps, 'flush')).toBe(1);
    expect(count(large.steps, 'syncfs')).toBe(0);
    // Three small bundles: 12 descriptors, too few for a syncfs to save anything.
    rmSync(source, { recursive: true });
    mkdirSync(source);
    bundles(3, 1);
    const few = await recorded(config);
    expect(few.report.counts.published).toBe(3);
    expect(count(few.steps, 'flush')).toBe(1);
    expect(count(few.steps, 'syncfs')).toBe(0);
  });

  it(`cuts batches at ${BATCH_LIMITS.maxWrites} bundles: one flush per batch`, async () => {
    bundles(BATCH_LIMITS.maxWrites + 4, 1);
    const config = writeConfig(work, [
      { id: 'reports', source, destinations: [{ id: 'site', root: dest, source: true, html: false }] },
    ]);
    const { steps, report } = await recorded(config);
    expect(report.counts.published).toBe(BATCH_LIMITS.maxWrites + 4);
    expect(count(steps, 'flush')).toBe(2);
  });

  it('holds a bounded number of descriptors for a bundle of many files (flushed early, nothing shown early)', async () => {
    const files = Array.from({ length: 2500 }, (_, i) => ({ path: `rows/r${i}.csv`, content: `${i}\n` }));
    makeBundle(source, 'many', files, { id: 'many', created: '2026-05-30T00:00:00Z' });
    const config = writeConfig(work, [
      { id: 'reports', source, destinations: [{ id: 'site', root: dest, source: true, html: false }] },
    ]);
    const before = readdirSync('/proc/self/fd').length;
    let most = 0;
    let visibleBeforeFlush = false;
    let flushed = false;
    const report = await distributeRun({
      configPath: config,
      now: CLOCK,
      beforeStep: (step) => {
        most = Math.max(most, readdirSync('/proc/self/fd').length - before);
        if (step.kind === 'flush') flushed = true;
        if (!flushed && readdirSync(dest).includes('many')) visibleBeforeFlush = true;
      },
    });
    expect(report.counts.published).toBe(1);
    expect(Object.keys(describeTree(join(dest, 'many', 'rows')))).toHaveLength(2500);
    expect({ visibleBeforeFlush, bounded: most < 1200 }).toEqual({
      visibleBeforeFlush: false,
      bounded: true,
    });
  });

  it('removes snapshot files the destination does not publish before the state is written (pages for another destination)', async () => {
    bundles(3, 1);
    const archive = join(work, 'archive');
    mkdirSync(archive);
    // The snapshot lives at `site` (first destination) and holds pages for `archive` too; `site` publishes
    // sources only and stages in the snapshot's directories.
    const config = writeConfig(work, [
      {
        id: 'reports',
        source,
        destinations: [
          { id: 'site', root: dest, source: true, html: false },
          { id: 'archive', root: archive, source: false, html: true },
        ],
      },
    ]);
    const report = await distributeRun({ configPath: config, now: CLOCK });
    expect(report.counts.published).toBe(6);
    expect(Object.keys(describeTree(join(dest, 'p0', 'b1'))).sort()).toEqual([
      '.distributor.json',
      'data',
      'data/values.csv',
      'report.md',
    ]);
    expect(Object.keys(describeTree(join(archive, 'p0', 'b1'))).sort()).toEqual([
      '.distributor.json',
      'report.html',
    ]);
    const rerun = await distributeRun({ configPath: config, now: CLOCK });
    expect(rerun.counts.skipped_same).toBe(6);
  });

  it('refuses every write of a batch whose flush fails, shows none of them, and a rerun publishes them', async () => {
    bundles(5, 2);
    const config = writeConfig(work, [
      { id: 'reports', source, destinations: [{ id: 'site', root: dest, source: true, html: false }] },
    ]);
    const report = await distributeRun({
      configPath: config,
      now: CLOCK,
      beforeStep: (step) => {
        if (step.kind === 'flush') throw new Error('injected flush failure');
      },
    });
    expect(report.outcomes.map((o) => [o.outcome, o.reason_code])).toEqual(
      Array.from({ length: 5 }, () => ['refused', 'destination_write_failed']),
    );
    expect(readdirSync(dest)).toEqual(['.distributor.work']);
    expect(readdirSync(join(dest, '.distributor.work'))).toEqual(['lock']);
    const rerun = await distributeRun({ configPath: config, now: CLOCK });
    expect(rerun.counts.published).toBe(5);
  });

  it("sweeps a crashed run's snapshot: a staged tree goes whole, an exchanged-out old tree keeps unlisted files", async () => {
    bundles(1, 1);
    const config = writeConfig(work, [
      { id: 'reports', source, destinations: [{ id: 'site', root: dest, source: true, html: false }] },
    ]);
    const snapshot = join(dest, '.distributor.work', 'run-00112233aabbccdd', 'snapshot-1');
    // b0: a new tree staged in the snapshot with its complete state, killed before its commit rename.
    mkdirSync(join(snapshot, 'b0'), { recursive: true, mode: 0o700 });
    writeFileSync(join(snapshot, 'b0', 'new.txt'), 'n');
    writeFileSync(join(snapshot, 'b0', '.distributor.json'), JSON.stringify(stateListing('new.txt', 'n')));
    // b1: an old publication swapped out by an exchange, killed before its narrow deletion; someone had
    // put a file of their own in it.
    mkdirSync(join(snapshot, 'b1'));
    writeFileSync(join(snapshot, 'b1', 'old.txt'), 'o');
    writeFileSync(join(snapshot, 'b1', 'theirs.txt'), 'mine');
    writeFileSync(join(snapshot, 'b1', '.distributor.json'), JSON.stringify(stateListing('old.txt', 'o')));
    // b2: a snapshot copy, no state.
    mkdirSync(join(snapshot, 'b2'));
    writeFileSync(join(snapshot, 'b2', '.distributor-c0'), 'copy');
    const report = await distributeRun({ configPath: config, now: CLOCK });
    expect(report.counts.published).toBe(1);
    const workTree = describeTree(join(dest, '.distributor.work'));
    expect(
      Object.keys(workTree)
        .map((path) => path.replace(/^kept-[0-9a-f]+/, 'kept-*'))
        .sort(),
    ).toEqual(['kept-*', 'kept-*/.distributor.json', 'kept-*/theirs.txt', 'lock']);
  });
});

function stateListing(path: string, content: string) {
  return {
    schema_version: 1,
    distributor_version: '0.1.0',
    pipeline_id: 'reports',
    destination_id: 'site',
    published_at: '2026-05-01T00:00:00Z',
    source: {
      manifest: {
        schema_version: 1,
        id: 'old',
        digest: sha256Of('x'),
        created: '2026-05-01T00:00:00Z',
        files: [{ path, sha256: sha256Of(content), size: content.length }],
      },
    },
    outputs: [{ path, kind: 'source', source_path: path, sha256: sha256Of(content), size: content.length }],
  };
}
