// What stands where a local destination's outputs were, on real files: a
// folder of the operator's, a symbolic link or a FIFO at an output's name
// is named for what it is, with the advice to move it away, never to remove
// the bundle folder it sits in; entries sealkit did not write are moved
// out before any advice to remove that folder; the hints count what they
// name the first of, and a rendered page is not "put back".
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeTree, makeBundle, weatherSiteTree } from '../../../../test/helpers/distributor-fixtures.js';
import { distributeRun } from '../../run/run.js';

const CLOCK = () => new Date('2026-06-01T00:00:00Z');
const REPORT = { path: 'report.md', content: '# Brentwood\n\nSunny.\n' };
const DAYS = { path: 'data/days.csv', content: 'day,sky\nmon,sun\n' };
const WIND = { path: 'data/wind.csv', content: 'day,kmh\nmon,12\n' };

const tree = weatherSiteTree('sealkit-entry-kinds-');

const run = (checksum = false) =>
  distributeRun({ configPath: tree.config, now: CLOCK, ...(checksum ? { checksum: true } : {}) });
const published = (files = [REPORT, DAYS], created = '2026-05-30T11:10:00Z') =>
  makeBundle(tree.source, 'b', files, { id: 'b', created });
const bundle = () => join(tree.dest, 'b');

describe('what stands where an output was, local destination', () => {
  it('regression: a folder holding the operator\'s file where an output was is named a folder (entry_kind), and the hint says to move it out, not to remove the bundle folder with it (was "gone" and "remove the published bundle folder")', async () => {
    published();
    await run();
    rmSync(join(bundle(), 'data', 'days.csv'));
    mkdirSync(join(bundle(), 'data', 'days.csv'));
    writeFileSync(join(bundle(), 'data', 'days.csv', 'precious.txt'), 'keep me\n');
    const before = describeTree(tree.dest);
    for (const checksum of [false, true]) {
      const report = await run(checksum);
      const [item] = report.outcomes;
      expect([item?.outcome, item?.reason_code]).toEqual(['refused', 'destination_incomplete']);
      expect(item?.entry_path).toBe('data/days.csv');
      expect(item?.entry_kind).toBe('folder');
      expect(item?.entry_count).toBe(1);
      expect(item?.refusal?.hint).toBe(
        `destination 'site', bundle 'b': outputs its .distributor.json lists are not as published in '${bundle()}' (the only one: 'data/days.csv' is now a folder, not the file sealkit published): sealkit never deletes what it did not write; move it out of the bundle folder, then remove the published bundle folder, and the next run publishes it anew`,
      );
      expect(item?.refusal?.hint).not.toContain('gone');
      expect(describeTree(tree.dest)).toEqual(before);
    }
    expect(readFileSync(join(bundle(), 'data', 'days.csv', 'precious.txt'), 'utf8')).toBe('keep me\n');
  });

  it('regression: a symbolic link where an output was is named a link, and with a newer source the unlisted entry is that link, named (was unnamed, "beside the outputs")', async () => {
    published();
    await run();
    const elsewhere = join(tree.work, 'elsewhere.md');
    writeFileSync(elsewhere, 'mine\n');
    rmSync(join(bundle(), 'report.md'));
    symlinkSync(elsewhere, join(bundle(), 'report.md'));
    const same = await run(true);
    expect(same.outcomes[0]?.reason_code).toBe('destination_incomplete');
    expect(same.outcomes[0]?.entry_kind).toBe('symlink');
    expect(same.outcomes[0]?.refusal?.hint).toContain(
      "(the only one: 'report.md' is now a symbolic link, not the file sealkit published): sealkit never deletes what it did not write; move it out of the bundle folder, then remove the published bundle folder",
    );

    published([REPORT, DAYS], '2026-05-31T11:10:00Z');
    const before = describeTree(tree.work);
    const newer = await run();
    const [item] = newer.outcomes;
    expect([item?.outcome, item?.reason_code]).toEqual(['refused', 'destination_unlisted_entry']);
    expect(item?.entry_path).toBe('report.md');
    expect(item?.entry_kind).toBe('symlink');
    expect(item?.entry_count).toBe(1);
    expect(item?.refusal?.hint).toBe(
      `destination 'site', bundle 'b': an entry sealkit did not write is in '${bundle()}' ('report.md', a symbolic link), and it never deletes it: move it out of the bundle folder to let it replace the bundle`,
    );
    expect(describeTree(tree.work)).toEqual(before);
    expect(readFileSync(elsewhere, 'utf8')).toBe('mine\n');
  });

  it('regression: a FIFO where an output was is named a special file, and nothing hangs on it', async () => {
    published();
    await run();
    rmSync(join(bundle(), 'data', 'days.csv'));
    execFileSync('mkfifo', [join(bundle(), 'data', 'days.csv')]);
    for (const checksum of [false, true]) {
      const [item] = (await run(checksum)).outcomes;
      expect(item?.reason_code).toBe('destination_incomplete');
      expect(item?.entry_kind).toBe('special');
      expect(item?.refusal?.hint).toContain(
        "'data/days.csv' is now a special file (a FIFO, a socket or a device)",
      );
    }
    published([REPORT, DAYS], '2026-05-31T11:10:00Z');
    const [item] = (await run(true)).outcomes;
    expect([item?.reason_code, item?.entry_path, item?.entry_kind]).toEqual([
      'destination_unlisted_entry',
      'data/days.csv',
      'special',
    ]);
  });

  it('regression: beside a deleted output, entries sealkit did not write are named and moved out before the bundle folder is removed (the hint said to remove it, with them)', async () => {
    published();
    await run();
    rmSync(join(bundle(), 'data', 'days.csv'));
    writeFileSync(join(bundle(), 'notes.txt'), 'mine\n');
    mkdirSync(join(bundle(), 'drafts'));
    writeFileSync(join(bundle(), 'drafts', 'a.md'), 'mine\n');
    const [item] = (await run()).outcomes;
    expect(item?.reason_code).toBe('destination_incomplete');
    expect(item?.unlisted_path).toBe('drafts');
    // A folder with what it holds is one entry to move.
    expect(item?.unlisted_count).toBe(2);
    expect(item?.refusal?.hint).toBe(
      `destination 'site', bundle 'b': outputs its .distributor.json lists are gone from '${bundle()}' (the only one: 'data/days.csv'): first move what sealkit did not write there (2 entries, the first: 'drafts') out of it, then remove the published bundle folder, and the next run publishes it anew`,
    );
  });

  it('regression: the hint and --json count the outputs not as published, not only the first (was "the first" with no count)', async () => {
    published([REPORT, DAYS, WIND]);
    await run();
    writeFileSync(join(bundle(), 'data', 'days.csv'), 'day,sky\nmon,fog\n');
    writeFileSync(join(bundle(), 'data', 'wind.csv'), 'day,kmh\nmon,99\n');
    writeFileSync(join(bundle(), 'report.md'), '# Brentwood\n\nRainy.\n');
    const [item] = (await run(true)).outcomes;
    expect(item?.entry_path).toBe('data/days.csv');
    expect(item?.entry_count).toBe(3);
    expect(item?.refusal?.hint).toContain("(the first of 3: 'data/days.csv' has the size it records");
    writeFileSync(join(bundle(), 'extra.txt'), 'mine\n');
    writeFileSync(join(bundle(), 'more.txt'), 'mine\n');
    published([REPORT, DAYS, WIND], '2026-05-31T11:10:00Z');
    const [unlisted] = (await run(true)).outcomes;
    expect([unlisted?.reason_code, unlisted?.entry_path, unlisted?.entry_count]).toEqual([
      'destination_unlisted_entry',
      'extra.txt',
      2,
    ]);
    expect(unlisted?.refusal?.hint).toContain(
      "entries sealkit did not write are in '" +
        bundle() +
        "' (the first of 2: 'extra.txt'), and it never deletes them: move them out of the bundle folder",
    );
  });

  it('regression: a rendered page written over is not to be "put back" (the source holds no copy): the hint says the next run renders it anew', async () => {
    published();
    await run();
    const page = join(bundle(), 'report.html');
    const html = readFileSync(page, 'utf8');
    writeFileSync(page, html.replace('Sunny', 'Sunnx'));
    const [item] = (await run(true)).outcomes;
    expect([item?.reason_code, item?.entry_path, item?.entry_generated]).toEqual([
      'destination_incomplete',
      'report.html',
      true,
    ]);
    expect(item?.refusal?.hint).toContain(
      "sealkit never overwrites what it did not write; 'report.html' is a page sealkit rendered, which no file of the source holds to put back: remove the published bundle folder (move the edited page out of it first to keep it), and the next run renders and publishes it anew",
    );
    expect(item?.refusal?.hint).not.toContain('put the published file back');
  });
});
