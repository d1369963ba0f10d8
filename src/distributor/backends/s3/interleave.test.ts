// Two runs on one bundle, interleaved at exact points on a real radosgw: a
// test middleware on a run's own S3 client holds one of its requests until
// the other run has reached a given point (or finished). Nothing is mocked:
// every request still goes to the store, only later. These are the races of
// cron jobs that overlap, made deterministic.
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type BundleSpec,
  listKeys,
  readPrefix,
  s3Config,
  useRgwFixture,
  writeBundle,
} from '../../../../test/helpers/distributor-s3.js';
import type { S3DestinationConfig } from '../../config/types.js';
import { instantOf } from '../../model/instant.js';
import type { RunReport } from '../../run/report.js';
import { distributeRun } from '../../run/run.js';
import { createS3Client } from './client.js';
import { createS3Backend } from './index.js';

const ctx = useRgwFixture({ work: 's3-interleave-', bucket: 'interleave', awsEnv: true });

const NOW = new Date('2026-06-01T12:00:00Z');
const DIR = 'daily/brentwood';
const v1: BundleSpec = {
  id: 'weather.daily.brentwood',
  created: '2026-05-30T11:10:00Z',
  files: { 'report.md': '# Brentwood\n\nSunny.\n', 'summary.txt': 'all clear\n' },
};
/** What one publication of `v1` leaves under the bundle prefix. */
const PUBLISHED = ['.distributor.json', 'report.html', 'report.md', 'summary.txt'];

/** Called before each request of a run's client is sent; may hold it by returning a promise. */
type Gate = (command: string, key: string | undefined) => Promise<void> | undefined;

const clients: S3Client[] = [];
afterAll(() => {
  for (const client of clients) client.destroy();
});

let counter = 0;
/** A fresh source holding `v1` and a fresh prefix. */
function fixture() {
  counter += 1;
  const source = mkdtempSync(join(ctx.work, `src-${counter}-`));
  writeBundle(source, DIR, v1);
  const prefix = `case-${counter}`;
  const key = (name: string) => `${prefix}/${DIR}/${name}`;
  const config = s3Config(ctx.rgw, source, { bucket: ctx.bucket, prefix });
  /** One run with the production client, through which `gate` sees every request first. */
  const run = (gate?: Gate, signal?: AbortSignal): Promise<RunReport> =>
    distributeRun({
      config,
      now: () => NOW,
      ...(signal === undefined ? {} : { signal }),
      s3Backend: (c: S3DestinationConfig, context) =>
        createS3Backend(c, context, gate === undefined ? {} : { client: gatedClient(c, gate) }),
    });
  const stored = async () =>
    (await listKeys(ctx.s3, ctx.bucket, `${prefix}/${DIR}/`)).map((k) => k.slice(key('').length));
  return { key, run, stored };
}

function gatedClient(config: S3DestinationConfig, gate: Gate): S3Client {
  const client = createS3Client(config);
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { readonly Key?: string };
      await gate(context.commandName ?? '', input.Key);
      return next(args);
    },
    { step: 'initialize', name: 'testGate' },
  );
  clients.push(client);
  return client;
}

/** A promise and the function that resolves it. */
function signal(): { readonly reached: Promise<void>; readonly fire: () => void } {
  let fire: () => void = () => {};
  const reached = new Promise<void>((resolve) => {
    fire = resolve;
  });
  return { reached, fire };
}

/** The marker a run of sealkit before this fix left when it lost a bundle: claiming nothing, expired. */
const CLAIMLESS_MARKER =
  '{"claims":[],"expires":"2026-01-01T00:00:00.5Z","run":"b62943769ddc19f66ae7b345aa6f79b3","schema_version":2}\n';

const outcomeOf = (report: RunReport) => [report.outcomes[0]?.outcome, report.outcomes[0]?.reason_code];

describe('S3 destination: two runs interleaved on one bundle', () => {
  it('regression: a run that listed another run at work, then found its marker gone, sees that publication (skipped_same), not unmanaged content', async () => {
    const { key, run, stored } = fixture();
    // B stops just before its state write: its marker and outputs are in place.
    const atCommit = signal();
    const commit = signal();
    const b = run((command, k) => {
      if (command !== 'PutObjectCommand' || k !== key('.distributor.json')) return undefined;
      atCommit.fire();
      return commit.reached;
    });
    await atCommit.reached;
    // A lists B's marker and outputs; B commits and removes its marker before A reads the marker.
    let held = false;
    const a = await run((command, k) => {
      if (held || command !== 'GetObjectCommand' || k !== key('.distributor.pending.json')) return undefined;
      held = true;
      commit.fire();
      return b.then(() => undefined);
    });
    expect(held).toBe(true);
    expect(outcomeOf(await b)).toEqual(['published', undefined]);
    expect(outcomeOf(a)).toEqual(['skipped_same', undefined]);
    expect(await stored()).toEqual(PUBLISHED);
  });

  it('regression: the same, when the marker found in its place claims nothing: the run repairs the bundle instead of calling it unmanaged', async () => {
    const { key, run, stored } = fixture();
    const atCommit = signal();
    const commit = signal();
    const b = run((command, k) => {
      if (command !== 'PutObjectCommand' || k !== key('.distributor.json')) return undefined;
      atCommit.fire();
      return commit.reached;
    });
    await atCommit.reached;
    // Between B's end and A's read, a third run of an earlier release lost the bundle and left
    // its marker claiming nothing.
    let held = false;
    const a = await run((command, k) => {
      if (held || command !== 'GetObjectCommand' || k !== key('.distributor.pending.json')) return undefined;
      held = true;
      commit.fire();
      return b.then(async () => {
        await putMarker(key('.distributor.pending.json'), CLAIMLESS_MARKER);
      });
    });
    expect(outcomeOf(await b)).toEqual(['published', undefined]);
    expect(outcomeOf(a)).toEqual(['replaced', undefined]);
    expect(await stored()).toEqual(PUBLISHED);
  });

  it('regression: a run that loses the bundle to a run that committed since its inspection removes its own marker and is refused destination_changed', async () => {
    const { key, run, stored } = fixture();
    // A inspected an empty prefix; B publishes the bundle whole before A writes its marker.
    let held = false;
    const a = await run((command, k) => {
      if (held || command !== 'PutObjectCommand' || k !== key('.distributor.pending.json')) return undefined;
      held = true;
      return run().then((b) => {
        expect(outcomeOf(b)).toEqual(['published', undefined]);
      });
    });
    expect(held).toBe(true);
    expect(outcomeOf(a)).toEqual(['refused', 'destination_changed']);
    expect(a.outcomes[0]?.refusal?.hint).toBe(
      "destination 'bucket', bundle 'daily/brentwood': another run published or took over the bundle after this run read it, so this run committed nothing of it: run again, and it starts from what that run left",
    );
    // A's marker claimed nothing once its create-only uploads were refused: it is gone.
    expect(await stored()).toEqual(PUBLISHED);
    expect(outcomeOf(await run())).toEqual(['skipped_same', undefined]);
  });

  it('regression: an expired marker that claims nothing, beside the state, is removed by the next run (replaced), and the outputs stay as they were', async () => {
    const { key, run, stored } = fixture();
    expect(outcomeOf(await run())).toEqual(['published', undefined]);
    const before = await readPrefix(ctx.s3, ctx.bucket, key(''));
    await putMarker(key('.distributor.pending.json'), CLAIMLESS_MARKER);
    expect(outcomeOf(await run())).toEqual(['replaced', undefined]);
    expect(await stored()).toEqual(PUBLISHED);
    const after = await readPrefix(ctx.s3, ctx.bucket, key(''));
    for (const name of PUBLISHED.filter((n) => n !== '.distributor.json'))
      expect(after.get(key(name))?.sha256).toBe(before.get(key(name))?.sha256);
    expect(outcomeOf(await run())).toEqual(['skipped_same', undefined]);
  });

  it("regression: such a marker that another run takes over first is that run's: the next run leaves it (destination_locked)", async () => {
    const { key, run } = fixture();
    expect(outcomeOf(await run())).toEqual(['published', undefined]);
    const markerKey = key('.distributor.pending.json');
    const planted = await putMarker(markerKey, CLAIMLESS_MARKER);
    const theirs = `{"claims":[],"expires":"2099-01-01T00:00:00Z","run":"0123456789abcdef0123456789abcdef","schema_version":2}\n`;
    let held = false;
    const report = await run((command, k) => {
      if (held || command !== 'PutObjectCommand' || k !== markerKey) return undefined;
      held = true;
      // Another run takes the expired marker over between this run's inspection and its takeover.
      return putMarker(markerKey, theirs, planted).then(() => undefined);
    });
    expect(held).toBe(true);
    expect(outcomeOf(report)).toEqual(['refused', 'destination_locked']);
    expect((await readPrefix(ctx.s3, ctx.bucket, markerKey)).get(markerKey)?.bytes.toString('utf8')).toBe(
      theirs,
    );
  });

  it('regression: a bundle stopped by a signal after its writes began says to run again, and the next run publishes it', async () => {
    const { key, run, stored } = fixture();
    const stop = new AbortController();
    // Stopped while its first output is being uploaded: the marker is in place.
    const report = await run((command, k) => {
      if (command === 'PutObjectCommand' && k === key('report.md')) stop.abort();
      return undefined;
    }, stop.signal);
    expect(outcomeOf(report)).toEqual(['refused', 'run_interrupted']);
    expect(report.outcomes[0]?.refusal?.hint).toBe(
      "destination 'bucket', bundle 'daily/brentwood': the run was stopped before this bundle's .distributor.json was written, so the version it was writing is not published: run again to publish it (the next run finishes or removes what this one began)",
    );
    expect(outcomeOf(await run())).toEqual(['published', undefined]);
    expect(await stored()).toEqual(PUBLISHED);
  });

  it('regression: destination_locked says when the lease of the marker holding the bundle ends', async () => {
    const { key, run, stored } = fixture();
    // A run killed after its marker: the marker's lease runs 95 s more.
    const expires = instantOf(new Date(Date.now() + 95_000));
    await putMarker(
      key('.distributor.pending.json'),
      `{"claims":[{"path":"report.md","sha256":["sha256:${'a'.repeat(64)}"]}],"expires":"${expires}","run":"0123456789abcdef0123456789abcdef","schema_version":2}\n`,
    );
    const report = await run();
    expect(outcomeOf(report)).toEqual(['refused', 'destination_locked']);
    expect(report.outcomes[0]?.refusal?.hint).toMatch(
      new RegExp(
        `lease ends at ${expires.replaceAll('.', '\\.')}, in (9[0-5]) s, unless that run renews it\\): run again once that run is done, or after the lease if it died \\(--wait SECONDS waits up to that long for it\\)`,
      ),
    );
    expect(await stored()).toEqual(['.distributor.pending.json']);
  });
});

/** Writes a marker's bytes at `key` (on condition of `ifMatch`, as a takeover does); its ETag. */
async function putMarker(key: string, text: string, ifMatch?: string): Promise<string> {
  const put = await ctx.s3.send(
    new PutObjectCommand({
      Bucket: ctx.bucket,
      Key: key,
      Body: Buffer.from(text, 'utf8'),
      ...(ifMatch === undefined ? {} : { IfMatch: ifMatch }),
    }),
  );
  return (put.ETag ?? '').replaceAll('"', '');
}
