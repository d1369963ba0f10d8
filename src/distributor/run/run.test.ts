import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../test/helpers/cli.js';
import {
  describeTree,
  makeBundle,
  sha256Of,
  writeConfig,
} from '../../../test/helpers/distributor-fixtures.js';
import { Refusal } from '../../core/refusal/index.js';
import { distributeRun } from './run.js';

const CLOCK = () => new Date('2026-06-01T00:00:00Z');
const REPORT = { path: 'report.md', content: '# Brentwood\n\nSunny.\n' };
const SUMMARY = { path: 'summary.txt', content: 'sunny\n' };

let work: string;
let source: string;
let dest: string;
let config: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'sealkit-run-'));
  source = join(work, 'src');
  dest = join(work, 'dest');
  mkdirSync(source);
  mkdirSync(dest);
  config = writeConfig(work, [{ id: 'weather', source, destinations: [{ id: 'site', root: dest }] }]);
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

const run = (options: { dryRun?: boolean; configPath?: string } = {}) =>
  distributeRun({
    configPath: options.configPath ?? config,
    now: CLOCK,
    ...(options.dryRun ? { dryRun: true } : {}),
  });
const refusalOf = async (running: Promise<unknown>): Promise<Refusal> => {
  const error = await running.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof Refusal)) throw new Error('expected the run to be refused');
  return error;
};
const outcomes = (report: Awaited<ReturnType<typeof run>>) =>
  report.outcomes.map((o) => [o.bundle_dir, o.outcome, o.reason_code ?? '']);
const bundleTree = () => {
  const tree = describeTree(dest);
  return Object.fromEntries(Object.entries(tree).filter(([path]) => !path.startsWith('.distributor.work')));
};

describe('bundle folders that differ only in Unicode normalization', () => {
  it('regression: the second is refused path_unicode_twin before anything is written (both were published)', async () => {
    const nfc = 'uni/\u00e9t\u00e9';
    const nfd = 'uni/e\u0301te\u0301';
    for (const [dir, id] of [
      [nfc, 'composed'],
      [nfd, 'decomposed'],
    ] as const) {
      makeBundle(source, dir, [REPORT], { id, created: '2026-05-30T11:10:00Z' });
    }
    const report = await run();
    expect(report.status).toBe('refused');
    // UTF-8 order: the decomposed name (e, U+0301) sorts before the composed one (U+00E9).
    expect(report.failures.map((failure) => [failure.bundle_dir, failure.reason_code])).toEqual([
      [nfc, 'path_unicode_twin'],
    ]);
    // Both folders are named, the one that looks like the other marked.
    expect(report.failures[0]?.refusal?.hint).toBe(
      "bundle folders 'uni/\u00e9t\u00e9' (NFC) and 'uni/e\\u0301te\\u0301' (NFD) are one folder on macOS and to many object-store clients: rename one of them",
    );
    expect(report.counts.published).toBe(0);
    expect(bundleTree()).toEqual({});
  });
});

describe('bundle_id of a bundle refused in validation', () => {
  /** Rewrites the manifest of bundle `x` through `edit`. */
  const editManifest = (bundle: string, edit: (manifest: Record<string, unknown>) => void): void => {
    const manifest = JSON.parse(readFileSync(join(bundle, 'manifest.json'), 'utf8'));
    edit(manifest);
    writeFileSync(join(bundle, 'manifest.json'), JSON.stringify(manifest));
  };
  const ids = (report: Awaited<ReturnType<typeof run>>) => ({
    failures: report.failures.map((f) => [f.bundle_dir, f.bundle_id, f.reason_code]),
    outcomes: report.outcomes.map((o) => [o.bundle_dir, o.bundle_id, o.reason_code]),
    items: report.plan.items.map((i) => [i.bundle_dir, i.bundle_id]),
  });

  it.each([
    [
      'a file digest mismatch',
      (b: string) => writeFileSync(join(b, 'summary.txt'), 'SUNNY\n'),
      'file_digest_mismatch',
    ],
    ['a missing listed file', (b: string) => rmSync(join(b, 'summary.txt')), 'file_missing'],
    [
      'a bad bundle digest',
      (b: string) => editManifest(b, (m) => Object.assign(m, { digest: `sha256:${'0'.repeat(64)}` })),
      'bundle_digest_mismatch',
    ],
    [
      'a bad path in the manifest',
      (b: string) => editManifest(b, (m) => Object.assign(m, { files: [{ path: '../summary.txt' }] })),
      'path_dotdot',
    ],
    [
      'a bad created in the manifest',
      (b: string) => editManifest(b, (m) => Object.assign(m, { created: 'yesterday' })),
      'manifest_created_invalid',
    ],
    [
      'a nested bundle',
      (b: string) => makeBundle(b, 'inner', [SUMMARY], { id: 'inner', created: '2026-05-30T11:10:00Z' }),
      'bundle_nested',
    ],
    [
      'a symbolic link in the bundle',
      (b: string) => symlinkSync('summary.txt', join(b, 'latest.txt')),
      'source_symlink',
    ],
  ])('regression: %s keeps the manifest id (it was null)', async (_label, damage, code) => {
    const bundle = makeBundle(source, 'x', [SUMMARY], { id: 'weather.x', created: '2026-05-30T11:10:00Z' });
    damage(bundle);
    const report = await run();
    expect(ids(report)).toEqual({
      failures: [['x', 'weather.x', code]],
      outcomes: [['x', 'weather.x', code]],
      items: [['x', 'weather.x']],
    });
  });

  it('regression: an output collision keeps the manifest id', async () => {
    makeBundle(source, 'x', [REPORT, { path: 'report.html', content: '<p>hand-made</p>\n' }], {
      id: 'weather.x',
      created: '2026-05-30T11:10:00Z',
    });
    expect(ids(await run())).toEqual({
      failures: [['x', 'weather.x', 'output_collision']],
      outcomes: [['x', 'weather.x', 'output_collision']],
      items: [['x', 'weather.x']],
    });
  });

  it.each([
    [
      'manifest.json is not JSON',
      (b: string) => writeFileSync(join(b, 'manifest.json'), '{"id": "weather.x", "files": ['),
      'manifest_not_json',
    ],
    [
      'manifest.json is not an object',
      (b: string) => writeFileSync(join(b, 'manifest.json'), '["weather.x"]'),
      'manifest_not_object',
    ],
    [
      'the id is blank',
      (b: string) => editManifest(b, (m) => Object.assign(m, { id: ' ' })),
      'manifest_id_invalid',
    ],
    [
      'the id is a number',
      (b: string) => editManifest(b, (m) => Object.assign(m, { id: 7 })),
      'manifest_id_invalid',
    ],
  ])('keeps bundle_id null when the id is unknown: %s', async (_label, damage, code) => {
    const bundle = makeBundle(source, 'x', [SUMMARY], { id: 'weather.x', created: '2026-05-30T11:10:00Z' });
    damage(bundle);
    expect(ids(await run())).toEqual({
      failures: [['x', null, code]],
      outcomes: [['x', null, code]],
      items: [['x', null]],
    });
  });

  it('keeps bundle_id null for a failure of the whole pipeline', async () => {
    makeBundle(source, 'x', [SUMMARY], { id: 'weather.x', created: '2026-05-30T11:10:00Z' });
    symlinkSync('x', join(source, 'latest'));
    const report = await run();
    expect(report.failures.map((f) => [f.bundle_dir, f.bundle_id, f.reason_code])).toEqual([
      [null, null, 'source_symlink'],
    ]);
  });
});

describe('distribute run (local destination)', () => {
  const FIRST = { id: 'weather.b1', created: '2026-05-30T11:10:00Z' } as const;
  const published = () => join(dest, 'weather', 'b1');
  /** Replaces the source bundle `weather/b1` with other files and manifest fields. */
  const rebuild = (files: readonly (typeof REPORT)[], manifest: { id: string; created: string }) => {
    rmSync(join(source, 'weather', 'b1'), { recursive: true, force: true });
    makeBundle(source, 'weather/b1', files, manifest);
  };

  it('publishes a bundle: its copies, a page, mode 0755 and the state in the documented shape', async () => {
    makeBundle(source, 'weather/b1', [REPORT, SUMMARY], FIRST);
    const first = await run();
    expect(first.status).toBe('ok');
    expect(outcomes(first)).toEqual([['weather/b1', 'published', '']]);
    expect(describeTree(published())).toEqual({
      '.distributor.json': expect.stringMatching(/^file 644 /),
      'report.html': expect.stringMatching(/^file 644 /),
      'report.md': `file 644 ${sha256Of(REPORT.content)}`,
      'summary.txt': `file 644 ${sha256Of(SUMMARY.content)}`,
    });
    expect((statSync(published()).mode & 0o777).toString(8)).toBe('755');
    const state = JSON.parse(readFileSync(join(published(), '.distributor.json'), 'utf8'));
    expect(Object.keys(state)).toEqual([
      'schema_version',
      'distributor_version',
      'pipeline_id',
      'destination_id',
      'published_at',
      'source',
      'outputs',
    ]);
    expect(state.published_at).toBe('2026-06-01T00:00:00Z');
    expect(state.outputs.map((o: { path: string; kind: string }) => [o.path, o.kind])).toEqual([
      ['report.html', 'generated'],
      ['report.md', 'source'],
      ['summary.txt', 'source'],
    ]);
    const html = readFileSync(join(published(), 'report.html'));
    expect(state.outputs[0]).toMatchObject({
      sha256: sha256Of(html),
      size: html.length,
      source_path: 'report.md',
    });
  });

  it('skips a rerun of the same bundle and writes nothing, not even in the work area', async () => {
    makeBundle(source, 'weather/b1', [REPORT, SUMMARY], FIRST);
    await run();
    const beforeRerun = describeTree(dest);
    const workMtime = statSync(join(dest, '.distributor.work')).mtimeMs;
    expect(outcomes(await run())).toEqual([['weather/b1', 'skipped_same', '']]);
    // A no-op rerun verifies every byte but writes nothing: no snapshot or staging entry came and went.
    expect(describeTree(dest)).toEqual(beforeRerun);
    expect(statSync(join(dest, '.distributor.work')).mtimeMs).toBe(workMtime);
  });

  it('replaces a bundle of the same id created later with exactly its new outputs', async () => {
    makeBundle(source, 'weather/b1', [REPORT, SUMMARY], FIRST);
    await run();
    rebuild([REPORT], { id: 'weather.b1', created: '2026-05-31T00:00:00Z' });
    expect(outcomes(await run())).toEqual([['weather/b1', 'replaced', '']]);
    expect(Object.keys(describeTree(published())).sort()).toEqual([
      '.distributor.json',
      'report.html',
      'report.md',
    ]);
  });

  it.each([
    [
      'skipped_newer: same id, created earlier',
      { id: 'weather.b1', created: '2026-05-30T00:00:00Z' },
      'ok',
      'skipped_newer',
      '',
    ],
    [
      'conflict_same_created: same id and instant (another offset), other files',
      { id: 'weather.b1', created: '2026-05-30T13:10:00+02:00' },
      'refused',
      'conflict',
      'conflict_same_created',
    ],
    [
      'conflict_different_id: another id',
      { id: 'other.bundle', created: '2027-01-01T00:00:00Z' },
      'refused',
      'conflict',
      'conflict_different_id',
    ],
  ])('leaves the published bundle as it is on %s', async (_case, manifest, status, outcome, reason) => {
    makeBundle(source, 'weather/b1', [REPORT, SUMMARY], FIRST);
    await run();
    const before = describeTree(published());
    rebuild([SUMMARY], manifest);
    const report = await run();
    expect(report.status).toBe(status);
    expect(outcomes(report)).toEqual([['weather/b1', outcome, reason]]);
    expect(describeTree(published())).toEqual(before);
  });

  it('validates every bundle before writing: one digest mismatch writes nothing anywhere', async () => {
    makeBundle(source, 'a', [REPORT], { id: 'a', created: '2026-05-30T11:10:00Z' });
    const bad = makeBundle(source, 'b', [SUMMARY], { id: 'b', created: '2026-05-30T11:10:00Z' });
    makeBundle(source, 'c', [SUMMARY], { id: 'c', created: '2026-05-30T11:10:00Z' });
    writeFileSync(join(bad, 'summary.txt'), 'SUNNY\n');
    const report = await run();
    expect(report.status).toBe('refused');
    expect(report.aborted).toBe(true);
    expect(report.failures.map(({ refusal: _, ...failure }) => failure)).toEqual([
      { pipeline_id: 'weather', bundle_dir: 'b', bundle_id: 'b', reason_code: 'file_digest_mismatch' },
    ]);
    // Located under the source root as the configuration names it (absolute here).
    expect(report.failures[0]?.refusal?.location).toEqual({ path: join(source, 'b', 'summary.txt') });
    expect(outcomes(report)).toEqual([
      ['a', 'refused', 'run_aborted'],
      ['b', 'refused', 'file_digest_mismatch'],
      ['c', 'refused', 'run_aborted'],
    ]);
    expect(describeTree(dest)).toEqual({
      '.distributor.work': 'dir 700',
      '.distributor.work/lock': expect.any(String),
    });
  });

  it.each([
    ['a wrong size', (b: string) => writeFileSync(join(b, 'summary.txt'), 'sunny!\n'), 'file_size_mismatch'],
    ['a missing file', (b: string) => rmSync(join(b, 'summary.txt')), 'file_missing'],
    [
      'a symlinked file',
      (b: string) => {
        rmSync(join(b, 'summary.txt'));
        writeFileSync(join(b, '..', 'outside.txt'), SUMMARY.content);
        symlinkSync(join(b, '..', 'outside.txt'), join(b, 'summary.txt'));
      },
      'source_symlink',
    ],
    [
      'a bad bundle digest',
      (b: string) => {
        const manifest = JSON.parse(readFileSync(join(b, 'manifest.json'), 'utf8'));
        manifest.digest = `sha256:${'0'.repeat(64)}`;
        writeFileSync(join(b, 'manifest.json'), JSON.stringify(manifest));
      },
      'bundle_digest_mismatch',
    ],
  ])('refuses %s before any write', async (_label, damage, code) => {
    const bundle = makeBundle(source, 'x', [SUMMARY], { id: 'x', created: '2026-05-30T11:10:00Z' });
    damage(bundle);
    const report = await run();
    expect(outcomes(report)).toEqual([['x', 'refused', code]]);
    expect(bundleTree()).toEqual({});
  });

  it('refuses a file under a symlinked parent directory', async () => {
    const bundle = makeBundle(source, 'x', [{ path: 'data/a.csv', content: '1\n' }], {
      id: 'x',
      created: '2026-05-30T11:10:00Z',
    });
    const real = join(work, 'elsewhere');
    mkdirSync(real);
    writeFileSync(join(real, 'a.csv'), '1\n');
    rmSync(join(bundle, 'data'), { recursive: true });
    symlinkSync(real, join(bundle, 'data'));
    const report = await run();
    expect(outcomes(report)).toEqual([['x', 'refused', 'source_symlink']]);
    expect(report.failures[0]?.refusal?.location).toEqual({ path: join(source, 'x', 'data') });
  });

  it('refuses nested manifests naming both bundle directories, and a manifest at the source root', async () => {
    // Regression: a nested manifest was reported with bundle_dir null and the source root only.
    makeBundle(source, 'outer', [SUMMARY], { id: 'outer', created: '2026-05-30T11:10:00Z' });
    makeBundle(source, 'outer/inner', [SUMMARY], { id: 'inner', created: '2026-05-30T11:10:00Z' });
    const nested = await run();
    expect(nested.failures.map(({ refusal: _, ...failure }) => failure)).toEqual([
      { pipeline_id: 'weather', bundle_dir: 'outer', bundle_id: 'outer', reason_code: 'bundle_nested' },
    ]);
    const refusal = nested.failures[0]?.refusal;
    expect(refusal?.location).toEqual({ path: join(source, 'outer', 'inner', 'manifest.json') });
    expect(refusal?.hint).toBe(
      "bundle 'outer' holds another bundle, 'outer/inner': move one of them so that neither lies inside the other",
    );
    expect(refusal?.details).toEqual({ bundle_dir: 'outer', nested_bundle_dir: 'outer/inner' });
    expect(outcomes(nested)).toEqual([['outer', 'refused', 'bundle_nested']]);
    expect(bundleTree()).toEqual({});
    rmSync(join(source, 'outer'), { recursive: true });
    writeFileSync(join(source, 'manifest.json'), '{}');
    const atRoot = await run();
    expect(atRoot.failures[0]?.reason_code).toBe('bundle_at_source_root');
    expect(atRoot.failures[0]?.refusal?.location).toEqual({ path: join(source, 'manifest.json') });
  });

  it('locates an output collision at the Markdown file whose page collides', async () => {
    makeBundle(source, 'c', [REPORT, { path: 'report.html', content: '<p>hand-made</p>\n' }], {
      id: 'c',
      created: '2026-05-30T11:10:00Z',
    });
    const report = await run();
    expect(report.aborted).toBe(true);
    expect(report.failures.map((f) => [f.reason_code, f.refusal?.location?.path, f.refusal?.hint])).toEqual([
      [
        'output_collision',
        join(source, 'c', 'report.md'),
        'its page report.html is also a listed file copied as it is',
      ],
    ]);
  });

  it('regression: a Markdown name legal on disk whose page name is too long says it is the page', async () => {
    const name = `${'b'.repeat(252)}.md`;
    makeBundle(source, 'long', [{ path: name, content: '# Long\n' }], {
      id: 'long',
      created: '2026-05-30T11:10:00Z',
    });
    const report = await run();
    expect(report.failures.map((f) => [f.reason_code, f.refusal?.location?.path])).toEqual([
      ['path_too_long', join(source, 'long', name)],
    ]);
    expect(report.failures[0]?.refusal?.hint).toBe(
      "html: true renders it as a page named with .html for .md, and that name would be over 255 bytes (or its path over 4,096): shorten the file's name (manifest.json lists it as files[0])",
    );
    expect(bundleTree()).toEqual({});
  });

  it('regression: a Markdown file too large to render says its size, the limit and the ways out', async () => {
    // The hint said only "a Markdown file rendered as HTML is limited in size".
    makeBundle(
      source,
      'huge',
      [SUMMARY, { path: 'log.md', content: `# Log\n${'x'.repeat(8 * 1024 * 1024)}` }],
      {
        id: 'huge',
        created: '2026-05-30T11:10:00Z',
      },
    );
    const report = await run();
    expect(report.failures.map((f) => [f.reason_code, f.refusal?.location?.path])).toEqual([
      ['markdown_too_large', join(source, 'huge', 'log.md')],
    ]);
    expect(report.failures[0]?.refusal?.hint).toBe(
      'it holds 8,388,614 bytes (8 MiB) of Markdown, and a page is rendered from at most 8,388,608 bytes (8 MiB) (manifest.json lists it as files[1]): split it into smaller pages, leave it out of the bundle (distribute manifest --exclude), or publish it to destinations with html: false',
    );
    expect(bundleTree()).toEqual({});
  });

  it('refuses a symbolic link to a directory in the source tree, with its path', async () => {
    // Regression: a linked directory was not entered and the run said nothing (exit 0).
    makeBundle(source, 'a', [SUMMARY], { id: 'a', created: '2026-05-30T11:10:00Z' });
    const elsewhere = join(work, 'elsewhere');
    makeBundle(elsewhere, 'b', [SUMMARY], { id: 'b', created: '2026-05-30T11:10:00Z' });
    symlinkSync(join(elsewhere, 'b'), join(source, 'latest'));
    const outside = await run();
    expect(outside.status).toBe('refused');
    expect(outside.aborted).toBe(true);
    expect(outside.failures.map((f) => [f.bundle_dir, f.reason_code, f.refusal?.location?.path])).toEqual([
      [null, 'source_symlink', join(source, 'latest')],
    ]);
    expect(outcomes(outside)).toEqual([['a', 'refused', 'run_aborted']]);
    rmSync(join(source, 'latest'));
    // Inside a bundle, unlisted: the bundle is refused, with the link's path.
    symlinkSync(join(elsewhere, 'b'), join(source, 'a', 'charts'));
    const inside = await run();
    expect(inside.failures.map((f) => [f.bundle_dir, f.reason_code, f.refusal?.location?.path])).toEqual([
      ['a', 'source_symlink', join(source, 'a', 'charts')],
    ]);
    expect(bundleTree()).toEqual({});
  });

  it('refuses a FIFO and an unreadable directory in the source tree, each with its path', async () => {
    makeBundle(source, 'a', [SUMMARY], { id: 'a', created: '2026-05-30T11:10:00Z' });
    expect(spawnSync('mkfifo', [join(source, 'a', 'pipe')]).status).toBe(0);
    mkdirSync(join(source, 'locked'));
    chmodSync(join(source, 'locked'), 0o000);
    const report = await run();
    expect(report.failures.map((f) => [f.bundle_dir, f.reason_code, f.refusal?.location?.path])).toEqual([
      [null, 'source_dir_unreadable', join(source, 'locked')],
      ['a', 'source_not_regular', join(source, 'a', 'pipe')],
    ]);
    chmodSync(join(source, 'locked'), 0o700);
    expect(bundleTree()).toEqual({});
  });

  it('tells a missing source root from a linked one, a file and an unreadable one', async () => {
    // Regression: every one of them was source_root_unavailable. Each points at the
    // `root:` line of the configuration and names the pipeline and the root.
    const codeOf = async () =>
      (await run()).failures.map((f) => [
        f.reason_code,
        f.refusal?.location?.path,
        f.refusal?.location?.pointer,
        f.refusal?.hint?.startsWith(`pipeline 'weather': root '${source}': `),
      ]);
    const at = (code: string) => [[code, config, 'pipelines[0].source.root', true]];
    rmSync(source, { recursive: true });
    expect(await codeOf()).toEqual(at('source_root_missing'));
    mkdirSync(join(work, 'real'));
    symlinkSync(join(work, 'real'), source);
    expect(await codeOf()).toEqual(at('source_root_symlink'));
    rmSync(source);
    writeFileSync(source, 'not a directory');
    expect(await codeOf()).toEqual(at('source_root_not_directory'));
    rmSync(source);
    mkdirSync(source, { mode: 0o000 });
    expect(await codeOf()).toEqual(at('source_root_unavailable'));
    chmodSync(source, 0o700);
  });

  it('prints under --dry-run exactly the plan the real run then applies, and writes nothing', async () => {
    makeBundle(source, 'a', [REPORT, SUMMARY], { id: 'a', created: '2026-05-30T11:10:00Z' });
    makeBundle(source, 'b/c', [SUMMARY], { id: 'c', created: '2026-05-30T11:10:00Z' });
    const before = describeTree(work);
    const dry = await run({ dryRun: true });
    expect(describeTree(work)).toEqual(before);
    expect(dry.dry_run).toBe(true);
    expect(outcomes(dry)).toEqual([
      ['a', 'published', ''],
      ['b/c', 'published', ''],
    ]);
    const real = await run();
    expect(JSON.stringify(real.plan)).toBe(JSON.stringify(dry.plan));
    expect(outcomes(real)).toEqual(outcomes(dry));
  });

  it('refuses unmanaged content and never sweeps a managed directory holding unlisted files', async () => {
    makeBundle(source, 'a', [SUMMARY], { id: 'a', created: '2026-05-30T11:10:00Z' });
    makeBundle(source, 'b', [SUMMARY], { id: 'b', created: '2026-05-30T11:10:00Z' });
    mkdirSync(join(dest, 'a'));
    writeFileSync(join(dest, 'a', 'keep.txt'), 'mine');
    expect(outcomes(await run())).toEqual([
      ['a', 'refused', 'destination_unmanaged'],
      ['b', 'published', ''],
    ]);
    writeFileSync(join(dest, 'b', 'added-by-user.txt'), 'mine');
    rmSync(join(source, 'b'), { recursive: true });
    makeBundle(source, 'b', [REPORT], { id: 'b', created: '2026-06-01T00:00:00Z' });
    const refused = await run();
    expect(outcomes(refused)[1]).toEqual(['b', 'refused', 'destination_unlisted_entry']);
    // Regression: the refusal said only that some entry was foreign, not which.
    expect(refused.outcomes[1]?.entry_path).toBe('added-by-user.txt');
    expect(refused.outcomes[1]?.refusal?.hint).toContain("('added-by-user.txt')");
    expect(readFileSync(join(dest, 'a', 'keep.txt'), 'utf8')).toBe('mine');
    expect(readFileSync(join(dest, 'b', 'added-by-user.txt'), 'utf8')).toBe('mine');
    expect(readFileSync(join(dest, 'b', 'summary.txt'), 'utf8')).toBe(SUMMARY.content);
  });

  it('regression: a published output someone deleted is destination_incomplete, naming it', async () => {
    makeBundle(source, 'b', [REPORT, SUMMARY], { id: 'b', created: '2026-05-30T11:10:00Z' });
    expect(outcomes(await run())).toEqual([['b', 'published', '']]);
    rmSync(join(dest, 'b', 'summary.txt'));
    const report = await run();
    expect(outcomes(report)).toEqual([['b', 'refused', 'destination_incomplete']]);
    expect(report.outcomes[0]?.entry_path).toBe('summary.txt');
    expect(report.outcomes[0]?.refusal?.hint).toContain("(the only one: 'summary.txt')");
  });

  it('regression: a published output edited by hand is neither skipped over nor replaced (was lost silently to the next bundle)', async () => {
    makeBundle(source, 'b', [REPORT, SUMMARY], { id: 'b', created: '2026-05-30T11:10:00Z' });
    expect(outcomes(await run())).toEqual([['b', 'published', '']]);
    const edited = `${SUMMARY.content}corrected by hand\n`;
    writeFileSync(join(dest, 'b', 'summary.txt'), edited);
    const rerun = await run();
    expect(outcomes(rerun)).toEqual([['b', 'refused', 'destination_incomplete']]);
    expect(rerun.outcomes[0]?.entry_path).toBe('summary.txt');
    expect(rerun.outcomes[0]?.entry_size).toBe(Buffer.byteLength(edited));
    expect(rerun.outcomes[0]?.refusal?.hint).toContain('so something else wrote over it');
    // A newer bundle would remove the edited file with the old outputs: refused, the edit kept.
    rmSync(join(source, 'b'), { recursive: true });
    makeBundle(source, 'b', [REPORT, SUMMARY], { id: 'b', created: '2026-06-01T00:00:00Z' });
    const before = describeTree(join(dest, 'b'));
    expect(outcomes(await run())).toEqual([['b', 'refused', 'destination_incomplete']]);
    expect(describeTree(join(dest, 'b'))).toEqual(before);
    expect(readFileSync(join(dest, 'b', 'summary.txt'), 'utf8')).toBe(edited);
    // Deleted rather than edited, nothing would be lost: the newer bundle replaces it, as before.
    rmSync(join(dest, 'b', 'summary.txt'));
    expect(outcomes(await run())).toEqual([['b', 'replaced', '']]);
    expect(readFileSync(join(dest, 'b', 'summary.txt'), 'utf8')).toBe(SUMMARY.content);
  });

  it('refuses a foreign empty directory in a managed bundle path like a foreign file, and leaves it in place', async () => {
    // Regression: an empty directory was not counted as unlisted; the
    // replacement then moved the old tree to .distributor.work/kept-*, unreported.
    const files = [{ path: 'data/days.csv', content: 'mon\n' }, SUMMARY];
    makeBundle(source, 'b', files, { id: 'b', created: '2026-05-30T11:10:00Z' });
    expect(outcomes(await run())).toEqual([['b', 'published', '']]);
    rmSync(join(source, 'b'), { recursive: true });
    makeBundle(source, 'b', files, { id: 'b', created: '2026-06-01T00:00:00Z' });
    for (const foreign of ['extra', join('data', 'empty')]) {
      mkdirSync(join(dest, 'b', foreign));
      const before = describeTree(dest);
      expect(outcomes(await run())).toEqual([['b', 'refused', 'destination_unlisted_entry']]);
      expect(describeTree(dest)).toEqual(before);
      expect(statSync(join(dest, 'b', foreign)).isDirectory()).toBe(true);
      rmSync(join(dest, 'b', foreign), { recursive: true });
    }
    // The directories the state implies are its own: the replacement goes ahead.
    expect(outcomes(await run())).toEqual([['b', 'replaced', '']]);
    expect(describeTree(join(dest, '.distributor.work'))).toEqual({ lock: expect.any(String) });
  });

  it('publishes onto an existing empty directory (it counts as empty) by an atomic swap', async () => {
    makeBundle(source, 'e/x', [SUMMARY], { id: 'x', created: '2026-05-30T11:10:00Z' });
    mkdirSync(join(dest, 'e', 'x'), { recursive: true });
    expect(outcomes(await run())).toEqual([['e/x', 'published', '']]);
    expect(Object.keys(describeTree(join(dest, 'e', 'x'))).sort()).toEqual([
      '.distributor.json',
      'summary.txt',
    ]);
    expect(describeTree(join(dest, '.distributor.work'))).toEqual({ lock: expect.any(String) });
  });

  it('replaces narrowly: only old outputs, the old state and emptied directories go', async () => {
    makeBundle(
      source,
      'r',
      [
        { path: 'keep/a.txt', content: 'a' },
        { path: 'gone/deep/b.txt', content: 'b' },
      ],
      { id: 'r', created: '2026-05-30T11:10:00Z' },
    );
    await run();
    writeFileSync(join(dest, 'sibling.txt'), 'not ours');
    rmSync(join(source, 'r'), { recursive: true });
    makeBundle(source, 'r', [{ path: 'keep/a.txt', content: 'A' }], {
      id: 'r',
      created: '2026-05-31T11:10:00Z',
    });
    expect(outcomes(await run())).toEqual([['r', 'replaced', '']]);
    expect(Object.keys(describeTree(join(dest, 'r'))).sort()).toEqual([
      '.distributor.json',
      'keep',
      'keep/a.txt',
    ]);
    expect(readFileSync(join(dest, 'sibling.txt'), 'utf8')).toBe('not ours');
    expect(describeTree(join(dest, '.distributor.work'))).toEqual({ lock: expect.any(String) });
  });

  it('serves several destinations with their own output categories from one validation', async () => {
    const html = join(work, 'html');
    const archive = join(work, 'archive');
    mkdirSync(html);
    mkdirSync(archive);
    const multi = writeConfig(work, [
      {
        id: 'weather',
        source,
        destinations: [
          { id: 'site', root: html, source: false, html: true },
          { id: 'archive', root: archive, source: true, html: false },
        ],
      },
    ]);
    makeBundle(source, 'd', [REPORT, SUMMARY], { id: 'd', created: '2026-05-30T11:10:00Z' });
    const report = await run({ configPath: multi });
    expect(report.outcomes.map((o) => [o.destination_id, o.outcome, o.outputs])).toEqual([
      ['site', 'published', 1],
      ['archive', 'published', 2],
    ]);
    expect(Object.keys(describeTree(join(html, 'd'))).sort()).toEqual(['.distributor.json', 'report.html']);
    expect(Object.keys(describeTree(join(archive, 'd'))).sort()).toEqual([
      '.distributor.json',
      'report.md',
      'summary.txt',
    ]);
    expect(existsSync(join(work, 'archive', '.distributor.work', 'lock'))).toBe(true);
  });

  it('sweeps a crashed run: a staging tree whose state was cut short goes, an old tree keeps unlisted files', async () => {
    makeBundle(source, 'a', [SUMMARY], { id: 'a', created: '2026-05-30T11:10:00Z' });
    const crashed = join(dest, '.distributor.work', 'run-0123456789abcdef');
    mkdirSync(join(crashed, 'stage-1', 'data'), { recursive: true, mode: 0o700 });
    writeFileSync(join(crashed, 'stage-1', 'data', 'x.bin'), 'partial');
    writeFileSync(join(crashed, 'stage-1', '.distributor.json'), '');
    mkdirSync(join(crashed, 'stage-2'));
    const oldState = {
      schema_version: 1,
      distributor_version: '0.1.0',
      pipeline_id: 'weather',
      destination_id: 'site',
      published_at: '2026-05-01T00:00:00Z',
      source: {
        manifest: {
          schema_version: 1,
          id: 'old',
          digest: sha256Of('x'),
          created: '2026-05-01T00:00:00Z',
          files: [{ path: 'old.txt', sha256: sha256Of('o'), size: 1 }],
        },
      },
      outputs: [{ path: 'old.txt', kind: 'source', source_path: 'old.txt', sha256: sha256Of('o'), size: 1 }],
    };
    writeFileSync(join(crashed, 'stage-2', '.distributor.json'), JSON.stringify(oldState));
    writeFileSync(join(crashed, 'stage-2', 'old.txt'), 'o');
    writeFileSync(join(crashed, 'stage-2', 'someone-elses.txt'), 'mine');
    expect(outcomes(await run())).toEqual([['a', 'published', '']]);
    const work = describeTree(join(dest, '.distributor.work'));
    const kept = Object.keys(work).filter((path) => path.startsWith('kept-'));
    expect(kept.map((path) => path.replace(/^kept-[0-9a-f]+/, 'kept-*')).sort()).toEqual([
      'kept-*',
      'kept-*/.distributor.json',
      'kept-*/someone-elses.txt',
    ]);
    expect(Object.keys(work).filter((path) => path.startsWith('run-'))).toEqual([]);
  });

  it('refuses two destinations sharing a root at configuration time, naming both', async () => {
    // Regression: with one root for a `source: true` and an `html: true`
    // destination, the first run said destination_changed, every later run
    // skipped_same with exit 0, and report.md never arrived.
    makeBundle(source, 'a', [REPORT], { id: 'a', created: '2026-05-30T11:10:00Z' });
    const shared = writeConfig(work, [
      {
        id: 'weather',
        source,
        destinations: [
          { id: 'archive', root: dest, source: true, html: false },
          { id: 'site', root: dest, source: false, html: true },
        ],
      },
    ]);
    const refusal = await refusalOf(run({ configPath: shared }));
    expect(refusal.code).toBe('destination_roots_overlap');
    // At the later destination's `root:`, the key to change.
    expect(refusal.location).toEqual({
      path: shared,
      line: 14,
      column: 9,
      pointer: 'pipelines[0].destinations[1].root',
    });
    expect(refusal.hint).toBe(
      "the same root as destination 'archive' of pipeline 'weather' (pipelines[0].destinations[0]); give each destination a root of its own",
    );
    expect(refusal.details).toEqual({
      relation: 'same',
      destination: { pipeline_id: 'weather', destination_id: 'site' },
      other: { pipeline_id: 'weather', destination_id: 'archive' },
    });
    // Refused before anything was opened for writing: not even the work area.
    expect(describeTree(dest)).toEqual({});
  });

  /** `first` publishes to dest; `second` to dest/mirror (inside) and to dest again (the same). */
  const nestedRoots = () => {
    const other = join(work, 'other-src');
    const mirror = join(dest, 'mirror');
    mkdirSync(other);
    mkdirSync(mirror);
    return writeConfig(work, [
      { id: 'first', source, destinations: [{ id: 'site', root: dest }] },
      {
        id: 'second',
        source: other,
        destinations: [
          { id: 'mirror', root: mirror },
          { id: 'again', root: dest },
        ],
      },
    ]);
  };

  it('refuses nested roots, also across pipelines, and every pair at once', async () => {
    const refusal = await refusalOf(run({ configPath: nestedRoots() }));
    expect([refusal, ...refusal.also].map((r) => [r.code, r.location?.pointer, r.details])).toEqual([
      [
        'destination_roots_overlap',
        'pipelines[1].destinations[0].root',
        {
          relation: 'inside',
          destination: { pipeline_id: 'second', destination_id: 'mirror' },
          other: { pipeline_id: 'first', destination_id: 'site' },
        },
      ],
      [
        'destination_roots_overlap',
        'pipelines[1].destinations[1].root',
        {
          relation: 'same',
          destination: { pipeline_id: 'second', destination_id: 'again' },
          other: { pipeline_id: 'first', destination_id: 'site' },
        },
      ],
      [
        'destination_roots_overlap',
        'pipelines[1].destinations[1].root',
        {
          relation: 'contains',
          destination: { pipeline_id: 'second', destination_id: 'again' },
          other: { pipeline_id: 'second', destination_id: 'mirror' },
        },
      ],
    ]);
  });

  it('refuses nested roots under --pipeline too: the file is refused as a whole', async () => {
    const refusal = await refusalOf(distributeRun({ configPath: nestedRoots(), pipeline: 'first' }));
    expect(refusal.code).toBe('destination_roots_overlap');
  });

  it('publishes to sibling roots of two pipelines', async () => {
    const other = join(work, 'other-src');
    const siblings = join(work, 'site-b');
    mkdirSync(other);
    mkdirSync(siblings);
    const ok = writeConfig(work, [
      { id: 'first', source, destinations: [{ id: 'site', root: dest }] },
      { id: 'second', source: other, destinations: [{ id: 'site', root: siblings }] },
    ]);
    makeBundle(source, 'one', [REPORT], { id: 'one', created: '2026-05-30T11:10:00Z' });
    makeBundle(other, 'two', [REPORT], { id: 'two', created: '2026-05-30T11:10:00Z' });
    expect((await run({ configPath: ok })).outcomes.map((o) => [o.pipeline_id, o.outcome])).toEqual([
      ['first', 'published'],
      ['second', 'published'],
    ]);
  });

  /** A destination whose work area is in `work_dir`, and bundle `a` published to it. */
  const publishWithWorkDir = async () => {
    const workDir = join(work, 'sealkit-work');
    mkdirSync(workDir);
    const withWorkDir = writeConfig(work, [
      { id: 'weather', source, destinations: [{ id: 'site', root: dest, workDir }] },
    ]);
    makeBundle(source, 'a', [REPORT, SUMMARY], { id: 'a', created: '2026-05-30T11:10:00Z' });
    expect(outcomes(await run({ configPath: withWorkDir }))).toEqual([['a', 'published', '']]);
    return { workDir, withWorkDir };
  };

  it('keeps the work area in work_dir, outside the site folder, when publishing and replacing', async () => {
    const { workDir, withWorkDir } = await publishWithWorkDir();
    // The site folder holds the bundle only: nothing for an rsync to ship.
    expect(Object.keys(describeTree(dest)).sort()).toEqual([
      'a',
      'a/.distributor.json',
      'a/report.html',
      'a/report.md',
      'a/summary.txt',
    ]);
    expect(describeTree(workDir)).toEqual({
      '.distributor.work': 'dir 700',
      '.distributor.work/lock': expect.any(String),
    });
    rmSync(join(source, 'a'), { recursive: true });
    makeBundle(source, 'a', [REPORT], { id: 'a', created: '2026-05-31T00:00:00Z' });
    expect(outcomes(await run({ configPath: withWorkDir }))).toEqual([['a', 'replaced', '']]);
    expect(Object.keys(describeTree(dest)).sort()).toEqual([
      'a',
      'a/.distributor.json',
      'a/report.html',
      'a/report.md',
    ]);
  });

  it('refuses a destination whose work_dir went missing with work_dir_unavailable', async () => {
    const { workDir, withWorkDir } = await publishWithWorkDir();
    rmSync(workDir, { recursive: true });
    expect(outcomes(await run({ configPath: withWorkDir }))).toEqual([
      ['a', 'refused', 'work_dir_unavailable'],
    ]);
  });

  it("regression: a root written with '~' that does not exist says '~' is not expanded", async () => {
    makeBundle(source, 'a', [SUMMARY], { id: 'a', created: '2026-05-30T11:10:00Z' });
    const tilde = writeConfig(work, [
      { id: 'weather', source, destinations: [{ id: 'site', root: '~/site' }] },
    ]);
    const refusal = (await run({ configPath: tilde })).outcomes[0]?.refusal;
    expect([refusal?.code, refusal?.hint]).toEqual([
      'destination_root_unavailable',
      `destination 'site', bundle 'a': root '~/site' (that is '${join(work, '~/site')}') does not exist: '~' is not expanded, so it names a folder called '~': write the full path`,
    ]);
  });

  it('regression: a work_dir refusal points at the work_dir: line and says which cause, with the path as written', async () => {
    const { workDir, withWorkDir } = await publishWithWorkDir();
    rmSync(workDir, { recursive: true });
    const line =
      readFileSync(withWorkDir, 'utf8')
        .split('\n')
        .findIndex((text) => text.includes('work_dir:')) + 1;
    const missing = (await run({ configPath: withWorkDir })).outcomes[0]?.refusal;
    expect([missing?.code, missing?.location, missing?.hint]).toEqual([
      'work_dir_unavailable',
      { path: withWorkDir, line, column: 9, pointer: 'pipelines[0].destinations[0].work_dir' },
      `destination 'site', bundle 'a': work_dir '${workDir}' does not exist: create it, or fix the path`,
    ]);
    writeFileSync(workDir, 'not a folder\n');
    const file = (await run({ configPath: withWorkDir })).outcomes[0]?.refusal;
    expect(file?.hint).toBe(`destination 'site', bundle 'a': work_dir '${workDir}' is not a directory`);
  });

  it.each([
    [
      'inside a destination root',
      { a: 'dest/work', b: 'dest/work' },
      [
        {
          relation: 'work_in_own_root',
          destination: { pipeline_id: 'p', destination_id: 'a' },
          other: { pipeline_id: 'p', destination_id: 'a' },
        },
        {
          relation: 'work_in_root',
          destination: { pipeline_id: 'p', destination_id: 'b' },
          other: { pipeline_id: 'p', destination_id: 'a' },
        },
      ],
    ],
    [
      'shared by two destinations',
      { a: 'shared-work', b: 'shared-work' },
      [
        {
          relation: 'work_shared',
          destination: { pipeline_id: 'p', destination_id: 'b' },
          other: { pipeline_id: 'p', destination_id: 'a' },
        },
      ],
    ],
  ])('refuses a work_dir %s', async (_case, workDirs, expected) => {
    const site = join(work, 'site');
    mkdirSync(site);
    for (const path of new Set([workDirs.a, workDirs.b])) mkdirSync(join(work, path));
    const both = writeConfig(work, [
      {
        id: 'p',
        source,
        destinations: [
          { id: 'a', root: dest, workDir: join(work, workDirs.a) },
          { id: 'b', root: site, workDir: join(work, workDirs.b) },
        ],
      },
    ]);
    const refusal = await refusalOf(run({ configPath: both }));
    expect([refusal, ...refusal.also].map((r) => r.details)).toEqual(expected);
  });

  /** Another process holding the destination's lock until `release`. */
  const holdLock = async () => {
    const holder = spawn(process.execPath, [
      '--input-type=module',
      '-e',
      `const { Dir, lockExclusiveNonBlocking } = await import(${JSON.stringify(join(REPO_ROOT, 'dist', 'src', 'core', 'fs', 'index.js'))});
       const result = lockExclusiveNonBlocking(Dir.open(process.argv[1]), 'lock');
       process.stdout.write(result.kind + '\\n');
       setTimeout(() => {}, 60000);`,
      join(dest, '.distributor.work'),
    ]);
    const line = await new Promise<string>((resolve) => {
      createInterface({ input: holder.stdout }).once('line', resolve);
    });
    // A holder that did not get the lock must not outlive the test.
    if (line !== 'acquired') holder.kill('SIGKILL');
    expect(line).toBe('acquired');
    return {
      release: async () => {
        const exited = new Promise((resolve) => holder.once('exit', resolve));
        holder.kill('SIGKILL');
        await exited;
      },
    };
  };

  it('refuses a second concurrent run on a locked destination with destination_locked', async () => {
    makeBundle(source, 'a', [SUMMARY], { id: 'a', created: '2026-05-30T11:10:00Z' });
    mkdirSync(join(dest, '.distributor.work'), { mode: 0o700 });
    const held = await holdLock();
    try {
      const report = await run();
      expect(outcomes(report)).toEqual([['a', 'refused', 'destination_locked']]);
      expect(report.outcomes[0]?.refusal?.hint).toBe(
        "destination 'site', bundle 'a': another run holds its lock: run again once that run is done, or pass --wait SECONDS to wait for it",
      );
      expect(bundleTree()).toEqual({});
    } finally {
      await held.release();
    }
    // The kernel released the dead holder's lock.
    expect(outcomes(await run())).toEqual([['a', 'published', '']]);
  });

  it('--wait refuses with destination_locked, after waiting, a lock not freed in time', async () => {
    makeBundle(source, 'a', [SUMMARY], { id: 'a', created: '2026-05-30T11:10:00Z' });
    mkdirSync(join(dest, '.distributor.work'), { mode: 0o700 });
    const held = await holdLock();
    try {
      const waits: number[] = [];
      const refused = await distributeRun({
        configPath: config,
        now: CLOCK,
        waitMs: 600,
        onProgress: (event) => {
          if (event.phase === 'wait') waits.push(event.done);
        },
      });
      expect(outcomes(refused)).toEqual([['a', 'refused', 'destination_locked']]);
      expect(waits.length).toBeGreaterThan(0);
      // regression: the advice after a wait that ran out is not to pass the flag it passed
      expect(refused.outcomes[0]?.refusal?.hint).toBe(
        "destination 'site', bundle 'a': another run held its lock through this run's --wait (1 s): run again once that run is done, or with a longer --wait",
      );
    } finally {
      await held.release();
    }
  });

  it('--wait takes a lock freed while it waits, and publishes', async () => {
    makeBundle(source, 'a', [SUMMARY], { id: 'a', created: '2026-05-30T11:10:00Z' });
    mkdirSync(join(dest, '.distributor.work'), { mode: 0o700 });
    const held = await holdLock();
    let released: Promise<void> | undefined;
    try {
      const report = await distributeRun({
        configPath: config,
        now: CLOCK,
        waitMs: 60_000,
        onProgress: (event) => {
          if (event.phase === 'wait') released ??= held.release();
        },
      });
      expect(outcomes(report)).toEqual([['a', 'published', '']]);
      // The lock was freed while the run waited, and the holder is gone.
      await expect(released).resolves.toBeUndefined();
    } finally {
      await (released ?? held.release());
    }
  });

  it('refuses a destination root that is missing or reached through a symlink', async () => {
    makeBundle(source, 'a', [SUMMARY], { id: 'a', created: '2026-05-30T11:10:00Z' });
    rmSync(dest, { recursive: true });
    expect(outcomes(await run())).toEqual([['a', 'refused', 'destination_root_unavailable']]);
    mkdirSync(join(work, 'real'));
    symlinkSync(join(work, 'real'), dest);
    expect(outcomes(await run())).toEqual([['a', 'refused', 'destination_root_unavailable']]);
    expect(describeTree(join(work, 'real'))).toEqual({});
  });

  it('refuses a bundle path inside another managed bundle and a symlinked parent at the destination', async () => {
    makeBundle(source, 'a', [SUMMARY], { id: 'a', created: '2026-05-30T11:10:00Z' });
    await run();
    rmSync(join(source, 'a'), { recursive: true });
    makeBundle(source, 'a/b', [SUMMARY], { id: 'ab', created: '2026-05-30T11:10:00Z' });
    expect(outcomes(await run())).toEqual([['a/b', 'refused', 'destination_nested_bundle']]);
    makeBundle(source, 'l/x', [SUMMARY], { id: 'lx', created: '2026-05-30T11:10:00Z' });
    mkdirSync(join(work, 'target'));
    symlinkSync(join(work, 'target'), join(dest, 'l'));
    expect(outcomes(await run())).toContainEqual(['l/x', 'refused', 'destination_symlink']);
    expect(describeTree(join(work, 'target'))).toEqual({});
  });

  it('regression: a root that is, or lies inside, a published bundle is refused before anything is made there', async () => {
    // A second configuration rooted in a published bundle put its lock (and,
    // below the bundle's folder, its bundles) inside that bundle, which its
    // own configuration could then never replace.
    makeBundle(source, 'daily/d1', [SUMMARY], { id: 'd1', created: '2026-05-30T11:10:00Z' });
    await run();
    const bundleFolder = () =>
      Object.fromEntries(
        Object.entries(describeTree(join(dest, 'daily', 'd1'))).filter(
          ([path]) => !path.startsWith('charts'),
        ),
      );
    const published = bundleFolder();
    const other = join(work, 'other');
    mkdirSync(other);
    makeBundle(other, 'extra', [SUMMARY], { id: 'extra', created: '2026-05-30T11:10:00Z' });
    for (const [root, where] of [
      [
        join(dest, 'daily', 'd1'),
        `root '${join(dest, 'daily', 'd1')}' is itself a published bundle's folder`,
      ],
      [
        join(dest, 'daily', 'd1', 'charts'),
        `root '${join(dest, 'daily', 'd1', 'charts')}' lies inside the published bundle '${join(dest, 'daily', 'd1')}' (it holds a .distributor.json, 1 folder above the root)`,
      ],
    ] as const) {
      mkdirSync(root, { recursive: true });
      mkdirSync(join(work, 'cfg'), { recursive: true });
      const second = writeConfig(join(work, 'cfg'), [
        { id: 'other', source: other, destinations: [{ id: 's', root }] },
      ]);
      for (const dryRun of [true, false]) {
        const report = await run({ configPath: second, dryRun });
        expect(outcomes(report)).toEqual([['extra', 'refused', 'destination_nested_bundle']]);
        const refusal = report.outcomes[0]?.refusal;
        expect(refusal?.hint).toContain(where);
        expect(refusal?.hint).toContain('set root: to a folder outside every published bundle');
        // At the root: line of the second configuration, the setting to change.
        expect(refusal?.location).toMatchObject({
          path: second,
          line: 8,
          pointer: 'pipelines[0].destinations[0].root',
        });
      }
      expect(bundleFolder()).toEqual(published);
      // No lock, no work area: the bundle folder holds what its state lists, and the folder inside it nothing.
      if (root.endsWith('charts')) expect(readdirSync(root)).toEqual([]);
      rmSync(join(dest, 'daily', 'd1', 'charts'), { recursive: true, force: true });
    }
    // A work_dir inside the bundle would put this destination's lock there just the same.
    const elsewhere = join(work, 'elsewhere');
    mkdirSync(elsewhere);
    mkdirSync(join(dest, 'daily', 'd1', 'charts'));
    const withWorkDir = writeConfig(join(work, 'cfg'), [
      {
        id: 'other',
        source: other,
        destinations: [{ id: 's', root: elsewhere, workDir: join(dest, 'daily', 'd1', 'charts') }],
      },
    ]);
    const refused = await run({ configPath: withWorkDir });
    expect(outcomes(refused)).toEqual([['extra', 'refused', 'destination_nested_bundle']]);
    expect(refused.outcomes[0]?.refusal?.hint).toContain(
      `work_dir '${join(dest, 'daily', 'd1', 'charts')}' lies inside the published bundle '${join(dest, 'daily', 'd1')}'`,
    );
    expect(refused.outcomes[0]?.refusal?.location).toMatchObject({
      pointer: 'pipelines[0].destinations[0].work_dir',
    });
    expect(readdirSync(join(dest, 'daily', 'd1', 'charts'))).toEqual([]);
    rmSync(join(dest, 'daily', 'd1', 'charts'), { recursive: true });
    // With no bundle to refuse (an empty source), the root is still refused, at its line: exit 2, not 0.
    const empty = join(work, 'empty');
    mkdirSync(empty);
    const idle = writeConfig(join(work, 'cfg'), [
      { id: 'idle', source: empty, destinations: [{ id: 's', root: join(dest, 'daily', 'd1') }] },
    ]);
    const idleRun = await run({ configPath: idle });
    expect(idleRun.status).not.toBe('ok');
    expect(
      idleRun.failures.map((failure) => [failure.reason_code, failure.refusal?.location?.pointer]),
    ).toEqual([['destination_nested_bundle', 'pipelines[0].destinations[0].root']]);
    // The first configuration still replaces its bundle.
    makeBundle(source, 'daily/d1', [REPORT], { id: 'd1', created: '2026-05-31T11:10:00Z' });
    expect(outcomes(await run())).toEqual([['daily/d1', 'replaced', '']]);
  });

  it('refuses an unreadable source file without writing', async () => {
    const bundle = makeBundle(source, 'a', [SUMMARY], { id: 'a', created: '2026-05-30T11:10:00Z' });
    chmodSync(join(bundle, 'summary.txt'), 0o000);
    const report = await run();
    expect(outcomes(report)).toEqual([['a', 'refused', 'file_unreadable']]);
    // Regression: the hint said only which entry of the manifest lists the file, not why it failed.
    expect(report.failures[0]?.refusal?.hint).toBe(
      'manifest.json lists it as files[0]; the account running sealkit may not read it (EACCES): check the permissions of the file and of its folders',
    );
  });
});
