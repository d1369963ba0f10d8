import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EDITION_PROJECTS } from '../../../test/helpers/edition-trees.js';
import { parseYaml } from './yaml.js';

describe('strict YAML for dbt files and --vars', () => {
  it('reads one mapping', () => {
    expect(parseYaml('{enable_migration_models: true, n: 2}')).toEqual({
      ok: true,
      value: { enable_migration_models: true, n: 2 },
    });
  });

  it.each([
    ['a repeated key', 'a: 1\na: 2\n'],
    ['two documents', 'a: 1\n---\nb: 2\n'],
    ['an unknown tag', 'a: !secret x\n'],
    ['a BOM', '\ufeffa: 1\n'],
    ['a syntax error', 'a: [1, 2\n'],
  ])('refuses %s', (_label, text) => {
    expect(parseYaml(text).ok).toBe(false);
    expect(parseYaml(Buffer.from(text, 'utf8')).ok).toBe(false);
  });

  it('refuses bytes that are not UTF-8', () => {
    expect(parseYaml(Uint8Array.from([0x61, 0x3a, 0x20, 0xff])).ok).toBe(false);
  });
});

describe('the edition macros', () => {
  it.each(['starter_cast.sql', 'starter_key_policy.sql'])(
    '%s is the same in both editions but for the dispatch namespace (the scaffolder relies on it)',
    (file) => {
      const bigquery = readFileSync(join(EDITION_PROJECTS.bigquery, 'macros', file), 'utf8');
      const snowflake = readFileSync(join(EDITION_PROJECTS.snowflake, 'macros', file), 'utf8');
      expect(bigquery).toContain("'retail_analytics'");
      expect(snowflake.replaceAll("'reliable_pipeline'", "'retail_analytics'")).toBe(bigquery);
    },
  );
});
