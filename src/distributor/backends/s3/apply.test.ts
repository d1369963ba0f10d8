// The S3 backend's apply on a real radosgw, with sources that misbehave: the
// pending marker's lease (a slow run keeps its claim by renewing it, another
// run is locked out meanwhile, a run whose marker was taken over stops before
// its commit point) and the verification of uploaded bytes. The plan comes
// from a real --dry-run; apply is called on the backend directly.
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { listKeys, s3Config, useRgwFixture, writeBundle } from '../../../../test/helpers/distributor-s3.js';
import type { OutputSource } from '../../backend.js';
import type { S3DestinationConfig } from '../../config/types.js';
import type { Instant } from '../../model/types.js';
import type { PlannedOutput, PlannedWrite } from '../../plan/types.js';
import { distributeRun } from '../../run/run.js';
import { createS3Backend } from './index.js';

const ctx = useRgwFixture({ work: 's3-lease-', bucket: 'lease', awsEnv: true });

const FILES: Record<string, string> = { 'report.md': '# Lease\n\nSlow upload.\n', 'summary.txt': 'ok\n' };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A real plan (from --dry-run) for one bundle under a fresh prefix, and the S3 destination config. */
async function planOne(
  name: string,
): Promise<{ write: PlannedWrite; destination: S3DestinationConfig; prefix: string }> {
  const source = mkdtempSync(join(ctx.work, `${name}-`));
  writeBundle(source, 'daily', { id: `lease.${name}`, created: '2026-05-30T11:10:00Z', files: FILES });
  const prefix = `lease-${name}`;
  const config = s3Config(ctx.rgw, source, { bucket: ctx.bucket, prefix, html: false });
  const report = await distributeRun({ config, dryRun: true });
  const write = report.plan.items[0];
  const destination = config.pipelines[0]?.destinations[0];
  if (write === undefined || write.outcome !== 'published' || destination === undefined)
    throw new Error('fixture');
  return { write, destination, prefix };
}

/** The planned bytes of a copied file, yielded in small pieces with a pause before each (a slow network or disk). */
function slowSource(
  pauseMs: number,
  onChunk: (count: number) => Promise<void> = async () => {},
): OutputSource {
  let chunks = 0;
  return {
    async *open(output: PlannedOutput) {
      const bytes = Buffer.from(FILES[output.source_path] ?? '', 'utf8');
      for (let at = 0; at < bytes.length; at += 4) {
        await sleep(pauseMs);
        chunks += 1;
        await onChunk(chunks);
        yield bytes.subarray(at, at + 4);
      }
    },
  };
}

const context = { now: '2026-06-01T12:00:00Z' as Instant, beforeStep: () => {} };
const noHook = { beforeStep: () => {} };

describe('S3 pending marker lease', () => {
  it('a slow run renews its lease: another run is locked out long after the first lease length, then the slow run commits', async () => {
    const { write, destination, prefix } = await planOne('renewed');
    // A renewal may come up to three quarters of a lease late before the lease
    // lapses: 1.9 s here, so a suite loading both cores does not make it lapse.
    const slow = createS3Backend(destination, noHook, { leaseMs: 2500 });
    const other = createS3Backend(destination, noHook, { leaseMs: 2500 });
    // About 6.6 s of upload; the competitor comes after more than twice the lease length.
    const publishing = slow.apply(write, slowSource(1100), context);
    await sleep(5500);
    const competing = await other.apply(write, slowSource(0), context);
    expect(competing.outcome === 'refused' ? competing.refusal.code : competing.outcome).toBe(
      'destination_locked',
    );
    const result = await publishing;
    expect(result.outcome).toBe('published');
    // A committed bundle's marker is deleted with others' in one request, by close() at the latest.
    await slow.close();
    expect((await listKeys(ctx.s3, ctx.bucket, `${prefix}/`)).sort()).toEqual(
      ['.distributor.json', 'report.md', 'summary.txt'].map((name) => `${prefix}/daily/${name}`),
    );
    await other.close();
  });

  it('a run whose marker was taken over (its lease expired while it stalled) stops before writing the state', async () => {
    const { write, destination, prefix } = await planOne('overtaken');
    const markerKey = `${prefix}/daily/.distributor.pending.json`;
    const backend = createS3Backend(destination, noHook, { leaseMs: 200 });
    const takeover = async (chunk: number) => {
      if (chunk !== 2) return;
      // Another run, later, takes the marker over exactly as sealkit does: If-Match its ETag.
      // The stalled run renews every 50 ms, so the other run may lose a round: it tries again.
      const marker = {
        claims: [],
        expires: '2099-01-01T00:00:00Z',
        run: 'ffffffffffffffffffffffffffffffff',
        schema_version: 2,
      };
      for (let attempt = 1; ; attempt += 1) {
        const current = await ctx.s3.send(new GetObjectCommand({ Bucket: ctx.bucket, Key: markerKey }));
        try {
          await ctx.s3.send(
            new PutObjectCommand({
              Bucket: ctx.bucket,
              Key: markerKey,
              Body: `${JSON.stringify(marker)}\n`,
              IfMatch: (current.ETag ?? '').replaceAll('"', ''),
            }),
          );
          return;
        } catch (error) {
          if (attempt >= 20) throw error;
        }
      }
    };
    const result = await backend.apply(write, slowSource(60, takeover), context);
    expect(result.outcome === 'refused' ? result.refusal.code : result.outcome).toBe('destination_changed');
    const keys = await listKeys(ctx.s3, ctx.bucket, `${prefix}/`);
    expect(keys).not.toContain(`${prefix}/daily/.distributor.json`);
    // The marker is the other run's, untouched by the run that lost it.
    const marker = await ctx.s3.send(new GetObjectCommand({ Bucket: ctx.bucket, Key: markerKey }));
    expect(await marker.Body?.transformToString()).toContain('ffffffffffffffffffffffffffffffff');
    await backend.close();
  });
});

/** A source that yields `bytes` for every output, whatever the plan says. */
function fixedSource(bytes: (output: PlannedOutput) => Uint8Array): OutputSource {
  return {
    async *open(output: PlannedOutput) {
      yield bytes(output);
    },
  };
}

describe('S3 uploads are verified against the plan', () => {
  it('bytes of the planned length but another digest are refused; the state is never written', async () => {
    const { write, destination, prefix } = await planOne('tampered');
    const backend = createS3Backend(destination, noHook);
    const tampered = fixedSource((output) => {
      const bytes = Buffer.from(FILES[output.source_path] ?? '', 'utf8');
      bytes[0] = (bytes[0] ?? 0) ^ 0x20;
      return bytes;
    });
    const result = await backend.apply(write, tampered, context);
    expect(result.outcome === 'refused' ? result.refusal.code : result.outcome).toBe(
      'destination_write_failed',
    );
    expect(await listKeys(ctx.s3, ctx.bucket, `${prefix}/`)).not.toContain(
      `${prefix}/daily/.distributor.json`,
    );
    // The failed run's claim expired at once: a correct run converges right away.
    const good = await backend.apply(
      write,
      fixedSource((o) => Buffer.from(FILES[o.source_path] ?? '', 'utf8')),
      context,
    );
    expect(good.outcome).toBe('published');
    await backend.close();
    expect((await listKeys(ctx.s3, ctx.bucket, `${prefix}/`)).sort()).toEqual(
      ['.distributor.json', 'report.md', 'summary.txt'].map((name) => `${prefix}/daily/${name}`),
    );
  });

  it('a source shorter or longer than planned fails the upload at once (no wait for a server timeout)', async () => {
    for (const [name, change] of [
      ['short', (bytes: Buffer) => bytes.subarray(0, bytes.length - 1)],
      ['long', (bytes: Buffer) => Buffer.concat([bytes, Buffer.from('x')])],
    ] as const) {
      const { write, destination, prefix } = await planOne(name);
      const backend = createS3Backend(destination, noHook);
      const result = await backend.apply(
        write,
        fixedSource((output) => change(Buffer.from(FILES[output.source_path] ?? '', 'utf8'))),
        context,
      );
      expect(result.outcome === 'refused' ? result.refusal.code : result.outcome).toBe(
        'destination_write_failed',
      );
      expect(await listKeys(ctx.s3, ctx.bucket, `${prefix}/`)).not.toContain(
        `${prefix}/daily/.distributor.json`,
      );
      await backend.close();
    }
  }, 30_000); // radosgw waits about a minute for a body that never completes: a hang fails here
});
