import { describe, expect, it } from 'vitest';
import { Refusal } from '../../core/refusal/index.js';
import { parseManifest } from './manifest.js';

const SHA = `sha256:${'a'.repeat(64)}`;
const valid = {
  schema_version: 1,
  id: 'weather.daily',
  digest: SHA,
  created: '2026-05-30T11:10:00+02:00',
  files: [{ path: 'report.md', sha256: SHA, size: 12 }],
};

function codeOf(document: unknown): string | undefined {
  try {
    parseManifest(Buffer.from(typeof document === 'string' ? document : JSON.stringify(document)));
    return undefined;
  } catch (error: unknown) {
    if (error instanceof Refusal) return error.code;
    throw error;
  }
}

describe('source manifest', () => {
  it('reads the normalized model and ignores unknown fields', () => {
    const manifest = parseManifest(
      Buffer.from(JSON.stringify({ ...valid, producer: 'x', files: [{ ...valid.files[0], note: 1 }] })),
    );
    expect(manifest).toEqual({
      schema_version: 1,
      id: 'weather.daily',
      digest: SHA,
      created: '2026-05-30T09:10:00Z',
      files: [{ path: 'report.md', sha256: SHA, size: 12 }],
    });
  });

  it.each([
    ['not JSON', '{', 'manifest_not_json'],
    ['a duplicate key', '{"id":"a","id":"b"}', 'manifest_not_json'],
    ['an array', [], 'manifest_not_object'],
    ['schema_version 2', { ...valid, schema_version: 2 }, 'manifest_schema_version'],
    ['schema_version "1"', { ...valid, schema_version: '1' }, 'manifest_schema_version'],
    ['an empty id', { ...valid, id: '' }, 'manifest_id_invalid'],
    ['an uppercase digest', { ...valid, digest: SHA.toUpperCase() }, 'manifest_digest_invalid'],
    ['a bare hex digest', { ...valid, digest: 'a'.repeat(64) }, 'manifest_digest_invalid'],
    ['a date without time', { ...valid, created: '2026-05-30' }, 'manifest_created_invalid'],
    ['no files', { ...valid, files: [] }, 'manifest_files_invalid'],
    ['files not an array', { ...valid, files: {} }, 'manifest_files_invalid'],
    ['a file without size', { ...valid, files: [{ path: 'a', sha256: SHA }] }, 'manifest_size_invalid'],
    [
      'a fractional size',
      { ...valid, files: [{ path: 'a', sha256: SHA, size: 1.5 }] },
      'manifest_size_invalid',
    ],
    ['a negative size', { ...valid, files: [{ path: 'a', sha256: SHA, size: -1 }] }, 'manifest_size_invalid'],
    [
      'a short sha256',
      { ...valid, files: [{ path: 'a', sha256: 'sha256:ab', size: 1 }] },
      'manifest_sha256_invalid',
    ],
    ['a numeric path', { ...valid, files: [{ path: 7, sha256: SHA, size: 1 }] }, 'manifest_file_invalid'],
    ['an absolute path', { ...valid, files: [{ path: '/x', sha256: SHA, size: 1 }] }, 'path_absolute'],
    ['a .. path', { ...valid, files: [{ path: '../x', sha256: SHA, size: 1 }] }, 'path_dotdot'],
    [
      'manifest.json listed',
      { ...valid, files: [{ path: 'manifest.json', sha256: SHA, size: 1 }] },
      'path_reserved',
    ],
    ['a duplicate path', { ...valid, files: [valid.files[0], valid.files[0]] }, 'path_duplicate'],
    [
      'NFC/NFD twins',
      {
        ...valid,
        files: [
          { path: 'caf\u00e9.md', sha256: SHA, size: 1 },
          { path: 'cafe\u0301.md', sha256: SHA, size: 1 },
        ],
      },
      'path_unicode_twin',
    ],
  ])('refuses %s', (_label, document, code) => {
    expect(codeOf(document)).toBe(code);
  });

  const refusalOf = (text: string): Refusal => {
    try {
      parseManifest(Buffer.from(text));
    } catch (error: unknown) {
      if (error instanceof Refusal) return error;
    }
    throw new Error('accepted');
  };
  const withText = (edit: (text: string) => string): string => edit(JSON.stringify(valid));

  it.each([
    [
      'schema_version 1.0',
      (t: string) => t.replace('"schema_version":1', '"schema_version":1.0'),
      'manifest_schema_version',
      'schema_version',
      'write 1, not 1.0: sealkit reads an integer only when it is written as one',
    ],
    [
      'schema_version 1e0',
      (t: string) => t.replace('"schema_version":1', '"schema_version":1e0'),
      'manifest_schema_version',
      'schema_version',
      'write 1, not 1e0: sealkit reads an integer only when it is written as one',
    ],
    [
      'size 12.0',
      (t: string) => t.replace('"size":12', '"size":12.0'),
      'manifest_size_invalid',
      'files[0].size',
      'write 12, not 12.0: sealkit reads an integer only when it is written as one',
    ],
  ])(
    'refuses %s as a documented strictness choice, saying what to write',
    (_label, edit, code, pointer, hint) => {
      // JSON's data model equates 1.0 with 1; sealkit does not rewrite a
      // producer's numbers (docs/distributor.md#source-bundles).
      const refusal = refusalOf(withText(edit));
      expect([refusal.code, refusal.location?.pointer, refusal.hint]).toEqual([code, pointer, hint]);
    },
  );

  it.each([
    ['blank', '   ', 'the id is empty, or only white space'],
    ['a tab and a newline only', '\t\n', 'the id is empty, or only white space'],
    [
      'a line break',
      'weekly\nreport',
      'the id holds a control character (a tab, a line break, an escape...)',
    ],
    ['an escape', 'weekly\u001b[31m', 'the id holds a control character (a tab, a line break, an escape...)'],
    ['a C1 control', 'weekly\u0085', 'the id holds a control character (a tab, a line break, an escape...)'],
    ['DEL', 'weekly\u007f', 'the id holds a control character (a tab, a line break, an escape...)'],
  ])('refuses an id that is %s (regression: only the empty string was refused)', (_label, id, hint) => {
    const refusal = refusalOf(JSON.stringify({ ...valid, id }));
    expect([refusal.code, refusal.location?.pointer, refusal.hint]).toEqual([
      'manifest_id_invalid',
      'id',
      hint,
    ]);
  });

  it('regression: a manifest that is not strict JSON says what the parser found, not only where', () => {
    const refusalOf = (text: string): Refusal | undefined => {
      try {
        parseManifest(Buffer.from(text));
      } catch (error: unknown) {
        if (error instanceof Refusal) return error;
        throw error;
      }
      return undefined;
    };
    const duplicate = refusalOf('{"id":"a",\n "id":"b"}');
    expect([duplicate?.code, duplicate?.location, duplicate?.hint]).toEqual([
      'manifest_not_json',
      { line: 2, column: 2 },
      'this key is first set on line 1, column 2; keep one of the two',
    ]);
    // The fixed text of the parser's code, never the document's bytes.
    expect(refusalOf('{"secret_zq": tru}')?.hint).not.toContain('secret_zq');
  });

  it('regression: a refusal gives the line and column of the value in manifest.json (was the key path only)', () => {
    const text = `${JSON.stringify({ ...valid, created: 'yesterday', files: [{ ...valid.files[0], size: -1 }] }, null, 2)}\n`;
    const refusal = refusalOf(text);
    expect([refusal, ...refusal.also].map((one) => [one.code, one.location, one.hint])).toEqual([
      [
        'manifest_created_invalid',
        { pointer: 'created', line: 5, column: 14 },
        'write an RFC 3339 timestamp with its time zone, such as "2026-05-30T11:10:00Z" or "2026-05-30T13:10:00+02:00"',
      ],
      [
        'manifest_size_invalid',
        { pointer: 'files[0].size', line: 10, column: 15 },
        'a size is a whole number of bytes, 0 or more',
      ],
    ]);
  });

  it('regression: a missing key says so, at the key it was most likely misspelt as, with did you mean (was "the id is a JSON string")', () => {
    const text = [
      '{',
      '  "schema_version": 1,',
      '  "ident": "weather.daily",',
      `  "digest": "${SHA}",`,
      '  "creatd": "2026-05-30T11:10:00Z",',
      `  "files": [{"path": "report.md", "sha256": "${SHA}"}]`,
      '}',
    ].join('\n');
    const refusal = refusalOf(text);
    expect([refusal, ...refusal.also].map((one) => [one.code, one.location, one.hint])).toEqual([
      [
        'manifest_id_invalid',
        { pointer: 'id', line: 3, column: 3 },
        "'id' is missing, and 'ident' is not a key a manifest has: did you mean 'id'?",
      ],
      [
        'manifest_created_invalid',
        { pointer: 'created', line: 5, column: 3 },
        "'created' is missing, and 'creatd' is not a key a manifest has: did you mean 'created'?",
      ],
      [
        'manifest_size_invalid',
        { pointer: 'files[0].size', line: 6, column: 13 },
        "'size' is missing from files[0]: add \"size\": the file's size in bytes, an integer",
      ],
    ]);
    // Without a near key, at the object that lacks it, with what to add.
    const bare = refusalOf(JSON.stringify({ ...valid, id: undefined, producer: 'x' }));
    expect([bare.location, bare.hint]).toEqual([
      { pointer: 'id', line: 1, column: 1 },
      '\'id\' is missing: add "id": a string naming the bundle, such as "weather.2026-05-30"',
    ]);
  });

  it('keeps an id with inner spaces and non-ASCII letters as written', () => {
    expect(parseManifest(Buffer.from(JSON.stringify({ ...valid, id: ' Brentwood — daily ' }))).id).toBe(
      ' Brentwood — daily ',
    );
  });
});
