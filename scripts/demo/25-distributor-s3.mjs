// Publication to an S3 bucket on a real S3 implementation: a throwaway Ceph
// RGW on 127.0.0.1 (Debian radosgw, ceph-mon, ceph-osd). Keys live only in the
// environment: a run without them is refused with the destination named.
// Skipped, saying what to install, without those packages.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export const title = 'publish reports to an S3 bucket (a real Ceph gateway)';

export async function run(ctx) {
  if (
    spawnSync('sh', ['-c', 'command -v radosgw && command -v ceph-mon && command -v ceph-osd']).status !== 0
  ) {
    ctx.say('Skipped: install the Debian packages radosgw ceph-mon ceph-osd to see this part.');
    return;
  }
  const { startRgw } = await import(pathToFileURL(join(ctx.root, 'dist', 'test', 'services', 'rgw.js')).href);
  const { HeadObjectCommand, ListObjectsV2Command, PutObjectCommand } = await import('@aws-sdk/client-s3');
  const base = join(ctx.workDir, 'distributor-s3');
  mkdirSync(base, { recursive: true });
  const rgw = await startRgw({ parentDir: base });
  try {
    const bucket = await rgw.createBucket('reports');
    const weather = join(base, 'reports', 'weather', '2026-05-30');
    mkdirSync(weather, { recursive: true });
    writeFileSync(join(weather, 'report.md'), '# Weather for Brentwood, 30 May\n\nSunny, **21 °C**.\n');
    writeFileSync(join(weather, 'hourly.csv'), 'hour,celsius\n09,17\n12,21\n15,21\n');
    writeFileSync(
      join(base, 'sealkit.distributor.yaml'),
      `pipelines:\n  - id: reports\n    source: {root: reports}\n    destinations:\n      - id: bucket\n        kind: s3\n        bucket: ${bucket}\n        prefix: site\n        endpoint: ${rgw.endpoint}\n        region: ${rgw.region}\n        force_path_style: true\n        outputs: {source: true, html: true}\n`,
    );
    ctx.cd(base);
    // The producer's step for one day's folder: its manifest, with the day as its id.
    const manifest = (day, created, ...more) =>
      ctx.sealkit(
        [
          'distribute',
          'manifest',
          `reports/weather/${day}`,
          '--id',
          `weather.${day}`,
          '--created',
          created,
          ...more,
        ],
        { lines: 1, status: 0 },
      );
    manifest('2026-05-30', '2026-05-30T11:10:00Z');
    ctx.shell("grep -nE 'bucket:|endpoint:' sealkit.distributor.yaml");
    // Without keys in its environment (nor a profile or an instance role to
    // fall back on), the run is refused before anything is written.
    const credentials = ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_PROFILE'];
    const withoutKeys = Object.fromEntries(
      Object.entries(rgw.awsEnv).filter(([name]) => !credentials.includes(name)),
    );
    const unset = Object.keys(process.env).filter(
      (name) => name.startsWith('AWS_') && !(name in withoutKeys),
    );
    ctx.say(
      'Keys live only in the environment, never in the configuration; without them the run is refused:',
    );
    ctx.sealkit(['distribute', 'run', '-q'], {
      env: withoutKeys,
      unset: [...unset, ...credentials],
      status: 2,
    });
    ctx.say(
      "With the gateway's keys in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY: outputs first, each verified, .distributor.json last:",
    );
    ctx.sealkit(['distribute', 'run'], { env: rgw.awsEnv, tail: 1, status: 0 });
    const page = await rgw.client().send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'site/' }));
    ctx.say(`The bucket now holds ${(page.Contents ?? []).map((object) => object.Key).join(', ')}`);

    // A cron run killed (kill -9) after it began the next bundle leaves its
    // pending marker, which holds the bundle until its lease ends (2 minutes
    // after its last renewal; written here with 3 s left, for the tour).
    const next = join(base, 'reports', 'weather', '2026-05-31');
    mkdirSync(next, { recursive: true });
    writeFileSync(join(next, 'report.md'), '# Weather for Brentwood, 31 May\n\nShowers, 17 °C.\n');
    manifest('2026-05-31', '2026-05-31T11:10:00Z');
    // As sealkit writes a lease end: UTC, whole seconds (a fraction is refused as a marker sealkit did not write).
    const expires = new Date(Math.ceil((Date.now() + 3000) / 1000) * 1000)
      .toISOString()
      .replace('.000Z', 'Z');
    await rgw.client().send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: 'site/weather/2026-05-31/.distributor.pending.json',
        Body: `{"claims":[{"path":"report.md","sha256":["sha256:${'0'.repeat(64)}"]}],"expires":"${expires}","run":"${'5e'.repeat(16)}","schema_version":2}\n`,
        IfNoneMatch: '*',
      }),
    );
    ctx.say(
      'A run killed while writing weather/2026-05-31 left its pending marker there. With --wait the next run waits for that lease to end (or for a live run to finish), then publishes:',
    );
    ctx.sealkit(['distribute', 'run', '--wait', '30'], {
      env: rgw.awsEnv,
      pick: (line) => /^(PIPELINE|summary)|2026-05-31/.test(line),
      status: 0,
    });

    // A corrected report: a replacement sends what changed, not the whole bundle.
    // An object sent again with the same bytes keeps its ETag (an MD5) but not
    // its Last-Modified time, which the store sets at each write.
    const writtenAt = async (name) =>
      (
        await rgw
          .client()
          .send(new HeadObjectCommand({ Bucket: bucket, Key: `site/weather/2026-05-30/${name}` }))
      ).LastModified?.toISOString();
    const csvBefore = await writtenAt('hourly.csv');
    const reportBefore = await writtenAt('report.md');
    writeFileSync(join(weather, 'report.md'), '# Weather for Brentwood, 30 May\n\nSunny, **23 °C**.\n');
    manifest('2026-05-30', '2026-05-30T18:00:00Z', '--replace');
    ctx.say(
      'The 30 May report is corrected (21 → 23 °C) and its manifest written anew; the next run replaces the bundle:',
    );
    ctx.sealkit(['distribute', 'run'], {
      env: rgw.awsEnv,
      pick: (line) => /^(PIPELINE|summary)|2026-05-30/.test(line),
      status: 0,
    });
    const csvAfter = await writtenAt('hourly.csv');
    const reportAfter = await writtenAt('report.md');
    ctx.say(
      csvAfter === csvBefore && reportAfter !== reportBefore
        ? `Only report.md and its page were sent: report.md was written at ${reportAfter}, and hourly.csv, unchanged, is still the object written at ${csvAfter}, as rclone copy would leave it.`
        : `hourly.csv was written at ${csvBefore}, then at ${csvAfter}; report.md at ${reportBefore}, then at ${reportAfter}.`,
    );
  } finally {
    await rgw.stop();
  }
}
