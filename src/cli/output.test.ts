import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { defineRefusals, refuseAll, toRefusal } from '../core/refusal/index.js';
import type { CliIo } from './command.js';
import { counted, formatRefusal, refusalJson, reportFailure } from './output.js';

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

describe('an internal error, as the CLI reports it', () => {
  /** A real failed system call: its text names the path, which must not be shown. */
  const failedRead = (): unknown => {
    try {
      readFileSync('/nonexistent/secret_schema_zq.json');
    } catch (error) {
      return error;
    }
    throw new Error('the read did not fail');
  };
  const reported = (error: unknown, json: boolean, disclosure: 'located' | 'private') => {
    let stdout = '';
    let stderr = '';
    const io = {
      stdout: {
        write: (text: string) => {
          stdout += text;
          return true;
        },
      },
      stderr: {
        write: (text: string) => {
          stderr += text;
          return true;
        },
      },
    } as unknown as CliIo;
    reportFailure(io, error, json, disclosure);
    return { stdout, stderr };
  };

  it('regression: names the kind of the defect, never its text (said only "an internal error")', () => {
    // Through a library boundary, which keeps the kind in the refusal, and raw.
    const guarded = toRefusal(failedRead());
    for (const error of [guarded, failedRead()]) {
      const human = reported(error, false, 'located');
      expect(human.stderr).toBe(
        'error[internal_error]: sealkit hit an internal error; nothing was published by the failing step\n' +
          '  = note: Error ENOENT: a defect of sealkit, not of the input; report it with the command that gave it\n',
      );
      expect(JSON.parse(reported(error, true, 'located').stdout)).toEqual({
        status: 'internal_error',
        reason_code: 'internal_error',
        message: 'sealkit hit an internal error; nothing was published by the failing step',
        error_kind: 'Error ENOENT',
      });
    }
    expect(reported(new TypeError('x is secret_schema_zq'), false, 'located').stderr).toContain(
      '  = note: TypeError: a defect',
    );
    // A class name that is not a plain identifier is not shown as it is.
    const odd = new Error('m');
    odd.name = 'secret_schema_zq.json';
    const oddJson = reported(odd, true, 'located').stdout;
    expect(JSON.parse(oddJson).error_kind).toBe('Error');
    expect(oddJson).not.toContain('secret_schema');
  });

  it('under the private policy, says the fixed message alone', () => {
    expect(reported(failedRead(), false, 'private').stderr).toBe(
      'error[internal_error]: sealkit hit an internal error; nothing was published by the failing step\n',
    );
    expect(JSON.parse(reported(failedRead(), true, 'private').stdout)).not.toHaveProperty('error_kind');
  });
});
