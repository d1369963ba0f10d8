import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli } from '../../../test/helpers/cli.js';
import {
  describeTree,
  fileRecords,
  makeBundle,
  writeConfig,
} from '../../../test/helpers/distributor-fixtures.js';
import { scanForSentinels } from '../../../test/helpers/sentinels.js';
import type { ProgressEvent } from '../../distributor/index.js';
import { progressLine, sentAgain } from './distribute.js';

let work: string;
let source: string;
let dest: string;
let config: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'sealkit-cli-distribute-'));
  source = join(work, 'src');
  dest = join(work, 'dest');
  mkdirSync(source);
  mkdirSync(dest);
  config = writeConfig(work, [{ id: 'weather', source, destinations: [{ id: 'site', root: dest }] }]);
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

const REPORT = { path: 'report.md', content: '# Daily\n\nSunny.\n' };

describe('sealkit distribute run', () => {
  it('regression: a listed page left out is advised source: true, and a folder link names its index page', () => {
    const page = { path: 'report.md', content: '# W03\n\n[old](old.html) [kit](kit/) [data](data.csv)\n' };
    makeBundle(
      source,
      'weather/w03',
      [
        page,
        { path: 'old.html', content: '<p>old</p>\n' },
        { path: 'kit/index.html', content: '<p>kit</p>\n' },
        { path: 'data.csv', content: 'a\n' },
      ],
      { id: 'w03', created: '2026-05-30T11:10:00Z' },
    );
    const htmlOnly = writeConfig(work, [
      { id: 'weather', source, destinations: [{ id: 'site', root: dest, source: false, html: true }] },
    ]);
    const dry = runCli(['distribute', 'run', '--config', htmlOnly, '--dry-run']);
    expect(dry.status).toBe(0);
    expect(dry.stdout.toString()).toContain(
      [
        '3 links in these pages will not load at their destination (the pages are published as written):',
        "  site: weather/w03/report.md:3: link old.html is listed, but not among this destination's outputs (source: true copies it as it is; assets: true copies charts and data only)",
        "  site: weather/w03/report.md:3: link kit/ leads to kit/index.html, which is listed, but not among this destination's outputs (source: true copies it as it is; assets: true copies charts and data only)",
        "  site: weather/w03/report.md:3: link data.csv is listed, but not among this destination's outputs (assets: true publishes charts and data beside the pages)",
      ].join('\n'),
    );
    const json = runCli(['distribute', 'run', '--config', htmlOnly, '--dry-run', '--json']);
    const report = JSON.parse(json.stdout.toString()) as {
      plan: { items: { link_warnings?: { href: string; published_by?: string; file?: string }[] }[] };
    };
    expect(report.plan.items[0]?.link_warnings?.map((w) => [w.href, w.published_by, w.file])).toEqual([
      ['old.html', 'source', 'old.html'],
      ['kit/', 'source', 'kit/index.html'],
      ['data.csv', 'assets', 'data.csv'],
    ]);
  });

  it('regression: a link to a file another bundle lists but the outputs leave out says which output, not to check the name', () => {
    const page = { path: 'report.md', content: '# W03\n\n[last week](../w02/data.csv)\n' };
    makeBundle(source, 'weather/w03', [page], { id: 'w03', created: '2026-05-30T11:10:00Z' });
    makeBundle(
      source,
      'weather/w02',
      [
        { path: 'report.md', content: '# W02\n' },
        { path: 'data.csv', content: 'a\n' },
      ],
      { id: 'w02', created: '2026-05-23T11:10:00Z' },
    );
    const htmlOnly = writeConfig(work, [
      { id: 'weather', source, destinations: [{ id: 'site', root: dest, source: false, html: true }] },
    ]);
    const dry = runCli(['distribute', 'run', '--config', htmlOnly, '--dry-run']);
    expect(dry.status).toBe(0);
    expect(dry.stdout.toString()).toContain(
      "  site: weather/w03/report.md:3: link ../w02/data.csv leads into bundle weather/w02 of this run, which lists data.csv, but not among this destination's outputs (assets: true publishes charts and data beside the pages)\n",
    );
  });

  it('regression: links of published pages to files the site will not hold are named with page and line (were published silently)', () => {
    const page = {
      path: 'report.md',
      content:
        '# W03\n\nSee [last week](../w02/report.md), [its notes](../w02/notse.md) and [all weeks](../index.md).\n\n![late](charts/late.png)\n\n[data](data.csv)\n',
    };
    makeBundle(source, 'weather/w03', [page, { path: 'data.csv', content: 'a\n' }], {
      id: 'w03',
      created: '2026-05-30T11:10:00Z',
    });
    makeBundle(source, 'weather/w02', [{ path: 'report.md', content: '# W02\n' }], {
      id: 'w02',
      created: '2026-05-23T11:10:00Z',
    });
    const htmlOnly = writeConfig(work, [
      { id: 'weather', source, destinations: [{ id: 'site', root: dest, source: false, html: true }] },
    ]);
    // Last week's report is a bundle of the run: its link points at its page, which loads.
    const expected = [
      '4 links in these pages will not load at their destination (the pages are published as written):',
      '  site: weather/w03/report.md:3: link ../w02/notse.html leads into bundle weather/w02 of this run, which publishes no such file here: check the name (a link to a .md file points at its page, .html)',
      '  site: weather/w03/report.md:3: link ../index.md leads to a .md file above the bundle folder or outside the source root, which no bundle publishes here: the link is kept as written',
      "  site: weather/w03/report.md:5: image charts/late.png is not in the bundle's manifest, so no run publishes it",
      "  site: weather/w03/report.md:7: link data.csv is listed, but not among this destination's outputs (assets: true publishes charts and data beside the pages)",
    ].join('\n');
    const dry = runCli(['distribute', 'run', '--config', htmlOnly, '--dry-run']);
    expect(dry.stdout.toString()).toContain(expected);
    const planned = JSON.parse(
      runCli(['distribute', 'run', '--config', htmlOnly, '--dry-run', '--json']).stdout.toString(),
    ) as { plan: { items: { bundle_dir: string; link_warnings?: Record<string, unknown>[] }[] } };
    expect(planned.plan.items.find((item) => item.bundle_dir === 'weather/w03')?.link_warnings?.[0]).toEqual({
      page: 'report.md',
      line: 3,
      href: '../w02/notse.html',
      image: false,
      problem: 'not_in_other_bundle',
      target_bundle_dir: 'weather/w02',
    });
    const run = runCli(['distribute', 'run', '--config', htmlOnly]);
    expect(run.status).toBe(0);
    expect(run.stdout.toString()).toContain(expected);
    expect(readFileSync(join(dest, 'weather/w03/report.html'), 'utf8')).toContain(
      '<a href="../w02/report.html">last week</a>',
    );
    expect(existsSync(join(dest, 'weather/w02/report.html'))).toBe(true);
    // Published already: a rerun writes nothing and says nothing of links.
    expect(runCli(['distribute', 'run', '--config', htmlOnly]).stdout.toString()).not.toContain(
      'will not load',
    );
    const verify = runCli([
      'distribute',
      'verify',
      join(source, 'weather/w03'),
      '--html',
      '--assets',
      '--json',
    ]);
    expect(verify.status).toBe(0);
    const verified = JSON.parse(verify.stdout.toString()) as {
      link_warnings: { line: number; problem: string }[];
    };
    // verify sees one bundle: a link into another is not checked.
    expect(verified.link_warnings.map((warning) => [warning.line, warning.problem])).toEqual([
      [3, 'markdown_outside_bundle'],
      [5, 'not_in_manifest'],
    ]);
    // Regression: verify said such a link "is kept as written", where the run
    // beside it pointed a link into a published bundle at its page.
    const told = runCli(['distribute', 'verify', join(source, 'weather/w03'), '--html', '--assets']);
    // A .md file in the folder above the bundle is in no bundle: said as the run says it.
    expect(told.stdout.toString().split('\n').slice(1)).toEqual([
      '2 links in these pages will not load where they are published with these outputs:',
      '  report.md:3: link ../index.md leads to a .md file above the bundle folder or outside the source root, which no bundle publishes here: the link is kept as written',
      "  report.md:5: image charts/late.png is not in the bundle's manifest, so no run publishes it",
      '',
    ]);
  });

  it('regression: verify says a .md above the bundle will not load, and leaves one past the folder above to a run', () => {
    // verify listed ../index.md (in no bundle, whatever the source root) as
    // something a run might point at a page, unlike the run beside it.
    const work = mkdtempSync(join(tmpdir(), 'sealkit-verify-up-'));
    const source = join(work, 'src');
    makeBundle(
      source,
      'team/w03',
      [{ path: 'report.md', content: '# W03\n\n[up](../index.md)\n\n[ops](../../ops/nightly/summary.md)\n' }],
      { id: 'w03', created: '2026-05-30T11:10:00Z' },
    );
    const told = runCli(['distribute', 'verify', join(source, 'team/w03'), '--html']);
    expect(told.stderr.toString()).toBe('');
    expect(told.status).toBe(0);
    expect(told.stdout.toString().split('\n').slice(1)).toEqual([
      '1 link in these pages will not load where they are published with these outputs:',
      '  report.md:3: link ../index.md leads to a .md file above the bundle folder or outside the source root, which no bundle publishes here: the link is kept as written',
      '1 link in these pages leads out of this bundle to a .md file: a run points it at its page (.html) when a bundle of the same source root publishes that file, and keeps it as written otherwise (then it will not load where only pages are published):',
      '  report.md:5: link ../../ops/nightly/summary.md',
      '',
    ]);
    // With the Markdown copied too, neither is a problem.
    const copied = runCli(['distribute', 'verify', join(source, 'team/w03'), '--html', '--source']);
    expect(copied.stdout.toString().split('\n').slice(1)).toEqual(['']);
    rmSync(work, { recursive: true, force: true });
  });

  it('regression: verify --html and a run name an HTML <img> tag, which the page shows as text (was silent)', () => {
    const work = mkdtempSync(join(tmpdir(), 'sealkit-raw-img-'));
    const source = join(work, 'src');
    makeBundle(
      source,
      'weekly',
      [
        { path: 'report.md', content: '# Week\n\n<img src="charts/trend.png" width="400">\n' },
        { path: 'charts/trend.png', content: 'png' },
      ],
      { id: 'weekly', created: '2026-05-30T11:10:00Z' },
    );
    const told = runCli(['distribute', 'verify', join(source, 'weekly'), '--html', '--assets']);
    expect(told.status).toBe(0);
    expect(told.stdout.toString().split('\n').slice(1)).toEqual([
      '1 link in these pages will not load where they are published with these outputs:',
      '  report.md:3: image charts/trend.png is in an HTML <img> tag, which the page shows as text (raw HTML is escaped): write it as a Markdown image, ![text](path)',
      '',
    ]);
    mkdirSync(join(work, 'site'));
    writeConfig(work, [
      { id: 'reports', source, destinations: [{ id: 'site', root: join(work, 'site'), assets: true }] },
    ]);
    const run = runCli(['distribute', 'run', '--json'], { cwd: work });
    expect(run.status).toBe(0);
    const report = JSON.parse(run.stdout.toString()) as {
      plan: { items: { link_warnings?: { line: number; href: string; problem: string }[] }[] };
    };
    expect(report.plan.items[0]?.link_warnings).toEqual([
      { page: 'report.md', line: 3, href: 'charts/trend.png', image: true, problem: 'raw_html_image' },
    ]);
  });

  it("regression: a run names an image from another site and a .md named from the site's root (both were silent)", () => {
    const work = mkdtempSync(join(tmpdir(), 'sealkit-remote-img-'));
    const source = join(work, 'src');
    makeBundle(source, 's/W01', [{ path: 'report.md', content: '# W01\n' }], {
      id: 's.W01',
      created: '2026-05-30T11:10:00Z',
    });
    makeBundle(
      source,
      's/W02',
      [
        {
          path: 'report.md',
          content:
            '# W02\n\n[last week](/s/W01/report.md)\n\n![logo](https://example.com/logo.png)\n\n![badge](//img.example.com/b.svg)\n\n![ours](/img/logo.png) [their page](https://example.com/x) [site page](/about.html)\n',
        },
      ],
      { id: 's.W02', created: '2026-05-30T11:10:00Z' },
    );
    mkdirSync(join(work, 'site'));
    mkdirSync(join(work, 'copies'));
    writeConfig(work, [
      {
        id: 'reports',
        source,
        destinations: [
          { id: 'site', root: join(work, 'site'), source: false, assets: true },
          // Where the .md files are copied too, the one named from the site's root may load.
          { id: 'copies', root: join(work, 'copies'), source: true },
        ],
      },
    ]);
    const run = runCli(['distribute', 'run'], { cwd: work });
    expect(run.status).toBe(0);
    expect(run.stdout.toString()).toContain(
      [
        '5 links in these pages will not load at their destination (the pages are published as written):',
        "  site: s/W02/report.md:3: link /s/W01/report.md leads to a .md file from the site's root, and no .md file is published here: write the link relative to this page instead (each ../ climbs one folder), which a run points at that bundle's page and checks",
        '  site: s/W02/report.md:5: image https://example.com/logo.png is an image from another site, which the page never loads (its Content-Security-Policy allows images from the site itself and data: URLs only): save the image in the bundle and link it by its path',
        '  site: s/W02/report.md:7: image //img.example.com/b.svg is an image from another site, which the page never loads (its Content-Security-Policy allows images from the site itself and data: URLs only): save the image in the bundle and link it by its path',
        '  copies: s/W02/report.md:5: image https://example.com/logo.png is an image from another site',
      ].join('\n'),
    );
    expect(run.stdout.toString()).not.toContain('copies: s/W02/report.md:3');
    rmSync(work, { recursive: true, force: true });
  });

  it('regression: the hint to write a manifest again is a command to paste, the bundle folder as written (quoted) and its id (was BUNDLE_DIR --id ID)', () => {
    makeBundle(source, "weather/week 22's", [REPORT], { id: 'weather.w22', created: '2026-05-30T11:10:00Z' });
    writeFileSync(join(source, "weather/week 22's", 'report.md'), '# Daily\n\nSunny, then rain.\n');
    // Run from the work folder with the configuration's relative root, as a user does.
    const conf = join(work, 'conf');
    mkdirSync(conf);
    writeFileSync(
      join(conf, 'sealkit.distributor.yaml'),
      'pipelines:\n  - id: weather\n    source: {root: ../src}\n    destinations:\n      - {id: site, kind: local, root: ../dest, outputs: {source: true, html: false}}\n',
    );
    const refused = runCli(['distribute', 'run', '--config', 'conf/sealkit.distributor.yaml'], { cwd: work });
    expect(refused.status).toBe(2);
    const help = refused.stderr
      .toString()
      .split('\n')
      .find((line) => line.startsWith('  = help: '));
    const command = "sealkit distribute manifest 'src/weather/week 22'\\''s' --id weather.w22 --replace";
    expect(help).toBe(
      `  = help: the file changed after manifest.json was written (it lists it as files[0]): restore it, or, if the change is meant, write the manifest again with ${command}`,
    );
    // Pasted into a shell, the command writes that bundle's manifest, and the run publishes.
    const pasted = spawnSync('sh', ['-c', `sealkit() { "$SEALKIT_NODE" "$SEALKIT_BIN" "$@"; }; ${command}`], {
      cwd: work,
      env: {
        ...process.env,
        SEALKIT_NODE: process.execPath,
        SEALKIT_BIN: join(REPO_ROOT, 'bin', 'sealkit.js'),
      },
    });
    expect({ status: pasted.status, stderr: pasted.stderr.toString() }).toEqual({ status: 0, stderr: '' });
    expect(
      runCli(['distribute', 'run', '--config', 'conf/sealkit.distributor.yaml'], { cwd: work }).status,
    ).toBe(0);
  });

  it('regression: the dry run of a replacement lists as deleted only what leaves the destination (listed every old output)', () => {
    const OLD = { path: 'old.txt', content: 'gone next\n' };
    makeBundle(source, 'weather/b1', [REPORT, OLD], { id: 'b1', created: '2026-05-30T11:10:00Z' });
    expect(runCli(['distribute', 'run', '--config', config]).status).toBe(0);
    rmSync(join(source, 'weather', 'b1'), { recursive: true });
    makeBundle(source, 'weather/b1', [{ ...REPORT, content: '# Daily\n\nRain.\n' }], {
      id: 'b1',
      created: '2026-05-31T11:10:00Z',
    });
    const plan = runCli(['distribute', 'run', '--config', config, '--dry-run']).stdout.toString();
    expect(plan).toContain('  write report.md (copy, 15 bytes)\n  write .distributor.json (last)\n');
    expect(plan).toContain('  delete old old.txt\n');
    expect(plan).not.toMatch(/delete old report\.(md|html)/);
  });

  it('regression: bundles refused for different causes are each said with their own advice (one hint and "and 1 more" hid the second)', () => {
    const DATA = { path: 'data.csv', content: 'a,b\n1,2\n' };
    for (const name of ['b1', 'b2', 'b3'])
      makeBundle(source, `weather/${name}`, [REPORT, DATA], { id: name, created: '2026-05-30T11:10:00Z' });
    expect(runCli(['distribute', 'run', '--config', config]).status).toBe(0);
    writeFileSync(join(dest, 'weather', 'b1', 'report.md'), '# Daily\n\nSunny, corrected by hand.\n');
    rmSync(join(dest, 'weather', 'b2', 'data.csv'));
    rmSync(join(dest, 'weather', 'b3', 'data.csv'));
    const run = runCli(['distribute', 'run', '--config', config]);
    expect(run.status).toBe(2);
    const helps = run.stderr
      .toString()
      .split('\n')
      .filter((line) => line.startsWith('  = help: '));
    // b2 and b3 lost the same file: one cause, said once; b1's was written over: said apart.
    expect(helps).toHaveLength(2);
    expect(helps[0]).toContain("destination 'site', bundle 'weather/b1': ");
    expect(helps[0]).toContain("(the only one: 'report.md' is there with");
    expect(helps[1]).toContain("destination 'site', bundle 'weather/b2' and 1 more: ");
    expect(helps[1]).toContain("(the only one: 'data.csv')");
  });

  it('publishes with exit 0 and a summary table, then skips', () => {
    makeBundle(source, 'weather/b1', [REPORT], { id: 'b1', created: '2026-05-30T11:10:00Z' });
    const first = runCli(['distribute', 'run', '--config', config]);
    expect(first.status).toBe(0);
    expect(first.stderr.length).toBe(0);
    const text = first.stdout.toString();
    expect(text).toMatch(/^PIPELINE +DESTINATION +BUNDLE +OUTCOME +REASON\n/);
    expect(text).toContain('weather   site         weather/b1  published');
    expect(text).toContain(
      'summary: 1 published, 0 replaced, 0 skipped_same, 0 skipped_newer, 0 conflict, 0 refused',
    );
    const again = runCli(['distribute', 'run', '--config', config, '--json']);
    expect(again.status).toBe(0);
    const report = JSON.parse(again.stdout.toString());
    expect(report).toMatchObject({ status: 'ok', dry_run: false, counts: { skipped_same: 1 } });
    expect(report.outcomes).toEqual([
      {
        pipeline_id: 'weather',
        destination_id: 'site',
        bundle_dir: 'weather/b1',
        bundle_id: 'b1',
        outcome: 'skipped_same',
      },
    ]);
  });

  const missing = (): void => rmSync(dest, { recursive: true });
  const aFile = (): void => {
    rmSync(dest, { recursive: true });
    writeFileSync(dest, '');
  };
  it.each([
    ['missing', 'a run', missing, 'does not exist: create it, or fix the path', []],
    ['a file', 'a run', aFile, 'is not a directory', []],
    ['missing', 'a dry run', missing, 'does not exist: create it, or fix the path', ['--dry-run']],
    ['a file', 'a dry run', aFile, 'is not a directory', ['--dry-run']],
  ])(
    'regression: a destination root that is %s says which cause, with the root, in %s',
    (_what, _run, breakRoot, cause, flags) => {
      makeBundle(source, 'weather/b1', [REPORT], { id: 'b1', created: '2026-05-30T11:10:00Z' });
      breakRoot();
      const result = runCli(['distribute', 'run', '--config', config, ...flags]);
      expect(result.status).toBe(2);
      expect(result.stderr.toString()).toContain(
        `error[destination_root_unavailable]: the destination root is missing`,
      );
      expect(result.stderr.toString()).toContain(`root '${dest}' ${cause}`);
    },
  );

  it('regression: an edited .distributor.json is named by its path, with the key and its line (was neither file nor key)', () => {
    // The configuration names its roots relative to itself, as an operator writes them.
    writeFileSync(
      join(work, 'relative.yaml'),
      'pipelines:\n  - id: p\n    source: {root: src}\n    destinations:\n      - {id: site, kind: local, root: dest, outputs: {source: true, html: true}}\n',
    );
    makeBundle(source, 'a', [REPORT], { id: 'a', created: '2026-05-30T11:10:00Z' });
    const run = () => runCli(['distribute', 'run', '--config', 'relative.yaml'], { cwd: work });
    expect(run().status).toBe(0);
    const state = join(dest, 'a', '.distributor.json');
    const text = readFileSync(state, 'utf8');
    writeFileSync(state, text.replace(/\n}\n$/, '\n  ,"note": "checked by ops"\n}\n'));
    const line = text.split('\n').length - 1;
    const edited = run();
    expect(edited.status).toBe(2);
    expect(edited.stderr.toString()).toContain(
      `  = help: destination 'site', bundle 'a': 'dest/a/.distributor.json' is not one sealkit wrote: unknown key 'note' at line ${line}, column 4; restore the file sealkit wrote, or move the published bundle folder away, and the next run publishes it anew\n`,
    );
    // Outputs gone, or entries added beside them: the folder on disk is named too.
    writeFileSync(state, text);
    rmSync(join(dest, 'a', 'report.html'));
    expect(run().stderr.toString()).toContain(
      "= help: destination 'site', bundle 'a': outputs its .distributor.json lists are gone from 'dest/a' (the only one: 'report.html'): remove the published bundle folder",
    );
    writeFileSync(join(dest, 'a', 'report.html'), '<p>by hand</p>\n');
    writeFileSync(join(dest, 'a', 'notes.txt'), 'by hand\n');
    makeBundle(source, 'a', [REPORT], { id: 'a', created: '2026-05-31T11:10:00Z' });
    expect(run().stderr.toString()).toContain(
      "= help: destination 'site', bundle 'a': an entry sealkit did not write is in 'dest/a' ('notes.txt'), and it never deletes it: move it out of the bundle folder",
    );
  });

  it('regression: outputs that select no file of a bundle refuse it, in a dry run too (was "1 published" with only .distributor.json)', () => {
    config = writeConfig(work, [
      {
        id: 'weather',
        source,
        destinations: [{ id: 'site', root: dest, source: false, html: false, assets: true }],
      },
    ]);
    makeBundle(source, 'a', [REPORT], { id: 'a', created: '2026-05-30T11:10:00Z' });
    const hint =
      "  = help: destination 'site', bundle 'a': the bundle lists 1 Markdown file, and outputs {source: false, html: false, assets: true} select none of it: turn on html (a page for each .md file) or source (every file as it is)\n";
    for (const flags of [['--dry-run'], []]) {
      const result = runCli(['distribute', 'run', '--config', config, ...flags]);
      expect(result.status).toBe(2);
      expect(result.stderr.toString()).toContain(
        'error[outputs_empty]: the outputs the destination takes select no file of the bundle, so it is not published there\n',
      );
      expect(result.stderr.toString()).toContain(hint);
    }
    const json = JSON.parse(runCli(['distribute', 'run', '--config', config, '--json']).stdout.toString());
    expect(json.counts).toMatchObject({ published: 0, refused: 1 });
    expect(json.outcomes[0]).toMatchObject({ outcome: 'refused', reason_code: 'outputs_empty' });
    expect(readdirSync(dest).filter((name) => !name.startsWith('.distributor'))).toEqual([]);
    // verify says the same of a bundle for outputs that select none of it.
    makeBundle(source, 'b', [{ path: 'days.csv', content: 'x\n' }], {
      id: 'b',
      created: '2026-05-30T11:10:00Z',
    });
    const verified = runCli(['distribute', 'verify', join(source, 'b'), '--html']);
    expect(verified.status).toBe(2);
    expect(verified.stderr.toString()).toContain('error[outputs_empty]');
    expect(runCli(['distribute', 'verify', join(source, 'b'), '--source']).status).toBe(0);
  });

  it('regression: a refused run says reason_code, category, message, location and hint at the top of --json (was status alone)', () => {
    makeBundle(source, 'a', [REPORT], { id: 'a', created: '2026-05-30T11:10:00Z' });
    makeBundle(source, 'b', [REPORT], { id: 'b', created: '2026-05-30T11:10:00Z' });
    expect(runCli(['distribute', 'run', '--config', config, '-q']).status).toBe(0);
    // A conflict on b, and a destination folder this account may not write for a new bundle c.
    rmSync(join(source, 'b'), { recursive: true });
    makeBundle(source, 'b', [REPORT], { id: 'renamed', created: '2026-05-30T12:00:00Z' });
    makeBundle(source, 'c/d', [REPORT], { id: 'c', created: '2026-05-30T11:10:00Z' });
    chmodSync(dest, 0o555);
    try {
      const human = runCli(['distribute', 'run', '--config', config]);
      const result = runCli(['distribute', 'run', '--config', config, '--json']);
      expect(result.status).toBe(2);
      const json = JSON.parse(result.stdout.toString());
      // The first refusal printed on stderr without --json, with its place and help.
      const first = human.stderr.toString().split('\n')[0];
      expect(first).toBe(`error[${json.reason_code}]: ${json.message}`);
      expect(json).toMatchObject({
        status: 'refused',
        reason_code: 'conflict_different_id',
        category: 'conflict',
        message: 'the destination holds a publication of a different bundle id',
        location: { path: config, pointer: 'pipelines[0].destinations[0]' },
      });
      expect(json.hint).toContain(
        `destination 'site', bundle 'b': the bundle path '${join(dest, 'b')}' holds bundle id 'b'`,
      );
      expect(json.outcomes.map((o: { reason_code?: string }) => o.reason_code ?? null)).toEqual([
        null,
        'conflict_different_id',
        'destination_write_failed',
      ]);
    } finally {
      chmodSync(dest, 0o755);
    }
  });

  it('regression: a conflict of ids names both ids and what to do', () => {
    makeBundle(source, 'weather/b1', [REPORT], { id: 'b1', created: '2026-05-30T11:10:00Z' });
    expect(runCli(['distribute', 'run', '--config', config]).status).toBe(0);
    rmSync(join(source, 'weather', 'b1'), { recursive: true });
    makeBundle(source, 'weather/b1', [REPORT], { id: 'b2', created: '2026-05-30T12:00:00Z' });
    const human = runCli(['distribute', 'run', '--config', config]);
    expect(human.status).toBe(2);
    expect(human.stderr.toString()).toContain(
      `= help: destination 'site', bundle 'weather/b1': the bundle path '${join(dest, 'weather', 'b1')}' holds bundle id 'b1', the source bundle is 'b2': one bundle path keeps one id`,
    );
    const json = JSON.parse(runCli(['distribute', 'run', '--config', config, '--json']).stdout.toString());
    expect(json.outcomes).toEqual([
      expect.objectContaining({
        outcome: 'conflict',
        reason_code: 'conflict_different_id',
        bundle_id: 'b2',
        destination_bundle_id: 'b1',
      }),
    ]);
  });

  it('skipped_newer is exit 0 by default and exit 2 with --fail-on-skipped-newer, said on stderr', () => {
    makeBundle(source, 'weather/b1', [REPORT], { id: 'b1', created: '2026-05-30T17:00:00Z' });
    expect(runCli(['distribute', 'run', '--config', config]).status).toBe(0);
    // The source goes back to an older issue of the same bundle.
    rmSync(join(source, 'weather', 'b1'), { recursive: true });
    makeBundle(source, 'weather/b1', [REPORT], { id: 'b1', created: '2026-05-30T11:10:00Z' });
    const lenient = runCli(['distribute', 'run', '--config', config]);
    expect(lenient.status).toBe(0);
    // Both instants: the report says the destination is newer than the source, and by how much.
    expect(lenient.stdout.toString()).toContain(
      'weather   site         weather/b1  skipped_newer  destination newer than source: 2026-05-30T17:00:00Z > 2026-05-30T11:10:00Z\n',
    );
    expect(runCli(['distribute', 'run', '--config', config, '--dry-run']).stdout.toString()).toContain(
      'skipped_newer weather -> site: weather/b1 (destination newer than source: 2026-05-30T17:00:00Z > 2026-05-30T11:10:00Z)\n',
    );
    expect(
      JSON.parse(runCli(['distribute', 'run', '--config', config, '--json']).stdout.toString()).outcomes,
    ).toEqual([
      {
        pipeline_id: 'weather',
        destination_id: 'site',
        bundle_dir: 'weather/b1',
        bundle_id: 'b1',
        outcome: 'skipped_newer',
        destination_created: '2026-05-30T17:00:00Z',
        source_created: '2026-05-30T11:10:00Z',
      },
    ]);
    const strict = runCli(['distribute', 'run', '--config', config, '--fail-on-skipped-newer']);
    expect(strict.status).toBe(2);
    expect(strict.stderr.toString()).toBe(
      [
        'error[skipped_newer_refused]: a destination holds a newer publication than the source, so a bundle was not published, and --fail-on-skipped-newer asks for none',
        "  = help: 1 bundle not published: 'weather/b1' at 'site' (2026-05-30T17:00:00Z > 2026-05-30T11:10:00Z); publish a newer issue from the source, or run without --fail-on-skipped-newer to accept it",
        '',
      ].join('\n'),
    );
    // Regression: --json said "status": "ok" while the run exited 2, so a job reading status passed.
    const json = runCli(['distribute', 'run', '--config', config, '--fail-on-skipped-newer', '--json']);
    expect(json.status).toBe(2);
    const refused = JSON.parse(json.stdout.toString());
    expect(refused).toMatchObject({
      status: 'refused',
      reason_code: 'skipped_newer_refused',
      category: 'conflict',
      counts: { skipped_newer: 1 },
    });
    expect(refused.hint).toContain("'weather/b1' at 'site'");
    expect(refused).not.toHaveProperty('unmet');
  });

  it('regression: a replacement over the same files says only created changed, and how to keep the bundle', () => {
    // A nightly job that writes every manifest anew replaced every bundle
    // every night with an empty REASON, as if the reports had changed.
    makeBundle(source, 'weather/b1', [REPORT], { id: 'b1', created: '2026-05-30T11:10:00Z' });
    expect(runCli(['distribute', 'run', '--config', config]).status).toBe(0);
    rmSync(join(source, 'weather', 'b1'), { recursive: true });
    makeBundle(source, 'weather/b1', [REPORT], { id: 'b1', created: '2026-05-31T11:10:00Z' });
    const what =
      'replaced over the same files, only created changed (a manifest written again over an unchanged folder); ';
    const note = `${what}to keep a bundle as published, write its manifest again with the published created (before -> above): sealkit distribute manifest <folder> --id <id> --created <published created> --replace\n`;
    // Regression: after the replacement, "give the published created" made the source older than the destination (skipped_newer).
    const done = `${what}the destinations now hold the new created: to avoid this, write a manifest again only when its files change, or keep its created (--created with the value after -> above)\n`;
    const dry = runCli(['distribute', 'run', '--config', config, '--dry-run']).stdout.toString();
    expect(dry).toContain(
      'replaced weather -> site: weather/b1 (same_files: only created changed, 2026-05-30T11:10:00Z -> 2026-05-31T11:10:00Z)\n',
    );
    expect(dry).toContain(`1 bundle would be ${note}`);
    const human = runCli(['distribute', 'run', '--config', config]);
    expect(human.status).toBe(0);
    expect(human.stdout.toString()).toContain(
      'weather   site         weather/b1  replaced  same_files: only created changed, 2026-05-30T11:10:00Z -> 2026-05-31T11:10:00Z\n',
    );
    expect(human.stdout.toString()).toContain(`1 bundle was ${done}`);
    // A bundle whose files changed is replaced as before: no reason, no note.
    rmSync(join(source, 'weather', 'b1'), { recursive: true });
    makeBundle(source, 'weather/b1', [{ ...REPORT, content: `${REPORT.content}more\n` }], {
      id: 'b1',
      created: '2026-06-01T11:10:00Z',
    });
    const json = JSON.parse(runCli(['distribute', 'run', '--config', config, '--json']).stdout.toString());
    expect(json.outcomes).toEqual([expect.objectContaining({ outcome: 'replaced', outputs: 2 })]);
    expect(json.outcomes[0]).not.toHaveProperty('reason');
    expect(json.outcomes[0]).not.toHaveProperty('source_created');
  });

  it('the --json outcome of a replacement over the same files names both created', () => {
    makeBundle(source, 'weather/b1', [REPORT], { id: 'b1', created: '2026-05-30T11:10:00Z' });
    expect(runCli(['distribute', 'run', '--config', config]).status).toBe(0);
    rmSync(join(source, 'weather', 'b1'), { recursive: true });
    makeBundle(source, 'weather/b1', [REPORT], { id: 'b1', created: '2026-05-31T11:10:00Z' });
    const json = JSON.parse(runCli(['distribute', 'run', '--config', config, '--json']).stdout.toString());
    expect(json.outcomes).toEqual([
      {
        pipeline_id: 'weather',
        destination_id: 'site',
        bundle_dir: 'weather/b1',
        bundle_id: 'b1',
        outcome: 'replaced',
        reason: 'same_files',
        destination_created: '2026-05-30T11:10:00Z',
        source_created: '2026-05-31T11:10:00Z',
        outputs: 2,
      },
    ]);
    expect(json.plan.items[0]).toMatchObject({
      reason: 'same_files',
      source_created: '2026-05-31T11:10:00Z',
    });
  });

  it('aligns the report by display width and writes "1 byte", not "1 bytes"', () => {
    // Regression: columns were padded by UTF-16 length, so a CJK bundle
    // directory pushed the following columns out of line.
    makeBundle(source, '報告/日次', [{ path: 'a.txt', content: 'x' }], {
      id: 'cjk',
      created: '2026-05-30T11:10:00Z',
    });
    makeBundle(source, 'plain', [{ path: 'a.txt', content: 'x' }], {
      id: 'plain',
      created: '2026-05-30T11:10:00Z',
    });
    const dry = runCli(['distribute', 'run', '--config', config, '--dry-run']).stdout.toString();
    expect(dry).toContain('  write a.txt (copy, 1 byte)\n');
    const lines = runCli(['distribute', 'run', '--config', config]).stdout.toString().split('\n');
    expect(lines.slice(0, 3)).toEqual([
      'PIPELINE  DESTINATION  BUNDLE     OUTCOME    REASON',
      'weather   site         plain      published',
      'weather   site         報告/日次  published',
    ]);
  });

  it('--wait takes whole seconds; anything else is a usage error that reads nothing', () => {
    for (const bad of ['-1', '1.5', 'soon', '86401']) {
      const result = runCli(['distribute', 'run', '--config', config, `--wait=${bad}`]);
      expect(result.status).toBe(1);
      expect(result.stderr.toString()).toContain(`--wait takes whole seconds from 0 to 86400, not '${bad}'`);
    }
    expect(describeTree(dest)).toEqual({});
    expect(runCli(['distribute', 'run', '--config', config, '--wait', '0']).status).toBe(0);
  });

  it('--quiet prints no report, but refusals still reach stderr', () => {
    makeBundle(source, 'weather/b1', [REPORT], { id: 'b1', created: '2026-05-30T11:10:00Z' });
    const quiet = runCli(['distribute', 'run', '--config', config, '-q']);
    expect(quiet.status).toBe(0);
    expect(quiet.stdout.toString()).toBe('');
    expect(quiet.stderr.toString()).toBe('');
    writeFileSync(join(source, 'weather', 'b1', 'report.md'), '# Edited\n');
    const refused = runCli(['distribute', 'run', '--config', config, '--quiet']);
    expect(refused.status).toBe(2);
    expect(refused.stdout.toString()).toBe('');
    expect(refused.stderr.toString()).toMatch(/^error\[file_size_mismatch\]/);
  });

  it('regression: --quiet still names a folder left without manifest.json, on stderr (was silent, exit 0)', () => {
    makeBundle(source, 'weather/b1', [REPORT], { id: 'b1', created: '2026-05-30T11:10:00Z' });
    mkdirSync(join(source, 'weather', 'b2'));
    writeFileSync(join(source, 'weather', 'b2', 'report.md'), '# Forgotten\n');
    const quiet = runCli(['distribute', 'run', '--config', config, '-q']);
    expect(quiet.status).toBe(0);
    expect(quiet.stdout.toString()).toBe('');
    expect(quiet.stderr.toString()).toBe(
      `not published: 1 folder holds files but no manifest.json ('${join(source, 'weather/b2')}'); write one with: sealkit distribute manifest ${join(source, 'weather/b2')} --id <id>\n`,
    );
    const json = runCli(['distribute', 'run', '--config', config, '-q', '--json']);
    expect(json.stderr.toString()).toBe('');
    expect(JSON.parse(json.stdout.toString()).plan.pipelines[0].dirs_without_manifest.total).toBe(1);
  });

  it('regression: a file added to a bundle after its manifest is named as not published (was silent)', () => {
    makeBundle(source, 'weather/b1', [REPORT], { id: 'b1', created: '2026-05-30T11:10:00Z' });
    const bundle = join(source, 'weather', 'b1');
    const manifestTime = statSync(join(bundle, 'manifest.json')).mtime.getTime() / 1000;
    // Written after the manifest: a CSV no page links to (and, not named, a
    // hidden file and a file in a hidden folder); before it, a file left out
    // on purpose.
    const laterThanManifest = (path: string) => utimesSync(path, manifestTime + 60, manifestTime + 60);
    writeFileSync(join(bundle, 'late.csv'), 'day,n\n');
    laterThanManifest(join(bundle, 'late.csv'));
    writeFileSync(join(bundle, '.DS_Store'), 'x');
    laterThanManifest(join(bundle, '.DS_Store'));
    mkdirSync(join(bundle, '.cache'));
    writeFileSync(join(bundle, '.cache', 'x.csv'), 'x');
    laterThanManifest(join(bundle, '.cache', 'x.csv'));
    writeFileSync(join(bundle, 'run.log'), 'left out on purpose\n');
    utimesSync(join(bundle, 'run.log'), manifestTime - 60, manifestTime - 60);
    const note = `not published: 1 file in a bundle folder was written after its manifest and is not in it ('${join(source, 'weather/b1/late.csv')}'); if it belongs to the bundle, write its manifest again (with the --exclude it was written with, if any): sealkit distribute manifest ${bundle} --id b1 --replace\n`;
    const dry = runCli(['distribute', 'run', '--config', config, '--dry-run']);
    expect(dry.stdout.toString()).toContain(`\n\n${note}`);
    const human = runCli(['distribute', 'run', '--config', config]);
    expect(human.status).toBe(0);
    expect(human.stdout.toString()).toContain(`\n\n${note}`);
    expect(human.stderr.toString()).toBe('');
    // Not on stderr under -q.
    const quiet = runCli(['distribute', 'run', '--config', config, '-q']);
    expect(quiet.stdout.toString() + quiet.stderr.toString()).toBe('');
    const json = JSON.parse(runCli(['distribute', 'run', '--config', config, '--json']).stdout.toString());
    expect(json.plan.pipelines[0].files_after_manifest).toEqual({
      total: 1,
      first: [join(source, 'weather/b1/late.csv')],
      bundles: { total: 1, first: [{ folder: bundle, id: 'b1' }] },
    });
    // verify, run by hand, names every file the manifest does not list, with the command that lists them.
    const verify = runCli(['distribute', 'verify', bundle]);
    expect(verify.status).toBe(0);
    expect(verify.stdout.toString().split('\n').slice(1)).toEqual([
      `2 files in the folder are not in the manifest, so no run publishes them (if they belong to the bundle, write the manifest again, with the --exclude it was written with, if any: sealkit distribute manifest ${bundle} --id b1 --replace):`,
      '  late.csv',
      '  run.log',
      '',
    ]);
    const verified = JSON.parse(runCli(['distribute', 'verify', bundle, '--json']).stdout.toString());
    expect(verified.files_not_in_manifest).toEqual(['late.csv', 'run.log']);
    // Once listed (run.log left out again), nothing is said.
    runCli(['distribute', 'manifest', bundle, '--id', 'b1', '--exclude', 'run.log', '--replace']);
    expect(runCli(['distribute', 'run', '--config', config]).stdout.toString()).not.toContain(
      'written after its manifest',
    );
  });

  it('regression: files written after the manifests of several bundles give one command per bundle (was a <folder> placeholder)', () => {
    for (const name of ['b1', 'b2', 'b3', 'b 4']) {
      makeBundle(source, `weather/${name}`, [REPORT], {
        id: `w-${name.replace(' ', '')}`,
        created: '2026-05-30T11:10:00Z',
      });
      const bundle = join(source, 'weather', name);
      const later = statSync(join(bundle, 'manifest.json')).mtime.getTime() / 1000 + 60;
      writeFileSync(join(bundle, 'late.csv'), 'day,n\n');
      utimesSync(join(bundle, 'late.csv'), later, later);
    }
    const text = runCli(['distribute', 'run', '--config', config, '--dry-run']).stdout.toString();
    expect(text).toContain(
      [
        'if they belong to their bundles, write each manifest again (with the --exclude it was written with, if any):',
        `  sealkit distribute manifest '${join(source, 'weather/b 4')}' --id w-b4 --replace`,
        `  sealkit distribute manifest ${join(source, 'weather/b1')} --id w-b1 --replace`,
        `  sealkit distribute manifest ${join(source, 'weather/b2')} --id w-b2 --replace`,
        '  (and 1 more bundle)',
        '',
        '',
      ].join('\n'),
    );
    const json = JSON.parse(
      runCli(['distribute', 'run', '--config', config, '--dry-run', '--json']).stdout.toString(),
    );
    expect(json.plan.pipelines[0].files_after_manifest.bundles).toEqual({
      total: 4,
      first: ['b 4', 'b1', 'b2', 'b3'].map((name) => ({
        folder: join(source, 'weather', name),
        id: `w-${name.replace(' ', '')}`,
      })),
    });
  });

  it('regression: a file written after the manifest of a bundle refused for another file gets its command with folder and id (was <folder> --id <id>)', () => {
    makeBundle(source, 'weather/b1', [REPORT], { id: 'w.b1', created: '2026-05-30T11:10:00Z' });
    const late = join(source, 'weather', 'b1', 'late.csv');
    writeFileSync(late, 'x\n');
    const future = new Date(Date.now() + 60_000);
    utimesSync(late, future, future);
    writeFileSync(join(source, 'weather', 'b1', 'report.md'), '# Edited later\n');
    const run = runCli(['distribute', 'run', '--config', config]);
    expect(run.status).toBe(2);
    expect(run.stdout.toString()).toContain(
      `write its manifest again (with the --exclude it was written with, if any): sealkit distribute manifest ${join(source, 'weather', 'b1')} --id w.b1 --replace\n`,
    );
  });

  it('regression: a file named like Markdown but not .md in lower case is named as not rendered (was published raw without a word)', () => {
    makeBundle(
      source,
      'weather/b1',
      [
        REPORT,
        { path: 'notes.MD', content: '# Notes\n' },
        { path: 'method.markdown', content: '# Method\n' },
      ],
      { id: 'b1', created: '2026-05-30T11:10:00Z' },
    );
    const note = `not rendered: 2 files are named like Markdown but not *.md in lower case ('${join(source, 'weather/b1/method.markdown')}', '${join(source, 'weather/b1/notes.MD')}'), so no page is made from them (source: true or assets: true publish them only as files); to publish them as pages, rename them to .md and write the manifest again\n`;
    const dry = runCli(['distribute', 'run', '--config', config, '--dry-run']);
    expect(dry.stdout.toString()).toContain(`\n\n${note}`);
    const human = runCli(['distribute', 'run', '--config', config]);
    expect(human.status).toBe(0);
    expect(human.stdout.toString()).toContain(`\n\n${note}`);
    const json = JSON.parse(runCli(['distribute', 'run', '--config', config, '--json']).stdout.toString());
    expect(json.plan.pipelines[0].files_not_rendered).toEqual({
      total: 2,
      first: [join(source, 'weather/b1/method.markdown'), join(source, 'weather/b1/notes.MD')],
    });
    // No destination renders pages: nothing to say.
    const plain = writeConfig(work, [
      { id: 'weather', source, destinations: [{ id: 'files', root: join(work, 'files'), html: false }] },
    ]);
    mkdirSync(join(work, 'files'));
    expect(runCli(['distribute', 'run', '--config', plain]).stdout.toString()).not.toContain('not rendered');
  });

  it('regression: a link into a folder in no bundle of the run is named when the destination holds nothing there either (was never checked)', () => {
    makeBundle(source, 's/W01', [{ path: 'report.md', content: '# W01\n' }], {
      id: 's.W01',
      created: '2026-05-30T11:10:00Z',
    });
    expect(runCli(['distribute', 'run', '--config', config]).status).toBe(0);
    // Last week's bundle leaves the source and stays published; this week's links to it, and mistypes one.
    rmSync(join(source, 's', 'W01'), { recursive: true });
    mkdirSync(join(dest, 's', '2025-W52'), { recursive: true });
    writeFileSync(join(dest, 's', '2025-W52', 'report.html'), '<!DOCTYPE html>\n');
    makeBundle(
      source,
      's/W02',
      [
        {
          path: 'report.md',
          content:
            '# W02\n\n[prev](../W01/report.md) [typo](../W0/report.md)\n\n[old](../2025-W52/report.md) ![chart](../W0/chart.png)\n\n![logo](../../shared/logo.png)\n',
        },
      ],
      { id: 's.W02', created: '2026-05-30T11:10:00Z' },
    );
    // A logo beside the bundles, in a folder without a manifest: the name is right, the folder is never published.
    mkdirSync(join(source, 'shared'));
    writeFileSync(join(source, 'shared', 'logo.png'), 'png');
    const told =
      'leads into no bundle of this run, and the destination holds no such file either (a bundle published before would): check the name';
    const run = runCli(['distribute', 'run', '--config', config]);
    expect(run.status).toBe(0);
    expect(run.stdout.toString()).toContain(
      [
        '3 links in these pages will not load at their destination (the pages are published as written):',
        `  site: s/W02/report.md:3: link ../W0/report.html ${told}`,
        `  site: s/W02/report.md:5: image ../W0/chart.png ${told}`,
        '  site: s/W02/report.md:7: image ../../shared/logo.png leads into shared below the source root, a folder that holds files but no manifest.json, so no run publishes it: write its manifest, or put the file in a bundle',
      ].join('\n'),
    );
  });

  it('regression: links of bundles the destination already holds do not use up the lookups of a new one (a typo went unnamed past 256)', () => {
    const many = Array.from({ length: 1001 }, (_, index) => `[x${index}](../../ext/f${index}.png)`).join(
      '\n',
    );
    makeBundle(source, 's/A', [{ path: 'report.md', content: `# A\n\n${many}\n` }], {
      id: 's.A',
      created: '2026-05-30T11:10:00Z',
    });
    expect(runCli(['distribute', 'run', '--config', config]).status).toBe(0);
    makeBundle(
      source,
      's/B',
      [{ path: 'report.md', content: '# B\n\n[typo](../W0/report.md) [folder](../B)\n' }],
      {
        id: 's.B',
        created: '2026-05-30T11:10:00Z',
      },
    );
    const dry = runCli(['distribute', 'run', '--config', config, '--dry-run', '--json']);
    const items = JSON.parse(dry.stdout.toString()).plan.items as {
      bundle_dir: string;
      link_warnings?: { href: string; problem: string }[];
    }[];
    // ../B (itself, without its slash) is the bundle's own folder, checked against the bundle, not looked up.
    expect(items.find((item) => item.bundle_dir === 's/B')?.link_warnings).toEqual([
      expect.objectContaining({ href: '../W0/report.html', problem: 'not_at_destination' }),
      expect.objectContaining({ href: '../B', problem: 'folder_without_index' }),
    ]);
  });

  it('regression: files put by hand into a published bundle are named while it is skipped (were silent until its next version was refused)', () => {
    makeBundle(source, 'weather/b1', [REPORT], { id: 'b1', created: '2026-05-30T11:10:00Z' });
    makeBundle(source, 'weather/b2', [REPORT], { id: 'b2', created: '2026-05-30T11:10:00Z' });
    expect(runCli(['distribute', 'run', '--config', config]).status).toBe(0);
    writeFileSync(join(dest, 'weather', 'b1', '.htaccess'), 'Options -Indexes\n');
    writeFileSync(join(dest, 'weather', 'b1', 'notes.txt'), 'x\n');
    const note =
      "not sealkit's: 2 entries in 1 published bundle are listed by no .distributor.json (the first: 'site: weather/b1/.htaccess'), put there by hand or by another tool; they are left where they are, but the next version of that bundle is refused (destination_unlisted_entry) until they are moved out\n";
    const human = runCli(['distribute', 'run', '--config', config]);
    expect(human.status).toBe(0);
    expect(human.stdout.toString()).toContain(`\n\n${note}`);
    expect(runCli(['distribute', 'run', '--config', config, '--dry-run']).stdout.toString()).toContain(
      `\n\n${note}`,
    );
    const json = JSON.parse(runCli(['distribute', 'run', '--config', config, '--json']).stdout.toString());
    expect(
      json.plan.items.map((item: { bundle_dir: string; outcome: string; unlisted_path?: string }) => [
        item.bundle_dir,
        item.outcome,
        item.unlisted_path ?? null,
      ]),
    ).toEqual([
      ['weather/b1', 'skipped_same', '.htaccess'],
      ['weather/b2', 'skipped_same', null],
    ]);
    // What the note foretells: the next version of that bundle is refused for them.
    writeFileSync(join(source, 'weather', 'b1', 'report.md'), '# Daily, corrected\n');
    expect(
      runCli(['distribute', 'manifest', join(source, 'weather', 'b1'), '--id', 'b1', '--replace']).status,
    ).toBe(0);
    const next = runCli(['distribute', 'run', '--config', config, '--json']);
    expect(next.status).toBe(2);
    expect(JSON.parse(next.stdout.toString()).outcomes[0]).toMatchObject({
      bundle_dir: 'weather/b1',
      reason_code: 'destination_unlisted_entry',
    });
  });

  it('regression: a folder copied with its manifest, so two folders carry one id, is named (was published as a second copy without a word)', () => {
    makeBundle(source, 'weather/W02', [REPORT], { id: 'w.W02', created: '2026-05-30T11:10:00Z' });
    makeBundle(source, 'weather/W01', [REPORT], { id: 'w.W01', created: '2026-05-30T11:10:00Z' });
    cpSync(join(source, 'weather', 'W02'), join(source, 'weather', 'W03'), { recursive: true });
    const note = `same id: a bundle id is carried by more than one folder: 'w.W02' ('${join(source, 'weather/W02')}', '${join(source, 'weather/W03')}'); a copied folder keeps the manifest it was copied with, so it is published as another copy of that bundle: give each copy its own id (sealkit distribute manifest ${join(source, 'weather/W03')} --id NEW_ID --replace), and where a copy was published already, move its published folder away first (a bundle path keeps one id)\n`;
    expect(runCli(['distribute', 'run', '--config', config, '--dry-run']).stdout.toString()).toContain(
      `\n\n${note}`,
    );
    const human = runCli(['distribute', 'run', '--config', config]);
    expect(human.status).toBe(0);
    expect(human.stdout.toString()).toContain(`\n\n${note}`);
    const json = JSON.parse(runCli(['distribute', 'run', '--config', config, '--json']).stdout.toString());
    expect(json.plan.pipelines[0].ids_shared).toEqual({
      total: 1,
      first: [{ id: 'w.W02', folders: [join(source, 'weather/W02'), join(source, 'weather/W03')] }],
    });
    // Given its own id, the copy is one bundle of its own: nothing to say.
    expect(
      runCli(['distribute', 'manifest', join(source, 'weather', 'W03'), '--id', 'w.W03', '--replace']).status,
    ).toBe(0);
    expect(runCli(['distribute', 'run', '--config', config, '--dry-run']).stdout.toString()).not.toContain(
      'same id',
    );
  });

  it('regression: names in a note are quoted, so a name holding a comma reads as one', () => {
    makeBundle(source, 'weather/b1', [REPORT], { id: 'b1', created: '2026-05-30T11:10:00Z' });
    const bundle = join(source, 'weather', 'b1');
    const later = statSync(join(bundle, 'manifest.json')).mtime.getTime() / 1000 + 60;
    for (const name of ['chart, daily.png', "it's, 'x.csv"]) {
      writeFileSync(join(bundle, name), 'x');
      utimesSync(join(bundle, name), later, later);
    }
    mkdirSync(join(source, 'a, b'));
    writeFileSync(join(source, 'a, b', 'report.md'), '# Forgotten\n');
    const run = runCli(['distribute', 'run', '--config', config]);
    expect(run.status).toBe(0);
    expect(run.stdout.toString()).toContain(`no manifest.json ('${join(source, 'a, b')}');`);
    expect(run.stdout.toString()).toContain(
      `not in it ('${join(bundle, 'chart, daily.png')}', '${join(bundle, 'it\\x27s, \\x27x.csv')}');`,
    );
  });

  it('regression: refusals come in bundle order, not by the phase that found them', () => {
    // A manifest that does not parse (found first, at discovery) was said
    // before a file edited in a bundle earlier in the tree.
    makeBundle(source, 'weather/a', [REPORT], { id: 'a', created: '2026-05-30T11:10:00Z' });
    makeBundle(source, 'weather/b', [REPORT], { id: 'b', created: '2026-05-30T11:10:00Z' });
    writeFileSync(join(source, 'weather', 'a', 'report.md'), '# Edited later\n');
    writeFileSync(join(source, 'weather', 'b', 'manifest.json'), '{"id": "b",}');
    const run = runCli(['distribute', 'run', '--config', config]);
    expect(run.status).toBe(2);
    expect(run.stderr.toString().match(/^error\[[a-z_]+\]/gm)).toEqual([
      'error[file_size_mismatch]',
      'error[manifest_not_json]',
    ]);
    const json = JSON.parse(runCli(['distribute', 'run', '--config', config, '--json']).stdout.toString());
    expect(json.failures.map((failure: { bundle_dir: string }) => failure.bundle_dir)).toEqual([
      'weather/a',
      'weather/b',
    ]);
  });

  it('regression: a bundle that waited for the failures of the run carries the refusal fields in --json (was reason_code only)', () => {
    makeBundle(source, 'weather/a', [REPORT], { id: 'a', created: '2026-05-30T11:10:00Z' });
    makeBundle(source, 'weather/b', [REPORT], { id: 'b', created: '2026-05-30T11:10:00Z' });
    writeFileSync(join(source, 'weather', 'a', 'report.md'), '# Edited later\n');
    const json = JSON.parse(runCli(['distribute', 'run', '--config', config, '--json']).stdout.toString());
    expect(json.outcomes.find((item: { bundle_dir: string }) => item.bundle_dir === 'weather/b')).toEqual({
      pipeline_id: 'weather',
      destination_id: 'site',
      bundle_dir: 'weather/b',
      bundle_id: 'b',
      outcome: 'refused',
      reason_code: 'run_aborted',
      category: 'conflict',
      message: 'nothing was written: part of the run (a pipeline or a bundle) failed validation or planning',
      hint: "bundle 'weather/b' passed its checks; nothing was written because 1 failure stopped the run (failures[]): fix it, or move a failing bundle out of the source root, and run again",
    });
  });

  it('regression: an aborted run names its first failure in the top-level hint of --json (was none)', () => {
    makeBundle(source, 'weather/a', [REPORT], { id: 'a', created: '2026-05-30T11:10:00Z' });
    makeBundle(source, 'weather/b', [REPORT], { id: 'b', created: '2026-05-30T11:10:00Z' });
    writeFileSync(join(source, 'weather', 'a', 'report.md'), '# Edited later\n');
    rmSync(join(source, 'weather', 'b', 'report.md'));
    const json = JSON.parse(runCli(['distribute', 'run', '--config', config, '--json']).stdout.toString());
    expect(json).toMatchObject({
      status: 'refused',
      reason_code: 'run_aborted',
      hint: `2 failures stopped the run (failures[]); the first: file_size_mismatch at ${join(source, 'weather', 'a', 'report.md')} (bundle 'weather/a'): fix them, or move a failing bundle out of the source root, and run again`,
    });
  });

  it('reads sealkit.distributor.yaml from the working directory by default', () => {
    makeBundle(source, 'b', [REPORT], { id: 'b', created: '2026-05-30T11:10:00Z' });
    const run = runCli(['distribute', 'run', '--json'], { cwd: work });
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout.toString()).counts.published).toBe(1);
  });

  it('prints the plan under --dry-run, writes nothing, and the real run applies that plan', () => {
    makeBundle(source, 'b', [REPORT], { id: 'b', created: '2026-05-30T11:10:00Z' });
    const before = describeTree(work);
    const human = runCli(['distribute', 'run', '--config', config, '--dry-run']);
    expect(human.status).toBe(0);
    // The plan speaks the outcome words of the report (regression: publish vs published).
    // And says where the bundles go (regression: a prefix joined with the
    // bundle's folders could only be seen by listing the store afterwards).
    const [head, plan] = human.stdout.toString().split('\n\npublished ');
    expect(head).toBe(
      `dry run: the plan a real run would apply (nothing written)\n\nbundles go to:\n  weather -> site: '${dest}/' then each bundle's folder; the first: '${dest}/b/'`,
    );
    expect(`published ${plan}`).toMatch(
      /^published weather -> site: b\n {2}write report\.html \(page from report\.md, \d+ bytes\)\n {2}write report\.md \(copy, 16 bytes\)\n/,
    );
    const dry = runCli(['distribute', 'run', '--config', config, '--dry-run', '--json']);
    expect(describeTree(work)).toEqual(before);
    const real = runCli(['distribute', 'run', '--config', config, '--json']);
    expect(JSON.parse(real.stdout.toString()).plan).toEqual(JSON.parse(dry.stdout.toString()).plan);
  });

  it('regression: the dry run names a root written with doubled slashes with one (kept //)', () => {
    makeBundle(source, 'b', [REPORT], { id: 'b', created: '2026-05-30T11:10:00Z' });
    const doubled = writeConfig(work, [
      { id: 'weather', source, destinations: [{ id: 'site', root: `${dest.replace(/\//g, '//')}//` }] },
    ]);
    const dry = runCli(['distribute', 'run', '--config', doubled, '--dry-run']);
    expect(dry.status).toBe(0);
    expect(dry.stdout.toString()).toContain(
      `  weather -> site: '${dest}/' then each bundle's folder; the first: '${dest}/b/'\n`,
    );
    expect(
      JSON.parse(runCli(['distribute', 'run', '--config', doubled, '--dry-run', '--json']).stdout.toString())
        .plan.pipelines[0].destinations[0].location,
    ).toBe(`${dest}/`);
  });

  it('exits 2 and still reports every outcome when one item conflicts', () => {
    makeBundle(source, 'a', [REPORT], { id: 'a', created: '2026-05-30T11:10:00Z' });
    makeBundle(source, 'b', [REPORT], { id: 'b', created: '2026-05-30T11:10:00Z' });
    expect(runCli(['distribute', 'run', '--config', config]).status).toBe(0);
    rmSync(join(source, 'a'), { recursive: true });
    makeBundle(source, 'a', [REPORT], { id: 'not-a', created: '2026-05-30T11:10:00Z' });
    makeBundle(source, 'c', [REPORT], { id: 'c', created: '2026-05-30T11:10:00Z' });
    const conflict = runCli(['distribute', 'run', '--config', config, '--json']);
    expect(conflict.status).toBe(2);
    const report = JSON.parse(conflict.stdout.toString());
    expect(report.outcomes.map((o: { outcome: string }) => o.outcome)).toEqual([
      'conflict',
      'skipped_same',
      'published',
    ]);
    expect(conflict.stdout.toString().trim().split('\n')).toHaveLength(1);
  });

  it('refuses a digest mismatch with exit 2, writes no bundle, names the file on stderr, never its content or digest', () => {
    const bundleDir = 'customer_zq_accounts';
    const bundle = makeBundle(source, bundleDir, [{ path: 'file_zq.md', content: 'SECRET_VALUE_ZQ' }], {
      id: 'secret_id_zq',
      created: '2026-05-30T11:10:00Z',
    });
    const manifest = JSON.parse(readFileSync(join(bundle, 'manifest.json'), 'utf8'));
    writeFileSync(join(bundle, 'file_zq.md'), 'SECRET_VALUE_ZX');
    const human = runCli(['distribute', 'run', '--config', config]);
    const json = runCli(['distribute', 'run', '--config', config, '--json']);
    for (const run of [human, json]) {
      expect(run.status).toBe(2);
      expect(describeTree(dest)).toEqual({
        '.distributor.work': 'dir 700',
        '.distributor.work/lock': expect.any(String),
      });
      expect(
        scanForSentinels(
          run,
          [dest],
          [
            'SECRET_VALUE_ZQ',
            'SECRET_VALUE_ZX',
            manifest.digest.slice(7, 40),
            manifest.files[0].sha256.slice(7, 40),
          ],
        ),
      ).toEqual([]);
    }
    const where = { path: join(source, bundleDir, 'file_zq.md') };
    expect(JSON.parse(json.stdout.toString())).toMatchObject({
      status: 'refused',
      aborted: true,
      failures: [
        {
          pipeline_id: 'weather',
          bundle_dir: bundleDir,
          // A report names bundle ids, as it names folders: an id is not a secret.
          bundle_id: 'secret_id_zq',
          reason_code: 'file_digest_mismatch',
          location: where,
        },
      ],
      // Regression: a refused outcome carried only its code; the fields were in failures[] alone.
      outcomes: [
        {
          bundle_dir: bundleDir,
          outcome: 'refused',
          reason_code: 'file_digest_mismatch',
          category: 'mismatched',
          message: 'a file SHA-256 differs from the digest the manifest lists',
          location: where,
          hint: `the file changed after manifest.json was written (it lists it as files[0]): restore it, or, if the change is meant, write the manifest again with sealkit distribute manifest ${join(source, bundleDir)} --id secret_id_zq --replace`,
        },
      ],
    });
    // The report on stdout, the refusal (with the file) on stderr: `>/dev/null` hides only the report.
    expect(human.stdout.toString()).toContain('file_digest_mismatch');
    expect(human.stdout.toString()).not.toContain('error[');
    expect(human.stderr.toString()).toBe(
      'error[file_digest_mismatch]: a file SHA-256 differs from the digest the manifest lists\n' +
        `  --> ${where.path}\n` +
        `  = help: the file changed after manifest.json was written (it lists it as files[0]): restore it, or, if the change is meant, write the manifest again with sealkit distribute manifest ${join(source, bundleDir)} --id secret_id_zq --replace\n`,
    );
  });

  it('regression: a bundle refused in validation is reported under its manifest id, not null', () => {
    const bundle = makeBundle(source, 'weekly', [REPORT], {
      id: 'weather.weekly',
      created: '2026-05-30T11:10:00Z',
    });
    writeFileSync(join(bundle, 'report.md'), '# Daily\n\nRainy.\n');
    const json = runCli(['distribute', 'run', '--config', config, '--json']);
    expect(json.status).toBe(2);
    const report = JSON.parse(json.stdout.toString());
    const named = { bundle_dir: 'weekly', bundle_id: 'weather.weekly', reason_code: 'file_digest_mismatch' };
    expect(report.failures).toMatchObject([named]);
    expect(report.outcomes).toMatchObject([named]);
    expect(report.plan.items).toMatchObject([{ bundle_dir: 'weekly', bundle_id: 'weather.weekly' }]);
    // The human report names the bundle too: its row, and the file under its folder.
    const human = runCli(['distribute', 'run', '--config', config]);
    expect(human.status).toBe(2);
    expect(human.stdout.toString()).toContain('weather   site         weekly  refused  file_digest_mismatch');
    expect(human.stderr.toString()).toContain(`  --> ${join(source, 'weekly', 'report.md')}\n`);
  });

  it('refuses a broken configuration naming the file, line, column and key, never a value or a credential', () => {
    writeFileSync(
      config,
      'pipelines:\n  - id: weather\n    source: {root: /srv/SECRET_ROOT_ZQ}\n    sourse: x\n' +
        '    destinations:\n      - {id: a, kind: s3, bucket: b-zq, prefix: p, outputs: {source: true, html: true},\n' +
        '         secret_access_key: SECRET_KEY_ZQ}\n',
    );
    const run = runCli(['distribute', 'run', '--config', 'sealkit.distributor.yaml'], { cwd: work });
    expect(run.status).toBe(2);
    expect(run.stdout.length).toBe(0);
    expect(run.stderr.toString()).toBe(
      [
        'error[config_unknown_key]: the configuration has a key sealkit does not know',
        '  --> sealkit.distributor.yaml:4:5',
        '  = at: pipelines[0].sourse',
        '  = help: allowed keys here: id, source, destinations',
        'error[config_unknown_key]: the configuration has a key sealkit does not know',
        '  --> sealkit.distributor.yaml:7:10',
        '  = at: pipelines[0].destinations[0].secret_access_key',
        '  = help: credentials never go in this file: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE, in the environment, or use ~/.aws files or an instance role',
        '',
      ].join('\n'),
    );
    expect(scanForSentinels(run, [], ['SECRET_ROOT_ZQ', 'SECRET_KEY_ZQ', work])).toEqual([]);
    const missing = runCli(['distribute', 'run', '--config', 'absent.yaml', '--json'], { cwd: work });
    expect(missing.status).toBe(2);
    expect(JSON.parse(missing.stdout.toString())).toMatchObject({
      reason_code: 'input_missing',
      location: { path: 'absent.yaml' },
    });
    const pipeline = runCli(['distribute', 'run', '--config', config, '--pipeline', 'nope']);
    expect(pipeline.status).toBe(2);
  });

  it('regression: a destination root that does not open is said beside a missing source root, and with an empty source (one path a run, or exit 0 and nothing said)', () => {
    const dir = join(work, 'idle-destination');
    mkdirSync(join(dir, 'out'), { recursive: true });
    mkdirSync(join(dir, 'reports'));
    const yaml = (root: string) =>
      `pipelines:\n  - id: daily\n    source: {root: ${root}}\n    destinations:\n      - {id: site, kind: local, root: ot, outputs: {source: true, html: false}}\n`;
    writeFileSync(join(dir, 'both.yaml'), yaml('reprots'));
    const both = runCli(['distribute', 'run', '--config', 'both.yaml'], { cwd: dir });
    expect(both.status).toBe(2);
    expect(both.stdout.toString()).toContain(
      "pipeline 'daily' refused as a whole: source_root_missing\npipeline 'daily', destination 'site' refused: destination_root_unavailable\n",
    );
    expect(both.stderr.toString()).toBe(
      [
        'error[source_root_missing]: the source root does not exist',
        '  --> both.yaml:3:14',
        '  = at: pipelines[0].source.root',
        "  = help: pipeline 'daily': root 'reprots': did you mean 'reports'?",
        'error[destination_root_unavailable]: the destination root is missing, not a directory, reached through a symbolic link, or unusable',
        '  --> both.yaml:5:33',
        '  = at: pipelines[0].destinations[0].root',
        "  = help: destination 'site': root 'ot' does not exist: did you mean 'out'?",
        '',
      ].join('\n'),
    );
    // No bundle yet (a new configuration's first night): refused, not a silent success.
    writeFileSync(join(dir, 'empty.yaml'), yaml('reports'));
    for (const dryRun of [[], ['--dry-run']]) {
      const empty = runCli(['distribute', 'run', '--config', 'empty.yaml', ...dryRun, '--json'], {
        cwd: dir,
      });
      expect(empty.status).toBe(2);
      expect(JSON.parse(empty.stdout.toString())).toMatchObject({
        status: 'refused',
        aborted: true,
        failures: [
          {
            pipeline_id: 'daily',
            bundle_dir: null,
            destination_id: 'site',
            reason_code: 'destination_root_unavailable',
            location: { path: 'empty.yaml', line: 5, column: 33 },
          },
        ],
      });
    }
    // A folder left without its manifest is still named when no table is printed.
    mkdirSync(join(dir, 'reports', 'w01'));
    writeFileSync(join(dir, 'reports', 'w01', 'report.md'), '# W01\n');
    const forgotten = runCli(['distribute', 'run', '--config', 'empty.yaml'], { cwd: dir });
    expect(forgotten.status).toBe(2);
    expect(forgotten.stdout.toString()).toBe(
      [
        'run aborted before any write (the refusals are on stderr)',
        "pipeline 'daily', destination 'site' refused: destination_root_unavailable",
        '',
        "not published: 1 folder holds files but no manifest.json ('reports/w01'); write one with: sealkit distribute manifest reports/w01 --id <id>",
        '',
        'summary: 0 published, 0 replaced, 0 skipped_same, 0 skipped_newer, 0 conflict, 0 refused',
        '',
      ].join('\n'),
    );
    expect(describeTree(join(dir, 'out'))).toEqual({});
  });

  it('regression: a missing source root points at its root: line and names the pipeline', () => {
    const dir = join(work, 'source-root-place');
    mkdirSync(join(dir, 'conf'), { recursive: true });
    mkdirSync(join(dir, 'www'));
    writeFileSync(
      join(dir, 'conf', 'x.yaml'),
      'pipelines:\n  - id: daily\n    source: {root: ../reports-daily}\n    destinations:\n      - {id: site, kind: local, root: ../www, outputs: {source: true, html: false}}\n',
    );
    const human = runCli(['distribute', 'run', '--config', 'conf/x.yaml'], { cwd: dir });
    expect(human.status).toBe(2);
    expect(human.stderr.toString()).toBe(
      [
        'error[source_root_missing]: the source root does not exist',
        '  --> conf/x.yaml:3:14',
        '  = at: pipelines[0].source.root',
        "  = help: pipeline 'daily': root '../reports-daily' ('reports-daily' from the current folder): create it, or fix the path",
        '',
      ].join('\n'),
    );
    // Regression: a root written './reports' beside the configuration was named 'reports'.
    writeFileSync(
      join(dir, 'dotted.yaml'),
      'pipelines:\n  - id: daily\n    source: {root: ./reports}\n    destinations:\n      - {id: site, kind: local, root: ./www, outputs: {source: true, html: false}}\n',
    );
    expect(
      runCli(['distribute', 'run', '--config', 'dotted.yaml'], { cwd: dir }).stderr.toString(),
    ).toContain("  = help: pipeline 'daily': root './reports': create it, or fix the path\n");
    // `~` is not a shell's: the hint says so (regression: it only said the root was missing).
    writeFileSync(
      join(dir, 'conf', 'tilde.yaml'),
      'pipelines:\n  - id: daily\n    source: {root: ~/reports}\n    destinations:\n      - {id: site, kind: local, root: ../www, outputs: {source: true, html: false}}\n',
    );
    const tilde = runCli(['distribute', 'run', '--config', 'conf/tilde.yaml'], { cwd: dir });
    expect(tilde.stderr.toString()).toContain(
      "  = help: pipeline 'daily': root '~/reports' ('conf/~/reports' from the current folder): '~' is not expanded, so it names a folder called '~': write the full path\n",
    );
    // A dry run says it under its own heading (regression: the line came above it).
    const dry = runCli(['distribute', 'run', '--config', 'conf/x.yaml', '--dry-run'], { cwd: dir });
    expect(dry.status).toBe(2);
    expect(dry.stdout.toString()).toMatch(
      /^dry run: the plan a real run would apply \(nothing written\)\n\na real run would stop before any write \(the refusals are on stderr\)\n\nwould be: /,
    );
  });

  it('regression: a source whose folders lack manifest.json names them and says how to write one (was only "no bundle found")', () => {
    mkdirSync(join(source, 'weather', 'b1'), { recursive: true });
    writeFileSync(join(source, 'weather', 'b1', 'report.md'), REPORT.content);
    mkdirSync(join(source, 'sales'));
    writeFileSync(join(source, 'sales', 'q1.csv'), 'region,total\n');
    // Only the topmost folder of a tree is named: a manifest there covers the folders below.
    mkdirSync(join(source, 'maps', 'b1', 'tiles'), { recursive: true });
    writeFileSync(join(source, 'maps', 'b1', 'report.md'), REPORT.content);
    writeFileSync(join(source, 'maps', 'b1', 'tiles', 'a.png'), 'png');
    // Not named as folders: hidden files alone, hidden folders (a git checkout).
    mkdirSync(join(source, 'scratch'));
    writeFileSync(join(source, 'scratch', '.DS_Store'), '');
    mkdirSync(join(source, '.git', 'refs', 'heads'), { recursive: true });
    writeFileSync(join(source, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(join(source, '.git', 'refs', 'heads', 'main'), '0000\n');
    // A file at the root is named apart: no manifest makes it part of a bundle.
    writeFileSync(join(source, 'README.md'), '# Sources\n');
    writeFileSync(join(source, '.env'), 'X=1\n');
    // A name that is not UTF-8 is left out: no manifest can be written there.
    const latin1 = Buffer.concat([Buffer.from(join(source, 'lat')), Buffer.from([0xe9]), Buffer.from('n')]);
    mkdirSync(latin1);
    writeFileSync(Buffer.concat([latin1, Buffer.from('/a.csv')]), 'x\n');
    // A name with a control character is shown escaped, never sent to the terminal.
    mkdirSync(join(source, 'esc\u001b[31mred'));
    writeFileSync(join(source, 'esc\u001b[31mred', 'notes.txt'), 'n\n');
    for (const flags of [[], ['--dry-run']]) {
      const result = runCli(['distribute', 'run', '--config', config, ...flags]);
      expect(result.status).toBe(0);
      expect(result.stdout.toString()).toContain(
        [
          'no bundle found under the source roots',
          'a bundle is a folder below a source root holding manifest.json; 4 folders hold files but none:',
          `  ${join(source, 'esc\\x1b[31mred')}`,
          `  ${join(source, 'maps/b1')}`,
          `  ${join(source, 'sales')}`,
          `  ${join(source, 'weather/b1')}`,
          'files directly in a source root are never published (move them into a folder below it):',
          `  ${join(source, 'README.md')}`,
          'write one with: sealkit distribute manifest <folder> --id <id>',
        ].join('\n'),
      );
      expect(result.stdout.toString()).not.toContain('\u001b');
      expect(result.stdout.toString()).not.toContain('.env');
    }
    const json = JSON.parse(runCli(['distribute', 'run', '--config', config, '--json']).stdout.toString());
    expect(json.plan.pipelines[0].dirs_without_manifest).toEqual({
      total: 4,
      first: ['esc\u001b[31mred', 'maps/b1', 'sales', 'weather/b1'].map((dir) => join(source, dir)),
    });
    expect(json.plan.pipelines[0].files_at_source_root).toEqual({
      total: 1,
      first: [join(source, 'README.md')],
    });
    // Following the hint: the folder gets its manifest, publishes, and is no longer named.
    const written = runCli(['distribute', 'manifest', join(source, 'maps/b1'), '--id', 'maps.b1']);
    expect(written.status).toBe(0);
    const published = JSON.parse(
      runCli(['distribute', 'run', '--config', config, '--json']).stdout.toString(),
    );
    expect(published.outcomes.map((item: { bundle_dir: string }) => item.bundle_dir)).toEqual(['maps/b1']);
    expect(published.counts.published).toBe(1);
    expect(published.plan.pipelines[0].dirs_without_manifest).toEqual({
      total: 3,
      first: ['esc\u001b[31mred', 'sales', 'weather/b1'].map((dir) => join(source, dir)),
    });
    // Regression: once one bundle was found, the human report no longer named the
    // folders still missing their manifest, and the run looked complete.
    for (const flags of [[], ['--dry-run']]) {
      const text = runCli(['distribute', 'run', '--config', config, ...flags]).stdout.toString();
      expect(text).toContain(
        `not published: 3 folders hold files but no manifest.json ('${join(source, 'esc\\x1b[31mred')}', '${join(source, 'sales')}', '${join(source, 'weather/b1')}'); write one with: sealkit distribute manifest <folder> --id <id>`,
      );
      expect(text).toContain(
        `not published: 1 file directly in a source root ('${join(source, 'README.md')}'); a bundle is a folder below the root`,
      );
      expect(text).not.toContain('\u001b');
    }
  });

  it('regression: files lying directly in the source root are named, with how to publish them (was only "no bundle found")', () => {
    writeFileSync(join(source, 'report.md'), REPORT.content);
    writeFileSync(join(source, 'sales.csv'), 'region,total\n');
    writeFileSync(join(source, '.DS_Store'), '');
    for (const flags of [[], ['--dry-run']]) {
      const result = runCli(['distribute', 'run', '--config', config, ...flags]);
      expect(result.status).toBe(0);
      expect(result.stdout.toString()).toContain(
        [
          'no bundle found under the source roots',
          'a bundle is a folder below a source root holding manifest.json; files directly in the root are never published:',
          `  ${join(source, 'report.md')}`,
          `  ${join(source, 'sales.csv')}`,
          'move them into a folder below the root, then write its manifest with: sealkit distribute manifest <folder> --id <id>',
        ].join('\n'),
      );
    }
    // Following the hint: moved into a folder with its manifest, they publish and are no longer named.
    mkdirSync(join(source, 'daily'));
    renameSync(join(source, 'report.md'), join(source, 'daily', 'report.md'));
    renameSync(join(source, 'sales.csv'), join(source, 'daily', 'sales.csv'));
    expect(runCli(['distribute', 'manifest', join(source, 'daily'), '--id', 'daily']).status).toBe(0);
    const published = JSON.parse(
      runCli(['distribute', 'run', '--config', config, '--json']).stdout.toString(),
    );
    expect(published.counts.published).toBe(1);
    expect(published.plan.pipelines[0].files_at_source_root).toEqual({ total: 0, first: [] });
  });

  it('never names a folder with a bundle below it: a manifest there would nest that bundle', () => {
    mkdirSync(join(source, 'archive'));
    writeFileSync(join(source, 'archive', 'index.md'), '# Archive\n');
    makeBundle(source, 'archive/2026-05', [REPORT], { id: 'a1', created: '2026-05-30T11:10:00Z' });
    mkdirSync(join(source, 'loose'));
    writeFileSync(join(source, 'loose', 'a.txt'), 'a\n');
    const report = JSON.parse(runCli(['distribute', 'run', '--config', config, '--json']).stdout.toString());
    expect(report.counts.published).toBe(1);
    expect(report.plan.pipelines[0].dirs_without_manifest).toEqual({
      total: 1,
      first: [join(source, 'loose')],
    });
  });

  it('with several pipelines, says which folders and files are whose', () => {
    const other = join(work, 'other');
    mkdirSync(join(other, 'q1'), { recursive: true });
    writeFileSync(join(other, 'q1', 'sales.csv'), 'x\n');
    writeFileSync(join(other, 'totals.csv'), 'x\n');
    mkdirSync(join(source, 'weather'));
    writeFileSync(join(source, 'weather', 'report.md'), REPORT.content);
    mkdirSync(join(work, 'dest2'));
    const two = writeConfig(work, [
      { id: 'weather', source, destinations: [{ id: 'site', root: dest }] },
      { id: 'sales', source: other, destinations: [{ id: 'site', root: join(work, 'dest2') }] },
    ]);
    const text = runCli(['distribute', 'run', '--config', two]).stdout.toString();
    expect(text).toContain(
      [
        'a bundle is a folder below a source root holding manifest.json; these hold files but none:',
        '  pipeline weather, 1 folder:',
        `    ${join(source, 'weather')}`,
        '  pipeline sales, 1 folder:',
        `    ${join(other, 'q1')}`,
        'files directly in a source root are never published (move them into a folder below it):',
        '  pipeline sales, 1 file:',
        `    ${join(other, 'totals.csv')}`,
        'write one with: sealkit distribute manifest <folder> --id <id>',
      ].join('\n'),
    );
  });

  it('names at most ten folders without a manifest, and says how many more there are', () => {
    for (let day = 1; day <= 12; day += 1) {
      const folder = join(source, `day-${String(day).padStart(2, '0')}`);
      mkdirSync(folder);
      writeFileSync(join(folder, 'report.md'), REPORT.content);
    }
    const text = runCli(['distribute', 'run', '--config', config]).stdout.toString();
    expect(text).toContain('12 folders hold files but none:');
    expect(text).toContain(`  ${join(source, 'day-10')}\n  and 2 more\n`);
    expect(text).not.toContain('day-11');
  });

  it.each([
    [['run', '--config', ''], '--config takes a value, not an empty string: --config FILE'],
    [['run', '--config='], '--config takes a value, not an empty string: --config FILE'],
    [['run', '--pipeline', ''], '--pipeline takes a value, not an empty string: --pipeline ID'],
    [['verify', ''], 'argument BUNDLE_DIR is an empty string'],
    [['manifest', '', '--id', 'x'], 'argument BUNDLE_DIR is an empty string'],
    [
      ['manifest', 'b', '--id', 'x', '--exclude', ''],
      '--exclude takes a value, not an empty string: --exclude GLOB',
    ],
  ])(
    'regression: an empty value is a usage error naming it, before anything is read (distribute %j; was exit 2 input_not_regular without a location)',
    (args, line) => {
      // An empty folder: `--config ''` must not fall back to, or read, anything in it.
      const result = runCli(['distribute', ...args], { cwd: work });
      expect(result.status).toBe(1);
      expect(result.stderr.toString().split('\n')[0]).toBe(`sealkit: ${line}`);
      expect(result.stdout.length).toBe(0);
    },
  );

  it('--checksum compares published outputs by content: the plan says so in text and --json, the dry run prints the plan the run applies, a same-size edit is refused exit 2', () => {
    makeBundle(source, 'weather/b1', [REPORT], { id: 'b1', created: '2026-05-30T11:10:00Z' });
    expect(runCli(['distribute', 'run', '--config', config]).status).toBe(0);
    const intact = runCli(['distribute', 'run', '--config', config, '--checksum', '--dry-run']);
    expect(intact.status).toBe(0);
    expect(intact.stdout.toString()).toBe(
      [
        'dry run: the plan a real run would apply (nothing written)',
        'published outputs compared by SHA-256 (--checksum), not only by size',
        '',
        'skipped_same weather -> site: weather/b1',
        '',
        'would be: 0 published, 0 replaced, 1 skipped_same, 0 skipped_newer, 0 conflict, 0 refused',
        '',
      ].join('\n'),
    );
    // Without the flag the dry run says nothing of it, and compares by size.
    const bySize = runCli(['distribute', 'run', '--config', config, '--dry-run', '--json']);
    expect(JSON.parse(bySize.stdout.toString()).plan.outputs_compared_by).toBe('size');
    expect(runCli(['distribute', 'run', '--config', config, '--dry-run']).stdout.toString()).not.toContain(
      '--checksum',
    );

    writeFileSync(join(dest, 'weather', 'b1', 'report.md'), '# Daily\n\nRainy.\n');
    const before = describeTree(work);
    const dry = runCli(['distribute', 'run', '--config', config, '--checksum', '--dry-run', '--json']);
    const real = runCli(['distribute', 'run', '--config', config, '--checksum', '--json']);
    expect(describeTree(work)).toEqual(before);
    expect([dry.status, real.status]).toEqual([2, 2]);
    const dryReport = JSON.parse(dry.stdout.toString());
    const realReport = JSON.parse(real.stdout.toString());
    expect(dryReport.plan).toEqual(realReport.plan);
    expect(realReport.plan.outputs_compared_by).toBe('sha256');
    expect(realReport).toMatchObject({
      status: 'refused',
      dry_run: false,
      reason_code: 'destination_incomplete',
      outcomes: [
        {
          bundle_dir: 'weather/b1',
          outcome: 'refused',
          reason_code: 'destination_incomplete',
          entry_path: 'report.md',
          entry_count: 1,
          entry_sha256_differs: true,
        },
      ],
    });
    expect(realReport.outcomes[0].hint).toContain(
      "(the only one: 'report.md' has the size it records, but its bytes differ from what sealkit published, so something else wrote over it)",
    );
    const human = runCli(['distribute', 'run', '--config', config, '--checksum']);
    expect(human.status).toBe(2);
    expect(human.stdout.toString()).toContain('weather/b1  refused  destination_incomplete');
    expect(human.stderr.toString()).toContain('error[destination_incomplete]: ');
  });

  it('treats unknown flags as usage errors', () => {
    expect(runCli(['distribute', 'run', '--force']).status).toBe(1);
    expect(runCli(['distribute', 'verify']).status).toBe(1);
    expect(runCli(['distribute', 'manifest', work]).status).toBe(1);
  });
});

describe('sealkit distribute verify and manifest', () => {
  it('regression: manifest and verify give a folder that does not exist the same code', () => {
    const missing = join(work, 'no-such-bundle');
    for (const args of [
      ['manifest', missing, '--id', 'x'],
      ['verify', missing],
    ]) {
      const result = runCli(['distribute', ...args, '--json']);
      expect(result.status).toBe(2);
      expect(JSON.parse(result.stdout.toString())).toMatchObject({ reason_code: 'bundle_dir_missing' });
    }
  });

  it.each([
    ['does not exist', (): void => {}, 'bundle_dir_missing', 'the bundle folder does not exist'],
    [
      'is a file',
      (): void => writeFileSync(join(work, 'b'), 'x'),
      'bundle_dir_not_directory',
      'the bundle folder is not a directory',
    ],
    [
      'may not be read by this account',
      (): void => mkdirSync(join(work, 'b'), { mode: 0o000 }),
      'bundle_dir_unavailable',
      'the bundle folder cannot be read (permission or I/O error)',
    ],
  ])(
    'regression: verify and manifest on a bundle folder that %s say "bundle folder", not "source root"',
    (_what, setUp, code, message) => {
      setUp();
      for (const args of [
        ['verify', 'b'],
        ['manifest', 'b', '--id', 'x'],
      ]) {
        const result = runCli(['distribute', ...args], { cwd: work });
        expect(result.status).toBe(2);
        const lines = result.stderr.toString().split('\n');
        expect(lines.slice(0, 2)).toEqual([`error[${code}]: ${message}`, '  --> b']);
        expect(result.stderr.toString()).not.toContain('source root');
      }
    },
  );

  it('regression: manifest in a folder this account may not write is manifest_write_failed naming it, in a dry run too (was file_unreadable; the dry run said "would write")', () => {
    mkdirSync(join(work, 'b'));
    writeFileSync(join(work, 'b', 'a.csv'), 'a\n');
    chmodSync(join(work, 'b'), 0o555);
    try {
      const before = describeTree(join(work, 'b'));
      const expected = [
        'error[manifest_write_failed]: manifest.json could not be written in the bundle folder',
        '  --> b',
        "  = help: the account running sealkit may not write in 'b' (EACCES)",
        '',
      ];
      for (const flags of [['--dry-run'], [], ['--replace'], ['--dry-run', '--replace']]) {
        const result = runCli(['distribute', 'manifest', 'b', '--id', 'b', ...flags], { cwd: work });
        expect(result.status).toBe(2);
        expect(result.stdout.length).toBe(0);
        expect(result.stderr.toString().split('\n')).toEqual(expected);
      }
      const json = runCli(['distribute', 'manifest', 'b', '--id', 'b', '--json'], { cwd: work });
      expect(JSON.parse(json.stdout.toString())).toEqual({
        status: 'refused',
        reason_code: 'manifest_write_failed',
        category: 'unavailable',
        message: 'manifest.json could not be written in the bundle folder',
        role: 'manifest',
        location: { path: 'b' },
        hint: "the account running sealkit may not write in 'b' (EACCES)",
      });
      expect(describeTree(join(work, 'b'))).toEqual(before);
      // An existing manifest does not change that: --replace cannot write either.
      chmodSync(join(work, 'b'), 0o755);
      expect(runCli(['distribute', 'manifest', 'b', '--id', 'b'], { cwd: work }).status).toBe(0);
      chmodSync(join(work, 'b'), 0o555);
      const exists = runCli(['distribute', 'manifest', 'b', '--id', 'b', '--json'], { cwd: work });
      expect(JSON.parse(exists.stdout.toString()).reason_code).toBe('manifest_write_failed');
    } finally {
      chmodSync(join(work, 'b'), 0o755);
    }
  });

  it('regression: manifest names a folder or file below it that it may not read, with why (was file_unreadable at the bundle folder)', () => {
    mkdirSync(join(work, 'b', 'locked'), { recursive: true });
    mkdirSync(join(work, 'b', 'open'));
    writeFileSync(join(work, 'b', 'locked', 'x.csv'), 'x\n');
    writeFileSync(join(work, 'b', 'open', 'y.csv'), 'y\n');
    chmodSync(join(work, 'b', 'locked'), 0o000);
    chmodSync(join(work, 'b', 'open', 'y.csv'), 0o000);
    try {
      const folder = runCli(['distribute', 'manifest', 'b', '--id', 'b'], { cwd: work });
      expect(folder.status).toBe(2);
      expect(folder.stderr.toString().split('\n').slice(0, 3)).toEqual([
        'error[source_dir_unreadable]: a directory in the source tree cannot be read',
        '  --> b/locked',
        '  = help: the account running sealkit may not read it (EACCES): check the permissions of the file and of its folders (a run reads every folder of a bundle, listed or left out)',
      ]);
      // Left out, it is still refused: a run reads it, and would refuse the bundle.
      const excluded = runCli(['distribute', 'manifest', 'b', '--id', 'b', '--exclude', 'locked'], {
        cwd: work,
      });
      expect(excluded.status).toBe(2);
      expect(excluded.stderr.toString().split('\n').slice(0, 2)).toEqual([
        'error[source_dir_unreadable]: a directory in the source tree cannot be read',
        '  --> b/locked',
      ]);
      chmodSync(join(work, 'b', 'locked'), 0o755);
      rmSync(join(work, 'b', 'locked'), { recursive: true });
      const file = runCli(['distribute', 'manifest', 'b', '--id', 'b'], { cwd: work });
      expect(file.status).toBe(2);
      expect(file.stderr.toString().split('\n').slice(0, 3)).toEqual([
        'error[file_unreadable]: a file the manifest lists cannot be read',
        '  --> b/open/y.csv',
        '  = help: the account running sealkit may not read it (EACCES): check the permissions of the file and of its folders',
      ]);
    } finally {
      if (existsSync(join(work, 'b', 'locked'))) chmodSync(join(work, 'b', 'locked'), 0o755);
    }
  });

  it('regression: Unicode twins are both named, marked NFC and NFD, with what to do (was one name, which looks like the other)', () => {
    const nfc = 'caf\u00e9.txt';
    const nfd = 'cafe\u0301.txt';
    mkdirSync(join(work, 'b'));
    writeFileSync(join(work, 'b', nfc), '1\n');
    writeFileSync(join(work, 'b', nfd), '2\n');
    const human = runCli(['distribute', 'manifest', 'b', '--id', 'b'], { cwd: work });
    expect(human.status).toBe(2);
    expect(human.stderr.toString().split('\n')).toEqual([
      'error[path_unicode_twin]: two paths differ only in Unicode normalization (NFC/NFD)',
      `  --> b/${nfc}`,
      `  = help: '${nfc}' (NFC) and 'cafe\\u0301.txt' (NFD) are one name on macOS and to many object-store clients: rename one of them, or leave one out with --exclude`,
      '',
    ]);
    const json = JSON.parse(
      runCli(['distribute', 'manifest', 'b', '--id', 'b', '--json'], { cwd: work }).stdout.toString(),
    );
    expect(json.details).toEqual({
      paths: [
        { path: nfc, form: 'NFC' },
        { path: nfd, form: 'NFD' },
      ],
    });
    // The fix the hint gives works: one of them left out.
    expect(runCli(['distribute', 'manifest', 'b', '--id', 'b', '--exclude', nfd], { cwd: work }).status).toBe(
      0,
    );
    // A manifest listing both (written by another producer) is refused by verify the same way.
    const manifest = JSON.parse(readFileSync(join(work, 'b', 'manifest.json'), 'utf8'));
    manifest.files.push({ ...manifest.files[0], path: nfd });
    writeFileSync(join(work, 'b', 'manifest.json'), JSON.stringify(manifest, null, 2));
    const verified = runCli(['distribute', 'verify', 'b', '--json'], { cwd: work });
    expect(verified.status).toBe(2);
    expect(JSON.parse(verified.stdout.toString())).toMatchObject({
      reason_code: 'path_unicode_twin',
      location: { path: 'b/manifest.json', pointer: 'files[1].path' },
      hint: `'cafe\\u0301.txt' (NFD) and '${nfc}' (NFC) at files[0] are one name on macOS and to many object-store clients: list one of them only, or rename one and write the manifest again`,
      details: {
        paths: [
          { path: nfd, form: 'NFD' },
          { path: nfc, form: 'NFC' },
        ],
      },
    });
  });

  it('regression: verify lists every repeat, twin and file/folder clash at once, and says what to do about each path it refuses (was the first set problem only, and no help)', () => {
    const nfc = 'caf\u00e9.txt';
    const nfd = 'cafe\u0301.txt';
    const files = [
      { path: 'dup.csv', content: 'd\n' },
      { path: 'a', content: 'a\n' },
      { path: nfc, content: 'c\n' },
      { path: nfd, content: 'c\n' },
      { path: 'x\\y.csv', content: 'x\n' },
    ];
    const records = fileRecords(files);
    const [dup, a, composed, decomposed, backslash] = records;
    if (!dup || !a || !composed || !decomposed || !backslash) throw new Error('fixture records');
    const listed = [
      dup,
      { ...a, path: '/a' },
      dup,
      a,
      { ...a, path: 'a/b' },
      composed,
      decomposed,
      backslash,
      { ...a, path: 'b//c' },
      { ...dup, path: '.distributor-notes' },
    ];
    makeBundle(work, 'b', files, { id: 'b', created: '2026-05-30T11:10:00Z', files: listed });
    const run = runCli(['distribute', 'verify', 'b', '--json'], { cwd: work });
    expect(run.status).toBe(2);
    const report = JSON.parse(run.stdout.toString()) as {
      reason_code: string;
      location: { pointer: string };
      hint: string;
      also: { reason_code: string; location: { pointer: string }; hint: string }[];
    };
    const fix =
      'correct the producer that wrote it, or write the manifest again with sealkit distribute manifest (the digest covers every path)';
    const leaveOut =
      'rename the file, or leave it out when writing the manifest (sealkit distribute manifest --exclude)';
    expect([report, ...report.also].map((r) => [r.reason_code, r.location.pointer, r.hint])).toEqual([
      [
        'path_absolute',
        'files[1].path',
        `a listed path is relative to the bundle folder, without a leading '/' (here 'a'): ${fix}`,
      ],
      [
        'path_backslash',
        'files[7].path',
        `the path holds a backslash, a folder separator on Windows and to many URL handlers: ${leaveOut}`,
      ],
      [
        'path_not_normalized',
        'files[8].path',
        `a listed path is in normal form, without an empty or '.' segment or a trailing '/' (here 'b/c'): ${fix}`,
      ],
      [
        'path_reserved',
        'files[9].path',
        `manifest.json and names beginning with .distributor are sealkit's own: ${leaveOut}`,
      ],
      // The set rules, over the paths the path rules let through, in list order: all in one round.
      ['path_duplicate', 'files[2].path', "files[0] lists the same path ('dup.csv'): list it once"],
      [
        'path_file_dir_clash',
        'files[4].path',
        "'a/b' runs through 'a', which files[3] lists as a file: a name is a file or a folder, not both; list only what the bundle folder holds, or rename one and write the manifest again",
      ],
      [
        'path_unicode_twin',
        'files[6].path',
        `'cafe\\u0301.txt' (NFD) and '${nfc}' (NFC) at files[5] are one name on macOS and to many object-store clients: list one of them only, or rename one and write the manifest again`,
      ],
    ]);
    // Each is a separate error in the human form, with its help.
    const human = runCli(['distribute', 'verify', 'b'], { cwd: work }).stderr.toString();
    expect(human.match(/^error\[/gm)).toHaveLength(7);
    expect(human.match(/^ {2}= help: /gm)).toHaveLength(7);
  });

  it('regression: manifest names every Unicode twin and a file a twin folder runs through, at once (was the first only)', () => {
    mkdirSync(join(work, 'b', 'e\u0301'), { recursive: true });
    writeFileSync(join(work, 'b', 'e\u0301', 'x.csv'), 'x\n');
    writeFileSync(join(work, 'b', '\u00e9'), 'y\n');
    writeFileSync(join(work, 'b', 'caf\u00e9.txt'), '1\n');
    writeFileSync(join(work, 'b', 'cafe\u0301.txt'), '2\n');
    writeFileSync(join(work, 'b', 't\u00e9.txt'), '1\n');
    writeFileSync(join(work, 'b', 'te\u0301.txt'), '2\n');
    const run = runCli(['distribute', 'manifest', 'b', '--id', 'b', '--json'], { cwd: work });
    expect(run.status).toBe(2);
    const report = JSON.parse(run.stdout.toString()) as {
      reason_code: string;
      location: { path: string };
      hint: string;
      also: { reason_code: string; location: { path: string }; hint: string }[];
    };
    expect([report, ...report.also].map((r) => [r.reason_code, r.location.path, r.hint])).toEqual([
      [
        'path_unicode_twin',
        'b/caf\u00e9.txt',
        "'caf\u00e9.txt' (NFC) and 'cafe\\u0301.txt' (NFD) are one name on macOS and to many object-store clients: rename one of them, or leave one out with --exclude",
      ],
      [
        'path_file_dir_clash',
        'b/e\u0301/x.csv',
        "'e\\u0301/x.csv' runs through '\u00e9', a file of the same name in another Unicode form: one name on macOS and to many object-store clients; rename one of them, or leave one out with --exclude",
      ],
      [
        'path_unicode_twin',
        'b/t\u00e9.txt',
        "'t\u00e9.txt' (NFC) and 'te\\u0301.txt' (NFD) are one name on macOS and to many object-store clients: rename one of them, or leave one out with --exclude",
      ],
    ]);
    expect(existsSync(join(work, 'b', 'manifest.json'))).toBe(false);
  });

  it('regression: verify says a manifest.json it may not read is unreadable, and what one that is a folder is (was "not a regular file" for both, no hint)', () => {
    mkdirSync(join(work, 'b'));
    writeFileSync(join(work, 'b', 'a.csv'), 'a\n');
    expect(runCli(['distribute', 'manifest', 'b', '--id', 'b'], { cwd: work }).status).toBe(0);
    chmodSync(join(work, 'b', 'manifest.json'), 0o000);
    const locked = runCli(['distribute', 'verify', 'b'], { cwd: work });
    expect(locked.status).toBe(2);
    expect(locked.stderr.toString().split('\n')).toEqual([
      'error[manifest_unreadable]: manifest.json cannot be read (permission or I/O error)',
      '  --> b/manifest.json',
      '  = help: the account running sealkit may not read it (EACCES): check the permissions of the file and of its folders',
      '',
    ]);
    rmSync(join(work, 'b', 'manifest.json'));
    mkdirSync(join(work, 'b', 'manifest.json'));
    const folder = runCli(['distribute', 'verify', 'b'], { cwd: work });
    expect(folder.stderr.toString().split('\n')).toEqual([
      'error[manifest_not_regular]: manifest.json is a symbolic link or not a regular file',
      '  --> b/manifest.json',
      '  = help: it is a folder, FIFO, socket or device: move it away, then write the manifest with sealkit distribute manifest b --id ID',
      '',
    ]);
  });

  it('manifest --dry-run prints the manifest a real run writes, and writes nothing', () => {
    const bundle = join(work, 'bundle');
    mkdirSync(join(bundle, 'data'), { recursive: true });
    writeFileSync(join(bundle, 'report.md'), '# R\n');
    writeFileSync(join(bundle, 'data', 'b.csv'), 'x\n');
    const args = ['distribute', 'manifest', bundle, '--id', 'weather.r', '--created', '2026-05-30T11:10:00Z'];
    const before = describeTree(bundle);
    const dry = runCli([...args, '--dry-run']);
    expect(dry.status).toBe(0);
    // The folder and the id on the line: a loop over many bundles logs which line is which.
    expect(
      dry.stdout.toString().startsWith(`would write ${join(bundle, 'manifest.json')} (id weather.r): `),
    ).toBe(true);
    expect(dry.stdout.toString()).toMatch(
      /\(id weather\.r\): 2 files, 6 bytes, digest sha256:[0-9a-f]{64}\n {2}data\/b\.csv \(2 bytes\)\n {2}report\.md \(4 bytes\)\n$/,
    );
    expect(describeTree(bundle)).toEqual(before);
    const planned = JSON.parse(runCli([...args, '--dry-run', '--json']).stdout.toString());
    const real = JSON.parse(runCli([...args, '--json']).stdout.toString());
    expect(planned).toEqual({ ...real, dry_run: true });
    expect(real.dry_run).toBe(false);
    // What a real run refuses, the dry run refuses too: the manifest now exists.
    const again = runCli([...args, '--dry-run', '--json']);
    expect(again.status).toBe(2);
    expect(JSON.parse(again.stdout.toString())).toMatchObject({ reason_code: 'manifest_exists' });
    expect(JSON.parse(runCli([...args, '--dry-run', '--replace', '--json']).stdout.toString())).toMatchObject(
      {
        replaced: true,
        dry_run: true,
        digest: real.digest,
      },
    );
  });

  it('writes a manifest a producer can publish, and verify accepts it', () => {
    const bundle = join(work, 'bundle');
    mkdirSync(join(bundle, 'data'), { recursive: true });
    writeFileSync(join(bundle, 'report.md'), '# R\n');
    writeFileSync(join(bundle, 'data', 'b.csv'), 'x\n');
    writeFileSync(join(bundle, 'Z.txt'), 'z');
    const wrote = runCli([
      'distribute',
      'manifest',
      bundle,
      '--id',
      'weather.r',
      '--created',
      '2026-05-30T13:10:00+02:00',
      '--json',
    ]);
    expect(wrote.status).toBe(0);
    const manifest = JSON.parse(readFileSync(join(bundle, 'manifest.json'), 'utf8'));
    expect(manifest.created).toBe('2026-05-30T11:10:00Z');
    expect(manifest.files.map((f: { path: string }) => f.path)).toEqual(['Z.txt', 'data/b.csv', 'report.md']);
    expect(JSON.parse(wrote.stdout.toString())).toMatchObject({
      status: 'ok',
      files: 3,
      digest: manifest.digest,
    });
    const verified = runCli(['distribute', 'verify', bundle, '--json']);
    expect(verified.status).toBe(0);
    expect(JSON.parse(verified.stdout.toString())).toMatchObject({
      status: 'ok',
      id: 'weather.r',
      files: 3,
      bytes: 7,
    });
    const again = runCli(['distribute', 'manifest', bundle, '--id', 'x']);
    expect(again.status).toBe(2);
    expect(again.stderr.toString()).toContain('error[manifest_exists]');
  });

  it('regression: a blank id or one with a control character is a usage error naming --id, writing nothing', () => {
    const bundle = join(work, 'ids');
    mkdirSync(bundle);
    writeFileSync(join(bundle, 'a.txt'), 'a');
    for (const [id, problem] of [
      ['  ', 'the id is empty, or only white space'],
      ['weekly\treport', 'the id holds a control character (a tab, a line break, an escape...)'],
    ] as const) {
      const result = runCli(['distribute', 'manifest', bundle, '--id', id, '--json']);
      expect(result.status).toBe(1);
      expect(JSON.parse(result.stdout.toString())).toMatchObject({
        status: 'usage_error',
        message: expect.stringMatching(
          new RegExp(
            `^--id takes a bundle id such as weather\\.2026-05-30, not '.*': ${problem.replace(/[.()]/g, '\\$&')}$`,
          ),
        ),
      });
    }
    expect(readdirSync(bundle)).toEqual(['a.txt']);
  });

  it('regression: defaults --created to now; a bad one is a usage error naming --created, writing nothing', () => {
    const bundle = join(work, 'b');
    mkdirSync(bundle);
    writeFileSync(join(bundle, 'a.txt'), 'a');
    const bad = runCli(['distribute', 'manifest', bundle, '--id', 'x', '--created', '30 May 2026']);
    expect(bad.status).toBe(1);
    expect(bad.stderr.toString().split('\n')[0]).toBe(
      "sealkit: --created takes an RFC 3339 timestamp such as 2026-05-30T00:00:00Z, not '30 May 2026'",
    );
    expect(readdirSync(bundle)).toEqual(['a.txt']);
    const before = Date.now();
    expect(runCli(['distribute', 'manifest', bundle, '--id', 'x']).status).toBe(0);
    const created = Date.parse(JSON.parse(readFileSync(join(bundle, 'manifest.json'), 'utf8')).created);
    expect(created).toBeGreaterThanOrEqual(before - 1000);
    expect(created).toBeLessThanOrEqual(Date.now() + 1000);
  });

  it('names every failed file of a damaged bundle under the path given, never its content or digest', () => {
    const bundle = makeBundle(
      work,
      'v',
      [
        { path: 'a.txt', content: 'SECRET_A_ZQ' },
        { path: 'b.txt', content: 'SECRET_B_ZQ' },
      ],
      { id: 'secret_id_zq', created: '2026-05-30T11:10:00Z' },
    );
    const manifest = JSON.parse(readFileSync(join(bundle, 'manifest.json'), 'utf8'));
    writeFileSync(join(bundle, 'a.txt'), 'SECRET_A_ZX');
    rmSync(join(bundle, 'b.txt'));
    const run = runCli(['distribute', 'verify', 'v', '--json'], { cwd: work });
    expect(run.status).toBe(2);
    expect(JSON.parse(run.stdout.toString())).toEqual({
      status: 'refused',
      reason_code: 'file_digest_mismatch',
      category: 'mismatched',
      message: 'a file SHA-256 differs from the digest the manifest lists',
      role: 'bundle',
      location: { path: 'v/a.txt' },
      hint: 'the file changed after manifest.json was written (it lists it as files[0]): restore it, or, if the change is meant, write the manifest again with sealkit distribute manifest v --id secret_id_zq --replace',
      also: [
        {
          reason_code: 'file_missing',
          category: 'missing',
          message: 'a file the manifest lists does not exist',
          role: 'bundle',
          location: { path: 'v/b.txt' },
          hint: 'manifest.json lists it as files[1]: restore it, or, if it was removed on purpose, write the manifest again with sealkit distribute manifest v --id secret_id_zq --replace',
        },
      ],
    });
    // Not the bundle's id: the help's command to write the manifest again
    // names it, as a run's report names bundle ids (an id is not a secret).
    const sentinels = [
      'SECRET_A_ZQ',
      'SECRET_A_ZX',
      'SECRET_B_ZQ',
      manifest.files[0].sha256.slice(7, 40),
      work,
    ];
    expect(scanForSentinels(run, [], sentinels)).toEqual([]);
    makeBundle(bundle, 'nested', [{ path: 'n.txt', content: 'n' }], {
      id: 'n',
      created: '2026-05-30T11:10:00Z',
    });
    writeFileSync(join(bundle, 'a.txt'), 'SECRET_A_ZQ');
    writeFileSync(join(bundle, 'b.txt'), 'SECRET_B_ZQ');
    const nested = JSON.parse(
      runCli(['distribute', 'verify', 'v', '--json'], { cwd: work }).stdout.toString(),
    );
    expect(nested).toMatchObject({
      reason_code: 'bundle_nested',
      location: { path: 'v/nested/manifest.json' },
      hint: "the bundle holds another bundle, 'nested': move one of them so that neither lies inside the other",
      details: { bundle_dir: '.', nested_bundle_dir: 'nested' },
    });
  });

  it('verify --html refuses Markdown a run could not render (regression: passed verify, aborted the run)', () => {
    const bundle = makeBundle(
      work,
      'm',
      [
        { path: 'report.md', content: Buffer.from([0x23, 0x20, 0xff, 0x0a]) },
        { path: 'notes.md', content: '# Notes\n' },
      ],
      { id: 'm', created: '2026-05-30T11:10:00Z' },
    );
    expect(runCli(['distribute', 'verify', 'm'], { cwd: work }).status).toBe(0);
    const html = runCli(['distribute', 'verify', 'm', '--html', '--json'], { cwd: work });
    expect(html.status).toBe(2);
    expect(JSON.parse(html.stdout.toString())).toMatchObject({
      reason_code: 'markdown_not_utf8',
      location: { path: 'm/report.md', line: 1, column: 3 },
    });
    // The run refuses the same bundle for an html destination, at the same place.
    mkdirSync(join(source, 'm'));
    for (const name of ['report.md', 'notes.md', 'manifest.json'])
      writeFileSync(join(source, 'm', name), readFileSync(join(bundle, name)));
    const run = JSON.parse(runCli(['distribute', 'run', '--config', config, '--json']).stdout.toString());
    expect(run.failures).toMatchObject([
      {
        bundle_dir: 'm',
        reason_code: 'markdown_not_utf8',
        location: { path: join(source, 'm', 'report.md') },
      },
    ]);
    writeFileSync(join(bundle, 'report.md'), '# R\n');
  });

  it('verify --source --html refuses an output collision, naming the Markdown file (regression: passed verify)', () => {
    makeBundle(
      work,
      'c',
      [
        { path: 'report.md', content: '# Report\n' },
        { path: 'report.html', content: '<p>hand-made</p>\n' },
      ],
      { id: 'c', created: '2026-05-30T11:10:00Z' },
    );
    expect(runCli(['distribute', 'verify', 'c', '--html'], { cwd: work }).status).toBe(0);
    const both = runCli(['distribute', 'verify', 'c', '--source', '--html'], { cwd: work });
    expect(both.status).toBe(2);
    expect(both.stderr.toString()).toBe(
      [
        'error[output_collision]: two planned outputs of a destination have the same path, Unicode twins, or a file/directory clash',
        '  --> c/report.md',
        '  = help: its page report.html is also a listed file copied as it is',
        '',
      ].join('\n'),
    );
    const ok = runCli(['distribute', 'verify', 'c', '--source', '--json'], { cwd: work });
    expect(JSON.parse(ok.stdout.toString())).toMatchObject({
      status: 'ok',
      outputs: { source: true, html: false },
      pages: 0,
    });
    expect(runCli(['distribute', 'verify', 'c', '--html'], { cwd: work }).stdout.toString()).toMatch(
      /^valid: 2 files, \d+ bytes, 1 page rendered, digest sha256:[0-9a-f]{64}\n$/,
    );
  });
});

describe('a misspelt path of the operator gets the one beside it', () => {
  /** A source root `reports` with one bundle, a destination `www` and work_dir `work`, and a configuration folder. */
  function layout(): string {
    const dir = join(work, 'typo');
    mkdirSync(join(dir, 'conf'), { recursive: true });
    mkdirSync(join(dir, 'www'));
    mkdirSync(join(dir, 'work'));
    makeBundle(join(dir, 'reports'), 'w22', [REPORT], { id: 'w22', created: '2026-05-30T11:10:00Z' });
    return dir;
  }
  const pipeline = (source: string, destination: string): string =>
    `pipelines:\n  - id: daily\n    source: {root: ${source}}\n    destinations:\n      - {id: site, kind: local, ${destination}, outputs: {source: true, html: false}}\n`;

  it('--config one typo away from a file names that file, human and --json', () => {
    const dir = layout();
    writeFileSync(join(dir, 'conf', 'full.yaml'), pipeline('../reports', 'root: ../www'));
    const human = runCli(['distribute', 'run', '--config', 'conf/fulll.yaml'], { cwd: dir });
    expect(human.status).toBe(2);
    expect(human.stderr.toString()).toBe(
      [
        'error[input_missing]: the input file does not exist',
        '  --> conf/fulll.yaml',
        "  = help: did you mean 'conf/full.yaml'?",
        '',
      ].join('\n'),
    );
    const json = runCli(['distribute', 'run', '--config', 'conf/fulll.yaml', '--json'], { cwd: dir });
    expect(json.status).toBe(2);
    expect(JSON.parse(json.stdout.toString())).toMatchObject({
      reason_code: 'input_missing',
      location: { path: 'conf/fulll.yaml' },
      hint: "did you mean 'conf/full.yaml'?",
    });
    // Nothing near: the plain advice stays.
    const far = runCli(['distribute', 'run', '--config', 'conf/other.yaml'], { cwd: dir });
    expect(far.stderr.toString()).toContain(
      '  = help: check the path given to --config, or create the file\n',
    );
  });

  // Regression: the configuration in conf/ says `root: ../reprots`, and the
  // help said `did you mean 'reports'?`, which written there is conf/reports.
  // It names the root as written (and as it is from here), and suggests
  // what to write in the file.
  it('a misspelt source root: line names the folder beside it', () => {
    const dir = layout();
    writeFileSync(join(dir, 'conf', 'x.yaml'), pipeline('../reprots', 'root: ../www'));
    const human = runCli(['distribute', 'run', '--config', 'conf/x.yaml'], { cwd: dir });
    expect(human.status).toBe(2);
    expect(human.stderr.toString()).toContain(
      "  = at: pipelines[0].source.root\n  = help: pipeline 'daily': root '../reprots' ('reprots' from the current folder): did you mean '../reports'?\n",
    );
    const json = runCli(['distribute', 'run', '--config', 'conf/x.yaml', '--json'], { cwd: dir });
    expect(JSON.parse(json.stdout.toString())).toMatchObject({
      reason_code: 'run_aborted',
      failures: [
        {
          reason_code: 'source_root_missing',
          hint: "pipeline 'daily': root '../reprots' ('reprots' from the current folder): did you mean '../reports'?",
        },
      ],
    });
  });

  it.each([
    [
      'root',
      'root: ../wwww',
      "root '../wwww' ('wwww' from the current folder) does not exist: did you mean '../www'?",
      'destination_root_unavailable',
    ],
    [
      'work_dir',
      'root: ../www, work_dir: ../wrok',
      "work_dir '../wrok' ('wrok' from the current folder) does not exist: did you mean '../work'?",
      'work_dir_unavailable',
    ],
  ])('a misspelt destination %s names the folder beside it', (_key, destination, said, code) => {
    const dir = layout();
    writeFileSync(join(dir, 'conf', 'x.yaml'), pipeline('../reports', destination));
    const human = runCli(['distribute', 'run', '--config', 'conf/x.yaml'], { cwd: dir });
    expect(human.status).toBe(2);
    expect(human.stderr.toString()).toContain(`  = help: destination 'site', bundle 'w22': ${said}\n`);
    const json = runCli(['distribute', 'run', '--config', 'conf/x.yaml', '--json'], { cwd: dir });
    expect(JSON.parse(json.stdout.toString())).toMatchObject({
      outcomes: [{ reason_code: code, hint: `destination 'site', bundle 'w22': ${said}` }],
    });
    // From the configuration's own folder the written path is the one shown, once.
    const inConf = runCli(['distribute', 'run', '--config', 'x.yaml'], { cwd: join(dir, 'conf') });
    expect(inConf.stderr.toString()).toContain(
      `  = help: destination 'site', bundle 'w22': ${said.replace(/ \('[a-z]+' from the current folder\)/, '')}\n`,
    );
  });

  it.each([[['verify', 'reprots/w22']], [['manifest', 'reprots/w22', '--id', 'w22']]])(
    'distribute %j under a misspelt folder names the bundle folder meant',
    (args) => {
      const dir = layout();
      const human = runCli(['distribute', ...args], { cwd: dir });
      expect(human.status).toBe(2);
      expect(human.stderr.toString()).toBe(
        [
          'error[bundle_dir_missing]: the bundle folder does not exist',
          '  --> reprots/w22',
          "  = help: no such bundle folder: did you mean 'reports/w22'?",
          '',
        ].join('\n'),
      );
      const json = runCli(['distribute', ...args, '--json'], { cwd: dir });
      expect(JSON.parse(json.stdout.toString())).toMatchObject({
        reason_code: 'bundle_dir_missing',
        hint: "no such bundle folder: did you mean 'reports/w22'?",
      });
    },
  );
});

describe('the progress line of an upload', () => {
  const apply = (done: number, total: number) =>
    progressLine(
      { phase: 'apply', done: 0, total: 1, destination_id: 'bucket', bytes_done: done, bytes_total: total },
      0,
      true,
    );

  it('regression: a bundle of many small files counts kilobytes, not 0.0/0.8 MB', () => {
    expect(apply(412_500, 830_200)).toBe('apply 0/1, 412.5/830.2 kB to destination bucket');
    expect(apply(0, 999_949)).toBe('apply 0/1, 0.0/999.9 kB to destination bucket');
  });

  it('counts megabytes from one megabyte on', () => {
    expect(apply(12_345_678, 20_000_000)).toBe('apply 0/1, 12.3/20.0 MB to destination bucket');
    expect(apply(0, 999_950)).toBe('apply 0/1, 0.0/1.0 MB to destination bucket');
  });

  it('regression: bytes that go back at one count say an upload is sent again (the count fell without a word)', () => {
    const at = (done: number, bytes: number): ProgressEvent => ({
      phase: 'apply',
      done,
      total: 2,
      destination_id: 'bucket',
      bytes_done: bytes,
      bytes_total: 230_900_000,
    });
    expect(sentAgain(at(0, 100_000_000), at(0, 120_000_000), false)).toBe(false);
    expect(sentAgain(at(0, 230_900_000), at(0, 200_000), false)).toBe(true);
    // Still said while the new attempt climbs back, until the count moves on.
    expect(sentAgain(at(0, 200_000), at(0, 134_400_000), true)).toBe(true);
    expect(sentAgain(at(0, 230_900_000), at(1, 230_900_000), true)).toBe(false);
    expect(sentAgain(undefined, at(0, 10), true)).toBe(false);
    expect(progressLine(at(0, 134_400_000), 0, true, true)).toBe(
      'apply 0/2, 134.4/230.9 MB to destination bucket (an upload failed and is sent again)',
    );
    expect(progressLine(at(0, 230_900_000), 12, false, true)).toBe(
      'apply 0/2, 230.9/230.9 MB sent, waiting 12 s for destination bucket (an upload failed and is sent again)',
    );
  });
});
