import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
  summed,
} from './peer-tools.js';
import { seededRandom } from './prng.js';

/**
 * `npm run bench -- distributor-peers`: sealkit beside the tools a user would
 * pick instead, in the same interleaved rounds. The tree: 1 GiB in 1,000
 * bundles of two files each (a 1020 KiB binary file and a 4 KiB Markdown
 * report), source in the page cache. Measured:
 *
 * - a publication to an empty destination on the disk (ext4 here): sealkit
 *   (every byte verified, every file and directory durable before its bundle
 *   appears), `rclone copy --checksum`, `rsync -a`, `rsync -a --fsync`,
 *   `cp -r` then `sync -f`, and `openssl dgst -sha256` over the same files;
 * - the same publication to tmpfs, sealkit beside `cp -r`, and `cp -r` with
 *   a two-process `openssl` over the same files at once: with sealkit's start,
 *   the floor of any publication that copies and hashes every byte;
 * - a no-op rerun over an already published copy: sealkit, sealkit with
 *   `--checksum` (the published copy hashed too), `rclone copy --checksum`
 *   and `rsync -ac` (both sides hashed);
 * - sealkit's own start: a run over a source with no bundle (Node, the CLI,
 *   the configuration, the empty walk), which every run pays before its
 *   first byte; with the two-process `openssl` it is the floor of a rerun.
 *
 * Every destination is emptied and its filesystem flushed (`sync -f`) in the
 * untimed setup of its round. A peer that is not installed is reported as
 * missing in the notes (and on stderr), never silently left out. Ratios are
 * sealkit ÷ peer, paired per round; the notes list every round's ratio and
 * their median. Each sealkit run is a fresh process running a private copy of
 * the build (peak RSS and CPU are the child's own).
 */
const BUNDLES = 1000;
const MARKDOWN_BYTES = 4 * 1024;
const DATA_BYTES = 1024 * 1024 - MARKDOWN_BYTES;
const TMPFS = '/dev/shm';
const WARMUP_RUNS = 1;

function markdown(random: () => number, index: number): string {
  const words = ['revenue', 'region', 'daily', 'orders', 'margin', 'forecast', 'churn', 'basket'];
  let text = `# Report ${index}\n\n`;
  while (text.length < MARKDOWN_BYTES - 80) {
    const sentence = Array.from({ length: 12 }, () => words[Math.floor(random() * words.length)]).join(' ');
    text += `- ${sentence}.\n`;
  }
  return text.padEnd(MARKDOWN_BYTES - 1, ' ').concat('\n');
}

function makeTree(source: string): string[] {
  const random = seededRandom(0x9ee75);
  const files: string[] = [];
  for (let i = 0; i < BUNDLES; i += 1) {
    const bundle = join(source, `b${String(Math.floor(i / 100)).padStart(3, '0')}`, `bundle-${i}`);
    mkdirSync(bundle, { recursive: true });
    writeFileSync(join(bundle, 'data.bin'), randomBytes(DATA_BYTES));
    writeFileSync(join(bundle, 'report.md'), markdown(random, i));
    writeManifest(bundle, { id: `peers.${i}`, created: '2026-05-30T00:00:00Z' });
    files.push(join(bundle, 'data.bin'), join(bundle, 'report.md'));
  }
  return files;
}

const measured = (values: readonly number[]): readonly number[] => measuredRounds(values, WARMUP_RUNS);
const pairedRatios = (ours: Series, peer: Series | undefined): string => ratiosOf(ours, peer, WARMUP_RUNS);

export const distributorPeersBenchmark: Benchmark = {
  name: 'distributor-peers',
  description:
    'publish 1 GiB in 1,000 two-file bundles and rerun it, beside rclone copy --checksum, rsync, cp -r + sync -f and openssl',
  runOptions: { warmupRuns: WARMUP_RUNS, rounds: 3, minSampleMs: 0 },
  prepare() {
    const { present, missing } = presentPeers('distributor-peers');
    const base = privateBuild('peers');
    const shm = existsSync(TMPFS) ? mkdtempSync(join(TMPFS, 'sealkit-bench-peers-')) : undefined;
    const child = join(base, 'dist', 'bench', 'distributor-child.js');
    const source = join(base, 'source');
    const files = makeTree(source);
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
      sealkitTmpfs: series(),
      rclone: present.rclone ? series() : undefined,
      rsync: present.rsync ? series() : undefined,
      rsyncFsync: present.rsync ? series() : undefined,
      cpSync: present.cp && present.sync ? series() : undefined,
      cpTmpfs: present.cp && shm !== undefined ? series() : undefined,
      cpBesideOpenssl:
        present.cp && present.openssl && present.xargs && shm !== undefined ? series() : undefined,
      openssl: present.openssl ? series() : undefined,
      openssl2: present.openssl && present.xargs ? series() : undefined,
      noopSealkit: series(),
      noopSealkitChecksum: series(),
      sealkitStart: series(),
      noopRclone: present.rclone ? series() : undefined,
      noopRsync: present.rsync ? series() : undefined,
    };
    const none = () => undefined;
    const variants: Variant[] = [
      freshDestination('sealkit publish (disk)', disk, s.sealkit, publish),
      ...(s.rclone === undefined
        ? []
        : [
            freshDestination('rclone copy --checksum (disk)', disk, s.rclone, (dest) => {
              runPeer('rclone', ['copy', '--checksum', source, dest]);
              return none();
            }),
          ]),
      ...(s.rsync === undefined
        ? []
        : [
            freshDestination('rsync -a (disk)', disk, s.rsync, (dest) => {
              runPeer('rsync', ['-a', `${source}/`, `${dest}/`]);
              return none();
            }),
          ]),
      ...(s.rsyncFsync === undefined
        ? []
        : [
            freshDestination('rsync -a --fsync (disk)', disk, s.rsyncFsync, (dest) => {
              runPeer('rsync', ['-a', '--fsync', `${source}/`, `${dest}/`]);
              return none();
            }),
          ]),
      ...(s.cpSync === undefined
        ? []
        : [
            freshDestination('cp -r, then sync -f (disk)', disk, s.cpSync, (dest) => {
              runPeer('cp', ['-r', `${source}/.`, dest]);
              syncFilesystem(dest);
              return none();
            }),
          ]),
      ...(s.openssl === undefined
        ? []
        : [
            {
              name: 'openssl dgst -sha256 (2,000 files)',
              run: timed(s.openssl, () => {
                runPeer('openssl', ['dgst', '-sha256', ...files]);
                return none();
              }),
            },
          ]),
      ...(s.openssl2 === undefined
        ? []
        : [
            {
              // The two-core hashing floor: half the files in each of two processes at once.
              name: 'openssl dgst -sha256, two processes (1,000 files each)',
              run: timed(s.openssl2, () => {
                const result = spawnSync(
                  'xargs',
                  ['-0', '-P', '2', '-n', String(files.length / 2), 'openssl', 'dgst', '-sha256'],
                  {
                    input: files.join('\0'),
                    stdio: ['pipe', 'ignore', 'pipe'],
                    maxBuffer: 64 * 1024 * 1024,
                  },
                );
                if (result.status !== 0) throw new Error(`xargs openssl failed: ${result.stderr}`);
                return none();
              }),
            },
          ]),
      ...(shm === undefined
        ? []
        : [freshDestination('sealkit publish (tmpfs)', shm, s.sealkitTmpfs, publish)]),
      ...(s.cpTmpfs === undefined || shm === undefined
        ? []
        : [
            freshDestination('cp -r (tmpfs)', shm, s.cpTmpfs, (dest) => {
              runPeer('cp', ['-r', `${source}/.`, dest]);
              return none();
            }),
          ]),
      ...(s.cpBesideOpenssl === undefined || shm === undefined
        ? []
        : [
            // The least a publication that copies and hashes every byte once costs on
            // this machine: the copy and a two-process SHA-256 of the same files at once,
            // sharing the two cores as the kernel sees fit.
            freshDestination(
              'cp -r (tmpfs) beside openssl, two processes',
              shm,
              s.cpBesideOpenssl,
              (dest) => {
                const result = spawnSync(
                  'sh',
                  [
                    '-c',
                    'cp -r "$1/." "$2" & copy=$!; xargs -0 -P 2 -n "$3" openssl dgst -sha256 >/dev/null || exit 1; wait "$copy"',
                    'sh',
                    source,
                    dest,
                    String(files.length / 2),
                  ],
                  { input: files.join('\0'), stdio: ['pipe', 'ignore', 'pipe'], maxBuffer: 64 * 1024 * 1024 },
                );
                if (result.status !== 0) throw new Error(`cp beside openssl failed: ${result.stderr}`);
                return none();
              },
            ),
          ]),
      {
        name: 'sealkit no-op rerun',
        run: timed(s.noopSealkit, () => {
          const report = runSealkit(child, noopConfig);
          if (report.counts?.skipped_same !== BUNDLES) throw new Error('rerun was not a no-op');
          return report;
        }),
      },
      {
        // Source and destination both hashed, as rsync -ac reads both.
        name: 'sealkit no-op rerun --checksum',
        run: timed(s.noopSealkitChecksum, () => {
          const report = runSealkit(child, noopConfig, 'run-checksum');
          if (report.counts?.skipped_same !== BUNDLES) throw new Error('rerun --checksum was not a no-op');
          return report;
        }),
      },
      {
        name: 'sealkit run over a source with no bundle (its start)',
        run: timed(s.sealkitStart, () => {
          const report = runSealkit(child, startConfig);
          if (Object.values(report.counts ?? {}).some((count) => count !== 0))
            throw new Error('the run over an empty source found bundles');
          return report;
        }),
      },
      ...(s.noopRclone === undefined
        ? []
        : [
            {
              name: 'rclone copy --checksum, no-op rerun',
              run: timed(s.noopRclone, () => {
                runPeer('rclone', ['copy', '--checksum', source, noopRclone]);
                return none();
              }),
            },
          ]),
      ...(s.noopRsync === undefined
        ? []
        : [
            {
              name: 'rsync -ac, no-op rerun',
              run: timed(s.noopRsync, () => {
                runPeer('rsync', ['-ac', `${source}/`, `${noopRsync}/`]);
                return none();
              }),
            },
          ]),
    ];
    const mib = (kib: number) => (kib / 1024).toFixed(1);
    return {
      workload: `${BUNDLES} bundles x (${DATA_BYTES / 1024} KiB binary + ${MARKDOWN_BYTES / 1024} KiB Markdown) = 1 GiB`,
      reference: variants[0]?.name ?? '',
      variants,
      notes: () => ({
        'missing peers': missing.length === 0 ? 'none' : missing.join(', '),
        'load average at start / end': `${loadAtStart.toFixed(2)} / ${(loadavg()[0] ?? 0).toFixed(2)}`,
        'publish (disk) / rclone copy --checksum (target <= 0.9)': pairedRatios(s.sealkit, s.rclone),
        'publish (disk) / rsync -a (target <= 1.0)': pairedRatios(s.sealkit, s.rsync),
        'publish (disk) / rsync -a --fsync': pairedRatios(s.sealkit, s.rsyncFsync),
        'publish (disk) / cp -r + sync -f (target <= 1.3)': pairedRatios(s.sealkit, s.cpSync),
        'publish (disk) / openssl dgst -sha256': pairedRatios(s.sealkit, s.openssl),
        'publish (disk) / openssl, two processes': pairedRatios(s.sealkit, s.openssl2),
        // The least a durable copy costs, against the peers that do not wait for the disk:
        // above a target's ratio, that target is out of reach for any durable publication.
        'cp -r + sync -f / rclone copy --checksum (durable floor of the <= 0.9 target)': pairedRatios(
          s.cpSync ?? series(),
          s.rclone,
        ),
        'cp -r + sync -f / rsync -a (durable floor of the <= 1.0 target)': pairedRatios(
          s.cpSync ?? series(),
          s.rsync,
        ),
        'openssl, two processes / cp -r + sync -f': pairedRatios(s.openssl2 ?? series(), s.cpSync),
        'openssl, two processes / rsync -a': pairedRatios(s.openssl2 ?? series(), s.rsync),
        'openssl, two processes / cp -r to tmpfs': pairedRatios(s.openssl2 ?? series(), s.cpTmpfs),
        'openssl, two processes / rsync -ac': pairedRatios(s.openssl2 ?? series(), s.noopRsync),
        'openssl, two processes / rclone no-op': pairedRatios(s.openssl2 ?? series(), s.noopRclone),
        'no-op rerun / openssl, two processes': pairedRatios(s.noopSealkit, s.openssl2),
        // What any sealkit rerun costs at least: its start, then every byte hashed on both cores.
        'sealkit start + openssl, two processes / rsync -ac (floor of the <= 0.6 target)': pairedRatios(
          summed(s.sealkitStart, s.openssl2),
          s.noopRsync,
        ),
        // What any publication to tmpfs costs at least: its start, then every byte copied and hashed.
        'sealkit start + (cp -r beside openssl) / cp -r to tmpfs (floor of the <= 1.1 target)':
          s.cpBesideOpenssl === undefined
            ? 'missing (cp, openssl, xargs or /dev/shm)'
            : pairedRatios(summed(s.sealkitStart, s.cpBesideOpenssl), s.cpTmpfs),
        'publish (tmpfs) / cp -r to tmpfs (target <= 1.1)':
          shm === undefined ? 'no tmpfs at /dev/shm' : pairedRatios(s.sealkitTmpfs, s.cpTmpfs),
        'no-op rerun / rsync -ac (target <= 0.6)': pairedRatios(s.noopSealkit, s.noopRsync),
        // Both read and hash both trees: the like-for-like comparison of --checksum.
        'no-op rerun --checksum / rsync -ac': pairedRatios(s.noopSealkitChecksum, s.noopRsync),
        'no-op rerun --checksum / rclone copy --checksum': pairedRatios(s.noopSealkitChecksum, s.noopRclone),
        'no-op rerun / rclone copy --checksum (target <= 0.4)': pairedRatios(s.noopSealkit, s.noopRclone),
        'CPU ms, sealkit publish (disk)': median(measured(s.sealkit.cpuMs)).toFixed(0),
        'CPU ms, sealkit no-op rerun': median(measured(s.noopSealkit.cpuMs)).toFixed(0),
        'peak RSS MiB, sealkit publish (disk)': mib(Math.max(...measured(s.sealkit.rssKiB))),
        'peak RSS MiB, sealkit no-op rerun': mib(Math.max(...measured(s.noopSealkit.rssKiB))),
      }),
      dispose: () => {
        rmSync(base, { recursive: true, force: true });
        if (shm !== undefined) rmSync(shm, { recursive: true, force: true });
      },
    };
  },
};
