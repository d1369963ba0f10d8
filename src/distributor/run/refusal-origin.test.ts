import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeBundle } from '../../../test/helpers/distributor-fixtures.js';
import { Refusal } from '../../core/refusal/index.js';
import type { BackendFactory } from '../backend.js';
import type { S3DestinationConfig } from '../config/types.js';
import { type DistributorRefusalCode, refuseDistributor } from '../refusals.js';
import { distributeRun } from './run.js';

// A destination's refusal points at the key of the setting it is about, not
// at the first line of the destination's entry (docs/distributor.md#reading-an-error).

let work: string;
let source: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'sealkit-refusal-origin-'));
  source = join(work, 'src');
  mkdirSync(source);
  makeBundle(source, 'b1', [{ path: 'summary.txt', content: 'sunny\n' }], {
    id: 'weather.b1',
    created: '2026-05-30T11:10:00Z',
  });
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

/** The configuration: `entries` are the destinations' lines, each key at column 9. */
function writeConfig(entries: readonly string[]): string {
  const path = join(work, 'sealkit.distributor.yaml');
  writeFileSync(
    path,
    [
      'pipelines:',
      '  - id: weather',
      '    source:',
      `      root: ${JSON.stringify(source)}`,
      '    destinations:',
      ...entries,
      '',
    ].join('\n'),
  );
  return path;
}

/** An S3 destination at line 6, its keys on lines 7 to 11 (the optional ones when given). */
const s3Entry = (id: string, prefix: string, optional: readonly string[] = []): string[] => [
  `      - id: ${id}`,
  '        kind: s3',
  '        bucket: report-archive',
  `        prefix: ${prefix}`,
  ...optional.map((line) => `        ${line}`),
  '        outputs: {source: true, html: false}',
];
const ENDPOINT_AND_REGION = ['endpoint: http://127.0.0.1:9', 'region: eu-central-1'];

/** An S3 backend that cannot be built: every bundle there is refused with what it throws. */
const failing =
  (error: unknown): BackendFactory<S3DestinationConfig> =>
  () => {
    throw error;
  };

/** Where the refusal of the only outcome points: line, column and key path. */
async function placeOf(
  configPath: string,
  error: unknown,
): Promise<readonly (number | string | undefined)[]> {
  const report = await distributeRun({ configPath, dryRun: true, s3Backend: failing(error) });
  const location = report.outcomes[0]?.refusal?.location;
  return [location?.line, location?.column, location?.pointer];
}

const AT = 'pipelines[0].destinations[0]';

describe('an S3 refusal about one setting', () => {
  it.each<readonly [DistributorRefusalCode, number, string]>([
    ['destination_bucket_missing', 8, `${AT}.bucket`],
    ['destination_versioning_unsupported', 8, `${AT}.bucket`],
    ['destination_access_denied', 9, `${AT}.prefix`],
    ['destination_unreachable', 10, `${AT}.endpoint`],
    ['destination_credentials_refused', 10, `${AT}.endpoint`],
    ['destination_conditional_writes_unsupported', 10, `${AT}.endpoint`],
  ])(
    'regression: %s points at the line and column of its key, not the entry',
    async (code, line, pointer) => {
      const config = writeConfig(s3Entry('archive', 'weekly', ENDPOINT_AND_REGION));
      const refusal = refuseDistributor(code, { role: 'destination' });
      expect(await placeOf(config, refusal)).toEqual([line, 9, pointer]);
    },
  );

  it('regression: an unreachable store without an endpoint points at region:, the key that finds it', async () => {
    const config = writeConfig(s3Entry('archive', 'weekly', ['region: eu-central-1']));
    const refusal = refuseDistributor('destination_unreachable', { role: 'destination' });
    expect(await placeOf(config, refusal)).toEqual([10, 9, `${AT}.region`]);
  });

  it('regression: a kind this build cannot serve points at kind:', async () => {
    const config = writeConfig(s3Entry('archive', 'weekly', ENDPOINT_AND_REGION));
    expect(await placeOf(config, new Error('no SDK here'))).toEqual([7, 9, `${AT}.kind`]);
  });

  it.each<readonly [string, DistributorRefusalCode, readonly string[]]>([
    ['missing credentials (never in the file)', 'destination_credentials_missing', ENDPOINT_AND_REGION],
    ['a lock another run holds', 'destination_locked', ENDPOINT_AND_REGION],
    ['a failed write', 'destination_write_failed', ENDPOINT_AND_REGION],
    ['an unreachable store named by neither endpoint nor region', 'destination_unreachable', []],
  ])('keeps %s at the destination entry: no one key causes it', async (_label, code, optional) => {
    const config = writeConfig(s3Entry('archive', 'weekly', optional));
    const refusal = refuseDistributor(code, { role: 'destination' });
    expect(await placeOf(config, refusal)).toEqual([6, 9, AT]);
  });
});

describe('a destination that publishes where another does', () => {
  const refusalOf = async (configPath: string): Promise<Refusal> => {
    const error = await distributeRun({ configPath, dryRun: true }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    if (!(error instanceof Refusal)) throw new Error('expected the run to be refused');
    return error;
  };
  const placed = (refusal: Refusal) => [
    refusal.code,
    refusal.location?.line,
    refusal.location?.column,
    refusal.location?.pointer,
  ];

  it('regression: an S3 prefix inside another destination’s points at its prefix:', async () => {
    const config = writeConfig([...s3Entry('archive', 'weekly'), ...s3Entry('mirror', 'weekly/copy')]);
    // The second entry starts at line 11: id, kind, bucket, then prefix on line 14.
    const refusal = await refusalOf(config);
    expect(placed(refusal)).toEqual([
      'destination_roots_overlap',
      14,
      9,
      'pipelines[0].destinations[1].prefix',
    ]);
    // regression: said in an S3 destination's own words, not a local root's
    expect(refusal.hint).toBe(
      "this prefix lies inside the prefix of destination 'archive' of pipeline 'weather' (pipelines[0].destinations[0]) in the same bucket; use sibling prefixes instead",
    );
  });

  it('regression: a shared local root points at root:, a shared work_dir at work_dir:', async () => {
    const site = join(work, 'site');
    const other = join(work, 'other');
    const area = join(work, 'area');
    for (const dir of [site, other, area]) mkdirSync(dir);
    const local = (id: string, root: string, workDir: string): string[] => [
      `      - id: ${id}`,
      '        kind: local',
      `        root: ${JSON.stringify(root)}`,
      `        work_dir: ${JSON.stringify(workDir)}`,
      '        outputs: {source: true, html: false}',
    ];
    const sameRoot = await refusalOf(writeConfig([...local('a', site, area), ...local('b', site, other)]));
    expect(placed(sameRoot)).toEqual([
      'destination_roots_overlap',
      13,
      9,
      'pipelines[0].destinations[1].root',
    ]);
    const sameWork = await refusalOf(writeConfig([...local('a', site, area), ...local('b', other, area)]));
    expect(placed(sameWork)).toEqual([
      'destination_roots_overlap',
      14,
      9,
      'pipelines[0].destinations[1].work_dir',
    ]);
  });

  it('regression: a root or work_dir inside a source root points at root: or work_dir:', async () => {
    const site = join(work, 'site');
    const inside = join(source, 'published');
    for (const dir of [site, inside]) mkdirSync(dir);
    const entry = (root: string, workDir: string): string[] => [
      '      - id: site',
      '        kind: local',
      `        root: ${JSON.stringify(root)}`,
      `        work_dir: ${JSON.stringify(workDir)}`,
      '        outputs: {source: true, html: false}',
    ];
    const root = await refusalOf(writeConfig(entry(inside, site)));
    expect(placed(root)).toEqual(['destination_inside_source', 8, 9, 'pipelines[0].destinations[0].root']);
    const workDir = await refusalOf(writeConfig(entry(site, inside)));
    expect(placed(workDir)).toEqual([
      'destination_inside_source',
      9,
      9,
      'pipelines[0].destinations[0].work_dir',
    ]);
  });

  it('regression: a root or work_dir inside a source root is refused before it exists (the help said "create it" there)', async () => {
    const site = join(work, 'site');
    mkdirSync(site);
    const entry = (root: string, workDir?: string): string[] => [
      '      - id: site',
      '        kind: local',
      `        root: ${JSON.stringify(root)}`,
      ...(workDir === undefined ? [] : [`        work_dir: ${JSON.stringify(workDir)}`]),
      '        outputs: {source: true, html: false}',
    ];
    const root = await refusalOf(writeConfig(entry(join(source, 'published', 'site'))));
    expect(placed(root)).toEqual(['destination_inside_source', 8, 9, 'pipelines[0].destinations[0].root']);
    expect(root.also).toEqual([]);
    expect(root.hint).toBe(
      `this root lies inside the source root of pipeline 'weather' (${source}); publish outside it`,
    );
    const workDir = await refusalOf(writeConfig(entry(site, join(source, 'work'))));
    expect(placed(workDir)).toEqual([
      'destination_inside_source',
      9,
      9,
      'pipelines[0].destinations[0].work_dir',
    ]);
    // Nothing was made or written in the source tree, or at the site.
    expect(readdirSync(source).sort()).toEqual(['b1']);
    expect(readdirSync(site)).toEqual([]);
    // Beside the source root, not in it: only missing, as before.
    const beside = await distributeRun({
      configPath: writeConfig(entry(join(work, 'src-site'))),
      dryRun: true,
    });
    expect(beside.outcomes.map((outcome) => outcome.reason_code)).toEqual(['destination_root_unavailable']);
  });

  it('regression: overlap refusals come in file order, the first the earliest line (a later line came first)', async () => {
    const site = join(work, 'site');
    const sales = join(site, 'sales');
    const inside = join(source, 'published');
    for (const dir of [site, sales, inside]) mkdirSync(dir, { recursive: true });
    const entry = (id: string, root: string): string[] => [
      `      - id: ${id}`,
      '        kind: local',
      `        root: ${JSON.stringify(root)}`,
      '        outputs: {source: true, html: false}',
    ];
    const refusal = await refusalOf(
      writeConfig([...entry('inner', inside), ...entry('a', sales), ...entry('b', site)]),
    );
    expect([refusal, ...refusal.also].map(placed)).toEqual([
      ['destination_inside_source', 8, 9, 'pipelines[0].destinations[0].root'],
      ['destination_roots_overlap', 16, 9, 'pipelines[0].destinations[2].root'],
    ]);
  });
});
