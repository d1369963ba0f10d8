import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeManifest } from '../src/distributor/index.js';
import { privateBuild, runNode } from './children.js';
import type { Benchmark, Variant } from './harness.js';

/**
 * `npm run bench -- distributor`, the two targets side by side:
 * - 1 GiB in 1,000 bundles (one 1 MiB file each) published to an empty local
 *   destination (validated, hashed while copied into the snapshot, moved into
 *   staging, fsynced, renamed into place) vs `openssl dgst -sha256` over the
 *   same files in one process: target <= 1.6x. The same publication to a
 *   tmpfs destination (/dev/shm, when present) separates sealkit's own work
 *   from the disk's fsync throughput.
 * - a no-op rerun over 10,000 small bundles (discover, read every manifest,
 *   inspect every destination path, hash every file, skip) vs hashing the
 *   same sources once in a Node process (and vs openssl): target <= 1.3x.
 * Floors show what no implementation can go below on this machine: the copy
 * every publication makes (`cp -r` of the source to tmpfs, added to openssl's
 * time; and a durable `cp -r` to the disk destination's filesystem alone),
 * the reads every rerun makes (each source file hashed and each
 * destination state read, by path, nothing parsed or checked), and the same
 * reads made through held, no-follow descriptors, as sealkit makes them.
 * Each run is a fresh process (`distributor-child.js`) running a private copy
 * of the build, so figures include process start, as for a user, and peak
 * RSS and CPU time are the child's own. Peak RSS is also taken for one bundle
 * holding a single 256 MiB file: flat means it does not grow with file or
 * bundle size. Data lives under the OS temp dir and is deleted afterwards.
 */
const BIG_BUNDLES = 1000;
const BIG_FILE = 1024 * 1024;
const SMALL_BUNDLES = 10_000;
const SMALL_FILE = 512;
const HUGE_FILE = 256 * 1024 * 1024;
const TMPFS = '/dev/shm';

let child = '';

export interface ChildReport {
  readonly maxRssKiB: number;
  readonly cpuMs: number;
  readonly counts?: Record<string, number>;
  readonly files?: number;
}

function runChild(
  mode: 'run' | 'hash' | 'reads' | 'held-reads',
  target: string,
  destination?: string,
): ChildReport {
  const args = destination === undefined ? [child, mode, target] : [child, mode, target, destination];
  return JSON.parse(runNode(args, 'distributor benchmark child')) as ChildReport;
}

function openssl(files: readonly string[]): void {
  const result = spawnSync('openssl', ['dgst', '-sha256', ...files], { maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) throw new Error('openssl dgst failed');
}

/** `sync -f`: syncfs(2) of the filesystem holding `path`. */
export function syncFilesystem(path: string): void {
  const result = spawnSync('sync', ['-f', path]);
  if (result.status !== 0) throw new Error('sync -f failed');
}

export function config(dir: string, source: string, dest: string): string {
  const path = join(dir, `config-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(
    path,
    `pipelines:\n  - id: bench\n    source: {root: ${JSON.stringify(source)}}\n    destinations:\n      - {id: local, kind: local, root: ${JSON.stringify(dest)}, outputs: {source: true, html: false}}\n`,
  );
  return path;
}

function makeBundles(source: string, count: number, size: number): string[] {
  const files: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const bundle = join(source, `b${String(Math.floor(i / 100)).padStart(3, '0')}`, `bundle-${i}`);
    mkdirSync(bundle, { recursive: true });
    const file = join(bundle, 'data.bin');
    writeFileSync(file, randomBytes(size));
    writeManifest(bundle, { id: `bench.${i}`, created: '2026-05-30T00:00:00Z' });
    files.push(file);
  }
  return files;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1] ?? Number.NaN;
}

export interface Series {
  readonly wallMs: number[];
  readonly cpuMs: number[];
  readonly rssKiB: number[];
}

export const series = (): Series => ({ wallMs: [], cpuMs: [], rssKiB: [] });

const WARMUP_RUNS = 1;

/**
 * The samples of the measured rounds only. The harness runs each variant's
 * warm-up back to back before the interleaved rounds, so a warm-up sample is
 * neither paired in time with the reference's nor representative (a first copy
 * into a fresh filesystem is the slowest).
 */
const measured = (values: readonly number[]): readonly number[] => values.slice(WARMUP_RUNS);

/** Times `work` and records the child's own CPU and RSS when it reports them. */
export function timed(into: Series, work: () => ChildReport | undefined): () => void {
  return () => {
    const start = process.hrtime.bigint();
    const report = work();
    into.wallMs.push(Number(process.hrtime.bigint() - start) / 1e6);
    if (report !== undefined) {
      into.cpuMs.push(report.cpuMs);
      into.rssKiB.push(report.maxRssKiB);
    }
  };
}

/** A publication of the big source to a fresh destination under `parent`, made in the untimed setup. */
function publication(base: string, parent: string, source: string, into: Series): Variant {
  let round = 0;
  let dest = '';
  let path = '';
  return {
    name: '',
    setup: () => {
      if (dest !== '') rmSync(dest, { recursive: true, force: true });
      round += 1;
      dest = join(parent, `dest-${round}`);
      mkdirSync(dest);
      path = config(base, source, dest);
      // The previous round's removal is flushed here, not by this round's first fsync.
      syncFilesystem(parent);
    },
    run: timed(into, () => {
      const report = runChild('run', path);
      if (report.counts?.published !== BIG_BUNDLES) throw new Error('publication incomplete');
      return report;
    }),
  };
}

export const distributorBenchmark: Benchmark = {
  name: 'distributor',
  description:
    'publish 1 GiB in 1,000 bundles and a no-op rerun over 10,000 bundles, beside openssl dgst -sha256 and plain hashing',
  runOptions: { warmupRuns: WARMUP_RUNS, rounds: 3, minSampleMs: 0 },
  prepare() {
    const base = privateBuild('distributor');
    const shm = existsSync(TMPFS) ? mkdtempSync(join(TMPFS, 'sealkit-bench-distributor-')) : undefined;
    child = join(base, 'dist', 'bench', 'distributor-child.js');
    const bigSource = join(base, 'big');
    const smallSource = join(base, 'small');
    const bigFiles = makeBundles(bigSource, BIG_BUNDLES, BIG_FILE);
    const smallFiles = makeBundles(smallSource, SMALL_BUNDLES, SMALL_FILE);
    const smallDest = join(base, 'small-dest');
    mkdirSync(smallDest);
    const smallConfig = config(base, smallSource, smallDest);
    if (runChild('run', smallConfig).counts?.published !== SMALL_BUNDLES)
      throw new Error('small publication failed');

    const huge = join(base, 'huge');
    mkdirSync(join(huge, 'one'), { recursive: true });
    writeFileSync(join(huge, 'one', 'data.bin'), Buffer.alloc(HUGE_FILE, 0x5a));
    writeManifest(join(huge, 'one'), { id: 'huge', created: '2026-05-30T00:00:00Z' });
    mkdirSync(join(base, 'huge-dest'));
    const hugeRss = runChild('run', config(base, huge, join(base, 'huge-dest'))).maxRssKiB;
    rmSync(join(base, 'huge-dest'), { recursive: true, force: true });
    rmSync(huge, { recursive: true, force: true });

    const s = {
      opensslBig: series(),
      publishDisk: series(),
      publishTmpfs: series(),
      copyTmpfs: series(),
      copyDisk: series(),
      opensslSmall: series(),
      hashSmall: series(),
      readsFloor: series(),
      heldReadsFloor: series(),
      noop: series(),
    };
    const variants: Variant[] = [
      {
        name: 'openssl dgst -sha256, 1 GiB (1,000 files)',
        run: timed(s.opensslBig, () => {
          openssl(bigFiles);
          return undefined;
        }),
      },
      {
        ...publication(base, base, bigSource, s.publishDisk),
        name: 'sealkit publish 1 GiB, 1,000 bundles (disk)',
      },
      ...(shm === undefined
        ? []
        : [
            {
              ...publication(base, shm, bigSource, s.publishTmpfs),
              name: 'sealkit publish 1 GiB, 1,000 bundles (tmpfs)',
            },
          ]),
      {
        // The same copy to the filesystem of the disk destination, made durable as a publication must be
        // (`sync -f`: syncfs of that filesystem), with no hashing: what creating the published tree costs
        // there before sealkit does anything of its own. The setup flushes the previous copy's removal.
        name: 'floor: cp -r of the 1 GiB source to disk, then sync -f',
        setup: () => {
          rmSync(join(base, 'cp-copy'), { recursive: true, force: true });
          syncFilesystem(base);
        },
        run: timed(s.copyDisk, () => {
          const result = spawnSync('cp', ['-r', bigSource, join(base, 'cp-copy')]);
          if (result.status !== 0) throw new Error('cp failed');
          syncFilesystem(base);
          return undefined;
        }),
      },
      ...(shm === undefined
        ? []
        : [
            {
              // The copy a publication cannot avoid (every byte written once), by cp.
              name: 'floor: cp -r of the 1 GiB source to tmpfs',
              setup: () => rmSync(join(shm, 'cp-copy'), { recursive: true, force: true }),
              run: timed(s.copyTmpfs, () => {
                const result = spawnSync('cp', ['-r', bigSource, join(shm, 'cp-copy')]);
                if (result.status !== 0) throw new Error('cp failed');
                return undefined;
              }),
            },
          ]),
      {
        name: 'openssl dgst -sha256, 10,000 small files',
        run: timed(s.opensslSmall, () => {
          openssl(smallFiles);
          return undefined;
        }),
      },
      {
        name: 'node: hash the 10,000 bundles once (all files)',
        run: timed(s.hashSmall, () => runChild('hash', smallSource)),
      },
      {
        name: 'floor: node reads the sources and every state once',
        run: timed(s.readsFloor, () => runChild('reads', smallSource, smallDest)),
      },
      {
        name: 'floor: the same reads through held descriptors',
        run: timed(s.heldReadsFloor, () => runChild('held-reads', smallSource, smallDest)),
      },
      {
        name: 'sealkit no-op rerun, 10,000 bundles',
        run: timed(s.noop, () => {
          const report = runChild('run', smallConfig);
          if (report.counts?.skipped_same !== SMALL_BUNDLES) throw new Error('rerun was not a no-op');
          return report;
        }),
      },
    ];
    const ratio = (a: Series, b: Series) => {
      const reference = measured(b.wallMs);
      return median(
        measured(a.wallMs).map((value, index) => value / (reference[index] ?? Number.NaN)),
      ).toFixed(2);
    };
    const mib = (kib: number) => (kib / 1024).toFixed(1);
    // Reading and hashing (openssl) plus writing every byte once (cp), over openssl alone. Medians, not
    // paired rounds: cp's first copy into a fresh tmpfs (page allocation) is much slower than the rest.
    const floorRatio = (hash: Series, copy: Series) =>
      (
        (median(measured(hash.wallMs)) + median(measured(copy.wallMs))) /
        median(measured(hash.wallMs))
      ).toFixed(2);
    return {
      workload: `${BIG_BUNDLES} x ${BIG_FILE / 1024} KiB bundles (publish); ${SMALL_BUNDLES} x ${SMALL_FILE} B bundles (no-op rerun)`,
      reference: variants[0]?.name ?? '',
      variants,
      // Paired per round, like the harness ratio, but each against its own reference.
      notes: () => ({
        'publish (disk) / openssl, wall (target <= 1.6)': ratio(s.publishDisk, s.opensslBig),
        'durable cp -r to disk alone / openssl, wall': ratio(s.copyDisk, s.opensslBig),
        ...(shm === undefined
          ? {}
          : { 'publish (tmpfs) / openssl, wall': ratio(s.publishTmpfs, s.opensslBig) }),
        'no-op rerun / node hashing once, wall (target <= 1.3)': ratio(s.noop, s.hashSmall),
        'no-op rerun / openssl, wall': ratio(s.noop, s.opensslSmall),
        'floor of a rerun (sources + states read) / node hashing once, wall': ratio(
          s.readsFloor,
          s.hashSmall,
        ),
        'floor of a rerun through held descriptors / node hashing once, wall': ratio(
          s.heldReadsFloor,
          s.hashSmall,
        ),
        ...(shm === undefined
          ? {}
          : {
              'floor of a publish: (openssl + cp to tmpfs) / openssl, wall': floorRatio(
                s.opensslBig,
                s.copyTmpfs,
              ),
            }),
        'CPU ms, publish 1 GiB (disk)': median(measured(s.publishDisk.cpuMs)).toFixed(0),
        ...(shm === undefined
          ? {}
          : { 'CPU ms, publish 1 GiB (tmpfs)': median(measured(s.publishTmpfs.cpuMs)).toFixed(0) }),
        'CPU ms, node hashing 10,000 bundles once': median(measured(s.hashSmall.cpuMs)).toFixed(0),
        'CPU ms, no-op rerun 10,000 bundles': median(measured(s.noop.cpuMs)).toFixed(0),
        'CPU ms, floor through held descriptors': median(measured(s.heldReadsFloor.cpuMs)).toFixed(0),
        'peak RSS MiB, publish 1 GiB in 1,000 bundles': mib(median(measured(s.publishDisk.rssKiB))),
        'peak RSS MiB, publish one bundle of one 256 MiB file': mib(hugeRss),
        'peak RSS MiB, no-op rerun over 10,000 bundles': mib(median(measured(s.noop.rssKiB))),
      }),
      dispose: () => {
        rmSync(base, { recursive: true, force: true });
        if (shm !== undefined) rmSync(shm, { recursive: true, force: true });
      },
    };
  },
};
