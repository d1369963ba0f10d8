import { describe, expect, it } from 'vitest';
import { defineRefusals, refuseAll } from '../core/refusal/index.js';
import { counted, formatRefusal, refusalJson } from './output.js';

const refuseDemo = defineRefusals<'demo_unknown_key' | 'demo_missing'>({
  demo_unknown_key: { category: 'malformed', message: 'a resource file has a key sealkit does not know' },
  demo_missing: { category: 'missing', message: 'the input file does not exist' },
});

const located = refuseDemo('demo_unknown_key', {
  role: 'contract',
  location: { path: 'retail/sources/orders.yaml', line: 14, column: 5, pointer: 'fields[3].nulable' },
  hint: "did you mean 'nullable'?",
});

describe('the refusal formatter', () => {
  it('prints code and message, then where, the key path and the hint', () => {
    expect(formatRefusal(located, 'located')).toBe(
      [
        'error[demo_unknown_key]: a resource file has a key sealkit does not know',
        '  --> retail/sources/orders.yaml:14:5',
        '  = at: fields[3].nulable',
        "  = help: did you mean 'nullable'?",
        '',
      ].join('\n'),
    );
  });

  it('prints a bare position when no file is known', () => {
    const refusal = refuseDemo('demo_unknown_key', { location: { line: 2, column: 7 } });
    expect(formatRefusal(refusal, 'located')).toBe(
      'error[demo_unknown_key]: a resource file has a key sealkit does not know\n  --> line 2, column 7\n',
    );
  });

  it('regression: a private refusal names its input role and field path, which is all there is', () => {
    const refusal = refuseDemo('demo_missing', { role: 'mapping', field: 'tables[].cast' });
    expect(formatRefusal(refusal, 'private')).toBe(
      'error[demo_missing]: the input file does not exist\n  = in: mapping\n  = field: tables[].cast\n',
    );
  });

  it('never shows a location or a hint for a private command, in either form', () => {
    const human = formatRefusal(located, 'private');
    const json = JSON.stringify(refusalJson(located, 'private'));
    for (const text of [human, json]) {
      expect(text).not.toContain('orders.yaml');
      expect(text).not.toContain('nulable');
      expect(text).not.toContain('nullable');
      expect(text).toContain('demo_unknown_key');
    }
  });

  it('prints every listed error, then how many more there were', () => {
    const errors = Array.from({ length: 52 }, (_, i) =>
      refuseDemo('demo_unknown_key', { location: { path: 'a.yaml', line: i + 1, column: 1 } }),
    );
    const text = formatRefusal(refuseAll(errors), 'located');
    expect(text.split('\n').filter((line) => line.startsWith('error[demo_unknown_key]'))).toHaveLength(50);
    expect(text).toContain('  --> a.yaml:50:1\n');
    expect(text).not.toContain('a.yaml:51:1');
    expect(text.endsWith('... and 2 more errors\n')).toBe(true);
  });

  it('gives --json the location object and the hint, absent fields omitted', () => {
    expect(refusalJson(located, 'located')).toEqual({
      reason_code: 'demo_unknown_key',
      category: 'malformed',
      message: 'a resource file has a key sealkit does not know',
      role: 'contract',
      location: { path: 'retail/sources/orders.yaml', line: 14, column: 5, pointer: 'fields[3].nulable' },
      hint: "did you mean 'nullable'?",
    });
    expect(refusalJson(refuseDemo('demo_missing'), 'located')).toEqual({
      reason_code: 'demo_missing',
      category: 'missing',
      message: 'the input file does not exist',
    });
  });
});

describe('counted', () => {
  it('says 1 file and 2 files, also for bigint sizes', () => {
    expect(counted(1, 'file')).toBe('1 file');
    expect(counted(0, 'file')).toBe('0 files');
    expect(counted(2n, 'byte')).toBe('2 bytes');
    expect(counted(1n, 'byte')).toBe('1 byte');
    expect(counted(3, 'entry', 'entries')).toBe('3 entries');
  });
});
