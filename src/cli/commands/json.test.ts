import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../test/helpers/cli.js';
import { scanForSentinels } from '../../../test/helpers/sentinels.js';

describe('sealkit json', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sealkit-cli-json-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('prints the RFC 8785 form of a file with no trailing newline', () => {
    writeFileSync(
      join(dir, 'doc.json'),
      '{ "b": [1e21, 0.1, -0], "a": "\\u00e9\\u2028", "€": 1, "\\ud83d\\ude00": 2 }',
    );
    const run = runCli(['json', 'canonicalize', join(dir, 'doc.json')]);
    expect(run.status).toBe(0);
    expect(run.stdout.toString('utf8')).toBe('{"a":"é\u2028","b":[1e+21,0.1,0],"€":1,"😀":2}');
    expect(run.stderr.length).toBe(0);
  });

  it('reads standard input and prints the Python-compatible form with --python', () => {
    const run = runCli(['json', 'canonicalize', '--python', '-'], {
      input: '{"€":1,"😀":2,"big":123456789012345678901234567890}',
    });
    expect(run.status).toBe(0);
    // Python sorts by code point: U+20AC before U+1F600; RFC 8785 by UTF-16 unit the other way round.
    expect(run.stdout.toString('utf8')).toBe('{"big":123456789012345678901234567890,"€":1,"😀":2}');
  });

  it('prints the SHA-256 of the canonical bytes', () => {
    const canonical = runCli(['json', 'canonicalize'], { input: '{"b":1,"a":2}' }).stdout;
    const run = runCli(['json', 'digest'], { input: '{"b":1,"a":2}' });
    expect(run.status).toBe(0);
    expect(run.stdout.toString()).toBe(`${createHash('sha256').update(canonical).digest('hex')}\n`);
    const empty = runCli(['json', 'digest', '--python'], { input: '{}' });
    expect(empty.stdout.toString()).toBe(
      '44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a\n',
    );
  });

  it('gives one JSON object with --json', () => {
    const run = runCli(['json', 'digest', '--json'], { input: '[1,2]' });
    expect(run.status).toBe(0);
    const out = JSON.parse(run.stdout.toString()) as Record<string, unknown>;
    expect(out).toMatchObject({ status: 'ok', form: 'rfc8785', bytes: 5 });
    expect(out.sha256).toBe(createHash('sha256').update('[1,2]').digest('hex'));
  });

  it('refuses with exit 2 and a fixed reason code, leaking no key or value', () => {
    const planted = '{"SECRET_COLUMN_ZQ": "VALUE_ZQ_1", "SECRET_COLUMN_ZQ": 2}';
    writeFileSync(join(dir, 'customer_schema_zq.json'), planted);
    const path = join(dir, 'customer_schema_zq.json');
    const human = runCli(['json', 'canonicalize', path]);
    expect(human.status).toBe(2);
    expect(human.stdout.length).toBe(0);
    expect(human.stderr.toString()).toBe('error[json_duplicate_key]: a JSON object repeats a key\n');
    const json = runCli(['json', 'digest', '--json', path]);
    expect(json.status).toBe(2);
    expect(JSON.parse(json.stdout.toString())).toMatchObject({
      status: 'refused',
      reason_code: 'json_duplicate_key',
    });
    for (const run of [human, json]) {
      expect(
        scanForSentinels(run, [], ['SECRET_COLUMN_ZQ', 'VALUE_ZQ_1', 'customer_schema_zq', dir]),
      ).toEqual([]);
    }
  });

  it.each([
    ['a BOM', Buffer.from('\ufeff{}'), 'json_not_utf8'],
    ['invalid UTF-8', Buffer.from([0x7b, 0xff, 0x7d]), 'json_not_utf8'],
    ['trailing data', Buffer.from('{} {}'), 'json_trailing_data'],
    ['a lone surrogate', Buffer.from('["\\ud800"]'), 'json_lone_surrogate'],
    ['malformed JSON', Buffer.from('{"a":}'), 'json_malformed'],
  ])('refuses %s', (_label, input, code) => {
    const run = runCli(['json', 'canonicalize', '--json'], { input });
    expect(run.status).toBe(2);
    expect(JSON.parse(run.stdout.toString())).toMatchObject({ status: 'refused', reason_code: code });
  });

  it('refuses floats in the Python-compatible form', () => {
    const run = runCli(['json', 'canonicalize', '--python', '--json'], { input: '{"a":1.5}' });
    expect(run.status).toBe(2);
    expect(JSON.parse(run.stdout.toString())).toMatchObject({ reason_code: 'canonical_float_refused' });
  });

  it('bounds the input size before parsing', () => {
    const atBound = runCli(['json', 'digest', '--max-bytes', '7'], { input: '[1,2,3]' });
    expect(atBound.status).toBe(0);
    const over = runCli(['json', 'digest', '--max-bytes', '6', '--json'], { input: '[1,2,3]' });
    expect(over.status).toBe(2);
    expect(JSON.parse(over.stdout.toString())).toMatchObject({ reason_code: 'json_too_large' });
  });

  it('refuses a missing file and a directory without naming them', () => {
    const missing = runCli(['json', 'digest', join(dir, 'absent_zq.json')]);
    expect(missing.status).toBe(2);
    expect(missing.stderr.toString()).toContain('error[input_missing]');
    expect(missing.stderr.toString()).not.toContain('absent_zq');
    const directory = runCli(['json', 'digest', dir]);
    expect(directory.status).toBe(2);
    expect(directory.stderr.toString()).toContain('error[input_not_regular]');
  });

  it('treats an unknown flag or a surplus argument as a usage error that writes nothing', () => {
    const before = readdirSync(dir);
    const unknown = runCli(['json', 'canonicalize', '--update', join(dir, 'x.json')]);
    expect(unknown.status).toBe(1);
    expect(unknown.stdout.length).toBe(0);
    expect(unknown.stderr.toString()).toContain('unknown option --update');
    const surplus = runCli(['json', 'digest', 'a', 'b', '--json']);
    expect(surplus.status).toBe(1);
    expect(JSON.parse(surplus.stdout.toString())).toMatchObject({ status: 'usage_error' });
    expect(runCli(['json', 'digest', '--max-bytes', 'lots']).status).toBe(1);
    expect(readdirSync(dir)).toEqual(before);
  });
});

describe('sealkit', () => {
  it('prints help and version', () => {
    const help = runCli(['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout.toString()).toContain('sealkit json canonicalize');
    const sub = runCli(['json', 'canonicalize', '--help']);
    expect(sub.status).toBe(0);
    expect(sub.stdout.toString()).toContain('Usage: sealkit json canonicalize');
    const version = runCli(['--version']);
    expect(version.status).toBe(0);
    expect(version.stdout.toString()).toMatch(/^\d+\.\d+\.\d+\n$/);
  });

  it('refuses an unknown command as a usage error', () => {
    const run = runCli(['frobnicate']);
    expect(run.status).toBe(1);
    expect(run.stderr.toString()).toContain('unknown command');
  });
});
