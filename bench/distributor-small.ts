import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { writeManifest } from '../src/distributor/index.js';
import { privateBuild } from './children.js';
import {
  type ChildReport,
  config,
  median,
  type Series,
  series,
  syncFilesystem,
  timed,
} from './distributor.js';
import type { Benchmark, Variant } from './harness.js';
import {
  freshDestination,
  makeRerunCopies,
  measuredRounds,
  presentPeers,
  pairedRatios as ratiosOf,
  runPeer,
  runSealkit,
} from './peer-tools.js';
import { seededRandom } from './prng.js';

/**
 * `npm run bench -- distributor-small`: many small report folders, the
 * nightly shape a data platform team publishes most often, beside the tools
 * a user would pick instead. 2,000 bundles of four small files each (a
 * Markdown report, a CSV extract, a JSON summary and an SVG chart; 8,000
 * files, about 21 MiB), source in the page cache. Measured in the same
 * interleaved rounds:
 *
 * - a publication to an empty destination on the disk: sealkit (every byte
 *   verified, every file and directory durable before its bundle appears),
 *   `rclone copy --checksum`, `rsync -a`, `rsync -a --fsync` (durable, one
 *   fsync per file) and `cp -r` then `sync -f`;
 * - a no-op rerun over a copy each tool made itself: sealkit,
 *   `rclone copy --checksum` and `rsync -a` (size and modification time);
 * - sealkit's start: a run over a source with no bundle.
 *
 * Here the time goes to metadata, not bytes: a file created, an entry
 * renamed, a journal commit waited for. Destinations are emptied and their
 * filesystem flushed in the untimed setup of each round; missing peers are
 * reported, never dropped.
 */
const BUNDLES = 2000;
const WARMUP_RUNS = 1;

const measured = (values: readonly number[]): readonly number[] => measuredRounds(values, WARMUP_RUNS);
const pairedRatios = (ours: Series, peer: Series | undefined): string => ratiosOf(ours, peer, WARMUP_RUNS);

function reportFiles(random: () => number, index: number): Record<string, string> {
  const regions = ['north', 'south', 'east', 'west', 'central'];
  let csv = 'day,region,orders,revenue\n';
  for (let row = 0; row < 120; row += 1) {
    const region = regions[Math.floor(random() * regions.length)] ?? 'north';
    csv += `2026-05-${String((row % 30) + 1).padStart(2, '0')},${region},${Math.floor(random() * 900)},${(random() * 90_000).toFixed(2)}\n`;
  }
  const bars = Array.from(
    { length: 24 },
    (_, bar) => `<rect x="${bar * 12}" y="0" width="10" height="${Math.floor(random() * 100)}"/>`,
  ).join('');
  return {
    'report.md': `# Daily report ${index}\n\n${'Orders and revenue by region, with the week before for comparison.\n'.repeat(20)}\n![chart](chart.svg)\n`,
    'data.csv': csv,
    'summary.json': `${JSON.stringify({ report: index, rows: 120, regions })}\n`,
    'chart.svg': `<svg xmlns="http://www.w3.org/2000/svg" width="288" height="100">${bars}</svg>\n`,
  };
}

function makeTree(source: string): number {
  const random = seededRandom(0x5a11);
  let bytes = 0;
  for (let i = 0; i < BUNDLES; i += 1) {
    const bundle = join(source, `day-${String(Math.floor(i / 100)).padStart(2, '0')}`, `report-${i}`);
    mkdirSync(bundle, { recursive: true });
    for (const [name, content] of Object.entries(reportFiles(random, i))) {
      writeFileSync(join(bundle, name), content);
      bytes += Buffer.byteLength(content);
    }
    writeManifest(bundle, { id: `small.${i}`, created: '2026-05-30T00:00:00Z' });
  }
  return bytes;
}

export const distributorSmallBenchmark: Benchmark = {
  name: 'distributor-small',
  description:
    'publish 2,000 small four-file bundles and rerun them, beside rclone copy --checksum, rsync and cp -r + sync -f',
  runOptions: { warmupRuns: WARMUP_RUNS, rounds: 3, minSampleMs: 0 },
  prepare() {
    const { present, missing } = presentPeers('distributor-small');
    const base = privateBuild('small');
    const child = join(base, 'dist', 'bench', 'distributor-child.js');
    const source = join(base, 'source');
    const bytes = makeTree(source);
    const disk = join(base, 'dest');
    mkdirSync(disk);
    const loadAtStart = loadavg()[0] ?? 0;

    const publish = (dest: string): ChildReport => {
      const report = runSealkit(child, config(base, source, dest));
      if (report.counts?.published !== BUNDLES) throw new Error('publication incomplete');
      return report;
    };
    // The no-op reruns start from a copy each tool made itself, untimed.
    const { noopConfig, noopRclone, noopRsync, startConfig } = makeRerunCopies(
      base,
      source,
      present,
      publish,
    );

    const s = {
      sealkit: series(),
      rclone: present.rclone ? series() : undefined,
      rsync: present.rsync ? series() : undefined,
      rsyncFsync: present.rsync ? series() : undefined,
      cpSync: present.cp && present.sync ? series() : undefined,
      noopSealkit: series(),
      noopRclone: present.rclone ? series() : undefined,
      noopRsync: present.rsync ? series() : undefined,
      sealkitStart: series(),
    };
    const none = () => undefined;
    const peer = (name: string, into: Series | undefined, copy: (dest: string) => void): Variant[] =>
      into === undefined
        ? []
        : [
            freshDestination(name, disk, into, (dest) => {
              copy(dest);
              return none();
            }),
          ];
    const rerun = (name: string, into: Series | undefined, again: () => void): Variant[] =>
      into === undefined
        ? []
        : [
            {
              name,
              run: timed(into, () => {
                again();
                return none();
              }),
            },
          ];
    const variants: Variant[] = [
      freshDestination('sealkit publish (disk)', disk, s.sealkit, publish),
      ...peer('rclone copy --checksum (disk)', s.rclone, (dest) =>
        runPeer('rclone', ['copy', '--checksum', source, dest]),
      ),
      ...peer('rsync -a (disk)', s.rsync, (dest) => runPeer('rsync', ['-a', `${source}/`, `${dest}/`])),
      ...peer('rsync -a --fsync (disk)', s.rsyncFsync, (dest) =>
        runPeer('rsync', ['-a', '--fsync', `${source}/`, `${dest}/`]),
      ),
      ...peer('cp -r, then sync -f (disk)', s.cpSync, (dest) => {
        runPeer('cp', ['-r', `${source}/.`, dest]);
        syncFilesystem(dest);
      }),
      {
        name: 'sealkit no-op rerun',
        run: timed(s.noopSealkit, () => {
          const report = runSealkit(child, noopConfig);
          if (report.counts?.skipped_same !== BUNDLES) throw new Error('rerun was not a no-op');
          return report;
        }),
      },
      ...rerun('rclone copy --checksum, no-op rerun', s.noopRclone, () =>
        runPeer('rclone', ['copy', '--checksum', source, noopRclone]),
      ),
      ...rerun('rsync -a, no-op rerun', s.noopRsync, () =>
        runPeer('rsync', ['-a', `${source}/`, `${noopRsync}/`]),
      ),
      {
        name: 'sealkit run over a source with no bundle (its start)',
        run: timed(s.sealkitStart, () => {
          const report = runSealkit(child, startConfig);
          if (Object.values(report.counts ?? {}).some((count) => count !== 0))
            throw new Error('the run over an empty source found bundles');
          return report;
        }),
      },
    ];
    return {
      workload: `${BUNDLES} bundles x 4 small files (Markdown, CSV, JSON, SVG) = ${(bytes / 1024 / 1024).toFixed(1)} MiB`,
      reference: variants[0]?.name ?? '',
      variants,
      notes: () => ({
        'missing peers': missing.length === 0 ? 'none' : missing.join(', '),
        'load average at start / end': `${loadAtStart.toFixed(2)} / ${(loadavg()[0] ?? 0).toFixed(2)}`,
        'publish (disk) / rclone copy --checksum': pairedRatios(s.sealkit, s.rclone),
        'publish (disk) / rsync -a': pairedRatios(s.sealkit, s.rsync),
        'publish (disk) / rsync -a --fsync': pairedRatios(s.sealkit, s.rsyncFsync),
        'publish (disk) / cp -r + sync -f': pairedRatios(s.sealkit, s.cpSync),
        'no-op rerun / rclone copy --checksum': pairedRatios(s.noopSealkit, s.noopRclone),
        'no-op rerun / rsync -a': pairedRatios(s.noopSealkit, s.noopRsync),
        'sealkit start / no-op rerun': pairedRatios(s.sealkitStart, s.noopSealkit),
        'CPU ms, sealkit publish (disk)': median(measured(s.sealkit.cpuMs)).toFixed(0),
        'CPU ms, sealkit no-op rerun': median(measured(s.noopSealkit.cpuMs)).toFixed(0),
        'peak RSS MiB, sealkit publish (disk)': (Math.max(...measured(s.sealkit.rssKiB)) / 1024).toFixed(1),
      }),
      dispose: () => {
        rmSync(base, { recursive: true, force: true });
      },
    };
  },
};
