import { describe, expect, it } from 'vitest';
import type { Sha256Prefixed } from '../../core/digest/index.js';
import type { BundleDir, BundlePath, DestinationState, Instant, SourceManifest } from '../model/types.js';
import { decide, type SnapshotView } from './compare.js';
import { expectedOutputs, noOutputsHint, plannedOutputs } from './outputs.js';
import { planRun } from './plan-run.js';
import type { StateToken } from './types.js';

const sha = (c: string) => `sha256:${c.repeat(64)}` as Sha256Prefixed;
const manifest = (over: Partial<SourceManifest> = {}): SourceManifest => ({
  schema_version: 1,
  id: 'weather.daily',
  digest: sha('1'),
  created: '2026-05-30T11:10:00Z' as Instant,
  files: [{ path: 'report.md' as BundlePath, sha256: sha('2'), size: 10 }],
  ...over,
});
const managed = (
  published: SourceManifest,
  extra: Partial<{ unlisted: boolean; missing: boolean }> = {},
): SnapshotView => ({
  kind: 'managed',
  state: {
    schema_version: 1,
    distributor_version: '0.1.0',
    pipeline_id: 'p',
    destination_id: 'd',
    published_at: '2026-05-30T12:00:00Z' as Instant,
    source: { manifest: published },
    outputs: [
      {
        path: 'report.md' as BundlePath,
        kind: 'source',
        source_path: 'report.md' as BundlePath,
        sha256: sha('2'),
        size: 10,
      },
    ],
  } satisfies DestinationState,
  token: 'token-1' as StateToken,
  unlisted: extra.unlisted ?? false,
  missing: extra.missing ?? false,
  residue: [],
});

describe('destination comparison (the six rules plus two safety rules)', () => {
  const source = manifest();
  it('no state and empty → publish', () => {
    expect(decide(source, { kind: 'empty', residue: [] })).toEqual({ outcome: 'published' });
  });
  it('no state and non-empty → unmanaged, refused', () => {
    expect(decide(source, { kind: 'unmanaged' })).toEqual({
      outcome: 'refused',
      reason_code: 'destination_unmanaged',
    });
  });
  it('same manifest → skip', () => {
    expect(decide(source, managed(manifest()))).toEqual({ outcome: 'skipped_same' });
  });
  it('same id, destination older → replace with the read token', () => {
    const decision = decide(
      source,
      managed(manifest({ created: '2026-05-29T11:10:00Z' as Instant, digest: sha('9') })),
    );
    expect(decision).toMatchObject({ outcome: 'replaced', token: 'token-1' });
    expect(decision).not.toHaveProperty('reason');
  });
  it('regression: a newer created over the same files is replaced with reason same_files', () => {
    // A manifest written again over an unchanged folder: the same digest, a later created.
    const decision = decide(source, managed(manifest({ created: '2026-05-29T11:10:00Z' as Instant })));
    expect(decision).toMatchObject({ outcome: 'replaced', token: 'token-1', reason: 'same_files' });
  });
  it('same id, destination newer → skip newer', () => {
    expect(
      decide(source, managed(manifest({ created: '2026-05-31T00:00:00Z' as Instant, digest: sha('9') }))),
    ).toEqual({
      outcome: 'skipped_newer',
    });
  });
  it('same id and created, different digest → conflict', () => {
    expect(decide(source, managed(manifest({ digest: sha('9') })))).toEqual({
      outcome: 'conflict',
      reason_code: 'conflict_same_created',
    });
  });
  it('different id → conflict', () => {
    expect(decide(source, managed(manifest({ id: 'other' })))).toEqual({
      outcome: 'conflict',
      reason_code: 'conflict_different_id',
    });
  });
  it('compares instants, not text: the same time with an offset is the same created', () => {
    const sameInstant = manifest({ created: '2026-05-30T11:10:00Z' as Instant });
    expect(decide(sameInstant, managed(manifest()))).toEqual({ outcome: 'skipped_same' });
  });
  it('publishes the same bundle again over residue of an interrupted run of ours, so it converges', () => {
    const withResidue = { ...managed(manifest()), residue: ['report.md' as BundlePath] } as SnapshotView;
    // Regression: said with a reason (the REASON column was empty, as if the source had changed).
    expect(decide(source, withResidue)).toMatchObject({
      outcome: 'replaced',
      token: 'token-1',
      reason: 'interrupted_run',
    });
  });
  it('refuses to replace a managed path holding unlisted files, and to call a damaged one published', () => {
    const older = manifest({ created: '2026-05-29T00:00:00Z' as Instant, digest: sha('9') });
    expect(decide(source, managed(older, { unlisted: true }))).toEqual({
      outcome: 'refused',
      reason_code: 'destination_unlisted_entry',
    });
    expect(decide(source, managed(manifest(), { missing: true }))).toEqual({
      outcome: 'refused',
      reason_code: 'destination_incomplete',
    });
  });
});

describe("an outputs change republishes (a decision of sealkit's own)", () => {
  const source = manifest();
  const copy = {
    path: 'report.md' as BundlePath,
    kind: 'source' as const,
    source_path: 'report.md' as BundlePath,
    sha256: sha('2'),
    size: 10,
  };
  const page = {
    path: 'report.html' as BundlePath,
    kind: 'generated' as const,
    source_path: 'report.md' as BundlePath,
    transform: 'markdown_to_html' as const,
    sha256: sha('4'),
    size: 50,
  };
  it('skips when the configured outputs are those the state lists', () => {
    expect(decide(source, managed(manifest()), [copy])).toEqual({ outcome: 'skipped_same' });
  });
  it('regression: outputs that select no file are refused outputs_empty, never published empty nor replaced by nothing', () => {
    const none = { outcome: 'refused', reason_code: 'outputs_empty' };
    expect(decide(source, { kind: 'empty', residue: [] }, [])).toEqual(none);
    // A bundle published with outputs before is not emptied by a configuration that now selects none.
    expect(decide(source, managed(manifest()), [])).toEqual(none);
    expect(decide(source, { kind: 'unmanaged' }, [])).toEqual(none);
    // A destination that could not be read is said first, as for every bundle there.
    expect(decide(source, { kind: 'refused', reason_code: 'destination_locked' }, [])).toEqual({
      outcome: 'refused',
      reason_code: 'destination_locked',
    });
  });
  it('regression: turning html on for a published bundle replaces it, reason outputs_changed', () => {
    expect(
      decide(
        source,
        managed(manifest()),
        [page, copy].sort((a, b) => (a.path < b.path ? -1 : 1)),
      ),
    ).toEqual({
      outcome: 'replaced',
      previous: (managed(manifest()) as { state: DestinationState }).state,
      token: 'token-1',
      reason: 'outputs_changed',
    });
  });
  it('a newer created over the same files with other outputs asked for is outputs_changed, not same_files', () => {
    const older = managed(manifest({ created: '2026-05-29T11:10:00Z' as Instant }));
    expect(decide(source, older, [page])).toMatchObject({ outcome: 'replaced', reason: 'outputs_changed' });
    expect(decide(source, older, [copy])).toMatchObject({ outcome: 'replaced', reason: 'same_files' });
  });
  it('turning source off, or a page that renders to other bytes, replaces too', () => {
    // Source off, html on: the copy goes, the page comes. (Source off with
    // nothing else selecting a file is outputs_empty, never a bundle replaced by nothing.)
    expect(decide(source, managed(manifest()), [page])).toMatchObject({ reason: 'outputs_changed' });
    const withPage = managed(manifest());
    const state = (withPage as { state: DestinationState }).state;
    const published: SnapshotView = { ...withPage, state: { ...state, outputs: [page] } } as SnapshotView;
    expect(decide(source, published, [page])).toEqual({ outcome: 'skipped_same' });
    expect(decide(source, published, [{ ...page, sha256: sha('5'), size: 51 }])).toMatchObject({
      outcome: 'replaced',
      reason: 'outputs_changed',
    });
    // Before validation a page's digest is unknown: it counts as unchanged.
    expect(decide(source, published, [{ ...page, sha256: undefined, size: undefined }])).toEqual({
      outcome: 'skipped_same',
    });
  });
  it('keeps the replacement safety rules: unlisted entries and missing outputs are refused', () => {
    expect(decide(source, managed(manifest(), { unlisted: true }), [page])).toEqual({
      outcome: 'refused',
      reason_code: 'destination_unlisted_entry',
    });
    expect(decide(source, managed(manifest(), { missing: true }), [page])).toEqual({
      outcome: 'refused',
      reason_code: 'destination_incomplete',
    });
  });
  it('regression: the same bundle with other outputs, published by another destination, is a conflict', () => {
    // Two configuration files (or one store under two names) on one place
    // replaced each other's outputs on every run, each reporting success.
    const view = managed(manifest());
    const expected = [page, copy].sort((a, b) => (a.path < b.path ? -1 : 1));
    for (const other of [
      { pipeline_id: 'p', destination_id: 'other' },
      { pipeline_id: 'other', destination_id: 'd' },
    ]) {
      expect(decide(source, view, expected, other)).toEqual({
        outcome: 'conflict',
        reason_code: 'conflict_other_destination',
      });
    }
    // The state's own destination replaces it as before.
    expect(decide(source, view, expected, { pipeline_id: 'p', destination_id: 'd' })).toMatchObject({
      outcome: 'replaced',
      reason: 'outputs_changed',
    });
  });
  it('a renamed destination with the same outputs skips, and with a newer bundle replaces', () => {
    const renamed = { pipeline_id: 'p2', destination_id: 'www' };
    const view = managed(manifest());
    expect(decide(source, view, [copy], renamed)).toEqual({ outcome: 'skipped_same' });
    const newer = manifest({ created: '2026-06-01T00:00:00Z' as Instant, digest: sha('9') });
    expect(decide(newer, view, [page], renamed)).toMatchObject({ outcome: 'replaced' });
  });
  it('plans the replacement with its reason and the old outputs to delete', () => {
    const plan = planRun([
      {
        id: 'p',
        destinations: [{ id: 'd', kind: 'local', outputs: { source: false, html: true } }],
        failures: [],
        bundles: [
          {
            dir: 'a' as BundleDir,
            manifest: source,
            pages: [{ source_index: 0, path: page.path, sha256: page.sha256, size: page.size }],
            views: [managed(manifest())],
          },
        ],
      },
    ]);
    expect(plan.items[0]).toMatchObject({
      outcome: 'replaced',
      reason: 'outputs_changed',
      previous: { token: 'token-1', outputs: ['report.md'] },
      outputs: [{ path: 'report.html', kind: 'generated' }],
    });
  });
});

describe('output categories', () => {
  const files = manifest({
    files: [
      { path: 'chart.png' as BundlePath, sha256: sha('a'), size: 1 },
      { path: 'data/days.csv' as BundlePath, sha256: sha('b'), size: 2 },
      { path: 'legacy.html' as BundlePath, sha256: sha('c'), size: 3 },
      { path: 'report.md' as BundlePath, sha256: sha('d'), size: 4 },
    ],
  });
  const pages = [
    { source_index: 3, path: 'report.html' as BundlePath, sha256: sha('e'), size: 5 },
    { source_index: 3, path: 'report.html' as BundlePath, sha256: sha('f'), size: 6, lang: 'de' },
  ];
  const paths = (outputs: ReturnType<typeof plannedOutputs>) =>
    outputs?.map((o) => `${o.kind} ${o.path} ${o.sha256.slice(7, 8)}`);
  it('assets: the listed files that are neither Markdown nor HTML, recorded as kind source', () => {
    expect(paths(plannedOutputs(files, pages, { source: false, html: true, assets: true }))).toEqual([
      'source chart.png a',
      'source data/days.csv b',
      'generated report.html e',
    ]);
    // source already copies everything: assets adds nothing twice.
    expect(paths(plannedOutputs(files, pages, { source: true, html: false, assets: true }))).toHaveLength(4);
  });
  it('regression: says what a bundle lists when the outputs select none of it, and what to turn on', () => {
    const markdown = manifest();
    expect(noOutputsHint(markdown, { source: false, html: false, assets: true })).toBe(
      'the bundle lists 1 Markdown file, and outputs {source: false, html: false, assets: true} select none of it: turn on html (a page for each .md file) or source (every file as it is)',
    );
    const data = manifest({
      files: [
        { path: 'a.csv' as BundlePath, sha256: sha('a'), size: 1 },
        { path: 'old.html' as BundlePath, sha256: sha('b'), size: 1 },
      ],
    });
    expect(noOutputsHint(data, { source: false, html: true })).toBe(
      'the bundle lists 1 HTML file and 1 other file, and outputs {source: false, html: true, assets: false} select none of them: turn on assets (the files that are neither Markdown nor HTML) or source (every file as it is)',
    );
  });
  it('a destination receives the pages of its own lang', () => {
    expect(paths(plannedOutputs(files, pages, { source: false, html: true, lang: 'de' }))).toEqual([
      'generated report.html f',
    ]);
  });
  it('knows before validation which outputs a destination will receive, pages without a digest', () => {
    expect(
      expectedOutputs(files, { source: false, html: true, assets: true }).map((o) => [
        o.path,
        o.sha256 ?? null,
      ]),
    ).toEqual([
      ['chart.png', sha('a')],
      ['data/days.csv', sha('b')],
      ['report.html', null],
    ]);
  });
});

describe('planRun', () => {
  const destinations = [{ id: 'site', kind: 'local' as const, outputs: { source: true, html: true } }];
  const md = manifest({
    files: [
      { path: 'report.md' as BundlePath, sha256: sha('2'), size: 10 },
      { path: 'report.html' as BundlePath, sha256: sha('3'), size: 10 },
    ],
  });
  const page = { source_index: 0, path: 'report.html' as BundlePath, sha256: sha('4'), size: 50 };

  it('names folders without a manifest under the root as given, ./ before a name that reads as an option, ten at most', () => {
    const loose = [
      '-draft',
      ...Array.from({ length: 11 }, (_, day) => `day-${String(day + 1).padStart(2, '0')}`),
    ];
    const plan = planRun([
      { id: 'p', shownRoot: '.', destinations, failures: [], bundles: [], dirsWithoutManifest: loose },
      {
        id: 'q',
        shownRoot: 'reports/',
        destinations,
        failures: [],
        bundles: [],
        dirsWithoutManifest: ['a'],
        filesAtRoot: ['-notes.md', 'b.csv'],
      },
    ]);
    expect(plan.pipelines.map((pipeline) => pipeline.dirs_without_manifest)).toEqual([
      { total: 12, first: ['./-draft', ...loose.slice(1, 10)] },
      { total: 1, first: ['reports/a'] },
    ]);
    expect(plan.pipelines.map((pipeline) => pipeline.files_at_source_root)).toEqual([
      { total: 0, first: [] },
      { total: 2, first: ['reports/-notes.md', 'reports/b.csv'] },
    ]);
  });

  it('fails an output collision at planning and aborts every write of the run', () => {
    const plan = planRun([
      {
        id: 'p',
        destinations,
        failures: [],
        bundles: [
          { dir: 'a' as BundleDir, manifest: md, pages: [page], views: [{ kind: 'empty', residue: [] }] },
          { dir: 'b' as BundleDir, manifest: manifest(), pages: [], views: [{ kind: 'empty', residue: [] }] },
        ],
      },
    ]);
    expect(plan.aborted).toBe(true);
    expect(
      plan.failures.map(({ refusal, ...failure }) => [failure, refusal?.location, refusal?.hint]),
    ).toEqual([
      [
        { pipeline_id: 'p', bundle_dir: 'a', bundle_id: 'weather.daily', reason_code: 'output_collision' },
        { path: 'a/report.md' },
        'its page report.html is also a listed file copied as it is',
      ],
    ]);
    expect(
      plan.items.map((item) => [
        item.bundle_dir,
        item.outcome,
        'reason_code' in item ? item.reason_code : '',
      ]),
    ).toEqual([
      ['a', 'refused', 'output_collision'],
      ['b', 'refused', 'run_aborted'],
    ]);
  });

  it('does not collide when the destination takes HTML only', () => {
    const plan = planRun([
      {
        id: 'p',
        destinations: [{ id: 'site', kind: 'local', outputs: { source: false, html: true } }],
        failures: [],
        bundles: [
          { dir: 'a' as BundleDir, manifest: md, pages: [page], views: [{ kind: 'empty', residue: [] }] },
        ],
      },
    ]);
    expect(plan.aborted).toBe(false);
    const item = plan.items[0];
    expect(item?.outcome).toBe('published');
    if (item?.outcome === 'published') {
      expect(item.outputs.map((o) => [o.path, o.kind, o.transform])).toEqual([
        ['report.html', 'generated', 'markdown_to_html'],
      ]);
      expect(item.state.outputs).toEqual([
        {
          path: 'report.html',
          kind: 'generated',
          source_path: 'report.md',
          transform: 'markdown_to_html',
          sha256: sha('4'),
          size: 50,
        },
      ]);
    }
  });

  it('is deterministic and serializable', () => {
    const input = [
      {
        id: 'p',
        destinations,
        failures: [],
        bundles: [
          {
            dir: 'a' as BundleDir,
            manifest: manifest(),
            pages: [],
            views: [{ kind: 'empty' as const, residue: [] }],
          },
        ],
      },
    ];
    const text = JSON.stringify(planRun(input));
    expect(JSON.stringify(planRun(input))).toBe(text);
    expect(JSON.parse(text)).toEqual(planRun(input));
  });
});
