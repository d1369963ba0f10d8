import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeManifest } from '../src/distributor/index.js';
import type { Benchmark, Variant } from './harness.js';

/**
 * `npm run bench -- distributor`, the two targets side by side:
 * - 1 GiB in 1,000 bundles (one 1 MiB file each) published to an empty local
 *   destination (validated, hashed while copied into the snapshot, moved into
 *   staging, fsynced, renamed into place) vs `openssl dgst -sha256` over the
 *   same files in one process: target ≤ 1.6×;
 * - a no-op rerun over 10,000 small bundles (discover, validate every file,
 *   inspect every destination path, skip) vs `openssl dgst -sha256` over the
 *   same 10,000 files: target ≤ 1.3×.
 * Each run is a fresh process (`distributor-child.js`), so the figures include
 * process start, as for a user, and its peak RSS is its own. Peak RSS is also
 * taken for one bundle holding a single 256 MiB file: flat means it does not
 * grow with file or bundle size. Data lives under the OS temp dir and is
 * deleted afterwards.
 */
const BIG_BUNDLES = 1000;
const BIG_FILE = 1024 * 1024;
const SMALL_BUNDLES = 10_000;
const SMALL_FILE = 512;
const HUGE_FILE = 256 * 1024 * 1024;

const distRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = join(distRoot, '..');
let child = '';

interface ChildReport {
  readonly maxRssKiB: number;
  readonly counts: Record<string, number>;
}

function runChild(config: string): ChildReport {
  const result = spawnSync(process.execPath, [child, config], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`distributor benchmark child failed: ${result.stderr}`);
  return JSON.parse(result.stdout) as ChildReport;
}

function openssl(files: readonly string[]): void {
  const result = spawnSync('openssl', ['dgst', '-sha256', ...files], { maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) throw new Error('openssl dgst failed');
}

function config(dir: string, source: string, dest: string): string {
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

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1] ?? Number.NaN;
}

export const distributorBenchmark: Benchmark = {
  name: 'distributor',
  description:
    'publish 1 GiB in 1,000 bundles and a no-op rerun over 10,000 bundles, each beside openssl dgst -sha256',
  runOptions: { warmupRuns: 1, rounds: 5, minSampleMs: 0 },
  prepare() {
    const base = mkdtempSync(join(tmpdir(), 'sealkit-bench-distributor-'));
    // The children run a private copy of the build, so a rebuild of dist/
    // during the (long) benchmark cannot change the code being measured.
    cpSync(distRoot, join(base, 'dist'), { recursive: true });
    symlinkSync(join(repoRoot, 'node_modules'), join(base, 'node_modules'));
    child = join(base, 'dist', 'bench', 'distributor-child.js');
    const bigSource = join(base, 'big');
    const smallSource = join(base, 'small');
    const bigFiles = makeBundles(bigSource, BIG_BUNDLES, BIG_FILE);
    const smallFiles = makeBundles(smallSource, SMALL_BUNDLES, SMALL_FILE);
    const smallDest = join(base, 'small-dest');
    mkdirSync(smallDest);
    const smallConfig = config(base, smallSource, smallDest);
    if (runChild(smallConfig).counts.published !== SMALL_BUNDLES)
      throw new Error('first small publication failed');

    const huge = join(base, 'huge');
    mkdirSync(join(huge, 'one'), { recursive: true });
    writeFileSync(join(huge, 'one', 'data.bin'), Buffer.alloc(HUGE_FILE, 0x5a));
    writeManifest(join(huge, 'one'), { id: 'huge', created: '2026-05-30T00:00:00Z' });
    mkdirSync(join(base, 'huge-dest'));
    const hugeRss = runChild(config(base, huge, join(base, 'huge-dest'))).maxRssKiB;
    rmSync(join(base, 'huge-dest'), { recursive: true, force: true });
    rmSync(huge, { recursive: true, force: true });

    let round = 0;
    let bigDest = '';
    let bigConfig = '';
    const publishRss: number[] = [];
    const noopRss: number[] = [];
    const times = {
      publish: [] as number[],
      opensslBig: [] as number[],
      noop: [] as number[],
      opensslSmall: [] as number[],
    };
    const timed = (into: number[], work: () => void) => () => {
      const start = process.hrtime.bigint();
      work();
      into.push(Number(process.hrtime.bigint() - start) / 1e6);
    };
    const variants: Variant[] = [
      {
        name: 'openssl dgst -sha256, 1 GiB (1,000 files)',
        run: timed(times.opensslBig, () => openssl(bigFiles)),
      },
      {
        name: 'sealkit publish, 1 GiB (1,000 bundles)',
        setup: () => {
          if (bigDest !== '') rmSync(bigDest, { recursive: true, force: true });
          round += 1;
          bigDest = join(base, `big-dest-${round}`);
          mkdirSync(bigDest);
          bigConfig = config(base, bigSource, bigDest);
        },
        run: timed(times.publish, () => {
          const report = runChild(bigConfig);
          if (report.counts.published !== BIG_BUNDLES) throw new Error('publication incomplete');
          publishRss.push(report.maxRssKiB);
        }),
      },
      {
        name: 'openssl dgst -sha256, 10,000 small files',
        run: timed(times.opensslSmall, () => openssl(smallFiles)),
      },
      {
        name: 'sealkit no-op rerun, 10,000 bundles',
        run: timed(times.noop, () => {
          const report = runChild(smallConfig);
          if (report.counts.skipped_same !== SMALL_BUNDLES) throw new Error('rerun was not a no-op');
          noopRss.push(report.maxRssKiB);
        }),
      },
    ];
    const ratio = (a: number[], b: number[]) =>
      median(a.map((value, index) => value / (b[index] ?? Number.NaN)));
    return {
      workload: `${BIG_BUNDLES} × ${BIG_FILE / 1024} KiB bundles (publish); ${SMALL_BUNDLES} × ${SMALL_FILE} B bundles (no-op rerun)`,
      reference: variants[0]?.name ?? '',
      variants,
      notes: () => ({
        // Paired per round, like the harness ratio, but each against its own openssl run.
        'publish / openssl (target <= 1.6)': ratio(times.publish, times.opensslBig).toFixed(2),
        'no-op rerun / openssl (target <= 1.3)': ratio(times.noop, times.opensslSmall).toFixed(2),
        'peak RSS, publish 1 GiB in 1,000 bundles (MiB)': (median(publishRss) / 1024).toFixed(1),
        'peak RSS, no-op rerun over 10,000 bundles (MiB)': (median(noopRss) / 1024).toFixed(1),
        'peak RSS, publish one bundle of one 256 MiB file (MiB)': (hugeRss / 1024).toFixed(1),
      }),
      dispose: () => rmSync(base, { recursive: true, force: true }),
    };
  },
};
