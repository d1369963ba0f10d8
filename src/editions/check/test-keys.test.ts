import { describe, expect, it } from 'vitest';
import { entriesWithBothTestKeys } from './test-keys.js';
import { parseYaml } from './yaml.js';

const nodeOf = (text: string) => {
  const parsed = parseYaml(text);
  if (!parsed.ok) throw new Error('the fixture does not parse');
  return parsed.node;
};

describe('entriesWithBothTestKeys', () => {
  it('finds every entry that takes tests with both keys, at the later one', () => {
    const node = nodeOf(
      [
        'version: 2',
        'models:',
        '  - name: m',
        '    tests: [a]',
        '    data_tests: [b]',
        '    versions:',
        '      - v: 1',
        '        columns:',
        '          - name: c',
        '            data_tests: [x]',
        '            tests: [y]',
        'sources:',
        '  - name: s',
        '    tables:',
        '      - name: t',
        '        columns:',
        '          - name: k',
        '            tests: [not_null]',
        '            data_tests: [unique]',
        '',
      ].join('\n'),
    );
    expect(entriesWithBothTestKeys(node)).toEqual([
      { line: 5, column: 5, pointer: 'models[0].data_tests', key: 'data_tests', empty: false },
      { line: 11, column: 13, pointer: 'models[0].versions[0].columns[0].tests', key: 'tests', empty: false },
      {
        line: 19,
        column: 13,
        pointer: 'sources[0].tables[0].columns[0].data_tests',
        key: 'data_tests',
        empty: false,
      },
    ]);
  });

  it("follows dbt-core's two rules: a version entry too; an empty tests: beside data_tests: passes", () => {
    const node = nodeOf(
      [
        'models:',
        '  - name: m',
        '    versions:',
        '      - v: 2',
        '        tests: [a]',
        '        data_tests: []',
        '  - name: n',
        '    tests: []',
        '    data_tests: [b]',
        'sources:',
        '  - name: s',
        '    tables:',
        '      - name: t',
        '        tests: [not_null]',
        '        data_tests: []',
        '',
      ].join('\n'),
    );
    // A version with tests: and any data_tests: is refused (and deleting the empty key is the fix);
    // a model's empty tests: is not; a source table needs tests in both.
    expect(entriesWithBothTestKeys(node)).toEqual([
      { line: 6, column: 9, pointer: 'models[0].versions[0].data_tests', key: 'data_tests', empty: true },
    ]);
  });

  it("leaves one key alone, and the operator's own keys under meta:", () => {
    const node = nodeOf(
      [
        'models:',
        '  - name: m',
        '    data_tests: [a]',
        '    meta: {tests: 1, data_tests: 2}',
        '    columns:',
        '      - name: c',
        '        tests: [b]',
        '',
      ].join('\n'),
    );
    expect(entriesWithBothTestKeys(node)).toEqual([]);
  });
});
