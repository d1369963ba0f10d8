import { describe, expect, it } from 'vitest';
import { defineRefusals } from '../refusal/index.js';
import { locateIssues, readClosedRecord } from './record.js';
import { readStrictYaml, type YamlMapNode } from './yaml.js';

const refuseDemo = defineRefusals<'demo_yaml'>({ demo_yaml: { category: 'malformed', message: 'bad yaml' } });

function map(text: string): YamlMapNode {
  const node = readStrictYaml(text, { refuse: () => refuseDemo('demo_yaml') });
  if (node.kind !== 'map') throw new Error('expected a mapping');
  return node;
}

describe('the closed-record reader', () => {
  it('accepts exactly the required and optional keys', () => {
    const record = readClosedRecord(map('source: true\nhtml: false\n'), { required: ['source', 'html'] }, [
      'outputs',
    ]);
    expect(record.problems).toEqual([]);
    expect([...record.fields.keys()]).toEqual(['source', 'html']);
  });

  it('reports every unknown key with its path, position and the nearest allowed key, and every missing key', () => {
    const record = readClosedRecord(
      map('source: true\nhtm: true\ncolour: red\n'),
      { required: ['source', 'html', 'kind'], optional: ['assets'] },
      ['pipelines', 0, 'destinations', 1, 'outputs'],
    );
    expect(record.problems).toEqual([
      {
        kind: 'unknown_key',
        key: 'htm',
        path: ['pipelines', 0, 'destinations', 1, 'outputs', 'htm'],
        pointer: 'pipelines[0].destinations[1].outputs.htm',
        at: { line: 2, column: 1 },
        hint: "did you mean 'html'?",
      },
      {
        kind: 'unknown_key',
        key: 'colour',
        path: ['pipelines', 0, 'destinations', 1, 'outputs', 'colour'],
        pointer: 'pipelines[0].destinations[1].outputs.colour',
        at: { line: 3, column: 1 },
        hint: 'allowed keys here: source, html, kind, assets',
      },
      // `html` is not reported missing: `htm` is that key misspelt, one typo.
      {
        kind: 'missing_key',
        key: 'kind',
        path: ['pipelines', 0, 'destinations', 1, 'outputs', 'kind'],
        pointer: 'pipelines[0].destinations[1].outputs.kind',
        at: { line: 1, column: 1 },
        hint: "add 'kind'",
      },
    ]);
  });

  it('does not list the allowed keys of a large mapping', () => {
    const many = Array.from({ length: 13 }, (_, index) => `key_${index}`);
    const record = readClosedRecord(map('zzz: 1\n'), { required: [], optional: many }, []);
    expect(record.problems).toEqual([
      { kind: 'unknown_key', key: 'zzz', path: ['zzz'], pointer: 'zzz', at: { line: 1, column: 1 } },
    ]);
  });
});

describe('placing the issues a schema validator found', () => {
  const root = readStrictYaml(
    'models:\n  - name: orders\n    columns: a string\n    descripton: x\n  - nme: items\n',
    { refuse: () => refuseDemo('demo_yaml') },
  );

  it('puts an unknown key at the key, a missing key at its mapping and a mistyped value at the value', () => {
    const problems = locateIssues(root, [
      { kind: 'wrong_type', path: ['models', 0, 'columns'], expected: ['list'] },
      {
        kind: 'unknown_key',
        path: ['models', 0],
        key: 'descripton',
        allowed: ['name', 'description', 'columns'],
      },
      { kind: 'unknown_key', path: ['models', 1], key: 'nme', allowed: ['name', 'description', 'columns'] },
      { kind: 'missing_key', path: ['models', 1], key: 'name' },
      { kind: 'missing_key', path: ['models', 1], key: 'columns' },
    ]);
    expect(problems.map((problem) => [problem.pointer, problem.at, problem.hint])).toEqual([
      ['models[0].columns', { line: 3, column: 14 }, 'expected a list, found a string'],
      ['models[0].descripton', { line: 4, column: 5 }, "did you mean 'description'?"],
      ['models[1].nme', { line: 5, column: 5 }, "did you mean 'name'?"],
      ['models[1].columns', { line: 5, column: 5 }, "add 'columns'"],
    ]);
  });

  it('words several accepted kinds, and places what it cannot find at the nearest node', () => {
    const [problem] = locateIssues(root, [
      {
        kind: 'wrong_type',
        path: ['models', 0, 'columns'],
        expected: ['string', 'integer', 'list', 'number'],
      },
    ]);
    expect(problem?.hint).toBe('expected a string, a list or a number, found a string');
    const [lost] = locateIssues(root, [{ kind: 'wrong_type', path: ['models', 3], expected: ['mapping'] }]);
    expect(lost).toMatchObject({
      pointer: 'models[3]',
      at: { line: 2, column: 3 },
      hint: 'expected a mapping',
    });
    expect(locateIssues(null, [{ kind: 'missing_key', path: [], key: 'name' }])).toEqual([
      {
        kind: 'missing_key',
        key: 'name',
        path: ['name'],
        pointer: 'name',
        at: { line: 1, column: 1 },
        hint: "add 'name'",
      },
    ]);
  });
});

describe('the closed-record reader, continued', () => {
  it('quotes a key that is not identifier-shaped in the path', () => {
    const record = readClosedRecord(map('"cost center": 1\n'), { required: [] }, ['labels']);
    expect(record.problems[0]).toMatchObject({ pointer: 'labels["cost center"]' });
  });
});
