// `distribute run --checksum` at a local destination, on real files: an
// output someone rewrote with other bytes of the same size is seen only
// when outputs are compared by content, and is then refused like one
// written over with another size, the file left as it is.
import { randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../../../test/helpers/cli.js';
import {
  describeTree,
  makeBundle,
  weatherSiteTree,
  writeConfig,
} from '../../../../test/helpers/distributor-fixtures.js';
import { distributeRun } from '../../run/run.js';

const CLOCK = () => new Date('2026-06-01T00:00:00Z');
const REPORT = { path: 'report.md', content: '# Brentwood\n\nSunny.\n' };
const DAYS = { path: 'data/days.csv', content: 'day,sky\nmon,sun\n' };
/** The same number of bytes as DAYS, other content: the edit a size comparison cannot see. */
const DAYS_EDITED = 'day,sky\nmon,fog\n';

const tree = weatherSiteTree('sealkit-checksum-');

const run = (options: { readonly checksum?: boolean; readonly dryRun?: boolean } = {}) =>
  distributeRun({
    configPath: tree.config,
    now: CLOCK,
    ...(options.checksum === true ? { checksum: true } : {}),
    ...(options.dryRun === true ? { dryRun: true } : {}),
  });
const outcomes = (report: Awaited<ReturnType<typeof run>>) =>
  report.outcomes.map((o) => [o.bundle_dir, o.outcome, o.reason_code ?? '']);
const published = (name: string, files = [REPORT, DAYS], created = '2026-05-30T11:10:00Z') =>
  makeBundle(tree.source, name, files, { id: name, created });

describe('distribute run --checksum, local destination', () => {
  it('regression: a same-size edit of a published output stays skipped_same without --checksum, and is refused destination_incomplete with it, naming the file', async () => {
    published('b');
    expect(outcomes(await run())).toEqual([['b', 'published', '']]);
    writeFileSync(join(tree.dest, 'b', 'data', 'days.csv'), DAYS_EDITED);
    const bySize = await run();
    expect(outcomes(bySize)).toEqual([['b', 'skipped_same', '']]);
    expect(bySize.plan.outputs_compared_by).toBe('size');

    const before = describeTree(tree.dest);
    const byContent = await run({ checksum: true });
    expect(byContent.plan.outputs_compared_by).toBe('sha256');
    expect(outcomes(byContent)).toEqual([['b', 'refused', 'destination_incomplete']]);
    const [item] = byContent.outcomes;
    expect(item?.entry_path).toBe('data/days.csv');
    expect(item?.entry_sha256_differs).toBe(true);
    expect(item?.entry_size).toBeUndefined();
    expect(item?.refusal?.hint).toBe(
      `destination 'site', bundle 'b': outputs its .distributor.json lists are not as published in '${join(tree.dest, 'b')}' (the only one: 'data/days.csv' has the size it records, but its bytes differ from what sealkit published, so something else wrote over it): sealkit never overwrites what it did not write; put the published file back, or remove the published bundle folder, and the next run publishes it anew`,
    );
    // Nothing written, moved or deleted: the edited file is byte for byte what was put there.
    expect(describeTree(tree.dest)).toEqual(before);
    expect(readFileSync(join(tree.dest, 'b', 'data', 'days.csv'), 'utf8')).toBe(DAYS_EDITED);
  });

  it('regression: with --checksum a newer bundle does not remove an output edited with the same size (it did, with the old outputs)', async () => {
    published('b');
    await run();
    writeFileSync(join(tree.dest, 'b', 'data', 'days.csv'), DAYS_EDITED);
    rmSync(join(tree.source, 'b'), { recursive: true });
    published(
      'b',
      [REPORT, { path: 'data/days.csv', content: 'day,sky\ntue,rain\n' }],
      '2026-06-01T00:00:00Z',
    );
    const before = describeTree(tree.dest);
    expect(outcomes(await run({ checksum: true }))).toEqual([['b', 'refused', 'destination_incomplete']]);
    expect(describeTree(tree.dest)).toEqual(before);
    expect(readFileSync(join(tree.dest, 'b', 'data', 'days.csv'), 'utf8')).toBe(DAYS_EDITED);
    // The published file put back, the same run replaces the bundle.
    writeFileSync(join(tree.dest, 'b', 'data', 'days.csv'), DAYS.content);
    expect(outcomes(await run({ checksum: true }))).toEqual([['b', 'replaced', '']]);
    expect(readFileSync(join(tree.dest, 'b', 'data', 'days.csv'), 'utf8')).toBe('day,sky\ntue,rain\n');
  });

  it('regression: without --checksum too, a newer bundle does not remove an output edited with the same size (a nightly run did, exit 0)', async () => {
    published('b');
    await run();
    writeFileSync(join(tree.dest, 'b', 'data', 'days.csv'), DAYS_EDITED);
    // Skipped while the bundle is unchanged: a rerun reads no output.
    expect(outcomes(await run())).toEqual([['b', 'skipped_same', '']]);
    rmSync(join(tree.source, 'b'), { recursive: true });
    published(
      'b',
      [{ path: 'report.md', content: '# Brentwood\n\nSunny, then rain.\n' }, DAYS],
      '2026-06-01T00:00:00Z',
    );
    const before = describeTree(tree.dest);
    for (const dryRun of [true, false]) {
      const report = await run({ dryRun });
      expect(report.plan.outputs_compared_by).toBe('size');
      expect(outcomes(report)).toEqual([['b', 'refused', 'destination_incomplete']]);
      expect(report.outcomes[0]?.entry_path).toBe('data/days.csv');
      expect(report.outcomes[0]?.entry_sha256_differs).toBe(true);
    }
    expect(describeTree(tree.dest)).toEqual(before);
    expect(readFileSync(join(tree.dest, 'b', 'data', 'days.csv'), 'utf8')).toBe(DAYS_EDITED);
    writeFileSync(join(tree.dest, 'b', 'data', 'days.csv'), DAYS.content);
    expect(outcomes(await run())).toEqual([['b', 'replaced', '']]);
  });

  it('regression: a replacement for other outputs asked for reads the old ones too (a same-size edit was overwritten, exit 0)', async () => {
    published('b');
    await run();
    writeFileSync(join(tree.dest, 'b', 'data', 'days.csv'), DAYS_EDITED);
    // The same bundle, now published without its pages: the outputs change, not the manifest.
    writeConfig(tree.work, [
      { id: 'weather', source: tree.source, destinations: [{ id: 'site', root: tree.dest, html: false }] },
    ]);
    const before = describeTree(tree.dest);
    const report = await run();
    expect(outcomes(report)).toEqual([['b', 'refused', 'destination_incomplete']]);
    expect(report.outcomes[0]?.entry_path).toBe('data/days.csv');
    expect(describeTree(tree.dest)).toEqual(before);
  });

  it('regression: before a replacement, an output this account may not read is judged by its size, as it was (it refused the bundle)', async () => {
    published('b');
    await run();
    chmodSync(join(tree.dest, 'b', 'data', 'days.csv'), 0o000);
    rmSync(join(tree.source, 'b'), { recursive: true });
    published(
      'b',
      [REPORT, { path: 'data/days.csv', content: 'day,sky\ntue,rain\n' }],
      '2026-06-01T00:00:00Z',
    );
    expect(outcomes(await run())).toEqual([['b', 'replaced', '']]);
    expect(readFileSync(join(tree.dest, 'b', 'data', 'days.csv'), 'utf8')).toBe('day,sky\ntue,rain\n');
  });

  it('finds no difference in an intact bundle, its rendered pages included', async () => {
    published('a');
    published('b');
    await run();
    const report = await run({ checksum: true });
    expect(outcomes(report)).toEqual([
      ['a', 'skipped_same', ''],
      ['b', 'skipped_same', ''],
    ]);
    expect(report.status).toBe('ok');
  });

  it('dry run --checksum writes nothing, and its plan is the very plan the real run applies', async () => {
    published('a');
    published('b');
    await run();
    writeFileSync(join(tree.dest, 'b', 'report.md'), '# Brentwood\n\nRainy.\n');
    const before = describeTree(tree.work);
    const dry = await run({ checksum: true, dryRun: true });
    expect(describeTree(tree.work)).toEqual(before);
    expect(dry.dry_run).toBe(true);
    expect(outcomes(dry)).toEqual([
      ['a', 'skipped_same', ''],
      ['b', 'refused', 'destination_incomplete'],
    ]);
    expect(dry.outcomes[1]?.entry_path).toBe('report.md');
    const real = await run({ checksum: true });
    expect(real.plan).toEqual(dry.plan);
    expect(describeTree(tree.work)).toEqual(before);
  });

  it('hashes a large output (hashed on a thread) and names the one whose bytes changed', async () => {
    const large = randomBytes(3 * 1024 * 1024);
    const files = [
      REPORT,
      { path: 'data/large.bin', content: large },
      { path: 'data/medium.bin', content: randomBytes(100 * 1024) },
    ];
    makeBundle(tree.source, 'b', files, { id: 'b', created: '2026-05-30T11:10:00Z' });
    await run();
    expect(outcomes(await run({ checksum: true }))).toEqual([['b', 'skipped_same', '']]);
    const edited = Buffer.from(large);
    edited[2 * 1024 * 1024 + 17] = (edited[2 * 1024 * 1024 + 17] ?? 0) ^ 0xff;
    writeFileSync(join(tree.dest, 'b', 'data', 'large.bin'), edited);
    const report = await run({ checksum: true });
    expect(outcomes(report)).toEqual([['b', 'refused', 'destination_incomplete']]);
    expect(report.outcomes[0]?.entry_path).toBe('data/large.bin');
    expect(readFileSync(join(tree.dest, 'b', 'data', 'large.bin')).equals(edited)).toBe(true);
  });

  it("compares many bundles whose outputs hash on a thread while the next are read, each verdict its own bundle's", async () => {
    const names = Array.from({ length: 12 }, (_, at) => `b${String(at).padStart(2, '0')}`);
    const larges = new Map(names.map((name) => [name, randomBytes(200 * 1024 + names.indexOf(name))]));
    for (const name of names)
      makeBundle(tree.source, name, [REPORT, { path: 'data/large.bin', content: larges.get(name) ?? '' }], {
        id: name,
        created: '2026-05-30T11:10:00Z',
      });
    await run();
    // A same-size edit of a large output (hashed on the thread) in one bundle,
    // of a small one (hashed in line) in another, an unreadable output in a
    // third, between bundles compared at the same time.
    const edited = Buffer.from(larges.get('b03') ?? '');
    edited[150_000] = (edited[150_000] ?? 0) ^ 0x01;
    writeFileSync(join(tree.dest, 'b03', 'data', 'large.bin'), edited);
    writeFileSync(join(tree.dest, 'b06', 'report.md'), REPORT.content.replace('Sunny', 'Rainy'));
    const unreadable = join(tree.dest, 'b09', 'data', 'large.bin');
    const before = describeTree(tree.dest);
    chmodSync(unreadable, 0o000);
    try {
      const report = await run({ checksum: true });
      expect(outcomes(report)).toEqual(
        names.map((name) =>
          name === 'b03' || name === 'b06'
            ? [name, 'refused', 'destination_incomplete']
            : name === 'b09'
              ? [name, 'refused', 'destination_output_unreadable']
              : [name, 'skipped_same', ''],
        ),
      );
      const byBundle = new Map(report.outcomes.map((item) => [item.bundle_dir, item]));
      expect(byBundle.get('b03')?.entry_path).toBe('data/large.bin');
      expect(byBundle.get('b06')?.entry_path).toBe('report.md');
      expect(byBundle.get('b09')?.entry_path).toBe('data/large.bin');
    } finally {
      chmodSync(unreadable, 0o644);
    }
    expect(describeTree(tree.dest)).toEqual(before);
  });

  it('regression: the CLI run with --checksum ends with its report and exit 0 when its last outputs hash on a thread (the process could end mid-run, exit 13)', () => {
    for (const name of ['a', 'b', 'c', 'd', 'e', 'f'])
      makeBundle(
        tree.source,
        name,
        [REPORT, { path: 'data/large.bin', content: randomBytes(16 * 1024 * 1024) }],
        {
          id: name,
          created: '2026-05-30T11:10:00Z',
        },
      );
    expect(runCli(['distribute', 'run', '--config', tree.config, '--quiet']).status).toBe(0);
    for (let round = 0; round < 3; round += 1) {
      const rerun = runCli(['distribute', 'run', '--config', tree.config, '--checksum', '--json']);
      expect({ status: rerun.status, stderr: rerun.stderr.toString() }).toEqual({ status: 0, stderr: '' });
      const report = JSON.parse(rerun.stdout.toString()) as { outcomes: { outcome: string }[] };
      expect(report.outcomes.map((item) => item.outcome)).toEqual(Array(6).fill('skipped_same'));
    }
  });

  it('never follows a link put in place of an output, even to a file holding its published bytes', async () => {
    published('b');
    await run();
    const copy = join(tree.work, 'days-copy.csv');
    writeFileSync(copy, DAYS.content);
    rmSync(join(tree.dest, 'b', 'data', 'days.csv'));
    symlinkSync(copy, join(tree.dest, 'b', 'data', 'days.csv'));
    const report = await run({ checksum: true });
    expect(outcomes(report)).toEqual([['b', 'refused', 'destination_incomplete']]);
    expect(report.outcomes[0]?.entry_path).toBe('data/days.csv');
    expect(report.outcomes[0]?.entry_sha256_differs).toBeUndefined();
  });

  it('regression: an output it may not read is refused destination_output_unreadable with its entry_path, the path and why (was destination_unreachable, about S3 networks, with no entry_path)', async () => {
    published('b');
    await run();
    chmodSync(join(tree.dest, 'b', 'data', 'days.csv'), 0o000);
    try {
      // Sizes alone need no read: without --checksum the rerun is what it was.
      expect(outcomes(await run())).toEqual([['b', 'skipped_same', '']]);
      const report = await run({ checksum: true });
      expect(outcomes(report)).toEqual([['b', 'refused', 'destination_output_unreadable']]);
      expect(report.outcomes[0]?.entry_path).toBe('data/days.csv');
      expect(report.outcomes[0]?.refusal?.message).toBe(
        'an output the destination .distributor.json lists could not be read to compare its SHA-256 (--checksum); nothing of this bundle was written',
      );
      expect(report.outcomes[0]?.refusal?.hint).toBe(
        `destination 'site', bundle 'b': '${join(tree.dest, 'b', 'data', 'days.csv')}' cannot be read to compare its SHA-256 (--checksum): the account running sealkit may not read it (EACCES): check the permissions of the file and of its folders`,
      );
    } finally {
      chmodSync(join(tree.dest, 'b', 'data', 'days.csv'), 0o644);
    }
  });
  it('regression: a hand-edited SHA-256 of a copied output in .distributor.json is destination_state_invalid with and without --checksum (was replaced outputs_changed without it, destination_incomplete with it)', async () => {
    published('b');
    await run();
    const statePath = join(tree.dest, 'b', '.distributor.json');
    const text = readFileSync(statePath, 'utf8');
    const state = JSON.parse(text) as { outputs: { path: string; sha256: string }[] };
    const index = state.outputs.findIndex((output) => output.path === 'data/days.csv');
    const recorded = state.outputs[index]?.sha256 ?? '';
    expect(recorded).toMatch(/^sha256:[0-9a-f]{64}$/);
    const at = text.indexOf(recorded, text.indexOf('"outputs"'));
    writeFileSync(
      statePath,
      `${text.slice(0, at)}sha256:${'0'.repeat(64)}${text.slice(at + recorded.length)}`,
    );
    const line = text.slice(0, at).split('\n').length;
    const before = describeTree(tree.dest);
    for (const checksum of [false, true]) {
      const report = await run({ checksum });
      expect(outcomes(report)).toEqual([['b', 'refused', 'destination_state_invalid']]);
      expect(report.outcomes[0]?.refusal?.hint).toContain(
        `'${join(tree.dest, 'b', '.distributor.json')}' is not one sealkit wrote: outputs[${index}].sha256 at line ${line}, column 17 is not the SHA-256 source.manifest records for its source_path`,
      );
      expect(describeTree(tree.dest)).toEqual(before);
    }
  });
});
