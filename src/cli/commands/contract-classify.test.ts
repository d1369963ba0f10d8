import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../test/helpers/cli.js';
import { scanForSentinels } from '../../../test/helpers/sentinels.js';
import { exampleGolden, exampleProject, filesOf } from '../../contracts/fixtures/resources.js';
import { contractProjectFromFiles } from '../../contracts/index.js';

const golden = (id: string) => join(exampleGolden(), 'resources', `${id}.json`);

describe('sealkit contract classify', () => {
  let dir: string;
  let widened: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sealkit-cli-classify-'));
    // The example's orders source with a wider amount and a new version, projected by the real pipeline.
    const source = readFileSync(join(exampleGolden(), '..', 'retail', 'sources', 'orders.yaml'), 'utf8')
      .replace('type: decimal(12,2)', 'type: decimal(14,2)')
      .replace('version: 1.3.0', 'version: 1.4.0');
    const project = await contractProjectFromFiles(filesOf({ 'orders.yaml': source }));
    widened = join(dir, 'widened.json');
    writeFileSync(widened, project.project('retail.source.orders').bytes);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('prints the verdict and every change (path, rule, verdict)', () => {
    const run = runCli(['contract', 'classify', golden('retail.source.orders'), widened]);
    expect(run.status).toBe(0);
    expect(run.stdout.toString('utf8')).toBe(
      [
        'Source retail.source.orders 1.3.0 → 1.4.0: widening',
        '  widening    field_type_widened  content.fields[amount].type',
        '  compatible  version_changed     contract.version',
        '',
      ].join('\n'),
    );
    const json = JSON.parse(
      runCli(['contract', 'classify', '--json', golden('retail.source.orders'), widened]).stdout.toString(
        'utf8',
      ),
    );
    expect(json).toEqual({
      status: 'ok',
      resource: { kind: 'Source', id: 'retail.source.orders' },
      baseline: { version: '1.3.0', compatibility: 'backward' },
      candidate: { version: '1.4.0', compatibility: 'backward' },
      verdict: 'widening',
      changes: [
        { path: 'content.fields[amount].type', rule: 'field_type_widened', verdict: 'widening' },
        { path: 'contract.version', rule: 'version_changed', verdict: 'compatible' },
      ],
    });
  });

  it('--fail-on exits 2 at or above its level, 0 below it, and prints the report either way', () => {
    const classify = (...flags: string[]) =>
      runCli(['contract', 'classify', golden('retail.source.orders'), widened, ...flags]);
    const widening = classify('--fail-on', 'widening');
    expect(widening.status).toBe(2);
    expect(widening.stdout.toString('utf8')).toMatch(
      /^Source retail\.source\.orders 1\.3\.0 → 1\.4\.0: widening\n/,
    );
    expect(widening.stderr.toString('utf8')).toMatch(/^error\[contract_classify_fail_on_reached\]: /);
    expect(classify('--fail-on', 'compatible').status).toBe(2);
    const breaking = classify('--fail-on', 'breaking');
    expect(breaking.status).toBe(0);
    expect(breaking.stderr.toString('utf8')).toBe('');
    const json = classify('--fail-on', 'widening', '--json');
    expect(json.status).toBe(2);
    expect(JSON.parse(json.stdout.toString('utf8'))).toMatchObject({
      status: 'failed',
      verdict: 'widening',
      fail_on: 'widening',
    });
    const same = runCli([
      'contract',
      'classify',
      golden('retail.source.orders'),
      golden('retail.source.orders'),
      '--fail-on',
      'compatible',
    ]);
    expect(same.status).toBe(0);
    expect(classify('--fail-on', 'major').status).toBe(1);
    // Regression: the value given was not named, nor the level meant.
    const typo = classify('--fail-on', 'widen');
    expect(typo.status).toBe(1);
    expect(typo.stderr.toString('utf8')).toMatch(
      /^sealkit: --fail-on takes compatible, widening or breaking, not 'widen'\n {2}= help: did you mean 'widening'\?\n/,
    );
  });

  it('regression: a verdict at --fail-on is refused in the error[code] form, not a bare line', () => {
    const run = runCli([
      'contract',
      'classify',
      golden('retail.source.orders'),
      widened,
      '--fail-on',
      'widening',
    ]);
    expect(run.status).toBe(2);
    expect(run.stderr.toString('utf8')).toBe(
      [
        'error[contract_classify_fail_on_reached]: the verdict of the change is at or above the level --fail-on names',
        `  --> ${widened}`,
        '  = help: verdict widening is at or above --fail-on widening',
        '',
      ].join('\n'),
    );
    // The candidate read from standard input is named as such.
    const piped = runCli(
      ['contract', 'classify', golden('retail.source.orders'), '-', '--fail-on', 'compatible'],
      { input: readFileSync(widened) },
    );
    expect(piped.status).toBe(2);
    expect(piped.stderr.toString('utf8')).toContain('  --> <stdin>\n');
  });

  it('regression: --json of a verdict at --fail-on carries the reason code beside the whole report', () => {
    const run = runCli([
      'contract',
      'classify',
      golden('retail.source.orders'),
      widened,
      '--fail-on',
      'compatible',
      '--json',
    ]);
    expect(run.status).toBe(2);
    expect(run.stderr.toString('utf8')).toBe('');
    const [line, ...rest] = run.stdout.toString('utf8').split('\n');
    expect(rest).toEqual(['']);
    expect(JSON.parse(line ?? '')).toEqual({
      status: 'failed',
      resource: { kind: 'Source', id: 'retail.source.orders' },
      baseline: { version: '1.3.0', compatibility: 'backward' },
      candidate: { version: '1.4.0', compatibility: 'backward' },
      verdict: 'widening',
      changes: [
        { path: 'content.fields[amount].type', rule: 'field_type_widened', verdict: 'widening' },
        { path: 'contract.version', rule: 'version_changed', verdict: 'compatible' },
      ],
      fail_on: 'compatible',
      reason_code: 'contract_classify_fail_on_reached',
      category: 'conflict',
      message: 'the verdict of the change is at or above the level --fail-on names',
      location: { path: widened },
      hint: 'verdict widening is at or above --fail-on compatible',
    });
  });

  it('reads one side from standard input and says identical for equal bytes', () => {
    const bytes = readFileSync(golden('retail.model.order_facts'));
    const run = runCli(['contract', 'classify', golden('retail.model.order_facts'), '-'], { input: bytes });
    expect(run.status).toBe(0);
    expect(run.stdout.toString('utf8')).toBe('Model retail.model.order_facts 1.1.0 → 1.1.0: identical\n');
  });

  it('refuses projections of two different resources', () => {
    const run = runCli([
      'contract',
      'classify',
      '--json',
      golden('retail.source.orders'),
      golden('retail.source.customers'),
    ]);
    expect(run.status).toBe(2);
    expect(JSON.parse(run.stdout.toString('utf8'))).toMatchObject({
      status: 'refused',
      reason_code: 'contract_classify_resource_mismatch',
    });
  });

  it('refuses a file that is not a canonical projection without printing what it holds', () => {
    const sentinel = 'zq_sentinel_field_name';
    const text = readFileSync(golden('retail.source.orders'), 'utf8').replace(
      '"name":"amount"',
      `"name":"${sentinel}"`,
    );
    const pretty = join(dir, 'pretty.json');
    writeFileSync(pretty, JSON.stringify(JSON.parse(text), null, 2));
    for (const args of [
      ['contract', 'classify', pretty, golden('retail.source.orders')],
      ['contract', 'classify', '--json', pretty, golden('retail.source.orders')],
    ]) {
      const run = runCli(args);
      expect(run.status).toBe(2);
      expect(`${run.stdout}${run.stderr}`).toContain('contract_projection_not_canonical');
      // Which of the two files, as given; never what it holds.
      expect(`${run.stdout}${run.stderr}`).toContain(pretty);
      expect(scanForSentinels(run, [], [sentinel])).toEqual([]);
    }
    const unsorted = join(dir, 'unsorted.json');
    writeFileSync(unsorted, text);
    const run = runCli(['contract', 'classify', '--json', golden('retail.source.orders'), unsorted]);
    expect(JSON.parse(run.stdout.toString('utf8'))).toMatchObject({
      reason_code: 'contract_projection_not_canonical',
      role: 'candidate',
    });
    expect(scanForSentinels(run, [], [sentinel])).toEqual([]);
  });

  it('regression: a projection that is not JSON is refused at its file, line and column', () => {
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '{"a":');
    const run = runCli(['contract', 'classify', golden('retail.source.orders'), broken]);
    expect(run.status).toBe(2);
    expect(run.stderr.toString('utf8')).toBe(
      'error[contract_projection_malformed]: the bytes are not a leapview.contract/v1 projection in the closed representation\n' +
        `  --> ${broken}:1:6\n` +
        '  = help: not strict JSON (json_malformed): the document ends before its value is complete\n',
    );
  });

  it('regression: a resource YAML file or the index.json given instead of a projection is named as what it is', () => {
    const yaml = join(exampleProject(), 'sources', 'orders.yaml');
    const fromYaml = runCli(['contract', 'classify', yaml, golden('retail.source.orders')]);
    expect(fromYaml.status).toBe(2);
    expect(fromYaml.stderr.toString('utf8')).toContain(
      "  = help: this is a resource file of a contract project (YAML), not a projection: classify compares the JSON files that 'sealkit contract project DIR --out OUT' writes under OUT/resources/\n",
    );
    const index = join(exampleGolden(), 'index.json');
    const fromIndex = runCli(['contract', 'classify', '--json', golden('retail.source.orders'), index]);
    expect(fromIndex.status).toBe(2);
    expect(JSON.parse(fromIndex.stdout.toString('utf8'))).toMatchObject({
      reason_code: 'contract_projection_malformed',
      location: { path: index },
      hint: "this index.json lists the projections 'sealkit contract project --out' wrote: classify takes one of the files under resources/ beside it",
    });
  });

  it('refuses a missing file and rejects a wrong command line', () => {
    const missing = runCli(['contract', 'classify', join(dir, 'nope.json'), widened]);
    expect(missing.status).toBe(2);
    expect(missing.stderr.toString('utf8')).toContain(
      `error[input_missing]: the input file does not exist\n  --> ${join(dir, 'nope.json')}\n`,
    );
    expect(runCli(['contract', 'classify', widened]).status).toBe(1);
    expect(runCli(['contract', 'classify', '-', '-']).status).toBe(1);
    expect(runCli(['contract', 'classify', widened, widened, widened]).status).toBe(1);
  });

  it('a misspelt baseline or candidate names the file beside it, human and --json', () => {
    for (const [args, given] of [
      [['widend.json', 'widened.json'], 'widend.json'],
      [['widened.json', 'widened.jsno'], 'widened.jsno'],
    ] as const) {
      const human = runCli(['contract', 'classify', ...args], { cwd: dir });
      expect(human.status).toBe(2);
      expect(human.stderr.toString('utf8')).toBe(
        `error[input_missing]: the input file does not exist\n  --> ${given}\n  = help: did you mean 'widened.json'?\n`,
      );
      const json = runCli(['contract', 'classify', '--json', ...args], { cwd: dir });
      expect(json.status).toBe(2);
      expect(JSON.parse(json.stdout.toString('utf8'))).toMatchObject({
        reason_code: 'input_missing',
        location: { path: given },
        hint: "did you mean 'widened.json'?",
      });
    }
  });
});
