import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../test/helpers/cli.js';
import {
  describeTree,
  type LocalDestinationFixture,
  makeBundle,
  sha256Of,
  writeConfig,
} from '../../../test/helpers/distributor-fixtures.js';
import type { Step } from '../backend.js';
import { distributeRun } from './run.js';

/**
 * Sites people publish as they are, on a real local destination: the assets
 * category for HTML-only sites, pages in the configured language with links
 * to the bundle's other pages, and a changed outputs configuration that
 * republishes an already-published bundle through the same atomic exchange.
 */
const REPORT = {
  path: 'report.md',
  content: '# Week 22\n\nSee the [notes](notes.md) and the [data](data/sales.csv).\n\n![chart](chart.svg)\n',
};
const NOTES = { path: 'notes.md', content: '# Notes\n\nBack to the [report](report.md#top).\n' };
const CHART = {
  path: 'chart.svg',
  content: '<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>',
};
const DATA = { path: 'data/sales.csv', content: 'region,sales\nNorth,1204\n' };
const LEGACY = { path: 'legacy.html', content: '<!DOCTYPE html><title>old</title>' };
const FILES = [REPORT, NOTES, CHART, DATA, LEGACY];

let work: string;
let source: string;
let dest: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'sealkit-site-'));
  source = join(work, 'src');
  dest = join(work, 'site');
  mkdirSync(source);
  mkdirSync(dest);
  makeBundle(source, 'sales/week-22', FILES, { id: 'sales.week-22', created: '2026-05-30T11:10:00Z' });
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

const CLOCK = () => new Date('2026-06-01T00:00:00Z');
const configWith = (destination: Omit<LocalDestinationFixture, 'id' | 'root'>) =>
  writeConfig(work, [{ id: 'sales', source, destinations: [{ id: 'site', root: dest, ...destination }] }]);
const run = async (destination: Omit<LocalDestinationFixture, 'id' | 'root'>, steps?: Step[]) =>
  distributeRun({
    configPath: configWith(destination),
    now: CLOCK,
    ...(steps === undefined ? {} : { beforeStep: (step: Step) => void steps.push(step) }),
  });
const outcomes = (report: Awaited<ReturnType<typeof run>>) =>
  report.outcomes.map((o) => [o.outcome, o.reason_code ?? o.reason ?? '']);
const bundle = () => join(dest, 'sales', 'week-22');
const published = () =>
  Object.fromEntries(
    Object.entries(describeTree(bundle())).map(([path, entry]) => [path, entry.split(' ')[0]]),
  );
const state = () =>
  JSON.parse(readFileSync(join(bundle(), '.distributor.json'), 'utf8')) as {
    outputs: { path: string; kind: string; source_path: string; transform?: string }[];
  };
const page = (name: string) => readFileSync(join(bundle(), name), 'utf8');

describe('an HTML-only site with assets', () => {
  it('publishes pages and the listed files that are neither Markdown nor HTML, recorded as source', async () => {
    expect(outcomes(await run({ source: false, html: { lang: 'en' }, assets: true }))).toEqual([
      ['published', ''],
    ]);
    expect(published()).toEqual({
      '.distributor.json': 'file',
      'chart.svg': 'file',
      data: 'dir',
      'data/sales.csv': 'file',
      'notes.html': 'file',
      'report.html': 'file',
    });
    expect(describeTree(bundle())['chart.svg']).toBe(`file 644 ${sha256Of(CHART.content)}`);
    expect(state().outputs.map((o) => [o.path, o.kind, o.source_path, o.transform ?? ''])).toEqual([
      ['chart.svg', 'source', 'chart.svg', ''],
      ['data/sales.csv', 'source', 'data/sales.csv', ''],
      ['notes.html', 'generated', 'notes.md', 'markdown_to_html'],
      ['report.html', 'generated', 'report.md', 'markdown_to_html'],
    ]);
    expect(page('report.html')).toContain('<html lang="en">');
    expect(page('report.html')).toContain('<a href="notes.html">notes</a>');
    expect(page('report.html')).toContain('<a href="data/sales.csv">data</a>');
    expect(page('notes.html')).toContain('<a href="report.html#top">report</a>');
  });

  it('gives each destination of one pipeline its own lang from one validation', async () => {
    const en = join(work, 'en');
    const de = join(work, 'de');
    mkdirSync(en);
    mkdirSync(de);
    const config = writeConfig(work, [
      {
        id: 'sales',
        source,
        destinations: [
          { id: 'en', root: en, source: false, html: { lang: 'en' } },
          { id: 'de', root: de, source: false, html: { lang: 'de' } },
          { id: 'plain', root: dest, source: false, html: true },
        ],
      },
    ]);
    const report = await distributeRun({ configPath: config, now: CLOCK });
    expect(report.outcomes.map((o) => o.outcome)).toEqual(['published', 'published', 'published']);
    const head = (root: string) =>
      readFileSync(join(root, 'sales', 'week-22', 'report.html'), 'utf8').split('\n')[1];
    expect([head(en), head(de), head(dest)]).toEqual(['<html lang="en">', '<html lang="de">', '<html>']);
  });
});

describe('an outputs change republishes (reason outputs_changed)', () => {
  it('regression: turning html and assets on for a published archive replaces it, then skips', async () => {
    expect(outcomes(await run({ source: false, html: false, assets: true }))).toEqual([['published', '']]);
    expect(Object.keys(published())).toEqual(['.distributor.json', 'chart.svg', 'data', 'data/sales.csv']);

    const turnedOn = await run({ source: false, html: true, assets: true });
    expect(outcomes(turnedOn)).toEqual([['replaced', 'outputs_changed']]);
    expect(turnedOn.plan.items[0]).toMatchObject({ outcome: 'replaced', reason: 'outputs_changed' });
    expect(Object.keys(published())).toEqual([
      '.distributor.json',
      'chart.svg',
      'data',
      'data/sales.csv',
      'notes.html',
      'report.html',
    ]);
    // No old tree kept aside, nothing left in the work area but the lock.
    expect(Object.keys(describeTree(join(dest, '.distributor.work')))).toEqual(['lock']);

    const steps: Step[] = [];
    expect(outcomes(await run({ source: false, html: true, assets: true }, steps))).toEqual([
      ['skipped_same', ''],
    ]);
    // A rerun with nothing to change writes nothing, not even a snapshot.
    expect(steps.filter((step) => step.kind === 'create' || step.kind === 'mkdir')).toEqual([]);
  });

  it('turning an output off removes exactly its files through the exchange', async () => {
    await run({ source: true, html: true });
    expect(Object.keys(published())).toContain('report.md');
    const off = await run({ source: false, html: true });
    expect(outcomes(off)).toEqual([['replaced', 'outputs_changed']]);
    expect(Object.keys(published())).toEqual(['.distributor.json', 'notes.html', 'report.html']);
  });

  it('a new lang re-renders and republishes the pages; the rerun after it writes nothing', async () => {
    await run({ source: false, html: { lang: 'en' } });
    const steps: Step[] = [];
    const changed = await run({ source: false, html: { lang: 'fr' } }, steps);
    expect(outcomes(changed)).toEqual([['replaced', 'outputs_changed']]);
    expect(page('report.html')).toContain('<html lang="fr">');
    expect(steps.some((step) => step.kind === 'exchange')).toBe(true);
    const again: Step[] = [];
    expect(outcomes(await run({ source: false, html: { lang: 'fr' } }, again))).toEqual([
      ['skipped_same', ''],
    ]);
    expect(again).toEqual([]);
  });

  it('--dry-run shows the replacement and its reason, and writes nothing', async () => {
    await run({ source: true, html: false });
    const before = describeTree(dest);
    const dry = await distributeRun({ configPath: configWith({ source: true, html: true }), dryRun: true });
    expect(outcomes(dry)).toEqual([['replaced', 'outputs_changed']]);
    expect(describeTree(dest)).toEqual(before);
  });

  it('says why in the CLI: the REASON column, the dry-run plan line and --json', async () => {
    await run({ source: true, html: false });
    const config = configWith({ source: true, html: true });
    const dry = runCli(['distribute', 'run', '--dry-run', '--config', config]);
    expect(dry.status).toBe(0);
    expect(dry.stdout.toString()).toContain('replaced sales -> site: sales/week-22 (outputs_changed)\n');
    const real = runCli(['distribute', 'run', '--config', config]);
    expect(real.status).toBe(0);
    expect(real.stdout.toString()).toMatch(/\nsales +site +sales\/week-22 +replaced +outputs_changed\n/);
    const json = JSON.parse(
      runCli([
        'distribute',
        'run',
        '--config',
        configWith({ source: true, html: false }),
        '--json',
      ]).stdout.toString(),
    );
    expect(json.outcomes).toMatchObject([{ outcome: 'replaced', reason: 'outputs_changed', outputs: 5 }]);
    expect(json.outcomes[0].reason_code).toBeUndefined();
  });

  it('keeps the safety rules: a foreign file in the managed bundle refuses the replacement', async () => {
    await run({ source: true, html: false });
    writeFileSync(join(bundle(), 'foreign.txt'), 'not ours\n');
    const refused = await run({ source: true, html: true });
    expect(outcomes(refused)).toEqual([['refused', 'destination_unlisted_entry']]);
    expect(readFileSync(join(bundle(), 'foreign.txt'), 'utf8')).toBe('not ours\n');
  });
});
