import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../test/helpers/cli.js';
import { makeBundle } from '../../../test/helpers/distributor-fixtures.js';
import { snapshotTree } from '../../../test/helpers/edition-trees.js';

// Two destinations in one place publish to the same bundle paths, and one
// .distributor.json describes one destination's outputs only: they would
// replace each other's outputs on every run, each reporting success
// (docs/distributor.md#outcomes).

let work: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'sealkit-shared-place-'));
  mkdirSync(join(work, 'src'));
  mkdirSync(join(work, 'site'));
  makeBundle(join(work, 'src'), 'b1', [{ path: 'report.md', content: '# Report\n' }], {
    id: 'weather.b1',
    created: '2026-05-30T11:10:00Z',
  });
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

function config(name: string, pipeline: string, destinations: readonly string[]): string {
  writeFileSync(
    join(work, name),
    [
      'pipelines:',
      `  - id: ${pipeline}`,
      '    source: {root: src}',
      '    destinations:',
      ...destinations,
      '',
    ].join('\n'),
  );
  return name;
}

const local = (id: string, outputs: string) =>
  `      - {id: ${id}, kind: local, root: site, outputs: ${outputs}}`;

describe('two destinations in one place', () => {
  it('regression: a second configuration with other outputs is a conflict naming the first, and changes nothing', () => {
    const a = config('a.yaml', 'job-a', [local('site', '{source: true, html: false}')]);
    const b = config('b.yaml', 'job-b', [local('site', '{source: false, html: true}')]);
    expect(runCli(['distribute', 'run', '--config', a, '-q'], { cwd: work }).status).toBe(0);
    const published = snapshotTree(join(work, 'site'), ['.distributor.work']);
    const second = runCli(['distribute', 'run', '--config', b, '--json'], { cwd: work });
    expect(second.status).toBe(2);
    const outcome = JSON.parse(second.stdout.toString()).outcomes[0];
    expect(outcome).toMatchObject({
      outcome: 'conflict',
      reason_code: 'conflict_other_destination',
      published_by: { pipeline_id: 'job-a', destination_id: 'site' },
    });
    expect(outcome.hint).toContain(
      "pipeline 'job-a', destination 'site' published it there with other outputs: two destinations share this place",
    );
    expect(snapshotTree(join(work, 'site'), ['.distributor.work'])).toEqual(published);
    // The first one is left as it published it.
    const again = runCli(['distribute', 'run', '--config', a, '--json'], { cwd: work });
    expect(JSON.parse(again.stdout.toString()).outcomes[0]).toMatchObject({ outcome: 'skipped_same' });
  });

  it('a renamed destination with the same outputs finds its bundles published', () => {
    const before = config('before.yaml', 'weather', [local('site', '{source: true, html: true}')]);
    const after = config('after.yaml', 'weather-daily', [local('www', '{source: true, html: true}')]);
    expect(runCli(['distribute', 'run', '--config', before, '-q'], { cwd: work }).status).toBe(0);
    const run = runCli(['distribute', 'run', '--config', after, '--json'], { cwd: work });
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout.toString()).outcomes[0]).toMatchObject({ outcome: 'skipped_same' });
  });

  it.each([
    ['http://localhost:9', 'http://127.0.0.1:9'],
    ['http://127.0.0.1:9/', 'http://[::1]:9'],
    ['http://[::ffff:127.0.0.1]:9', 'http://LOCALHOST:9'],
  ])(
    'regression: one store under two names (%s, %s) is one place, refused before anything is opened',
    (first, second) => {
      const s3 = (id: string, endpoint: string, outputs: string) =>
        `      - {id: ${id}, kind: s3, bucket: reports, prefix: site, endpoint: '${endpoint}', region: us-east-1, force_path_style: true, outputs: ${outputs}}`;
      const file = config('s3.yaml', 'p', [
        s3('archive', first, '{source: true, html: false}'),
        s3('html', second, '{source: false, html: true}'),
      ]);
      const run = runCli(['distribute', 'run', '--config', file, '--json'], { cwd: work });
      expect(run.status).toBe(2);
      expect(JSON.parse(run.stdout.toString())).toMatchObject({ reason_code: 'destination_roots_overlap' });
    },
  );
});
