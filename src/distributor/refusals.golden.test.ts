// The distributor's bad-input corpus: each case is a real tree in a temporary
// folder, run through the built CLI in human and --json form, and compared
// with its golden files under testdata/refusals/ (SEALKIT_UPDATE_GOLDEN=1
// rewrites them; review every change). The CLI runs in the temporary folder
// with relative paths, so no output holds the temporary prefix.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../test/helpers/cli.js';
import { fileRecords, makeBundle } from '../../test/helpers/distributor-fixtures.js';
import { expectGolden } from '../../test/helpers/golden.js';

const GOLDEN = join(dirname(fileURLToPath(import.meta.url)), 'testdata', 'refusals');

const CONFIG = `pipelines:
  - id: weekly
    source:
      root: reports
    destinations:
      - id: site
        kind: local
        root: out
        outputs: {source: true, html: true}
      - id: archive
        kind: s3
        bucket: report-archive
        prefix: weekly
        endpoint: http://127.0.0.1:9
        outputs:
          source: true
          html: false
`;

const REPORT = { path: 'report.md', content: '# Weekly\n\nSunny all week.\n' };
const DATA = { path: 'data/days.csv', content: 'day,sky\nmon,sun\n' };

let work: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'sealkit-distributor-golden-'));
  mkdirSync(join(work, 'out'));
  mkdirSync(join(work, 'reports'));
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

/** Writes the configuration (the valid one, edited) as sealkit.distributor.yaml. */
const config =
  (edit: (text: string) => string = (text) => text) =>
  (): void => {
    writeFileSync(join(work, 'sealkit.distributor.yaml'), edit(CONFIG));
  };
/** Only a local destination, so a valid configuration runs without a network. */
const localOnly = (text: string): string => text.slice(0, text.indexOf('      - id: archive'));
const bundle = (): string =>
  makeBundle(join(work, 'reports'), 'weekly', [REPORT, DATA], {
    id: 'weekly',
    created: '2026-06-01T08:00:00Z',
  });
const edit = (path: string, content: string): void => writeFileSync(join(work, path), content);
const run = ['distribute', 'run'];
const verify = ['distribute', 'verify', 'reports/weekly'];

interface Case {
  readonly name: string;
  readonly setUp: () => void;
  readonly args: readonly string[];
}

const CASES: readonly Case[] = [
  {
    name: 'config-unknown-key-htm',
    setUp: config((t) => t.replace('{source: true, html: true}', '{source: true, htm: true}')),
    args: run,
  },
  {
    name: 'config-unknown-top-key',
    setUp: config((t) => t.replace('pipelines:', 'pipeline:')),
    args: run,
  },
  {
    name: 'config-several-errors',
    setUp: config((t) =>
      t
        .replace('{source: true, html: true}', '{source: true, htm: true}')
        .replace('bucket: report-archive', 'bucket: Report_Archive')
        .replace('          html: false\n', '          html: false\n          colour: red\n'),
    ),
    args: run,
  },
  {
    name: 'config-string-boolean',
    setUp: config((t) => t.replace('{source: true, html: true}', '{source: "true", html: true}')),
    args: run,
  },
  {
    name: 'config-yes-boolean',
    setUp: config((t) => t.replace('          html: false', '          html: no')),
    args: run,
  },
  {
    name: 'config-missing-root',
    setUp: config((t) => t.replace('        root: out\n', '')),
    args: run,
  },
  {
    name: 'config-missing-kind',
    setUp: config((t) => t.replace('        kind: local\n', '')),
    args: run,
  },
  {
    name: 'config-unknown-kind',
    setUp: config((t) => t.replace('kind: local', 'kind: lcoal')),
    args: run,
  },
  {
    name: 'config-bad-bucket',
    setUp: config((t) => t.replace('bucket: report-archive', 'bucket: Report_Archive')),
    args: run,
  },
  {
    name: 'config-bad-prefix',
    setUp: config((t) => t.replace('prefix: weekly', 'prefix: weekly/')),
    args: run,
  },
  {
    name: 'config-no-output',
    setUp: config((t) => t.replace('{source: true, html: true}', '{source: false, html: false}')),
    args: run,
  },
  {
    name: 'config-duplicate-id',
    setUp: config((t) => t.replace('id: archive', 'id: site')),
    args: run,
  },
  { name: 'config-no-pipelines', setUp: config(() => 'pipelines: []\n'), args: run },
  { name: 'config-empty', setUp: config(() => ''), args: run },
  {
    name: 'config-bom',
    setUp: () => writeFileSync(join(work, 'sealkit.distributor.yaml'), `\ufeff${CONFIG}`),
    args: run,
  },
  {
    name: 'config-duplicate-key',
    setUp: config((t) => t.replace('      root: reports\n', '      root: reports\n      root: other\n')),
    args: run,
  },
  {
    name: 'config-alias',
    setUp: config((t) =>
      t
        .replace('outputs: {source: true, html: true}', 'outputs: &both {source: true, html: true}')
        .replace(
          '        outputs:\n          source: true\n          html: false\n',
          '        outputs: *both\n',
        ),
    ),
    args: run,
  },
  {
    name: 'config-tag',
    setUp: config((t) => t.replace('root: reports', 'root: !!str reports')),
    args: run,
  },
  {
    name: 'config-multiple-documents',
    setUp: config((t) => `${t}---\npipelines: []\n`),
    args: run,
  },
  {
    name: 'config-not-yaml',
    setUp: config((t) => t.replace('{source: true, html: true}', '{source: true, html: true')),
    args: run,
  },
  {
    // Nothing is open above: the advice is about the line out of place, on that line.
    name: 'config-key-out-of-line',
    setUp: config((t) => t.replace('        root: out\n', '       root: out\n')),
    args: run,
  },
  { name: 'config-absent', setUp: () => {}, args: run },
  {
    // regression: the default name looked for, a .yml beside it: that file is named, with the flag to pass.
    name: 'config-absent-yml-beside',
    setUp: () => writeFileSync(join(work, 'sealkit.distributor.yml'), CONFIG),
    args: run,
  },
  {
    // Located at the `root:` line, with the cause and the root as written, as in a real run.
    name: 'run-dry-destination-root-missing',
    setUp: () => {
      config(localOnly)();
      rmSync(join(work, 'out'), { recursive: true });
      bundle();
    },
    args: [...run, '--dry-run'],
  },
  {
    name: 'config-flag-absent',
    setUp: () => {},
    args: [...run, '--config', 'conf/distributor.yaml'],
  },
  {
    // One letter off the configuration beside it: that file is named.
    name: 'config-flag-misspelt',
    setUp: config(localOnly),
    args: [...run, '--config', 'sealkit.distributer.yaml'],
  },
  {
    name: 'config-roots-overlap',
    setUp: config(
      (t) =>
        `${localOnly(t)}      - id: mirror\n        kind: local\n        root: out\n        outputs: {source: false, html: true}\n`,
    ),
    args: run,
  },
  {
    name: 'config-root-inside-source',
    setUp: () => {
      config((t) => localOnly(t).replace('root: out', 'root: reports/site'))();
      mkdirSync(join(work, 'reports', 'site'));
    },
    args: run,
  },
  {
    name: 'pipeline-not-found',
    setUp: config(localOnly),
    args: [...run, '--pipeline', 'weeky'],
  },
  {
    name: 'run-source-root-missing',
    setUp: () => {
      config(localOnly)();
      rmSync(join(work, 'reports'), { recursive: true });
    },
    args: run,
  },
  {
    name: 'run-source-root-misspelt',
    setUp: config((t) => localOnly(t).replace('root: reports', 'root: reprots')),
    args: run,
  },
  {
    name: 'run-dry-destination-root-misspelt',
    setUp: () => {
      config((t) => localOnly(t).replace('root: out', 'root: outt'))();
      bundle();
    },
    args: [...run, '--dry-run'],
  },
  {
    name: 'run-report-edited-size-mismatch',
    setUp: () => {
      config(localOnly)();
      bundle();
      edit('reports/weekly/report.md', '# Weekly\n\nSunny all week, then rain.\n');
    },
    args: run,
  },
  {
    name: 'run-digest-mismatch',
    setUp: () => {
      config(localOnly)();
      bundle();
      edit('reports/weekly/data/days.csv', 'day,sky\nmon,fog\n');
    },
    args: run,
  },
  {
    name: 'run-missing-listed-file',
    setUp: () => {
      config(localOnly)();
      bundle();
      rmSync(join(work, 'reports/weekly/data/days.csv'));
    },
    args: run,
  },
  {
    name: 'run-manifest-not-json',
    setUp: () => {
      config(localOnly)();
      bundle();
      edit('reports/weekly/manifest.json', '{\n  "schema_version": 1,\n  "id": "weekly",\n  "files": [\n');
    },
    args: run,
  },
  {
    name: 'run-manifest-bad-paths',
    setUp: () => {
      config(localOnly)();
      const records = fileRecords([REPORT, DATA]);
      makeBundle(join(work, 'reports'), 'weekly', [REPORT, DATA], {
        id: 'weekly',
        created: '2026-06-01T08:00:00Z',
        files: [
          { ...(records[0] as (typeof records)[number]), path: '../report.md' },
          { ...(records[1] as (typeof records)[number]), path: '/data/days.csv' },
        ],
      });
    },
    args: run,
  },
  {
    name: 'run-bundle-digest-mismatch',
    setUp: () => {
      config(localOnly)();
      const path = join(bundle(), 'manifest.json');
      const manifest = JSON.parse(readFileSync(path, 'utf8'));
      manifest.digest = `sha256:${'0'.repeat(64)}`;
      writeFileSync(path, JSON.stringify(manifest, null, 2));
    },
    args: run,
  },
  {
    name: 'run-destination-unmanaged',
    setUp: () => {
      config(localOnly)();
      bundle();
      mkdirSync(join(work, 'out', 'weekly'));
      edit('out/weekly/index.html', 'made by hand\n');
    },
    args: run,
  },
  {
    name: 'run-nested-bundle',
    setUp: () => {
      config(localOnly)();
      bundle();
      makeBundle(join(work, 'reports'), 'weekly/monday', [REPORT], {
        id: 'weekly.monday',
        created: '2026-06-01T08:00:00Z',
      });
    },
    args: run,
  },
  {
    name: 'run-source-symlink',
    setUp: () => {
      config(localOnly)();
      bundle();
      symlinkSync('weekly', join(work, 'reports', 'latest'));
      symlinkSync('../../elsewhere', join(work, 'reports', 'weekly', 'data', 'charts'));
    },
    args: run,
  },
  {
    name: 'verify-html-output-collision',
    setUp: () => {
      makeBundle(join(work, 'reports'), 'weekly', [REPORT, { path: 'report.html', content: '<p>x</p>\n' }], {
        id: 'weekly',
        created: '2026-06-01T08:00:00Z',
      });
    },
    args: [...verify, '--source', '--html'],
  },
  {
    name: 'verify-report-edited-size-mismatch',
    setUp: () => {
      bundle();
      edit('reports/weekly/report.md', '# Weekly\n\nSunny all week, then rain.\n');
    },
    args: verify,
  },
  {
    name: 'verify-every-file-at-once',
    setUp: () => {
      bundle();
      edit('reports/weekly/report.md', '# Weekly\n\nRainy all week.\n');
      rmSync(join(work, 'reports/weekly/data/days.csv'));
    },
    args: verify,
  },
  {
    name: 'verify-manifest-not-json',
    setUp: () => {
      bundle();
      edit('reports/weekly/manifest.json', '{"schema_version": 1, "id": weekly}\n');
    },
    args: verify,
  },
  {
    name: 'verify-manifest-fields',
    setUp: () => {
      const path = join(bundle(), 'manifest.json');
      const manifest = JSON.parse(readFileSync(path, 'utf8'));
      manifest.schema_version = 2;
      manifest.created = 'yesterday';
      manifest.files[1].size = -1;
      writeFileSync(path, JSON.stringify(manifest, null, 2));
    },
    args: verify,
  },
  {
    name: 'manifest-unicode-twin',
    setUp: () => {
      mkdirSync(join(work, 'reports', 'menu'));
      edit('reports/menu/caf\u00e9.txt', 'one\n');
      edit('reports/menu/cafe\u0301.txt', 'two\n');
    },
    args: ['distribute', 'manifest', 'reports/menu', '--id', 'menu'],
  },
  {
    name: 'verify-bundle-dir-missing',
    setUp: () => {},
    args: verify,
  },
  {
    name: 'verify-bundle-dir-misspelt',
    setUp: () => {
      bundle();
    },
    args: ['distribute', 'verify', 'reprots/weekly'],
  },
  {
    name: 'manifest-not-regular',
    setUp: () => {
      bundle();
      rmSync(join(work, 'reports', 'weekly', 'manifest.json'));
      mkdirSync(join(work, 'reports', 'weekly', 'manifest.json'));
    },
    args: ['distribute', 'manifest', 'reports/weekly', '--id', 'weekly', '--replace'],
  },
  {
    name: 'verify-manifest-misspelt-keys',
    setUp: () => {
      const path = join(bundle(), 'manifest.json');
      const text = readFileSync(path, 'utf8');
      writeFileSync(path, text.replace('"id"', '"ident"').replace('"created"', '"creatd"'));
    },
    args: verify,
  },
  {
    name: 'run-destination-state-edited',
    setUp: () => {
      config(localOnly)();
      bundle();
      expect(runCli(run, { cwd: work }).status).toBe(0);
      const state = join(work, 'out', 'weekly', '.distributor.json');
      writeFileSync(
        state,
        readFileSync(state, 'utf8').replace(/\n}\n$/, '\n  ,"note": "checked by ops"\n}\n'),
      );
    },
    args: run,
  },
  {
    // Same size, other bytes: only --checksum sees it; the help names the file, never its content.
    name: 'run-checksum-output-edited-same-size',
    setUp: () => {
      config(localOnly)();
      bundle();
      expect(runCli(run, { cwd: work }).status).toBe(0);
      edit(join('out', 'weekly', 'data', 'days.csv'), 'day,sky\nmon,fog\n');
    },
    args: [...run, '--checksum'],
  },
  {
    // A folder of the operator's where an output was: named a folder, moved away, never removed with the bundle.
    name: 'run-output-replaced-by-folder',
    setUp: () => {
      config(localOnly)();
      bundle();
      expect(runCli(run, { cwd: work }).status).toBe(0);
      rmSync(join(work, 'out', 'weekly', 'data', 'days.csv'));
      mkdirSync(join(work, 'out', 'weekly', 'data', 'days.csv'));
      edit(join('out', 'weekly', 'data', 'days.csv', 'precious.txt'), 'keep me\n');
    },
    args: run,
  },
  {
    // An output this account may not read under --checksum: its own code, its path in --json.
    name: 'run-checksum-output-unreadable',
    setUp: () => {
      config(localOnly)();
      bundle();
      expect(runCli(run, { cwd: work }).status).toBe(0);
      chmodSync(join(work, 'out', 'weekly', 'data', 'days.csv'), 0o000);
    },
    args: [...run, '--checksum'],
  },
  {
    name: 'run-outputs-empty',
    setUp: () => {
      config((t) =>
        localOnly(t).replace('{source: true, html: true}', '{source: false, html: false, assets: true}'),
      )();
      makeBundle(join(work, 'reports'), 'weekly', [REPORT], {
        id: 'weekly',
        created: '2026-06-01T08:00:00Z',
      });
    },
    args: run,
  },
  {
    name: 'verify-missing-manifest',
    setUp: () => {
      rmSync(join(bundle(), 'manifest.json'));
    },
    args: verify,
  },
];

/** Exit status and both streams, as a reviewer reads them. */
function transcript(result: ReturnType<typeof runCli>): string {
  return [
    `exit: ${result.status}`,
    '--- stdout',
    result.stdout.toString('utf8'),
    '--- stderr',
    result.stderr.toString('utf8'),
  ].join('\n');
}

describe('distributor refusals, golden corpus', () => {
  it('has at least 20 cases, each named once', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(20);
    expect(new Set(CASES.map((c) => c.name)).size).toBe(CASES.length);
  });

  it.each(CASES)('$name', ({ name, setUp, args }) => {
    setUp();
    // The one absolute path a refusal prints: the working directory a
    // missing default configuration was looked for in (a cron job's is
    // the home folder), shown here as WORK.
    const scrub = (result: ReturnType<typeof runCli>): ReturnType<typeof runCli> => ({
      ...result,
      stdout: Buffer.from(
        result.stdout.toString('utf8').replaceAll(`working directory (${work})`, 'working directory (WORK)'),
      ),
      stderr: Buffer.from(
        result.stderr.toString('utf8').replaceAll(`working directory (${work})`, 'working directory (WORK)'),
      ),
    });
    const human = scrub(runCli(args, { cwd: work }));
    const json = scrub(runCli([...args, '--json'], { cwd: work }));
    expect(human.status).toBe(2);
    expect(json.status).toBe(2);
    // Under --json everything is one object on stdout.
    expect(json.stderr.toString('utf8')).toBe('');
    const text = transcript(human);
    const parsed: { readonly plan?: unknown } = JSON.parse(json.stdout.toString('utf8'));
    // Located, but never a digest or a file's content. (The plan a run
    // reports names the bundle digest it would publish: that is the
    // report, not a refusal.)
    const { plan: _, ...refusals } = parsed;
    for (const output of [text, JSON.stringify(refusals)]) {
      expect(output).not.toContain(work);
      expect(output).not.toMatch(/[0-9a-f]{16}/);
      expect(output).not.toMatch(/Sunny all week|mon,sun|mon,fog|then rain|Rainy|made by hand/);
    }
    expectGolden(join(GOLDEN, `${name}.human.txt`), text);
    expectGolden(join(GOLDEN, `${name}.json.txt`), `${JSON.stringify(parsed, null, 2)}\n`);
  });
});
