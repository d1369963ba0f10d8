import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { scanBytes, scanForLocatedDetail, scanForSentinels } from './sentinels.js';

describe('sentinel scan', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sealkit-sentinel-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('finds a sentinel in stdout, stderr, file contents and file names', () => {
    mkdirSync(join(dir, 'out'));
    writeFileSync(join(dir, 'out', 'a.txt'), 'prefix SECRET_TABLE_ZQ suffix');
    writeFileSync(join(dir, 'out', 'leak_pathname_zq.json'), '{}');
    const hits = scanForSentinels(
      { stdout: 'ok SECRET_TABLE_ZQ', stderr: 'error at /home/leak_pathname_zq' },
      [join(dir, 'out')],
      ['SECRET_TABLE_ZQ', 'leak_pathname_zq'],
    );
    const where = hits.map((h) => `${h.sentinel}@${h.where}`);
    expect(where).toContain('SECRET_TABLE_ZQ@stdout');
    expect(where).toContain('leak_pathname_zq@stderr');
    expect(where.some((w) => w.startsWith('SECRET_TABLE_ZQ@') && w.endsWith('a.txt'))).toBe(true);
    expect(where.some((w) => w.includes('name leak_pathname_zq.json'))).toBe(true);
  });

  it('finds escaped, encoded and case-changed forms', () => {
    const sentinel = 'Kundé_Tabelle_😀';
    const json = JSON.stringify({ t: sentinel });
    const escaped = '"Kund\\u00e9_Tabelle_\\ud83d\\ude00"';
    const encodings = (text: string) =>
      scanBytes([{ label: 'x', bytes: text }], [sentinel]).map((h) => h.encoding);
    expect(encodings(json)).toContain('utf8');
    expect(encodings(escaped)).toContain('unicode-escaped');
    expect(encodings(encodeURIComponent(sentinel))).toContain('percent');
    expect(encodings(Buffer.from(sentinel).toString('base64'))).toContain('base64');
    expect(encodings('KUNDé_TABELLE_😀')).toContain('utf8, case-folded');
  });

  it('reports nothing for clean output', () => {
    writeFileSync(join(dir, 'clean.txt'), 'status refused reason json_duplicate_key');
    expect(scanForSentinels({ stdout: '', stderr: 'refused' }, [dir], ['SECRET_TABLE_ZQ'])).toEqual([]);
  });

  it('refuses sentinels too short to be meaningful', () => {
    expect(() => scanBytes([{ label: 'x', bytes: 'abc' }], ['ab'])).toThrow();
  });
});

describe('located-detail scan', () => {
  const marks = (stdout: string, stderr = ''): string[] =>
    scanForLocatedDetail({ stdout, stderr }).map((hit) => `${hit.sentinel}@${hit.where}`);

  it('finds every mark of a located refusal, human and --json', () => {
    const human =
      'error[json_malformed]: the document is not well-formed JSON\n  --> data/orders.json:3:14\n  = at: fields[3].nulable\n  = help: expected a value\n';
    expect(marks('', human)).toEqual(
      expect.arrayContaining(['-->@stderr', '= help@stderr', '= at:@stderr', 'name:line:column@stderr']),
    );
    const json = JSON.stringify({
      reason_code: 'json_malformed',
      location: { path: 'a.json', line: 3, column: 14, pointer: 'a' },
      hint: 'x',
    });
    expect(marks(json)).toEqual(
      expect.arrayContaining([
        'location member@stdout',
        'hint member@stdout',
        'line member@stdout',
        'column member@stdout',
        'pointer member@stdout',
      ]),
    );
    expect(marks('  --> line 3, column 14')).toEqual(
      expect.arrayContaining(['line N@stdout', 'column N@stdout']),
    );
    expect(marks('refused in mapping.json:3')).toEqual(['name:line:column@stdout']);
  });

  it('passes a private refusal and a clock time', () => {
    const human =
      'error[scaffold_input_malformed]: the input is not a strict UTF-8 JSON object\n  = field: tables[].cast\n';
    const json =
      '{"status":"refused","reason_code":"scaffold_input_malformed","role":"mapping","at":"2025-03-14T09:26:53Z"}';
    expect(marks(json, human)).toEqual([]);
  });
});
