import { describe, expect, it } from 'vitest';
import { defineRefusals } from '../refusal/index.js';
import { readClosedRecord } from './record.js';
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
      { required: ['source', 'html'], optional: ['assets'] },
      ['pipelines', 0, 'destinations', 1, 'outputs'],
    );
    expect(record.problems).toEqual([
      {
        kind: 'unknown_key',
        key: 'htm',
        pointer: 'pipelines[0].destinations[1].outputs.htm',
        at: { line: 2, column: 1 },
        hint: "did you mean 'html'?",
      },
      {
        kind: 'unknown_key',
        key: 'colour',
        pointer: 'pipelines[0].destinations[1].outputs.colour',
        at: { line: 3, column: 1 },
      },
      {
        kind: 'missing_key',
        key: 'html',
        pointer: 'pipelines[0].destinations[1].outputs.html',
        at: { line: 1, column: 1 },
      },
    ]);
  });

  it('quotes a key that is not identifier-shaped in the path', () => {
    const record = readClosedRecord(map('"cost center": 1\n'), { required: [] }, ['labels']);
    expect(record.problems[0]).toMatchObject({ pointer: 'labels["cost center"]' });
  });
});
