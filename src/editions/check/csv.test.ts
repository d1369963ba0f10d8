import { describe, expect, it } from 'vitest';
import { parseCsv, readCsv } from './csv.js';

const bytes = (text: string) => Buffer.from(text, 'utf8');

describe('the fixture CSV reader', () => {
  it('tells NULL (unquoted empty) from the empty string (quoted) and keeps whitespace', () => {
    expect(parseCsv(bytes('a,b,c\n,"","\t"\n" x ",y,\n'))).toEqual({
      columns: ['a', 'b', 'c'],
      rows: [
        [null, '', '\t'],
        [' x ', 'y', null],
      ],
    });
  });

  it('reads quoted commas, escaped quotes and line ends inside quotes, with LF or CRLF records', () => {
    expect(parseCsv(bytes('a,b\r\n"1,2","say ""hi""\nthere"\r\n'))).toEqual({
      columns: ['a', 'b'],
      rows: [['1,2', 'say "hi"\nthere']],
    });
    expect(parseCsv(bytes('a\nlast'))).toEqual({ columns: ['a'], rows: [['last']] });
  });

  it.each([
    ['an empty file', ''],
    ['a BOM', '\ufeffa\n1\n'],
    ['a ragged row', 'a,b\n1\n'],
    ['a blank line', 'a,b\n1,2\n\n'],
    ['a quote inside an unquoted field', 'a\nx"y\n'],
    ['an unterminated quote', 'a\n"open\n'],
    ['text after a closing quote', 'a\n"x"y\n'],
    ['a bare carriage return', 'a\r1\n'],
    ['a header that is not an identifier', 'a-b\n1\n'],
    ['an empty header field', 'a,\n1,2\n'],
    ['a repeated header (any case)', 'a,A\n1,2\n'],
  ])('refuses %s', (_label, text) => {
    expect(parseCsv(bytes(text))).toBeUndefined();
  });

  it('refuses bytes that are not UTF-8', () => {
    expect(parseCsv(Uint8Array.from([0x61, 0x0a, 0xff, 0x0a]))).toBeUndefined();
  });
});

describe('where the fixture CSV reader refuses', () => {
  it.each([
    [
      'a ragged row, by its line',
      'a,b\n1,2\n3\n',
      { line: 3, hint: 'this record has 1 field; the header has 2' },
    ],
    ['an unterminated quote, where it opens', 'a,b\n1,"open\n', { line: 2, column: 3 }],
    ['a quote inside an unquoted field', 'a\nx"y\n', { line: 2, column: 2 }],
    ['a repeated header', 'id,ID\n1,2\n', { line: 1, hint: "the column 'ID' is named twice in the header" }],
    ['a BOM', '\ufeffa\n1\n', { line: 1, column: 1 }],
  ])('%s', (_label, text, where) => {
    expect(readCsv(bytes(text))).toMatchObject({ ok: false, ...where });
  });

  it('gives the line of a record after a quoted field that spans lines', () => {
    expect(readCsv(bytes('a,b\n"x\ny",1\n2\n'))).toMatchObject({ ok: false, line: 4 });
  });
});
