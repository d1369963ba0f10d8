import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeManifest } from '../src/distributor/index.js';
import { type DetachedRgw, stopDetachedRgw } from '../test/services/rgw.js';
import type { Benchmark, Variant } from './harness.js';

/**
 * `npm run bench -- distributor-s3`: publishing to S3-compatible storage (a
 * Ceph RGW started on 127.0.0.1 for the benchmark, in-memory OSD) beside the
 * plainest possible upload of the same bytes, one streamed `PutObject` with
 * the AWS SDK. sealkit's run adds discovery, validation (every byte hashed
 * into the run's snapshot), the listing and state read of the prefix, the
 * pending marker and its renewal, its own hashing of every uploaded byte, the
 * conditional state write and the marker's removal. Each run is a fresh
 * process; peak RSS is taken for 64 MiB and 256 MiB files: flat means it does
 * not grow with the file. Needs the Debian packages radosgw, ceph-mon,
 * ceph-osd (see docs/distributor.md).
 */
const FILE_BYTES = 64 * 1024 * 1024;
const HUGE_BYTES = 256 * 1024 * 1024;

const distRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = join(distRoot, '..');

interface ChildRss {
  readonly maxRssKiB: number;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1] ?? Number.NaN;
}

export const distributorS3Benchmark: Benchmark = {
  name: 'distributor-s3',
  description: 'publish one 64 MiB bundle to radosgw beside one plain streamed PutObject of the same file',
  runOptions: { warmupRuns: 1, rounds: 5, minSampleMs: 0 },
  prepare() {
    const base = mkdtempSync(join(tmpdir(), 'sealkit-bench-s3-'));
    cpSync(distRoot, join(base, 'dist'), { recursive: true });
    symlinkSync(join(repoRoot, 'node_modules'), join(base, 'node_modules'));
    const helper = join(base, 'dist', 'bench', 'distributor-s3-child.js');
    const publisher = join(base, 'dist', 'bench', 'distributor-child.js');

    const started = spawnSync(process.execPath, [helper, 'start'], { encoding: 'utf8' });
    if (started.status !== 0) throw new Error(`radosgw did not start: ${started.stderr}`);
    const handle = JSON.parse(started.stdout) as DetachedRgw & { readonly bucket: string };
    const env = {
      ...process.env,
      SEALKIT_BENCH_RGW: JSON.stringify(handle),
      AWS_ACCESS_KEY_ID: handle.accessKeyId,
      AWS_SECRET_ACCESS_KEY: handle.secretAccessKey,
      AWS_EC2_METADATA_DISABLED: 'true',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    };
    const child = (script: string, args: readonly string[]): string => {
      const result = spawnSync(process.execPath, [script, ...args], { encoding: 'utf8', env });
      if (result.status !== 0) throw new Error(`distributor-s3 benchmark child failed: ${result.stderr}`);
      return result.stdout;
    };
    const bundle = (name: string, bytes: number): string => {
      const source = join(base, name);
      mkdirSync(join(source, 'report'), { recursive: true });
      const file = join(source, 'report', 'data.bin');
      writeFileSync(file, Buffer.alloc(bytes, 0x5a));
      writeManifest(join(source, 'report'), { id: name, created: '2026-05-30T00:00:00Z' });
      return source;
    };
    const config = (source: string, prefix: string): string => {
      const path = join(base, `config-${prefix}.yaml`);
      writeFileSync(
        path,
        `pipelines:\n  - id: bench\n    source: {root: ${JSON.stringify(source)}}\n    destinations:\n      - {id: s3, kind: s3, bucket: ${handle.bucket}, prefix: ${prefix}, endpoint: ${JSON.stringify(handle.endpoint)}, region: ${handle.region}, force_path_style: true, outputs: {source: true, html: false}}\n`,
      );
      return path;
    };
    const publish = (configPath: string): ChildRss => {
      const report = JSON.parse(child(publisher, [configPath])) as ChildRss & {
        counts: Record<string, number>;
      };
      if (report.counts.published !== 1) throw new Error('publication incomplete');
      return report;
    };

    const source = bundle('bench', FILE_BYTES);
    const hugeRss = publish(config(bundle('huge', HUGE_BYTES), 'huge')).maxRssKiB;
    child(helper, ['clear', 'huge/']);

    let publishes = 0;
    let puts = 0;
    let publishConfig = '';
    const publishRss: number[] = [];
    const putRss: number[] = [];
    const variants: Variant[] = [
      {
        name: 'aws-sdk PutObject, 64 MiB',
        setup: () => {
          if (puts > 0) child(helper, ['clear', `put-${puts}/`]);
          puts += 1;
        },
        run: () =>
          putRss.push(
            (
              JSON.parse(
                child(helper, ['put', join(source, 'report', 'data.bin'), `put-${puts}/data.bin`]),
              ) as ChildRss
            ).maxRssKiB,
          ),
      },
      {
        name: 'sealkit distribute run, 64 MiB bundle',
        setup: () => {
          if (publishes > 0) child(helper, ['clear', `run-${publishes}/`]);
          publishes += 1;
          publishConfig = config(source, `run-${publishes}`);
        },
        run: () => publishRss.push(publish(publishConfig).maxRssKiB),
      },
    ];
    return {
      workload: `one bundle of one ${FILE_BYTES / 1024 / 1024} MiB file, to a fresh prefix each time`,
      reference: variants[0]?.name ?? '',
      variants,
      notes: () => ({
        'radosgw start-up, one mon + memstore OSD + gateway (ms)': handle.startupMs,
        'peak RSS, plain PutObject of 64 MiB (MiB)': (median(putRss) / 1024).toFixed(1),
        'peak RSS, sealkit publish of a 64 MiB bundle (MiB)': (median(publishRss) / 1024).toFixed(1),
        'peak RSS, sealkit publish of a 256 MiB bundle (MiB)': (hugeRss / 1024).toFixed(1),
      }),
      dispose: () => {
        stopDetachedRgw(handle);
        rmSync(base, { recursive: true, force: true });
      },
    };
  },
};
