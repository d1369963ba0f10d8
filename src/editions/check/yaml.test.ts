import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EDITION_PROJECTS } from '../../../test/helpers/edition-trees.js';
import { parseYaml, placeIn } from './yaml.js';

describe('strict YAML for dbt files and --vars', () => {
  it('reads one mapping', () => {
    expect(parseYaml('{enable_migration_models: true, n: 2}')).toMatchObject({
      ok: true,
      value: { enable_migration_models: true, n: 2 },
    });
  });

  it.each([
    ['a repeated key', 'a: 1\na: 2\n', 'duplicate_key', { line: 2, column: 1 }],
    ['two documents', 'a: 1\n---\nb: 2\n', 'multiple_documents', { line: 2 }],
    ['an unknown tag', 'a: !secret x\n', 'tag', { line: 1 }],
    ['a BOM', '\ufeffa: 1\n', 'not_utf8', { line: 1, column: 1 }],
    ['a syntax error', 'a: [1, 2\n', 'malformed', {}],
    ['tab indentation', 'a:\n\tb: 1\n', 'malformed', { line: 2 }],
    ['an anchor and alias', 'a: &x 1\nb: *x\n', 'alias', { line: 1 }],
  ])('refuses %s, saying where', (_label, text, fault, place) => {
    for (const input of [text, Buffer.from(text, 'utf8')]) {
      const parsed = parseYaml(input);
      expect(parsed).toMatchObject({ ok: false, fault, place });
    }
  });

  it('refuses bytes that are not UTF-8, at the byte', () => {
    expect(parseYaml(Uint8Array.from([0x61, 0x3a, 0x20, 0xff]))).toEqual({
      ok: false,
      fault: 'not_utf8',
      place: { line: 1, column: 4 },
    });
  });

  it('places a value by key path: the key of a mapping entry, the item of a list', () => {
    const parsed = parseYaml('models:\n  - name: a\n    columns:\n      - name: b\n');
    if (!parsed.ok) throw new Error('expected a document');
    expect(placeIn(parsed.node, ['models', 0, 'columns', 0, 'name'])).toEqual({
      line: 4,
      column: 9,
      pointer: 'models[0].columns[0].name',
    });
    // A path that leaves the document stops at the deepest node that exists.
    expect(placeIn(parsed.node, ['models', 0, 'nulable'])).toEqual({
      line: 2,
      column: 5,
      pointer: 'models[0].nulable',
    });
  });
});

describe('the shipped editions', () => {
  it('use no YAML anchors or aliases (the strict reader refuses them)', () => {
    for (const project of Object.values(EDITION_PROJECTS)) {
      for (const path of yamlFiles(project)) expect(parseYaml(readFileSync(path)).ok, path).toBe(true);
    }
  });
});

function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => /\.ya?ml$/.test(name))
    .map((name) => join(dir, name));
}

describe('the edition macros', () => {
  it.each(['starter_cast.sql', 'starter_key_policy.sql'])(
    '%s is the same in both editions and dispatches without a namespace (the scaffolder relies on it; a renamed project keeps working)',
    (file) => {
      const bigquery = readFileSync(join(EDITION_PROJECTS.bigquery, 'macros', file), 'utf8');
      const snowflake = readFileSync(join(EDITION_PROJECTS.snowflake, 'macros', file), 'utf8');
      expect(snowflake).toBe(bigquery);
      const dispatches = [...bigquery.matchAll(/adapter\.dispatch\(([^)]*)\)/g)].map((match) => match[1]);
      expect(dispatches.length).toBeGreaterThan(0);
      for (const args of dispatches) expect(args).toMatch(/^'[a-z_]+'$/);
    },
  );
});
