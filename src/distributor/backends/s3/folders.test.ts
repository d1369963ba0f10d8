// Empty "folders" under a bundle prefix — the zero-byte objects whose key
// ends in '/' that the S3 console's "Create folder", rclone's directory
// markers or s3fs make — through the built CLI against the test radosgw: they
// hold nothing, so a bundle is published and replaced beside them as if they
// were not there, and they are never written or deleted. Any other object
// sealkit did not write still refuses the bundle.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../../../test/helpers/cli.js';
import {
  listKeys,
  s3ConfigYaml,
  useRgwFixture,
  writeBundle,
} from '../../../../test/helpers/distributor-s3.js';

const ctx = useRgwFixture({ work: 's3-folders-', bucket: 'folders' });

const DIR = 'weather/brentwood';

function setUp(name: string) {
  const dir = mkdtempSync(join(ctx.work, `${name}-`));
  const source = join(dir, 'out');
  const write = (created: string, body: string) =>
    writeBundle(source, DIR, {
      id: 'weather.daily.brentwood',
      created,
      files: { 'report.md': body, 'charts/temp.csv': 'h,t\n1,20\n' },
    });
  write('2026-05-30T11:10:00Z', '# Brentwood\n');
  writeFileSync(
    join(dir, 'sealkit.distributor.yaml'),
    s3ConfigYaml(ctx.rgw, source, { bucket: ctx.bucket, prefix: name }),
  );
  const cli = (...flags: readonly string[]) =>
    runCli(['distribute', 'run', ...flags], { cwd: dir, env: { ...process.env, ...ctx.rgw.awsEnv } });
  const put = (key: string, body: string) =>
    ctx.s3.send(new PutObjectCommand({ Bucket: ctx.bucket, Key: `${name}/${key}`, Body: body }));
  const stored = async () =>
    (await listKeys(ctx.s3, ctx.bucket, `${name}/`)).map((key) => key.slice(name.length + 1));
  return { cli, put, stored, write };
}

const outcome = (run: ReturnType<typeof runCli>) =>
  /\n\S+\s+\S+\s+\S+\s+(\S+)/.exec(run.stdout.toString('utf8'))?.[1];

describe('empty folder objects under a bundle prefix', () => {
  it('regression: a folder made in the S3 console for the bundle does not make it unmanaged; publish, rerun and replace leave it', async () => {
    const { cli, put, stored, write } = setUp('console');
    // The console's "Create folder" for the bundle and one inside it, and one above it.
    await put(`${DIR}/`, '');
    await put(`${DIR}/charts/`, '');
    await put('weather/', '');
    const first = cli();
    expect(first.stderr.toString('utf8')).toBe('');
    expect(first.status).toBe(0);
    expect(outcome(first)).toBe('published');
    const folders = ['weather/', `${DIR}/`, `${DIR}/charts/`];
    const published = [
      `${DIR}/.distributor.json`,
      `${DIR}/charts/temp.csv`,
      `${DIR}/report.html`,
      `${DIR}/report.md`,
    ];
    expect(await stored()).toEqual([...folders, ...published].sort());
    const again = cli();
    expect(again.status).toBe(0);
    expect(outcome(again)).toBe('skipped_same');
    // A new version replaces the outputs and leaves the folders as they were.
    write('2026-05-31T11:10:00Z', '# Brentwood\n\nRain.\n');
    const replaced = cli();
    expect(replaced.stderr.toString('utf8')).toBe('');
    expect(replaced.status).toBe(0);
    expect(outcome(replaced)).toBe('replaced');
    expect(await stored()).toEqual([...folders, ...published].sort());
  });

  it('regression: an empty file, or a folder-named object with content, still refuses the bundle', async () => {
    const { cli, put, stored } = setUp('content');
    await put(`${DIR}/notes/`, 'not empty');
    const withContent = cli();
    expect(withContent.status).toBe(2);
    expect(outcome(withContent)).toBe('refused');
    expect(withContent.stderr.toString('utf8')).toContain('error[destination_unmanaged]');
    const { cli: cli2, put: put2 } = setUp('empty-file');
    await put2(`${DIR}/notes.txt`, '');
    const emptyFile = cli2();
    expect(emptyFile.status).toBe(2);
    expect(emptyFile.stderr.toString('utf8')).toContain('error[destination_unmanaged]');
    expect(await stored()).toEqual([`${DIR}/notes/`]);
  });

  it('regression: beside a console folder, the refusal names the object that is content, not the folder', async () => {
    const { cli, put } = setUp('first-entry');
    // '' sorts before every key and 'charts/' before 'notes.txt': both were named as the first entry.
    await put(`${DIR}/`, '');
    await put(`${DIR}/charts/`, '');
    await put(`${DIR}/notes.txt`, 'by hand');
    const run = cli('--json');
    expect(run.status).toBe(2);
    const report = JSON.parse(run.stdout.toString('utf8')) as {
      readonly outcomes: readonly { readonly reason_code?: string; readonly entry_path?: string }[];
    };
    expect(report.outcomes.map((item) => [item.reason_code, item.entry_path])).toEqual([
      ['destination_unmanaged', 'notes.txt'],
    ]);
  });
});
