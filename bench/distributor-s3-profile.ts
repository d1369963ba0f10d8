// Where the time and the requests of `distributor-s3-many` go, in one process
// (not a benchmark: no reference, no rounds; a tool for choosing what to change):
//   node dist/bench/distributor-s3-profile.js [BUNDLES] [TRANSFERS...]
// Starts a radosgw, writes BUNDLES bundles of one 1 MiB file, and for each
// TRANSFERS value publishes them to a fresh prefix with a client that counts
// every command and its latency. Prints the phases of the run (from its
// progress events), requests by command, and latency percentiles.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutObjectCommand, type PutObjectCommandInput, S3Client } from '@aws-sdk/client-s3';
import { createS3Client } from '../src/distributor/backends/s3/client.js';
import { createS3Backend, distributeRun, writeManifest } from '../src/distributor/index.js';
import { startRgw } from '../test/services/rgw.js';
import { seededRandom } from './prng.js';

const [bundlesArg = '100', ...transferArgs] = process.argv.slice(2);
const BUNDLES = Number(bundlesArg);
const TRANSFERS = transferArgs.length === 0 ? [16] : transferArgs.map(Number);

interface Sample {
  readonly command: string;
  readonly ms: number;
  /** When the request started, from the start of the run. */
  readonly at: number;
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN;
}

async function main(): Promise<void> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const rgw = await startRgw({ memstoreBytes: 2 * 1024 * 1024 * 1024 });
  const base = mkdtempSync(join(tmpdir(), 'sealkit-s3-profile-'));
  try {
    const bucket = await rgw.createBucket('profile');
    Object.assign(process.env, rgw.awsEnv);
    const random = seededRandom(17);
    const source = join(base, 'many');
    for (let i = 0; i < BUNDLES; i++) {
      const dir = join(source, `b${String(i).padStart(3, '0')}`);
      mkdirSync(dir, { recursive: true });
      const bytes = Buffer.alloc(1024 * 1024);
      for (let at = 0; at < bytes.length; at += 4) bytes.writeUInt32LE(Math.floor(random() * 2 ** 32), at);
      writeFileSync(join(dir, 'data.bin'), bytes);
      writeManifest(dir, { id: `bench.${i}`, created: '2026-05-30T00:00:00Z' });
    }
    if (process.env.PROFILE_RAW === '1') await raw(rgw.client(), bucket);
    if (process.env.PROFILE_RCLONE === '1') {
      const plain = join(base, 'plain');
      for (let i = 0; i < BUNDLES; i++) {
        const name = `b${String(i).padStart(3, '0')}`;
        mkdirSync(join(plain, name), { recursive: true });
        writeFileSync(join(plain, name, 'data.bin'), readFileSync(join(source, name, 'data.bin')));
      }
      writeFileSync(join(base, 'rclone.conf'), '');
      for (let round = 0; round < 2; round++) {
        const storeBefore = storeCpuMs(rgw.daemonPids());
        const started = performance.now();
        const result = spawnSync(
          '/usr/bin/time',
          ['-f', '%U %S', 'rclone', 'copy', plain, `rgw:${bucket}/rclone-${round}`],
          {
            encoding: 'utf8',
            env: {
              ...Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'AWS_CA_BUNDLE')),
              RCLONE_CONFIG_RGW_TYPE: 's3',
              RCLONE_CONFIG_RGW_PROVIDER: 'Ceph',
              RCLONE_CONFIG_RGW_ENDPOINT: rgw.endpoint,
              RCLONE_CONFIG_RGW_ACCESS_KEY_ID: rgw.accessKeyId,
              RCLONE_CONFIG_RGW_SECRET_ACCESS_KEY: rgw.secretAccessKey,
              RCLONE_CONFIG_RGW_FORCE_PATH_STYLE: 'true',
              RCLONE_CONFIG: join(base, 'rclone.conf'),
            },
          },
        );
        process.stdout.write(
          `rclone: ${(performance.now() - started).toFixed(0)} ms, cpu (user sys s) ${result.status === 0 ? result.stderr.trim().split('\n').pop() : result.stderr}, store cpu ${(storeCpuMs(rgw.daemonPids()) - storeBefore).toFixed(0)} ms\n`,
        );
      }
    }
    for (const transfers of TRANSFERS) {
      const prefix = `t${transfers}-${Date.now()}`;
      const configPath = join(base, `${prefix}.yaml`);
      const text = `pipelines:\n  - id: bench\n    source: {root: ${JSON.stringify(source)}}\n    destinations:\n      - {id: s3, kind: s3, bucket: ${bucket}, prefix: ${prefix}, endpoint: ${JSON.stringify(rgw.endpoint)}, region: ${rgw.region}, force_path_style: true, outputs: {source: true, html: false}}\n`;
      writeFileSync(configPath, text);
      const samples: Sample[] = [];
      let inFlight = 0;
      let peak = 0;
      const started = performance.now();
      const cpu = process.cpuUsage();
      const storeBefore = storeCpuMs(rgw.daemonPids());
      const phaseCpu = new Map<string, NodeJS.CpuUsage>();
      const phases = new Map<string, { first: number; last: number }>();
      const report = await distributeRun({
        configPath,
        transfers,
        onProgress: (event) => {
          const at = performance.now() - started;
          const seen = phases.get(event.phase);
          if (seen === undefined) phaseCpu.set(event.phase, process.cpuUsage(cpu));
          phases.set(event.phase, { first: seen?.first ?? at, last: at });
        },
        s3Backend: (config, context) => {
          // sealkit's own client (its agents and timeouts), unless PROFILE_PLAIN_CLIENT=1 asks for the SDK's defaults.
          const client =
            process.env.PROFILE_PLAIN_CLIENT === '1'
              ? new S3Client({
                  endpoint: rgw.endpoint,
                  region: rgw.region,
                  forcePathStyle: true,
                  requestChecksumCalculation: 'WHEN_REQUIRED',
                  responseChecksumValidation: 'WHEN_REQUIRED',
                })
              : createS3Client(config);
          client.middlewareStack.add(
            (next, context) => async (args) => {
              const at = performance.now();
              inFlight += 1;
              peak = Math.max(peak, inFlight);
              try {
                return await next(args);
              } finally {
                inFlight -= 1;
                const key = String((args.input as { Key?: unknown }).Key ?? '');
                const kind = key.endsWith('.pending.json')
                  ? ' marker'
                  : key.endsWith('/.distributor.json')
                    ? ' state'
                    : key.endsWith('data.bin')
                      ? ' output'
                      : '';
                samples.push({
                  command: `${String(context.commandName)}${kind}`,
                  ms: performance.now() - at,
                  at: at - started,
                });
              }
            },
            { step: 'finalizeRequest', name: 'profileCounter' },
          );
          return createS3Backend(config, context, { client });
        },
      });
      const total = performance.now() - started;
      const used = process.cpuUsage(cpu);
      const storeUsed = storeCpuMs(rgw.daemonPids()) - storeBefore;
      const byCommand = new Map<string, number[]>();
      for (const sample of samples)
        byCommand.set(sample.command, [...(byCommand.get(sample.command) ?? []), sample.ms]);
      process.stdout.write(
        `transfers ${transfers}: ${total.toFixed(0)} ms, ${JSON.stringify(report.counts)}, ${samples.length} requests, peak ${peak} in flight, cpu ${((used.user + used.system) / 1000).toFixed(0)} ms, store cpu ${storeUsed.toFixed(0)} ms\n`,
      );
      for (const [phase, span] of phases)
        process.stdout.write(
          `  phase ${phase}: ${span.first.toFixed(0)}–${span.last.toFixed(0)} ms, cpu at start ${(((phaseCpu.get(phase)?.user ?? 0) + (phaseCpu.get(phase)?.system ?? 0)) / 1000).toFixed(0)} ms\n`,
        );
      const firstAt = (command: string) =>
        Math.min(...samples.filter((sample) => sample.command === command).map((sample) => sample.at));
      process.stdout.write(
        `  probe: first PUT at ${firstAt('PutObjectCommand').toFixed(0)} ms, first marker PUT at ${firstAt('PutObjectCommand marker').toFixed(0)} ms\n`,
      );
      for (const [command, values] of byCommand)
        process.stdout.write(
          `  ${command}: ${values.length}, p50 ${percentile(values, 0.5).toFixed(1)} ms, p90 ${percentile(values, 0.9).toFixed(1)} ms, max ${Math.max(...values).toFixed(1)} ms\n`,
        );
    }
  } finally {
    rmSync(base, { recursive: true, force: true });
    await rgw.stop();
  }
}

/** CPU milliseconds the store's daemons have used (utime + stime from /proc). */
function storeCpuMs(pids: readonly number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks * 10;
}

/** The store's own capacity: plain PUTs of 1 MiB and of small bodies, with and without conditions. */
async function raw(client: S3Client, bucket: string): Promise<void> {
  const big = Buffer.alloc(1024 * 1024, 7);
  const small = Buffer.from('{"x":1}\n');
  const trial = async (
    name: string,
    count: number,
    limit: number,
    input: (i: number) => PutObjectCommandInput,
  ) => {
    const started = performance.now();
    const cpu = process.cpuUsage();
    let next = 0;
    await Promise.all(
      Array.from({ length: limit }, async () => {
        while (next < count) {
          const i = next;
          next += 1;
          await client.send(new PutObjectCommand(input(i)));
        }
      }),
    );
    const used = process.cpuUsage(cpu);
    process.stdout.write(
      `raw ${name}: ${count} at ${limit}: ${(performance.now() - started).toFixed(0)} ms, cpu ${((used.user + used.system) / 1000).toFixed(0)} ms\n`,
    );
  };
  const tag = Date.now();
  for (const limit of [4, 16]) {
    await trial('1 MiB PUT', 100, limit, (i) => ({
      Bucket: bucket,
      Key: `raw-${tag}-${limit}/big${i}`,
      Body: big,
    }));
    await trial('small PUT', 200, limit, (i) => ({
      Bucket: bucket,
      Key: `raw-${tag}-${limit}/small${i}`,
      Body: small,
    }));
    await trial('small PUT If-None-Match', 200, limit, (i) => ({
      Bucket: bucket,
      Key: `raw-${tag}-${limit}/cond${i}`,
      Body: small,
      IfNoneMatch: '*',
    }));
    await trial('small PUT If-None-Match + sha256 + meta', 200, limit, (i) => ({
      Bucket: bucket,
      Key: `raw-${tag}-${limit}/full${i}`,
      Body: small,
      IfNoneMatch: '*',
      Metadata: { sha256: '00'.repeat(32) },
      ChecksumSHA256: Buffer.alloc(32).toString('base64'),
      CacheControl: 'no-cache',
      ContentType: 'application/json',
    }));
  }
}

await main();
