// The same publication to an S3 bucket on a real S3 implementation: a
// throwaway Ceph RGW on 127.0.0.1 (Debian radosgw, ceph-mon, ceph-osd). Keys
// live only in the environment. Skipped, saying what to install, without them.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export const title = 'publish the same reports to an S3 bucket';

export async function run(ctx) {
  if (
    spawnSync('sh', ['-c', 'command -v radosgw && command -v ceph-mon && command -v ceph-osd']).status !== 0
  ) {
    ctx.say('Skipped: install the Debian packages radosgw ceph-mon ceph-osd to see this part.');
    return;
  }
  const { startRgw } = await import(pathToFileURL(join(ctx.root, 'dist', 'test', 'services', 'rgw.js')).href);
  const { ListObjectsV2Command } = await import('@aws-sdk/client-s3');
  const base = join(ctx.workDir, 'distributor-s3');
  mkdirSync(base, { recursive: true });
  const rgw = await startRgw({ parentDir: base });
  try {
    const bucket = await rgw.createBucket('reports');
    ctx.say(
      `A single-node Ceph S3 gateway started on ${rgw.endpoint} (${rgw.startupMs} ms) with bucket ${bucket};\n` +
        'its keys are in AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, never in the configuration.',
    );
    const weather = join(base, 'reports', 'weather', '2026-05-30');
    mkdirSync(weather, { recursive: true });
    writeFileSync(join(weather, 'report.md'), '# Weather for Brentwood, 30 May\n\nSunny, **21 °C**.\n');
    writeFileSync(
      join(base, 'sealkit.distributor.yaml'),
      `pipelines:\n  - id: reports\n    source: {root: reports}\n    destinations:\n      - id: bucket\n        kind: s3\n        bucket: ${bucket}\n        prefix: site\n        endpoint: ${rgw.endpoint}\n        region: ${rgw.region}\n        force_path_style: true\n        outputs: {source: true, html: true}\n`,
    );
    ctx.cd(base);
    ctx.sealkit(
      [
        'distribute',
        'manifest',
        'reports/weather/2026-05-30',
        '--id',
        'weather.2026-05-30',
        '--created',
        '2026-05-30T11:10:00Z',
      ],
      { lines: 1 },
    );
    ctx.shell('sed -n 6,9p sealkit.distributor.yaml');
    ctx.say('Outputs first (each verified), .distributor.json last, written only if absent:');
    ctx.sealkit(['distribute', 'run'], { env: rgw.awsEnv, tail: 1 });
    const page = await rgw.client().send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'site/' }));
    ctx.note(`bucket ${bucket} now holds: ${(page.Contents ?? []).map((object) => object.Key).join(', ')}`);
  } finally {
    await rgw.stop();
  }
}
