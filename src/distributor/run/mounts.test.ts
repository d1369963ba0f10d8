// Destinations on real filesystems that fail: a 1 MiB tmpfs a 2 MB file does
// not fit in (ENOSPC), a read-only tmpfs (EROFS), and a bind mount (one
// directory through two mounts). `npm test` mounts them as root before it
// drops privileges; without them these tests fail (see mount-fixtures.ts).
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  describeTree,
  makeBundle,
  sha256Of,
  writeConfig,
} from '../../../test/helpers/distributor-fixtures.js';
import { mountFixtures } from '../../../test/helpers/mount-fixtures.js';
import { Refusal } from '../../core/refusal/index.js';
import { distributeRun } from './run.js';

const mounts = mountFixtures();
const BIG = { path: 'data/big.bin', content: randomBytes(2 * 1024 * 1024) };
const REPORT = { path: 'report.md', content: '# Daily\n\nSunny.\n' };
const CREATED = '2026-05-30T11:10:00Z';

let work: string;
let cleanup: string[];
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'sealkit-mounts-'));
  cleanup = [];
});
afterEach(() => {
  for (const path of cleanup) rmSync(path, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
  // Every test leaves the shared mounts as it found them.
  expect(readdirSync(mounts.full)).toEqual([]);
});

/** A directory on the 1 MiB tmpfs, removed after the test. */
function onFullTmpfs(name: string): string {
  const path = join(mounts.full, name);
  mkdirSync(path);
  cleanup.push(path);
  return path;
}

function dir(name: string): string {
  const path = join(work, name);
  mkdirSync(path, { recursive: true });
  return path;
}

const rows = (report: Awaited<ReturnType<typeof distributeRun>>) =>
  report.outcomes.map((o) => [o.pipeline_id, o.destination_id, o.outcome, o.reason_code ?? '']);

describe('a destination that cannot be written', () => {
  it('a full destination is its own refusal, and the other pipeline still publishes', async () => {
    // Regression: the run aborted with file_unreadable ("a file the manifest
    // lists cannot be read") and the healthy pipeline was run_aborted.
    const small = onFullTmpfs('site');
    const healthy = dir('healthy');
    const big = dir('src-big');
    const other = dir('src-other');
    // One file only: the write that fails is the copy of a listed file.
    makeBundle(big, 'b', [BIG], { id: 'b', created: CREATED });
    makeBundle(other, 'o', [REPORT], { id: 'o', created: CREATED });
    const configPath = writeConfig(work, [
      { id: 'big', source: big, destinations: [{ id: 'small', root: small }] },
      { id: 'other', source: other, destinations: [{ id: 'site', root: healthy }] },
    ]);
    const report = await distributeRun({ configPath });
    expect(report.aborted).toBe(false);
    expect(report.failures).toEqual([]);
    expect(report.status).toBe('refused');
    expect(rows(report)).toEqual([
      ['big', 'small', 'refused', 'destination_write_failed'],
      ['other', 'site', 'published', ''],
    ]);
    const refusal = report.outcomes[0]?.refusal;
    // Regression: the help said only "no space left", not which destination's filesystem.
    expect(refusal?.hint).toBe(
      `destination 'small', bundle 'b': writing in '${small}': no space left on the filesystem (ENOSPC)`,
    );
    expect(refusal?.location?.pointer).toBe('pipelines[0].destinations[0]');
    // Its staging and snapshot were swept; only the lock stays.
    expect(describeTree(small)).toEqual({
      '.distributor.work': 'dir 700',
      '.distributor.work/lock': expect.any(String),
    });
    expect(readFileSync(join(healthy, 'o', 'report.md'), 'utf8')).toBe(REPORT.content);
  });

  it('a full destination that held the snapshot: the pipeline’s other destination still receives the bundle', async () => {
    const small = onFullTmpfs('site');
    const healthy = dir('healthy');
    const source = dir('src');
    makeBundle(source, 'b', [BIG, REPORT], { id: 'b', created: CREATED });
    const configPath = writeConfig(work, [
      {
        id: 'weather',
        source,
        // The first local destination keeps the run's snapshot: here the full one.
        destinations: [
          { id: 'small', root: small },
          { id: 'archive', root: healthy },
        ],
      },
    ]);
    const report = await distributeRun({ configPath });
    expect(rows(report)).toEqual([
      ['weather', 'small', 'refused', 'destination_write_failed'],
      ['weather', 'archive', 'published', ''],
    ]);
    expect(sha256Of(readFileSync(join(healthy, 'b', 'data', 'big.bin')))).toBe(sha256Of(BIG.content));
    expect(Object.keys(describeTree(small))).toEqual(['.distributor.work', '.distributor.work/lock']);
    // A rerun publishes what fits nowhere else again: still refused, still no residue.
    const again = await distributeRun({ configPath });
    expect(rows(again)).toEqual([
      ['weather', 'small', 'refused', 'destination_write_failed'],
      ['weather', 'archive', 'skipped_same', ''],
    ]);
    expect(Object.keys(describeTree(small))).toEqual(['.distributor.work', '.distributor.work/lock']);
  });

  it('a destination that fills up while staging is refused; the one holding the snapshot publishes', async () => {
    const small = onFullTmpfs('site');
    const healthy = dir('healthy');
    const source = dir('src');
    makeBundle(source, 'b', [BIG, REPORT], { id: 'b', created: CREATED });
    makeBundle(source, 'c', [REPORT], { id: 'c', created: CREATED });
    const configPath = writeConfig(work, [
      {
        id: 'weather',
        source,
        destinations: [
          { id: 'archive', root: healthy },
          { id: 'small', root: small },
        ],
      },
    ]);
    const report = await distributeRun({ configPath });
    expect(
      report.outcomes.map((o) => [o.bundle_dir, o.destination_id, o.outcome, o.reason_code ?? '']),
    ).toEqual([
      ['b', 'archive', 'published', ''],
      ['b', 'small', 'refused', 'destination_write_failed'],
      ['c', 'archive', 'published', ''],
      ['c', 'small', 'published', ''],
    ]);
    expect(report.outcomes[1]?.refusal?.hint).toBe(
      `destination 'small', bundle 'b': writing in '${small}': no space left on the filesystem (ENOSPC)`,
    );
    expect(Object.keys(describeTree(small)).sort()).toEqual([
      '.distributor.work',
      '.distributor.work/lock',
      'c',
      'c/.distributor.json',
      'c/report.html',
      'c/report.md',
    ]);
  });

  it('a read-only destination is refused with EROFS, naming the root as written; the other pipeline publishes', async () => {
    const healthy = dir('healthy');
    const a = dir('src-a');
    const b = dir('src-b');
    makeBundle(a, 'x', [REPORT], { id: 'x', created: CREATED });
    makeBundle(b, 'y', [REPORT], { id: 'y', created: CREATED });
    const configPath = writeConfig(work, [
      { id: 'frozen', source: a, destinations: [{ id: 'ro', root: mounts.readonly }] },
      { id: 'live', source: b, destinations: [{ id: 'site', root: healthy }] },
    ]);
    const report = await distributeRun({ configPath });
    expect(rows(report)).toEqual([
      ['frozen', 'ro', 'refused', 'destination_write_failed'],
      ['live', 'site', 'published', ''],
    ]);
    expect(report.outcomes[0]?.refusal?.hint).toBe(
      `destination 'ro', bundle 'x': writing in '${mounts.readonly}': the filesystem is mounted read-only (EROFS)`,
    );
    expect(readdirSync(mounts.readonly)).toEqual([]);
  });
});

describe('work_dir and roots by identity', () => {
  it('refuses a work_dir on another filesystem, and one on another mount of the same filesystem', async () => {
    const source = dir('src');
    makeBundle(source, 'b', [REPORT], { id: 'b', created: CREATED });
    const root = join(mounts.bindSource, 'site');
    mkdirSync(root);
    cleanup.push(root);
    const bindWork = join(mounts.bindSource, 'work');
    mkdirSync(bindWork);
    cleanup.push(bindWork);
    // The same directory as bindWork, reached through the bind mount.
    for (const workDir of [onFullTmpfs('work'), join(mounts.bindView, 'work')]) {
      const configPath = join(work, 'sealkit.distributor.yaml');
      writeConfig(work, [{ id: 'p', source, destinations: [{ id: 'site', root }] }]);
      const yaml = readFileSync(configPath, 'utf8').replace(
        `root: ${JSON.stringify(root)}\n`,
        `root: ${JSON.stringify(root)}\n        work_dir: ${JSON.stringify(workDir)}\n`,
      );
      writeFileSync(configPath, yaml);
      const report = await distributeRun({ configPath });
      expect(rows(report)).toEqual([['p', 'site', 'refused', 'work_dir_other_filesystem']]);
      expect(readdirSync(root)).toEqual([]);
      expect(readdirSync(workDir)).toEqual([]);
    }
  });

  it('refuses two roots that are one directory reached through two mounts', async () => {
    const source = dir('src');
    makeBundle(source, 'b', [REPORT], { id: 'b', created: CREATED });
    const root = join(mounts.bindSource, 'site');
    mkdirSync(root);
    cleanup.push(root);
    const configPath = writeConfig(work, [
      {
        id: 'p',
        source,
        destinations: [
          { id: 'direct', root },
          { id: 'through-bind', root: join(mounts.bindView, 'site') },
        ],
      },
    ]);
    const refusal = await distributeRun({ configPath }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(Refusal);
    expect((refusal as Refusal).code).toBe('destination_roots_overlap');
    expect((refusal as Refusal).details).toEqual({
      relation: 'same',
      destination: { pipeline_id: 'p', destination_id: 'through-bind' },
      other: { pipeline_id: 'p', destination_id: 'direct' },
    });
    expect(readdirSync(root)).toEqual([]);
  });
});
