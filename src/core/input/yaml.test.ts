import { describe, expect, it } from 'vitest';
import { defineRefusals, type Refusal } from '../refusal/index.js';
import {
  duplicateKeyHint,
  faultPlaceHint,
  plainOf,
  readStrictYaml,
  type YamlFault,
  type YamlFaultPlace,
} from './yaml.js';

const refuseDemo = defineRefusals<'demo_yaml'>({ demo_yaml: { category: 'malformed', message: 'bad yaml' } });

interface Seen {
  readonly fault: YamlFault;
  readonly place: YamlFaultPlace;
}

function faultOf(input: string | Uint8Array): Seen {
  let seen: Seen | undefined;
  const refuse = (fault: YamlFault, place: YamlFaultPlace): Refusal => {
    seen = { fault, place };
    return refuseDemo('demo_yaml', { location: place });
  };
  expect(() => readStrictYaml(input, { refuse, maxDepth: 4 })).toThrow('bad yaml');
  if (seen === undefined) throw new Error('no fault reported');
  return seen;
}

const refuse = (): Refusal => refuseDemo('demo_yaml');

describe('the strict YAML reader', () => {
  it('says where a string is written as it is: a literal block, a plain scalar on one line', () => {
    const text = [
      'block: |',
      '  select a',
      '    from t',
      'stripped: |-',
      '   x',
      'plain: one two',
      'quoted: "one"',
      'folded: >',
      '  a',
      'indicated: |2',
      '    x',
      'opens_empty: |',
      '',
      '  x',
      'plain_lines: one',
      '  two',
      '',
    ].join('\n');
    const node = readStrictYaml(text, { refuse });
    if (node.kind !== 'map') throw new Error('expected a mapping');
    const written = Object.fromEntries(
      node.entries.map((entry) => [
        entry.key,
        entry.value.kind === 'string' ? entry.value.written : 'not a string',
      ]),
    );
    expect(written).toEqual({
      block: { line: 2, column: 3 },
      stripped: { line: 5, column: 4 },
      plain: { line: 6, column: 8 },
      quoted: undefined,
      folded: undefined,
      indicated: undefined,
      opens_empty: undefined,
      plain_lines: undefined,
    });
  });

  it('keeps the line and column of every key and value', () => {
    const node = readStrictYaml('pipelines:\n  - id: weekly\n    source: {root: reports}\n', { refuse });
    expect(node.kind).toBe('map');
    if (node.kind !== 'map') return;
    const [pipelines] = node.entries;
    expect(pipelines?.keyAt).toEqual({ line: 1, column: 1 });
    const list = pipelines?.value;
    if (list?.kind !== 'seq') throw new Error('expected a list');
    const first = list.items[0];
    if (first?.kind !== 'map') throw new Error('expected a mapping');
    expect(first.entries.map((e) => [e.key, e.keyAt])).toEqual([
      ['id', { line: 2, column: 5 }],
      ['source', { line: 3, column: 5 }],
    ]);
    expect(plainOf(node)).toEqual({ pipelines: [{ id: 'weekly', source: { root: 'reports' } }] });
  });

  it('reads YAML 1.2 core scalars: yes stays a string, numbers keep their lexeme', () => {
    const node = readStrictYaml('a: yes\nb: 1.50\nc: true\nd:\n', { refuse });
    expect(plainOf(node)).toEqual({ a: 'yes', b: 1.5, c: true, d: null });
    if (node.kind !== 'map') throw new Error('expected a mapping');
    expect(node.entries[1]?.value).toMatchObject({ kind: 'number', source: '1.50' });
  });

  it('reports every repeated key at once, in document order, then a fault that stops the reading', () => {
    const places: YamlFaultPlace[] = [];
    const collect = (fault: YamlFault, place: YamlFaultPlace): Refusal => {
      places.push(place);
      return refuseDemo('demo_yaml', { location: place, hint: fault });
    };
    const all = (input: string) => {
      places.length = 0;
      try {
        readStrictYaml(input, { refuse: collect });
      } catch (error: unknown) {
        return error as Refusal;
      }
      throw new Error('accepted');
    };
    const twice = all('a: 1\nb:\n  c: 2\n  c: 3\na: 4\n');
    expect([twice.location, ...twice.also.map((other) => other.location)]).toMatchObject([
      { line: 4, pointer: 'b.c' },
      { line: 5, pointer: 'a' },
    ]);
    const thenAlias = all('a: 1\na: 2\nb: *x\n');
    expect([thenAlias.hint, ...thenAlias.also.map((other) => other.hint)]).toEqual([
      'duplicate_key',
      'alias',
    ]);
  });

  it('refuses a duplicate key at the repeated key, with its key path and where it is first set', () => {
    expect(faultOf('a: 1\nb: 2\na: 3\n')).toEqual({
      fault: 'duplicate_key',
      place: { line: 3, column: 1, pointer: 'a', duplicate: { key: 'a', first: { line: 1, column: 1 } } },
    });
    const nested = faultOf('columns:\n  - name: id\n    type: int\n    name: key\n');
    expect(nested).toEqual({
      fault: 'duplicate_key',
      place: {
        line: 4,
        column: 5,
        pointer: 'columns[0].name',
        duplicate: { key: 'name', first: { line: 2, column: 5 } },
      },
    });
    expect(duplicateKeyHint(nested.place)).toBe("'name' is first set on line 2; keep one of the two");
    const flow = faultOf('{a: 1, "a": 2}');
    expect(flow.place).toMatchObject({ line: 1, column: 8, pointer: 'a' });
    expect(duplicateKeyHint(flow.place)).toBe("'a' is first set on line 1, column 2; keep one of the two");
    expect(duplicateKeyHint({ line: 1 })).toBeUndefined();
  });

  it('refuses anchors, aliases and tags where they are written, with the key path', () => {
    expect(faultOf('base: &b {x: 1}\n')).toMatchObject({
      fault: 'alias',
      place: { line: 1, pointer: 'base' },
    });
    expect(faultOf('a: !!str 1\n')).toMatchObject({ fault: 'tag', place: { line: 1, pointer: 'a' } });
    expect(faultOf('list:\n  - !custom x\n')).toMatchObject({ fault: 'tag' });
  });

  it('regression: gives where a tag or an anchor is written, not only the value it is on', () => {
    expect(faultOf('kind: !!str Source\n').place).toMatchObject({
      line: 1,
      column: 13,
      pointer: 'kind',
      prop: { line: 1, column: 7 },
    });
    expect(faultOf('a:\n  - &q\n    3\n').place).toMatchObject({ prop: { line: 2, column: 5 } });
    expect(faultOf('{a: 1, !!str b: 2}').place).toMatchObject({ prop: { line: 1, column: 8 } });
  });

  it('refuses a second document, a directive, a key that is not a string and deep nesting', () => {
    expect(faultOf('a: 1\n---\nb: 2\n')).toMatchObject({ fault: 'multiple_documents', place: { line: 2 } });
    expect(faultOf('%YAML 1.2\n---\na: 1\n').fault).toBe('directive');
    expect(faultOf('1: x\n').fault).toBe('key_not_string');
    expect(faultOf('a: {b: {c: {d: {e: 1}}}}\n')).toMatchObject({
      fault: 'too_deep',
      place: { pointer: 'a.b.c.d' },
    });
  });

  it('regression: a document nested far past the bound is too deep where the bound is crossed, not malformed', () => {
    const deepest = (text: string) => {
      let seen: Seen | undefined;
      const refuse = (fault: YamlFault, place: YamlFaultPlace): Refusal => {
        seen = { fault, place };
        return refuseDemo('demo_yaml', { location: place });
      };
      expect(() => readStrictYaml(text, { refuse, maxDepth: 32 })).toThrow('bad yaml');
      return seen;
    };
    // Flow brackets, 100,000 deep: the 32nd bracket opens level 33.
    expect(deepest(`tags: ${'['.repeat(100_000)}${']'.repeat(100_000)}\nnext: 1\n`)).toEqual({
      fault: 'too_deep',
      place: { line: 1, column: 38, pointer: `tags${'[0]'.repeat(31)}` },
    });
    // Compact block sequences, 100,000 deep, closed at once by the next key: the
    // parser itself runs out of stack there, so the lines are read instead.
    expect(deepest(`tags:\n  ${'- '.repeat(100_000)}x\nnext: 1\n`)).toEqual({
      fault: 'too_deep',
      place: { line: 2, column: 65 },
    });
    // Block mappings, one level per line.
    const lines = [
      'top:',
      ...Array.from({ length: 1_200 }, (_, i) => `${' '.repeat(i + 1)}k${i}:`),
      'next: 1',
    ];
    expect(deepest(`${lines.join('\n')}\n`)).toEqual({
      fault: 'too_deep',
      place: {
        line: 33,
        column: 33,
        pointer: `top.${Array.from({ length: 31 }, (_, i) => `k${i}`).join('.')}`,
      },
    });
    // At the bound exactly, nothing is refused.
    const at = readStrictYaml(`a: ${'['.repeat(31)}${']'.repeat(31)}\n`, { refuse, maxDepth: 32 });
    expect(at.kind).toBe('map');
  });

  it('refuses malformed YAML with the position of the fault', () => {
    expect(faultOf('a: [1, 2\nb: 3\n')).toMatchObject({
      fault: 'malformed',
      place: { line: expect.any(Number) },
    });
    expect(faultOf('a: "unterminated\n').fault).toBe('malformed');
  });

  it.each([
    ['a tab indents a key', 'a:\n\tb: 1\n', { line: 2, column: 1 }, 'a tab indents this line'],
    ['a quote is not closed', 'a: "x\n', { line: 2 }, 'a quote or bracket opened above is not closed'],
    ['keys of one mapping do not line up', 'a:\n  b: 1\n c: 2\n', { line: 3 }, 'the indentation is off here'],
    [
      'a key is indented under the value above it',
      'entities:\n  - name: order\n     type: primary\n',
      { line: 3, column: 6 },
      'indented deeper than the key above it',
    ],
    [
      'a key has lost its colon',
      'entities:\n  - name order\n    type: primary\n',
      { line: 2, column: 5 },
      'a colon and a space are missing',
    ],
    [
      'a key is one space short of its siblings',
      'list:\n  - id: a\n    kind: local\n   root: site\n',
      { line: 4, column: 4 },
      'out of line with its siblings',
    ],
    [
      'a nested key is one space short of its siblings',
      'pipelines:\n  - id: x\n    source:\n      root: r\n   destinations: []\n',
      { line: 5, column: 4 },
      'out of line with its siblings',
    ],
    [
      'a key is one space deeper than its siblings',
      'list:\n  - id: a\n    kind: local\n     root: site\n',
      { line: 4, column: 6 },
      'indented deeper than the key above it',
    ],
    [
      'a list item is out of line with the items above it',
      'list:\n  - id: a\n    kind: local\n   - id: b\n',
      { line: 4, column: 4 },
      'out of line with its siblings',
    ],
    [
      'a list item is one space deeper than the items above it',
      'list:\n  - id: a\n    kind: local\n     - id: b\n',
      { line: 4, column: 6 },
      'indented deeper than the key above it',
    ],
    [
      'the first line is indented and the next top-level key is not',
      ' version: 2\n\nmodels:\n  - name: a\n',
      { line: 1, column: 2 },
      'the first line of the file is indented',
    ],
    [
      'a list item starts in the column of the keys above it',
      'a: 1\n- b\n',
      { line: 2, column: 1 },
      'a list item starts here in the column of the keys',
    ],
    // regression: these were told that the indentation is off
    [
      'a bracket is closed by the other kind on one line',
      'a: {b: [1, }\n',
      { line: 1, column: 12 },
      'a quote or bracket opened on line 1 is not closed before here: close [ with ] and { with }',
    ],
    [
      'a bracket is never closed and the next key follows',
      'a: [1, 2\nb: 3\n',
      { line: 2, column: 1 },
      'a quote or bracket opened on line 1 is not closed before here',
    ],
  ])('says what to fix, in fixed words, when %s', (_what, text, place, advice) => {
    const seen = faultOf(text);
    expect(seen.fault).toBe('malformed');
    expect(seen.place).toMatchObject(place);
    expect(faultPlaceHint(seen.place)).toContain(advice);
    // Never the document's own text: the parser's message is not passed on.
    expect(faultPlaceHint(seen.place)).not.toMatch(/\bb: 1|"x/);
  });

  it.each([
    ['a Markdown fence pasted above the document', '```yaml\npipelines: []\n'],
    ['a reserved character starting the first key', '@x: 1\n'],
  ])('regression: %s is placed at line 1, column 1 with advice (the place was lost)', (_what, text) => {
    const seen = faultOf(text);
    expect(seen.fault).toBe('malformed');
    expect(seen.place).toMatchObject({ line: 1, column: 1 });
    expect(faultPlaceHint(seen.place)).toContain('a plain value cannot start with this character');
  });

  it('regression: a key out of line with no quote or bracket open is not advised to close one', () => {
    const seen = faultOf('list:\n  - id: a\n    kind: local\n   root: site\n    outputs: x\n');
    expect(seen.place).toMatchObject({ line: 4, column: 4 });
    expect(faultPlaceHint(seen.place)).not.toContain('quote');
  });

  it('regression: a text block line indented less than its first is said so, at its text (advised to close a bracket, at column 1)', () => {
    const seen = faultOf('kind: Model\nsql: |\n    select 1\n   where true\nfields: []\n');
    expect(seen.fault).toBe('malformed');
    expect(seen.place).toMatchObject({ line: 4, column: 4 });
    expect(faultPlaceHint(seen.place)).toContain(
      'every line of a text block (after | or >) is indented at least as deep as its first line',
    );
    expect(faultPlaceHint(seen.place)).not.toContain('bracket');
  });

  it('keeps the advice about an open quote or bracket when one is open above', () => {
    const seen = faultOf('a:\n  b: [1, 2\n  c: 3\n');
    expect(faultPlaceHint(seen.place)).toMatch(/bracket/);
    const quoted = faultOf("a:\n  b: 'x\n c: 3\n");
    expect(faultPlaceHint(quoted.place)).toMatch(/quote/);
  });

  it('refuses a BOM and ill-formed UTF-8 with their position', () => {
    expect(faultOf('\ufeffa: 1\n')).toEqual({ fault: 'not_utf8', place: { line: 1, column: 1 } });
    const bytes = new Uint8Array([...new TextEncoder().encode('a: 1\nb: '), 0xfe]);
    expect(faultOf(bytes)).toEqual({ fault: 'not_utf8', place: { line: 2, column: 4 } });
  });

  it('reads an empty document as null', () => {
    expect(readStrictYaml('', { refuse })).toMatchObject({ kind: 'null' });
    expect(readStrictYaml('# only a comment\n', { refuse })).toMatchObject({ kind: 'null' });
  });
});
