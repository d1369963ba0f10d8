// Tour of the distributor's S3 destination on a real S3 implementation: a
// throwaway Ceph RGW on 127.0.0.1 (Debian radosgw, ceph-mon, ceph-osd), keys
// only in the environment, publish, rerun, replace, and the pending marker
// that makes every crash recoverable. Skipped when the packages are missing.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export const title = 'distributor: the same bundles published to S3-compatible storage (Ceph RGW)';

export async function run(ctx) {
  if (
    spawnSync('sh', ['-c', 'command -v radosgw && command -v ceph-mon && command -v ceph-osd']).status !== 0
  ) {
    ctx.say('Skipped: install the Debian packages radosgw ceph-mon ceph-osd to see this part.');
    return;
  }
  const { startRgw } = await import(pathToFileURL(join(ctx.root, 'dist', 'test', 'services', 'rgw.js')).href);
  const { ListObjectsV2Command, PutObjectCommand } = await import('@aws-sdk/client-s3');
  const base = join(ctx.workDir, 'distributor-s3');
  mkdirSync(base, { recursive: true });
  ctx.say(
    'Starting a single-node Ceph cluster (one monitor, one in-memory OSD) and its S3 gateway on 127.0.0.1...',
  );
  const rgw = await startRgw({ parentDir: base });
  try {
    const s3 = rgw.client();
    const bucket = await rgw.createBucket('reports');
    ctx.say(
      `Gateway up in ${rgw.startupMs} ms at ${rgw.endpoint}; bucket created. Keys live only in the environment.`,
    );

    const source = join(base, 'reports');
    const weather = join(source, 'weather', 'daily', '2026-05-30');
    mkdirSync(weather, { recursive: true });
    writeFileSync(join(weather, 'report.md'), '# Weather for Brentwood, 30 May\n\nSunny, **21 °C**.\n');
    writeFileSync(join(weather, 'summary.txt'), 'sunny, 21 C\n');
    writeFileSync(
      join(base, 'sealkit.distributor.yaml'),
      [
        'pipelines:',
        '  - id: reports',
        '    source: {root: reports}',
        '    destinations:',
        '      - id: bucket',
        '        kind: s3',
        `        bucket: ${bucket}`,
        '        prefix: site',
        `        endpoint: ${rgw.endpoint}`,
        `        region: ${rgw.region}`,
        '        force_path_style: true',
        '        outputs: {source: true, html: true}',
        '',
      ].join('\n'),
    );
    const env = rgw.awsEnv;
    const listing = async () => {
      const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'site/' }));
      return (page.Contents ?? []).map((object) => object.Key).join('\n  ');
    };
    ctx.sealkit([
      'distribute',
      'manifest',
      weather,
      '--id',
      'weather.daily.brentwood.2026-05-30',
      '--created',
      '2026-05-30T11:10:00Z',
    ]);

    ctx.say(
      'Publish: outputs first (streamed, hashed, verified), .distributor.json last (If-None-Match: *):',
    );
    ctx.sealkit(['distribute', 'run'], { cwd: base, env });
    ctx.say(`The bucket now holds:\n  ${await listing()}`);

    ctx.say('A rerun reads the state and skips:');
    ctx.sealkit(['distribute', 'run'], { cwd: base, env });

    ctx.say(
      'A later issue of the report replaces it (state written with If-Match: <ETag read at planning>):',
    );
    writeFileSync(join(weather, 'summary.txt'), 'sunny, 22 C (corrected)\n');
    rmSync(join(weather, 'manifest.json'));
    ctx.sealkit([
      'distribute',
      'manifest',
      weather,
      '--id',
      'weather.daily.brentwood.2026-05-30',
      '--created',
      '2026-05-30T17:00:00Z',
    ]);
    ctx.sealkit(['distribute', 'run'], { cwd: base, env });

    ctx.say(
      'A run killed half-way leaves .distributor.pending.json naming what it wrote; here one is planted by hand for a new bundle,\n' +
        'with its lease expired, beside a half-written output. The next run takes it over and completes the bundle:',
    );
    const sales = join(source, 'sales', 'weekly', '2026-w22');
    mkdirSync(sales, { recursive: true });
    writeFileSync(join(sales, 'totals.csv'), 'region,total\nnorth,120\n');
    ctx.sealkit([
      'distribute',
      'manifest',
      sales,
      '--id',
      'sales.weekly.2026-w22',
      '--created',
      '2026-06-01T08:00:00Z',
    ]);
    const marker = {
      expires: '2026-01-01T00:00:00Z',
      outputs: ['totals.csv'],
      run: '0123456789abcdef0123456789abcdef',
      schema_version: 1,
    };
    await s3.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: 'site/sales/weekly/2026-w22/totals.csv',
        Body: 'region,to',
      }),
    );
    await s3.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: 'site/sales/weekly/2026-w22/.distributor.pending.json',
        Body: `${JSON.stringify(marker)}\n`,
      }),
    );
    ctx.sealkit(['distribute', 'run', '--dry-run'], { cwd: base, env });
    ctx.sealkit(['distribute', 'run'], { cwd: base, env });
    ctx.say(`The bucket now holds:\n  ${await listing()}`);

    ctx.say(
      "Someone else's object under a bundle prefix without state is never overwritten: unmanaged, exit 2:",
    );
    const press = join(source, 'press', '2026-06-02');
    mkdirSync(press, { recursive: true });
    writeFileSync(join(press, 'release.md'), '# Release\n');
    ctx.sealkit([
      'distribute',
      'manifest',
      press,
      '--id',
      'press.2026-06-02',
      '--created',
      '2026-06-02T08:00:00Z',
    ]);
    await s3.send(
      new PutObjectCommand({ Bucket: bucket, Key: 'site/press/2026-06-02/index.html', Body: 'hand-made' }),
    );
    ctx.sealkit(['distribute', 'run'], { cwd: base, env });
  } finally {
    await rgw.stop();
  }
}
